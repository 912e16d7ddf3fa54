"""Sample submissions by the names competitions give them: Kaggle's Titanic ships
``gender_submission.csv``, DrivenData ``submission_format.csv``, others
``sampleSubmission.csv`` or ``example_submission.csv``.  Before, only names holding
``sample_submission`` counted, so the most famous Kaggle download was refused ("sample_submission.csv
missing and the description names no 'Target: <column>' line")."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from mlestar_jupyter.importer.data import survey
from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.infer import is_sample_name


@pytest.mark.parametrize(
    "name",
    [
        "sample_submission.csv",
        "sampleSubmission.csv",
        "gender_submission.csv",
        "submission_format.csv",
        "SubmissionFormat.csv",
        "example_submission.csv",
        "sample_solution.csv",
        "sample_submission.csv.gz",
    ],
)
def test_names_of_sample_submissions(name: str) -> None:
    assert is_sample_name(name)


@pytest.mark.parametrize(
    "name", ["train.csv", "test_submission_ids.csv", "submissions.zip", "stores.csv", "notes.txt"]
)
def test_names_that_are_no_sample_submission(name: str) -> None:
    assert not is_sample_name(name)


def _download(root: Path, *samples: str) -> Path:
    root.mkdir(parents=True)
    df = pd.DataFrame({"PassengerId": range(1, 21), "Pclass": [1, 2, 3, 1] * 5})
    df.assign(Survived=[0, 1] * 10).to_csv(root / "train.csv", index=False)
    df.assign(PassengerId=range(21, 41)).to_csv(root / "test.csv", index=False)
    for name in samples:
        pd.DataFrame({"PassengerId": range(21, 41), "Survived": 0}).to_csv(root / name, index=False)
    (root / "description.md").write_text("# Titanic\n\nWho survived?\n\nMetric: accuracy\n")
    return root


def test_titanics_download_reads_its_gender_submission_as_the_sample(tmp_path: Path) -> None:
    """The download as Kaggle's zip unpacks it, with a description written beside it."""
    task = load_task(_download(tmp_path / "titanic", "gender_submission.csv"))
    assert task.sample_submission is not None
    assert task.sample_submission.path == "gender_submission.csv"
    assert task.target_cols == ("Survived",) and task.id_col == "PassengerId"
    assert survey(tmp_path / "titanic").sample == "gender_submission.csv"


def test_a_sample_submission_by_that_name_wins_over_another_submission(tmp_path: Path) -> None:
    root = _download(tmp_path / "t", "baseline_submission.csv", "sample_submission.csv")
    task = load_task(root)
    assert task.sample_submission is not None
    assert task.sample_submission.path == "sample_submission.csv"
    roles = {f.path: f.role for f in task.files}
    assert roles["baseline_submission.csv"] == "extra"
