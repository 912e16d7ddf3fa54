"""Tables saved in numbered parts, as people publish big ones: ``train_1.csv`` ... beside
``test.csv``, Hugging Face's ``train-00000-of-00002.parquet``, and a ``train/`` folder of
``part-0000N.csv`` files as Spark writes one.

Before: the run read ``train_1.csv`` alone (a third of the rows) and said of the other parts
"not read: it holds the target"; a README beside ``train/part-*.csv`` was refused with
"sample_submission.csv missing and the description names no 'Target: <column>' line"."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mlestar_jupyter.importer.table_parts import numbered_parts, parts_as_tables
from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.layout import inspect_task

README = (
    "# Tumour diagnosis\n\nThe training rows are split over several files. Predict `malignant` "
    "(0/1) for each row of `test.csv`.\n\nEvaluation: ROC AUC. Submit `patient_id,malignant`.\n"
)


def _cancer() -> pd.DataFrame:
    from sklearn.datasets import load_breast_cancer

    frame = load_breast_cancer(as_frame=True).frame.rename(columns={"target": "malignant"})
    frame.columns = [c.replace(" ", "_") for c in frame.columns]
    frame.insert(0, "patient_id", range(10000, 10000 + len(frame)))
    return frame.sample(frac=1.0, random_state=0).reset_index(drop=True)


def _folder(root: Path, parts: list[str], frame: pd.DataFrame | None = None) -> pd.DataFrame:
    frame = _cancer() if frame is None else frame
    train, test = frame.iloc[:420], frame.iloc[420:]
    root.mkdir(parents=True)
    for i, name in enumerate(parts):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        part = train.iloc[i * len(train) // len(parts) : (i + 1) * len(train) // len(parts)]
        if name.endswith(".parquet"):
            part.to_parquet(root / name, index=False)
        else:
            part.to_csv(root / name, index=False)
    test.drop(columns="malignant").to_csv(root / "test.csv", index=False)
    (root / "README.md").write_text(README)
    return train


def test_numbered_parts_in_their_numbers_order(tmp_path: Path) -> None:
    names = [f"train_{k}.csv" for k in (1, 2, 10)]
    train = _folder(tmp_path / "t", names)
    parts = numbered_parts(tmp_path / "t")
    assert [p.name for p in parts["train"]] == names  # train_2 before train_10
    assert "test" not in parts  # test.csv is whole
    task = parts_as_tables(load_task(tmp_path / "t"), tmp_path / "copy")
    assert task is not None and task.input_dir == tmp_path / "copy"
    gathered = pd.read_csv(tmp_path / "copy" / "train.csv")
    assert gathered["patient_id"].tolist() == train["patient_id"].tolist()
    assert not (tmp_path / "copy" / "train_2.csv").exists()  # no part left to warn about
    assert (tmp_path / "copy" / "test.csv").is_symlink()
    layout = inspect_task(task)
    assert layout.train_table == "train.csv" and layout.label_col == "malignant"
    assert any("numbered parts" in n for n in task.notices)


@pytest.mark.parametrize(
    "names",
    [
        ["train-00000-of-00002.parquet", "train-00001-of-00002.parquet"],  # Hugging Face
        ["train_part1.csv", "train_part2.csv"],
        ["train-1.csv", "train-2.csv", "train-3.csv"],
    ],
)
def test_other_ways_of_numbering_parts(tmp_path: Path, names: list[str]) -> None:
    _folder(tmp_path / "t", names)
    assert [p.name for p in numbered_parts(tmp_path / "t")["train"]] == names


def test_tables_that_only_look_numbered_are_left_alone(tmp_path: Path) -> None:
    frame = _cancer()
    _folder(tmp_path / "whole", ["train.csv", "train_2.csv"], frame)  # a whole train.csv
    assert numbered_parts(tmp_path / "whole") == {}
    _folder(tmp_path / "differ", ["train_1.csv", "train_2.csv"], frame)
    part = pd.read_csv(tmp_path / "differ" / "train_2.csv").drop(columns="mean_radius")
    part.to_csv(tmp_path / "differ" / "train_2.csv", index=False)  # other columns: no part
    assert numbered_parts(tmp_path / "differ") == {}


@pytest.mark.parametrize(
    "names",
    [
        ["train-00000-of-00001.parquet", "validation-00000-of-00001.parquet"],
        ["train.csv", "valid.csv"],
        ["train_1.csv", "train_2.csv", "dev.csv"],
    ],
)
def test_a_validation_split_joins_the_training_rows(tmp_path: Path, names: list[str]) -> None:
    """A Hugging Face download's ``validation`` split (and ``valid.csv``, ``dev.csv``) holds
    labelled rows of the training table's columns: it was left out as "holding the target"."""
    train = _folder(tmp_path / "t", names)
    task = load_task(tmp_path / "t")
    assert [p.name for p in numbered_parts(task.input_dir)["train"]] == names
    gathered = parts_as_tables(task, tmp_path / "copy")
    assert gathered is not None
    rows = pd.read_csv(gathered.input_dir / "train.csv")
    assert len(rows) == len(train) and set(rows["patient_id"]) == set(train["patient_id"])
    assert any("validation split" in n for n in gathered.notices)
    layout = inspect_task(gathered)
    assert layout.train_table == "train.csv" and layout.unjoined_tables == ()


def test_a_validation_table_of_other_columns_is_left_alone(tmp_path: Path) -> None:
    _folder(tmp_path / "t", ["train.csv"])
    pd.DataFrame({"patient_id": [1, 2], "note": ["a", "b"]}).to_csv(
        tmp_path / "t" / "validation.csv", index=False
    )
    assert numbered_parts(tmp_path / "t") == {}


def test_a_readme_beside_a_folder_of_spark_parts_names_its_target(tmp_path: Path) -> None:
    _folder(tmp_path / "t", ["train/part-00000.csv", "train/part-00001.csv"])
    (tmp_path / "t" / "train" / "_SUCCESS").write_text("")
    task = load_task(tmp_path / "t")
    assert task.target_cols == ("malignant",) and task.id_col == "patient_id"
    assert inspect_task(task).label_col == "malignant"


def test_a_run_on_numbered_parts_learns_from_every_part(
    tmp_path: Path,
    short_run,  # type: ignore[no-untyped-def]
) -> None:
    frame = _cancer()
    _folder(tmp_path / "t", ["train_1.csv", "train_2.csv", "train_3.csv"], frame)
    out = short_run(tmp_path / "t")
    assert out.final.ok and out.final.submission is not None, out.stop_reason
    sub = pd.read_csv(out.final.submission)
    assert list(sub.columns) == ["patient_id", "malignant"] and len(sub) == len(frame) - 420
    gathered = pd.read_csv(tmp_path / "run" / "table-parts" / "train.csv")
    assert len(gathered) == 420
    assert np.isfinite(sub["malignant"]).all()
