"""An outsider's folder (hunt, session 31): sklearn's wine as train.csv / test.csv, a README saying
"Metric: log loss", and a sample submission of one column, ``id,cultivar``.  Log loss of three
cultivars grades one probability per class, which one column cannot hold: the run handed in the
third class's probability in ``cultivar`` (its candidates scored 1.9 to 7.8 where the same models
score about 0.1), the grader took it for a binary log loss, and nobody said a word.  Now the task
asks for one probability column per class (``id,0,1,2``), says so in its notices, and the run's
checks and the grader judge that shape.  A one-column sample of two classes (``id,label``, the
positive class's probability) is as before."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer, load_wine
from sklearn.metrics import log_loss

from mlestar_jupyter.agent.submission import submission_problems, value_spec
from mlestar_jupyter.evaluator.grading import grade_submission
from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.layout import inspect_task

README = """# {title}

Predict the {target} of each row from its measurements.

Metric: {metric}

Submission: see sample_submission.csv.
"""


def _folder(root: Path, target: str, metric: str, *, two: bool = False) -> pd.DataFrame:
    """train.csv, test.csv, sample_submission.csv (``id,<target>``) and README.md in ``root``,
    the answers in ``answers/<name>/answers.csv`` beside it; returns the answers."""
    data = load_breast_cancer(as_frame=True) if two else load_wine(as_frame=True)
    df = data.frame.rename(columns={"target": target})
    df.insert(0, "id", range(1000, 1000 + len(df)))
    df = df.sample(frac=1.0, random_state=0)
    train, test = df.iloc[:130], df.iloc[130:]
    root.mkdir(parents=True)
    train.to_csv(root / "train.csv", index=False)
    test.drop(columns=target).to_csv(root / "test.csv", index=False)
    pd.DataFrame({"id": test.id, target: 0}).to_csv(root / "sample_submission.csv", index=False)
    (root / "README.md").write_text(README.format(title=root.name, target=target, metric=metric))
    answers = test[["id", target]]
    (root.parent / "answers" / root.name).mkdir(parents=True)
    answers.to_csv(root.parent / "answers" / root.name / "answers.csv", index=False)
    return answers


@pytest.mark.parametrize("metric", ["log loss", "multi-class logarithmic loss"])
def test_three_classes_get_a_column_each_and_the_user_is_told(tmp_path: Path, metric: str) -> None:
    _folder(tmp_path / "wine", "cultivar", metric)
    task = load_task(tmp_path / "wine")
    assert task.metric_name == "log_loss"
    assert task.class_columns == ("0", "1", "2")
    said = [n for n in task.notices if "'cultivar'" in n]
    assert len(said) == 1 and "id,0,1,2" in said[0] and "3 classes" in said[0], task.notices
    assert task.output_format.splitlines()[0] == "id,0,1,2"
    layout = inspect_task(task)
    assert layout.submission_kind == "proba_columns"
    assert layout.target_cols == ("0", "1", "2") and layout.label_col == "cultivar"
    spec = value_spec(task)
    assert spec is not None and spec.mode == "proba_columns" and spec.pred_cols == ("0", "1", "2")


def test_the_run_checks_and_the_grader_judge_a_column_per_class(tmp_path: Path) -> None:
    answers = _folder(tmp_path / "wine", "cultivar", "log loss")
    task = load_task(tmp_path / "wine")
    rng = np.random.default_rng(0)
    proba = rng.dirichlet(np.ones(3), size=len(answers))
    per_class = pd.DataFrame({"id": answers.id, **{str(k): proba[:, k] for k in range(3)}})
    per_class.to_csv(tmp_path / "per_class.csv", index=False)
    assert submission_problems(task, tmp_path / "per_class.csv") == []
    report = grade_submission(task, tmp_path / "per_class.csv")
    assert report.valid_submission, report.invalid_reason
    assert report.score == pytest.approx(log_loss(answers.cultivar, proba, labels=[0, 1, 2]))
    # what the notebooks wrote before: one number per row, the last class's probability
    one = pd.DataFrame({"id": answers.id, "cultivar": proba[:, 2]})
    one.to_csv(tmp_path / "one.csv", index=False)
    assert "expected ['id', '0', '1', '2']" in submission_problems(task, tmp_path / "one.csv")[0]
    report = grade_submission(task, tmp_path / "one.csv")
    assert not report.valid_submission and report.score is None
    assert "missing columns: 0, 1, 2" in (report.invalid_reason or "")


def test_two_classes_keep_the_one_column(tmp_path: Path) -> None:
    """``id,label`` of two classes: the positive class's probability, graded as before."""
    answers = _folder(tmp_path / "cancer", "label", "log loss", two=True)
    task = load_task(tmp_path / "cancer")
    assert task.class_columns == () and not any("one column per class" in n for n in task.notices)
    assert inspect_task(task).target_cols == ("label",)
    p = np.clip(answers.label.to_numpy(float) * 0.8 + 0.1, 0, 1)
    pd.DataFrame({"id": answers.id, "label": p}).to_csv(tmp_path / "sub.csv", index=False)
    assert submission_problems(task, tmp_path / "sub.csv") == []
    report = grade_submission(task, tmp_path / "sub.csv")
    assert report.valid_submission
    assert report.score == pytest.approx(log_loss(answers.label, p))


def test_a_label_metric_keeps_the_one_column(tmp_path: Path) -> None:
    """Accuracy of three cultivars: the one column holds the predicted class, as the sample says."""
    _folder(tmp_path / "wine", "cultivar", "accuracy")
    task = load_task(tmp_path / "wine")
    assert task.class_columns == ()
    assert inspect_task(task).target_cols == ("cultivar",)
