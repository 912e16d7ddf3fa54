"""Valid submissions that still say something went wrong (no kernel): one prediction for every
row, and class labels handed in for a metric computed from probabilities (a Kaggle notebook that
validates on ``predict_proba`` and writes ``predict``)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from mlestar_jupyter.agent.submission_warnings import labels_for_probabilities, same_prediction
from mlestar_jupyter.task import load_task


def _task(root: Path, metric: str, labels: list) -> Path:
    inp = root / "input"
    inp.mkdir(parents=True)
    pd.DataFrame(
        {"PassengerId": range(40), "Fare": range(40), "Survived": labels * (40 // len(labels))}
    ).to_csv(inp / "train.csv", index=False)
    pd.DataFrame({"PassengerId": range(40, 60), "Fare": range(20)}).to_csv(
        inp / "test.csv", index=False
    )
    pd.DataFrame({"PassengerId": range(40, 60), "Survived": 0}).to_csv(
        inp / "sample_submission.csv", index=False
    )
    spec = {"goal": "Who survived?", "metric": metric, "target_col": "Survived"}
    (root / "task.json").write_text(json.dumps(spec))
    return root


def _submission(path: Path, values: list) -> Path:
    pd.DataFrame({"PassengerId": range(40, 60), "Survived": values}).to_csv(path, index=False)
    return path


@pytest.mark.parametrize(
    ("metric", "labels", "values", "told"),
    [
        ("roc_auc", [0, 1], [0, 1] * 10, True),  # model.predict for an AUC
        ("roc_auc", [0, 1], [0.0, 1.0] * 10, True),  # the same written as floats
        ("log_loss", ["no", "yes"], ["no", "yes"] * 10, True),  # class names for a log loss
        ("roc_auc", [0, 1], [0.1 * (i % 10) for i in range(20)], False),  # probabilities
        ("accuracy", [0, 1], [0, 1] * 10, False),  # labels are what accuracy wants
        ("roc_auc", [0, 1, 2, 3], [0, 1] * 10, False),  # four classes: not this check's case
    ],
)
def test_labels_for_a_probability_metric(
    tmp_path: Path, metric: str, labels: list, values: list, told: bool
) -> None:
    task = load_task(_task(tmp_path / "t", metric, labels))
    said = labels_for_probabilities(task, _submission(tmp_path / "sub.csv", values))
    assert (said is not None) is told, said
    if told:
        assert "predict_proba" in said and metric in said


def test_one_prediction_everywhere_is_told_and_a_real_one_is_not(tmp_path: Path) -> None:
    task = load_task(_task(tmp_path / "t", "accuracy", [0, 1]))
    said = same_prediction(task, _submission(tmp_path / "a.csv", [1] * 20))
    assert said is not None and "Survived = 1" in said and "20 test rows" in said
    assert same_prediction(task, _submission(tmp_path / "b.csv", [0, 1] * 10)) is None


def test_row_numbers_written_without_index_false_are_removed(tmp_path: Path) -> None:
    """``sub.to_csv("submission.csv")`` (no ``index=False``) of a notebook with no sample
    submission handed in ``,id,target`` (hunt, session 22): the unnamed row numbers go."""
    from mlestar_jupyter.agent.submission_warnings import drop_written_index

    root = _task(tmp_path / "t", "accuracy", [0, 1])
    (root / "input" / "sample_submission.csv").unlink()
    task = load_task(root)
    path = tmp_path / "submission.csv"
    frame = pd.DataFrame({"PassengerId": range(40, 60), "Survived": [0, 1] * 10})
    frame.to_csv(path)  # the index too
    assert pd.read_csv(path).columns[0] == "Unnamed: 0"
    told = drop_written_index(task, path)
    assert told is not None and "index=False" in told
    assert pd.read_csv(path).equals(frame)
    assert drop_written_index(task, path) is None  # nothing left to remove
    frame.set_index("PassengerId").to_csv(path)  # the index is the id: a named column, kept
    assert drop_written_index(task, path) is None


def test_the_final_file_is_read_once_for_every_warning(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A Kaggle notebook's ``pd.DataFrame(...).to_csv("submission.csv")`` of ``predict`` for an
    AUC: the row numbers go and the labels are told, from one read of the file; its values
    are written back as the file held them (``0.50`` stays ``0.50``); the prior-only baseline
    is not told that it is constant."""
    from mlestar_jupyter.agent import submission_warnings as sw

    root = _task(tmp_path / "t", "roc_auc", [0, 1])
    (root / "input" / "sample_submission.csv").unlink()
    task = load_task(root)
    path = tmp_path / "submission.csv"
    path.write_text(
        ",PassengerId,Survived\n" + "".join(f"{i},{40 + i},{i % 2}\n" for i in range(20))
    )
    reads = []
    real = sw.read_submission
    monkeypatch.setattr(sw, "read_submission", lambda *a, **k: reads.append(a) or real(*a, **k))
    said = dict(sw.final_file_warnings(task, path))
    assert len(reads) == 1
    assert set(said) == {"warn/written-index", "warn/labels-for-probabilities"}
    assert path.read_text().splitlines()[:2] == ["PassengerId,Survived", "40,0"]
    constant = tmp_path / "baseline.csv"
    constant.write_text("PassengerId,Survived\n" + "".join(f"{40 + i},0.50\n" for i in range(20)))
    assert sw.final_file_warnings(task, constant, baseline=True) == []
    assert [k for k, _ in sw.final_file_warnings(task, constant)] == ["warn/constant-submission"]
    assert constant.read_text().splitlines()[1] == "40,0.50"
