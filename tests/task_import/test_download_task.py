"""A competition's tables as downloaded (train.csv, test.csv, sample_submission.csv) and nothing
else (hunt, session 26): ``mlestar run FOLDER`` was refused ("no description.md: write one"),
and so were ``--metric`` and ``--target`` ("they correct what is read from a notebook").  The
run now makes the task in its own folder from the tables; the user's folder is not written."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer, load_diabetes, load_wine

from mlestar_jupyter.importer.download_task import (
    DownloadTaskError,
    download_task,
    is_bare_download,
)
from mlestar_jupyter.task import Task, load_task


def _download(folder: Path, frame: pd.DataFrame, target: str, sample: pd.DataFrame) -> Path:
    """``folder`` holding the three files of a Kaggle download, ids named ``row_id``."""
    folder.mkdir(parents=True)
    frame = frame.assign(row_id=np.arange(len(frame)) + 1000)
    frame.iloc[:120].to_csv(folder / "train.csv", index=False)
    frame.iloc[120:].drop(columns=target).to_csv(folder / "test.csv", index=False)
    sample.insert(0, "row_id", frame.iloc[120:]["row_id"].to_numpy())
    sample.to_csv(folder / "sample_submission.csv", index=False)
    return folder


def _wines(folder: Path) -> Path:
    wine = load_wine(as_frame=True)
    frame = wine.frame.assign(target=[wine.target_names[t] for t in wine.target]).sample(
        frac=1, random_state=0
    )
    n = len(frame) - 120
    sample = pd.DataFrame({c: [1 / 3] * n for c in wine.target_names})
    return _download(folder, frame, "target", sample)


def test_a_download_with_a_probability_per_class_is_graded_by_log_loss(tmp_path: Path) -> None:
    folder = _wines(tmp_path / "wines")
    before = sorted(p.name for p in folder.iterdir())
    assert is_bare_download(folder)
    made = download_task(folder, tmp_path / "run" / "task")
    task = load_task(made.root)
    assert task.metric_name == "log_loss" and task.id_col == "row_id"
    assert task.target_cols == ("class_0", "class_1", "class_2")
    assert task.task_type == "classification"
    assert (made.root / "input" / "train.csv").resolve() == folder / "train.csv"
    assert "pass --metric NAME" in made.notices[1] and "log_loss" in made.notices[1]
    assert sorted(p.name for p in folder.iterdir()) == before  # nothing written there
    (folder / "description.md").write_text("# Wines\nMetric: accuracy\n")
    assert not is_bare_download(folder)  # a described folder is read as it says


@pytest.mark.parametrize(
    ("sample_value", "given", "metric"),
    [(0, None, "accuracy"), (0.5, None, "roc_auc"), (0, "AUC", "roc_auc"), (0, "f1-score", "f1")],
)
def test_the_metric_fits_the_sample_or_is_the_users(
    tmp_path: Path, sample_value: float, given: str | None, metric: str
) -> None:
    bc = load_breast_cancer(as_frame=True)
    frame = bc.frame.rename(columns={"target": "malignant"}).iloc[:200]
    folder = _download(
        tmp_path / "bc", frame, "malignant", pd.DataFrame({"malignant": [sample_value] * 80})
    )
    made = download_task(folder, tmp_path / "run", metric=given)
    task = load_task(made.root)
    assert task.metric_name == metric and task.target_cols == ("malignant",)
    assert (len(made.notices) == 2) == (given is None)


def test_a_target_the_training_table_spells_otherwise_is_still_read_as_classes(
    tmp_path: Path,
) -> None:
    """Hunt D (session 27): the digit recognizer's sample names ``Label`` and its training table
    ``label``; the labels were not found, the 0s of the sample read as numbers, and ten digit
    classes were graded by RMSE (the submission held 2.07 and the like: accuracy 0.03)."""
    from sklearn.datasets import load_digits

    frame = load_digits(as_frame=True).frame.rename(columns={"target": "label"})
    folder = tmp_path / "digits"
    folder.mkdir()
    frame.iloc[:400].to_csv(folder / "train.csv", index=False)
    frame.iloc[400:500].drop(columns="label").to_csv(folder / "test.csv", index=False)
    pd.DataFrame({"ImageId": range(1, 101), "Label": 0}).to_csv(
        folder / "sample_submission.csv", index=False
    )
    made = download_task(folder, tmp_path / "run")
    task = load_task(made.root)
    assert task.metric_name == "accuracy" and task.task_type == "classification"
    assert "labels of 10 classes" in made.notices[1]


def test_numbers_are_graded_by_rmse_and_wrong_choices_say_what_to_pass(tmp_path: Path) -> None:
    frame = load_diabetes(as_frame=True, scaled=False).frame.rename(columns={"target": "Y"})
    folder = _download(tmp_path / "d", frame.iloc[:200], "Y", pd.DataFrame({"Y": [150.0] * 80}))
    assert load_task(download_task(folder, tmp_path / "r1").root).metric_name == "rmse"
    with pytest.raises(DownloadTaskError, match="no column 'y2'.*Y"):
        download_task(folder, tmp_path / "r2", target="y2")
    with pytest.raises(DownloadTaskError, match="--metric"):
        download_task(folder, tmp_path / "r3", metric="not-a-metric")
    with pytest.raises(DownloadTaskError, match="already exists"):
        download_task(folder, tmp_path / "r1")


def test_a_run_and_its_resume_read_the_download(tmp_path: Path, started_tasks: list[Task]) -> None:
    from mlestar_jupyter import api

    folder = _wines(tmp_path / "wines")
    seen = started_tasks
    run_dir = tmp_path / "run"
    api.run(folder, out=run_dir, metric="mlogloss", time_limit=60)
    api.resume(run_dir)
    assert [(t.metric_name, t.root) for t in seen] == [("log_loss", run_dir / "task")] * 2
    assert "the task is read from its tables" in seen[1].notices[0]


def test_a_download_too_small_for_a_hold_out_ends_with_a_submission(tmp_path: Path) -> None:
    """Three training rows (the server test's download, run now that it can be): no harness
    split, and the final blend of the two paths' best asked one for its validation rows and
    failed ("assert self.split is not None"): the run ended with a traceback."""
    from mlestar_jupyter import api

    folder = tmp_path / "dl"
    folder.mkdir()
    (folder / "train.csv").write_text("Id,alcohol,cultivar\n1,13.2,0\n2,12.1,1\n3,14.0,2\n")
    (folder / "test.csv").write_text("Id,alcohol\n4,13.0\n")
    (folder / "sample_submission.csv").write_text("Id,cultivar\n4,0\n")
    # two paths (a blend to choose), each short enough to end well inside its budget
    out = api.run(folder, out=tmp_path / "run", time_limit=60, models=1, inner=1, outer=1)
    assert out.final.ok and out.status == "done", out
    assert (tmp_path / "run" / "final" / "submission.csv").is_file()
