"""A task folder whose test table carries its answers, as courses and dataset hubs hand them
out ("fit on train.csv, report your accuracy on test.csv"; a Hugging Face download whose test
split is labelled).  The run treated the test rows as rows to predict and left the labels in the
table every kernel reads: nothing was graded and the answers were in plain sight.  Now the run
reads a copy without them and grades its final submission on them."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer, load_wine

from mlestar_jupyter.agent.run import _test_answers_held_out
from mlestar_jupyter.evaluator.grading import grade_submission
from mlestar_jupyter.journal import RunJournal
from mlestar_jupyter.task import load_task


def _course_folder(root: Path) -> Path:
    """A teacher's folder: README.md, train.csv and test.csv (both labelled, no id column, a
    target named in words), no sample submission."""
    df = load_breast_cancer(as_frame=True).frame
    df["diagnosis"] = df.pop("target").map({0: "malignant", 1: "benign"})
    root.mkdir(parents=True)
    df.iloc[:400].to_csv(root / "train.csv", index=False)
    df.iloc[400:].to_csv(root / "test.csv", index=False)
    (root / "README.md").write_text(
        "# Lab 3: tumour diagnosis\n\nTrain a classifier on train.csv and report its accuracy "
        "on test.csv.\n\nTarget: diagnosis\nMetric: accuracy\n"
    )
    return root


def test_the_test_answers_are_held_out_of_the_tables_the_run_reads(tmp_path: Path) -> None:
    root = _course_folder(tmp_path / "lab3")
    original = (root / "test.csv").read_bytes()
    task = load_task(root)
    assert task.answers_path is None

    journal = RunJournal.create(tmp_path / "run", {})
    held = _test_answers_held_out(task, journal)
    copy = held.input_dir
    assert copy == journal.path("test-input") and copy != task.input_dir
    assert "diagnosis" not in pd.read_csv(copy / "test.csv").columns
    assert (copy / "train.csv").read_bytes() == (root / "train.csv").read_bytes()
    assert (root / "test.csv").read_bytes() == original  # the user's file is unchanged
    assert held.answers_path is not None and not held.answers_path.is_relative_to(copy)
    answers = pd.read_csv(held.answers_path)
    assert list(answers.columns) == ["diagnosis"] and len(answers) == 169
    assert held.extra["holdout"]["rows"] == 169
    assert any("169 rows has its 'diagnosis'" in n for n in held.notices)
    assert held.extra["holdout"]["of"] == "the labelled test table test.csv"

    # a submission in the rows' order is graded on those answers (no sample submission)
    truth = pd.read_csv(root / "test.csv")["diagnosis"]
    sub = tmp_path / "sub.csv"
    flipped = truth.where(truth.index % 10 != 0, "malignant")
    pd.DataFrame({"diagnosis": flipped}).to_csv(sub, index=False)
    report = grade_submission(held, sub)
    assert report.valid_submission
    assert report.score == pytest.approx((flipped == truth).mean())

    # resumed: the copy and the answers are kept as they are
    stamp = os.stat(copy / "test.csv").st_mtime_ns
    again = _test_answers_held_out(load_task(root), RunJournal.open(journal.dir))
    assert again.input_dir == copy and os.stat(copy / "test.csv").st_mtime_ns == stamp
    assert again.answers_path == held.answers_path


def test_a_placeholder_column_is_dropped_and_nothing_is_graded(tmp_path: Path) -> None:
    """GLUE-style test split: ``label`` is -1 in every row, a value no training row has."""
    df = load_wine(as_frame=True).frame
    df.insert(0, "idx", range(len(df)))
    root = tmp_path / "wine"
    root.mkdir()
    df.iloc[:140].to_csv(root / "train.csv", index=False)
    df.iloc[140:].assign(target=-1).to_csv(root / "test.csv", index=False)
    (root / "README.md").write_text("Predict target.\n\nTarget: target\nMetric: accuracy\n")
    task = load_task(root)
    held = _test_answers_held_out(task, RunJournal.create(tmp_path / "run", {}))
    assert held.answers_path is None and "holdout" not in held.extra
    assert "target" not in pd.read_csv(held.input_dir / "test.csv").columns
    assert any("placeholder" in n for n in held.notices)


def test_one_training_class_in_every_test_row_is_graded_reading_only_that_column(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A test split of one class (every row ``0``, a class the training rows have): answers,
    graded; to tell, the training table is read for its target column alone."""
    from mlestar_jupyter.task.layout import labelled_test

    df = load_wine(as_frame=True).frame
    root = tmp_path / "wine"
    root.mkdir()
    df.iloc[20:].to_csv(root / "train.csv", index=False)
    df.iloc[:20].to_csv(root / "test.csv", index=False)  # the first 20 rows: all class 0
    assert set(df.iloc[:20]["target"]) == {0}
    (root / "README.md").write_text("Predict target.\n\nTarget: target\nMetric: accuracy\n")
    reads: list[tuple[str, list[str] | None]] = []
    read_whole = labelled_test.read_whole

    def counted(path: Path, columns: list[str] | None = None) -> pd.DataFrame | None:
        reads.append((path.name, columns))
        return read_whole(path, columns)

    monkeypatch.setattr(labelled_test, "read_whole", counted)
    held = _test_answers_held_out(load_task(root), RunJournal.create(tmp_path / "run", {}))
    assert held.answers_path is not None and held.extra["holdout"]["rows"] == 20
    assert reads == [("test.csv", None), ("train.csv", ["target"])]


def test_a_test_table_without_answers_is_left_as_it_is(tmp_path: Path) -> None:
    """Kaggle's shape (no target in test.csv, or an empty column to fill in): nothing changes."""
    root = _course_folder(tmp_path / "lab3")
    test = pd.read_csv(root / "test.csv")
    test.drop(columns="diagnosis").to_csv(root / "test.csv", index=False)
    task = load_task(root)
    journal = RunJournal.create(tmp_path / "run", {})
    assert _test_answers_held_out(task, journal) is task
    test.assign(diagnosis="").to_csv(root / "test.csv", index=False)
    task = load_task(root)
    assert _test_answers_held_out(task, journal) is task
