"""A task folder whose training table has rows nobody labelled yet (hunt 24, F14: "some
training rows have not been labelled yet (Y empty)"): the run refused it and said to ``dropna``
by hand, while the same table given as a dataset had those rows left out.  Now the run trains on
a copy without them, made in its own folder; the user's files stay as they are."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pytest
from sklearn.datasets import load_diabetes

from mlestar_jupyter.agent.run import _labelled_rows_only
from mlestar_jupyter.journal import RunJournal
from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.layout import inspect_task
from mlestar_jupyter.task.layout.checks import data_problems
from mlestar_jupyter.task.layout.labelled import labelled_only


def _folder(root: Path, sep: str = ",") -> Path:
    """An outsider's folder: description.md, input/ with zero-padded text ids, a target left
    empty, written "NA" or "?" in some rows, a sample submission and a notes file."""
    df = load_diabetes(as_frame=True, scaled=False).frame.rename(columns={"target": "Y"})
    df.insert(0, "patient", [f"P{i:04d}" for i in range(len(df))])
    train, test = df.iloc[:330].copy(), df.iloc[330:].drop(columns="Y")
    train["Y"] = train["Y"].astype(object)
    train.loc[train.index % 7 == 3, "Y"] = ""
    train.loc[train.index % 50 == 5, "Y"] = "NA"
    (root / "input").mkdir(parents=True)
    train.to_csv(root / "input" / "train.csv", index=False, sep=sep)
    test.to_csv(root / "input" / "test.csv", index=False, sep=sep)
    test[["patient"]].assign(Y=0).to_csv(root / "input" / "sample_submission.csv", index=False)
    (root / "input" / "NOTES.txt").write_text("collected 2024\n")
    (root / "description.md").write_text(
        "# Disease progression\n\nPredict Y for each patient. Some rows of train.csv are not "
        "labelled yet.\n\n## Evaluation\nRMSE\n"
    )
    return root


def _missing(path: Path, sep: str = ",") -> int:
    return int(pd.read_csv(path, sep=sep)["Y"].isna().sum())


@pytest.mark.parametrize("sep", [",", ";"])
def test_the_run_trains_on_a_copy_without_the_unlabelled_rows(tmp_path: Path, sep: str) -> None:
    root = _folder(tmp_path / "task", sep)
    original = (root / "input" / "train.csv").read_bytes()
    task = load_task(root)
    layout = inspect_task(task)
    (problem,) = data_problems(task, layout)
    assert "rows have no 'Y'" in problem  # as it was: the run refused this table

    journal = RunJournal.create(tmp_path / "run", {})
    labelled = _labelled_rows_only(task, journal)
    copy = labelled.input_dir
    assert copy == journal.path("labelled-input") and copy != task.input_dir
    kept = pd.read_csv(copy / "train.csv", sep=sep, dtype=str)
    assert len(kept) == 330 - 53 and _missing(copy / "train.csv", sep) == 0
    assert kept["patient"].iloc[0] == "P0000"  # ids keep their spelling
    assert data_problems(labelled, inspect_task(labelled)) == []
    assert (root / "input" / "train.csv").read_bytes() == original
    for name in ("test.csv", "sample_submission.csv", "NOTES.txt"):
        assert (copy / name).read_bytes() == (root / "input" / name).read_bytes()
    assert any("53 of 330 rows have no 'Y'" in n and "unchanged" in n for n in labelled.notices)

    # resumed: the copy is kept as it is (its kernels' data does not change under them)
    stamp = os.stat(copy / "train.csv").st_mtime_ns
    again = _labelled_rows_only(load_task(root), RunJournal.open(journal.dir))
    assert again.input_dir == copy and os.stat(copy / "train.csv").st_mtime_ns == stamp


def test_a_table_written_in_parts_becomes_one_part(tmp_path: Path) -> None:
    """``train/part-00000.csv`` ... as Spark writes a table; the test table stays a link."""
    root = _folder(tmp_path / "task")
    train = pd.read_csv(root / "input" / "train.csv", dtype=str)
    (root / "input" / "train.csv").unlink()
    (root / "input" / "train").mkdir()
    (root / "input" / "train" / "_SUCCESS").write_text("")
    for i, part in enumerate((train.iloc[:200], train.iloc[200:])):
        part.to_csv(root / "input" / "train" / f"part-{i:05d}.csv", index=False)
    task = load_task(root)
    layout = inspect_task(task)
    assert layout.train_table == "train"
    labelled = labelled_only(task, layout, tmp_path / "copy")
    assert labelled is not None
    (part,) = (tmp_path / "copy" / "train").iterdir()
    assert len(pd.read_csv(part)) == 277 and _missing(part) == 0
    assert (tmp_path / "copy" / "test.csv").is_symlink()
    assert data_problems(labelled, inspect_task(labelled)) == []


def test_no_copy_when_every_row_is_labelled_or_none_is(tmp_path: Path) -> None:
    root = _folder(tmp_path / "task")
    train = pd.read_csv(root / "input" / "train.csv")
    train.dropna(subset=["Y"]).to_csv(root / "input" / "train.csv", index=False)
    task = load_task(root)
    assert labelled_only(task, inspect_task(task), tmp_path / "a") is None
    assert not (tmp_path / "a").exists()
    train.assign(Y="").to_csv(root / "input" / "train.csv", index=False)
    task = load_task(root)
    assert labelled_only(task, inspect_task(task), tmp_path / "b") is None  # refused instead
    assert "every row's 'Y' is empty" in data_problems(task, inspect_task(task))[0]


def test_a_resumed_run_keeps_its_copy_without_reading_the_table_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mlestar_jupyter.task.layout import labelled

    root = _folder(tmp_path / "task")
    task = load_task(root)
    first = labelled_only(task, inspect_task(task), tmp_path / "copy")
    assert first is not None

    def unread(path: Path) -> None:
        raise AssertionError(f"{path} read again")

    monkeypatch.setattr(labelled, "read_whole", unread)
    again = labelled_only(load_task(root), inspect_task(task), tmp_path / "copy")
    assert again is not None and again.notices[-1] == first.notices[-1]
    assert "53 of 330 rows" in again.notices[-1]

    # the user edits the table: the copy is written again (and the table read again)
    monkeypatch.undo()
    frame = pd.read_csv(root / "input" / "train.csv", dtype=str)
    frame.iloc[:300].to_csv(root / "input" / "train.csv", index=False)
    edited = labelled_only(load_task(root), inspect_task(task), tmp_path / "copy")
    assert edited is not None and "of 300 rows" in edited.notices[-1]
    assert len(pd.read_csv(tmp_path / "copy" / "train.csv")) == 300 - _missing(
        root / "input" / "train.csv"
    )


def test_a_copy_that_cannot_be_written_says_where_and_what_to_do(tmp_path: Path) -> None:
    from mlestar_jupyter.task.errors import TaskFormatError

    root = _folder(tmp_path / "task")
    task = load_task(root)
    blocked = tmp_path / "run"
    blocked.write_text("a file where the run's folder should be\n")
    with pytest.raises(TaskFormatError) as e:
        labelled_only(task, inspect_task(task), blocked / "labelled-input")
    assert str(blocked / "labelled-input") in str(e.value)
    assert "--out" in str(e.value) and "53 unlabelled rows" in str(e.value)
