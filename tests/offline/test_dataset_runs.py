"""``mlestar run`` on a dataset (one table, no test rows), with real kernels: the held-out rows
grade the final submission, a killed run resumes on the same task, and bad input says what to
pass before a run folder is made."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer

from mlestar_jupyter.cli import main
from mlestar_jupyter.journal import read_events

SMALL = ["-M", "1", "-K", "1", "-T", "1", "-L", "1", "-R", "0", "--no-progress"]


def _clinic_export(folder: Path) -> Path:
    """A clinic's export as a user keeps it: ``;``-separated, decimal commas, an id column
    named ``Patient ID`` not first, the diagnosis as words, under ``data/``."""
    frame = load_breast_cancer(as_frame=True).frame.iloc[:, [0, 1, 2, 3, 7, 20, 21, 27, 30]]
    frame["target"] = frame["target"].map({0: "malignant", 1: "benign"})
    frame = frame.rename(columns={"target": "Diagnosis"})
    frame.insert(2, "Patient ID", [f"BC-{i:05d}" for i in range(len(frame))])
    path = folder / "data" / "clinic_export.csv"
    path.parent.mkdir(parents=True)
    frame.to_csv(path, sep=";", decimal=",", index=False)
    (folder / "README.md").write_text(
        "Tumour measurements; Diagnosis is what we want to predict.\n"
    )
    return path


@pytest.mark.slow
def test_a_dataset_run_grades_its_submission_on_the_held_out_rows(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = tmp_path / "clinic"
    table = _clinic_export(folder)
    before = table.read_bytes()
    out = tmp_path / "run"
    argv = ["run", str(folder), "--target", "diagnosis", "--metric", "roc_auc"]
    assert main([*argv, "--out", str(out), "--time-limit", "120", *SMALL]) == 0
    captured = capsys.readouterr()
    shown = captured.out
    assert "is a dataset, not a competition" in captured.err  # said without a progress bar too
    assert table.read_bytes() == before
    evs = read_events(out / "events.jsonl")
    held = [e.data for e in evs if e.type == "heldout"]
    assert len(held) == 1 and held[0]["valid"], held
    assert held[0]["rows"] == round(0.2 * 569) and held[0]["metric"] == "roc_auc"
    assert held[0]["score"] > 0.9  # a real model on rows the search never saw
    assert "held-out score: roc_auc" in shown and f"{held[0]['rows']} rows" in shown
    notices = [e.data["message"] for e in evs if e.type == "warning" and e.data["what"] == "task"]
    assert any("is a dataset, not a competition" in n for n in notices)
    # the submission answers the held-out rows by the table's own id
    sub = pd.read_csv(out / "final" / "submission.csv")
    answers = pd.read_csv(out / "answers" / "task" / "answers.csv")
    assert list(sub.columns) == ["Patient ID", "Diagnosis"]
    assert sorted(sub["Patient ID"]) == sorted(answers["Patient ID"])
    meta = json.loads((out / "run.json").read_text())
    assert meta["task_source"] == "dataset" and meta["dataset"] == str(table)
    # the kernels never saw the held-out answers: no executed notebook names them
    for nb in (out / "executions").glob("*.ipynb"):
        assert "answers" not in nb.read_text()
    assert main(["show", str(out)]) == 0
    again = capsys.readouterr().out
    assert "held-out score" in again and "warning: clinic_export.csv is a dataset" in again


@pytest.mark.slow
def test_a_killed_dataset_run_resumes_on_its_own_task(tmp_path: Path) -> None:
    folder = tmp_path / "clinic"
    _clinic_export(folder)
    out = tmp_path / "run"
    proc = subprocess.Popen(
        [sys.executable, "-m", "mlestar_jupyter", "run", str(folder / "data" / "clinic_export.csv")]
        + ["--target", "Diagnosis", "--out", str(out), "--time-limit", "300", *SMALL],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        start_new_session=True,
    )
    deadline = time.time() + 240
    while time.time() < deadline:
        if any(e.type == "candidate" for e in read_events(out / "events.jsonl")):
            break
        time.sleep(0.3)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(30)
    task_json = (out / "task" / "task.json").read_bytes()
    answers = (out / "answers" / "task" / "answers.csv").read_bytes()
    r = subprocess.run(
        [sys.executable, "-m", "mlestar_jupyter", "resume", str(out), "--no-progress"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    assert (out / "task" / "task.json").read_bytes() == task_json  # not drawn again
    assert (out / "answers" / "task" / "answers.csv").read_bytes() == answers
    evs = read_events(out / "events.jsonl")
    assert any(e.type == "resumed" for e in evs)
    held = [e.data for e in evs if e.type == "heldout"]
    assert len(held) == 1 and held[0]["valid"] and held[0]["metric"] == "accuracy"
    assert "held-out score: accuracy" in r.stdout


def test_a_dataset_without_a_target_is_refused_before_a_run_folder_is_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "clinic"
    _clinic_export(folder)
    (folder / "README.md").unlink()  # it names the target
    out = tmp_path / "run"
    assert main(["run", str(folder), "--out", str(out), *SMALL]) == 2
    err = capsys.readouterr().err.strip()
    assert "say which column to predict, with --target COLUMN" in err and "Diagnosis" in err
    assert "Traceback" not in err and not out.exists()


@pytest.mark.slow
def test_a_task_json_naming_only_a_training_table_is_held_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Another author's task.json (its own key names, a training file and nothing to predict)
    stopped with "no test table (test.csv) found".  Its rows are now held out like a dataset's,
    with the target and the metric it names."""
    folder = tmp_path / "cells"
    (folder / "input").mkdir(parents=True)
    frame = load_breast_cancer(as_frame=True).frame.iloc[:, [0, 1, 2, 3, 7, 20, 27, 30]]
    frame = frame.rename(columns={"target": "malignant"})
    frame["malignant"] = 1 - frame["malignant"]
    frame.to_csv(folder / "input" / "cells.csv", index=False)
    (folder / "task.json").write_text(
        json.dumps(
            {
                "title": "Cell classification",
                "target_column": "malignant",
                "evaluation_metric": "AUC",
                "train_file": "cells.csv",
            }
        )
    )
    out = tmp_path / "run"
    assert main(["run", str(folder), "--out", str(out), "--time-limit", "60", *SMALL]) == 0
    err = capsys.readouterr().err
    assert "cells.csv is a dataset, not a competition" in err, err[-2000:]
    evs = read_events(out / "events.jsonl")
    held = [e.data for e in evs if e.type == "heldout"]
    assert len(held) == 1 and held[0]["valid"] and held[0]["metric"] == "roc_auc", held
    assert held[0]["rows"] == round(0.2 * 569) and held[0]["score"] > 0.9
    spec = json.loads((out / "task" / "task.json").read_text())
    assert spec["target_col"] == "malignant" and spec["id"] == "cells"
    assert json.loads((out / "run.json").read_text())["task_source"] == "dataset"
