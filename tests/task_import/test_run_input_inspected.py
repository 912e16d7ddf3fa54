"""A look at a raw task folder says what the run will read (hunt of session 32): a course's
``X_train.csv`` / ``y_train.csv`` / ``X_test.csv``, ``.npz`` arrays, LIBSVM rows and one
``data.csv`` with a ``split`` column are converted by the run before its layout is read, but
``offline.inspect_task`` read the folder as it is and said "no training table" (or took
``X_train.csv`` for the training table and asked for its target).  It now inspects the copy the
run makes (``importer.run_input``), made in a temporary folder: the user's folder is unchanged.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mlestar_jupyter.offline import inspect_task
from mlestar_jupyter.task import load_task


def _course(root: Path) -> None:
    rs = np.random.RandomState(4)
    x = pd.DataFrame({"alcohol": rs.rand(40) + 11, "malic_acid": rs.rand(40), "ash": rs.rand(40)})
    y = pd.Series(rs.randint(0, 3, 40), name="class")
    x.iloc[:30].to_csv(root / "X_train.csv", index=False)
    y.iloc[:30].to_csv(root / "y_train.csv", index=False)
    x.iloc[30:].to_csv(root / "X_test.csv", index=False)
    (root / "README.md").write_text(
        "# Assignment 3: wine cultivars\n\nTrain on X_train.csv and y_train.csv, then predict "
        "the class of every row of X_test.csv, in the same order. Metric: accuracy.\n"
    )


def _npz(root: Path) -> None:
    rs = np.random.RandomState(6)
    np.savez(
        root / "digits.npz",
        X_train=rs.rand(30, 4),
        y_train=rs.randint(0, 3, 30),
        X_test=rs.rand(10, 4),
    )
    (root / "README.md").write_text(
        "# Digits\n\nPredict the digit of each X_test row. Metric: accuracy.\n"
    )


def _libsvm(root: Path) -> None:
    from sklearn.datasets import dump_svmlight_file

    rs = np.random.RandomState(8)
    x, y = rs.rand(40, 5), rs.randint(0, 2, 40)
    dump_svmlight_file(x[:30], y[:30], str(root / "train.svm"))
    dump_svmlight_file(x[30:], np.zeros(10), str(root / "test.svm"))
    (root / "README.md").write_text(
        "# Tumours\n\nLIBSVM files. Predict the probability of label 1. Metric: ROC AUC.\n"
    )


def _split(root: Path) -> None:
    rs = np.random.RandomState(7)
    df = pd.DataFrame({"id": range(40), "alcohol": rs.rand(40) + 11})
    df["cultivar"] = rs.randint(0, 3, 40).astype(float)
    df["split"] = ["train"] * 30 + ["test"] * 10
    df.loc[df.split == "test", "cultivar"] = np.nan
    df.sample(frac=1, random_state=1).to_csv(root / "data.csv", index=False)
    (root / "README.md").write_text(
        "# Wine\n\n`data.csv` holds all rows; the `split` column says train or test. Predict "
        "the cultivar of the test rows. Metric: accuracy.\n"
    )


@pytest.mark.parametrize(
    ("make", "seen"),
    [
        (_course, ("train.csv", "test.csv", "class", None)),
        (_libsvm, ("train.csv", "test.csv", "label", None)),
        (_split, ("train.csv", "test.csv", "cultivar", "id")),
    ],
    ids=["course", "libsvm", "split-column"],
)
def test_raw_table_folders_read_as_the_run_reads_them(tmp_path: Path, make, seen) -> None:  # type: ignore[no-untyped-def]
    data = tmp_path / "assignment"
    data.mkdir()
    make(data)
    before = sorted(p.name for p in data.iterdir())
    layout = inspect_task(load_task(data))
    assert (layout.train_table, layout.test_table, layout.label_col, layout.id_col) == seen
    assert sorted(p.name for p in data.iterdir()) == before


def test_npz_arrays_read_as_the_run_reads_them(tmp_path: Path) -> None:
    data = tmp_path / "digits"
    data.mkdir()
    _npz(data)
    layout = inspect_task(load_task(data))
    assert layout.npy_files == {
        "X_train": "X_train.npy",
        "y_train": "y_train.npy",
        "X_test": "X_test.npy",
    }
    assert sorted(p.name for p in data.iterdir()) == ["README.md", "digits.npz"]


def test_a_folder_needing_no_conversion_reads_as_it_is(tmp_path: Path) -> None:
    rs = np.random.RandomState(0)
    df = pd.DataFrame({"id": range(40), "a": rs.randn(40)})
    df["y"] = (df.a > 0).astype(int)
    df.iloc[:30].to_csv(tmp_path / "train.csv", index=False)
    df.iloc[30:].drop(columns="y").to_csv(tmp_path / "test.csv", index=False)
    (tmp_path / "README.md").write_text("# Signs\n\nTarget: y\n\nMetric: accuracy.\n")
    layout = inspect_task(load_task(tmp_path))
    assert (layout.train_table, layout.label_col, layout.id_col) == ("train.csv", "y", "id")
