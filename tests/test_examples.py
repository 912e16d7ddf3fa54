"""The example notebooks run top to bottom, unattended, in a fresh kernel, with the offline backend.

Each notebook is executed through nbclient with ``example_notebooks/`` as its working directory
(the notebooks use paths relative to it and write their runs under ``example_notebooks/runs/``,
which git ignores).  Besides "no cell raised", each test checks what the notebook produced on
disk: a run folder with a valid submission, the decisions of the step-through run, and so on.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import nbformat
import pandas as pd
import pytest
from nbclient import NotebookClient

from mlestar_jupyter.journal import read_events

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "example_notebooks"
TASKS = EXAMPLES / "tasks"
NOTEBOOKS = sorted(p.name for p in EXAMPLES.glob("*.ipynb"))
CELL_TIMEOUT = 900  # one cell runs a whole search; generous for 2 shared cores


def execute(path: Path, cwd: Path) -> nbformat.NotebookNode:
    """Run every cell of ``path`` in a fresh kernel started in ``cwd``; raises on a cell error."""
    nb = nbformat.read(path, as_version=4)
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MLESTAR_BACKEND": "offline"}
    client = NotebookClient(
        nb,
        timeout=CELL_TIMEOUT,
        kernel_name="python3",
        resources={"metadata": {"path": str(cwd)}},
        env=env,
    )
    client.execute(env=env)
    return nb


def new_runs(prefix: str, since: float) -> list[Path]:
    """Run folders ``example_notebooks/runs/<prefix>-*`` created after ``since``."""
    runs = EXAMPLES / "runs"
    found = [p for p in runs.glob(f"{prefix}-*") if (p / "run.json").exists()]
    return sorted(p for p in found if p.stat().st_mtime >= since)


def text_outputs(nb: nbformat.NotebookNode) -> str:
    out = []
    for cell in nb.cells:
        for o in cell.get("outputs", []):
            out.append(o.get("text", ""))
            out.append(str(o.get("data", {}).get("text/plain", "")))
    return "\n".join(out)


# --------------------------------------------------------------------------- static checks
def test_every_example_notebook_is_covered_and_committed_clean() -> None:
    """Notebooks are committed without outputs, and each one has a test below."""
    assert NOTEBOOKS == [
        "01_quickstart.ipynb",
        "02_mle_star_step_by_step.ipynb",
        "03_baseline_notebook.ipynb",
        "03_improve_my_notebook.ipynb",
    ]
    for name in NOTEBOOKS:
        nb = nbformat.read(EXAMPLES / name, as_version=4)
        nbformat.validate(nb)
        for cell in nb.cells:
            if cell.cell_type == "code":
                assert cell.outputs == [] and cell.execution_count is None, (
                    f"{name}: clear the outputs before committing"
                )


@pytest.mark.parametrize("task", ["breast-cancer", "diabetes"])
def test_example_tasks_are_small_and_complete(task: str) -> None:
    """The committed task folders load, keep their answers outside (answers/<task>/), stay small."""
    from mlestar_jupyter.task import load_task

    d = TASKS / task
    t = load_task(d)
    assert t.answers_path == TASKS / "answers" / task / "answers.csv" and t.answers_path.is_file()
    assert not (d / "private").exists() and (d / "leaderboard.csv").is_file()
    assert {f.role for f in t.files} >= {"train", "test", "sample_submission"}
    size = sum(p.stat().st_size for p in d.rglob("*") if p.is_file())
    assert size < 200_000, f"{d} is {size} bytes; keep example tasks under 200 KB"


# --------------------------------------------------------------------------- execution
@pytest.mark.slow
def test_baseline_notebook_runs_as_the_agent_runs_it(tmp_path: Path) -> None:
    """In a work folder whose ./input is the task's input, it prints a score and writes a submission."""
    shutil.copy(EXAMPLES / "03_baseline_notebook.ipynb", tmp_path / "nb.ipynb")
    (tmp_path / "input").symlink_to(TASKS / "breast-cancer" / "input")
    nb = execute(tmp_path / "nb.ipynb", tmp_path)
    out = text_outputs(nb)
    score = float(out.split("Final Validation Performance: ")[1].split()[0])
    assert 0.5 < score <= 1.0
    sub = pd.read_csv(tmp_path / "final" / "submission.csv")
    sample = pd.read_csv(TASKS / "breast-cancer" / "input" / "sample_submission.csv")
    assert list(sub.columns) == list(sample.columns) and len(sub) == len(sample)
    assert sub["target"].between(0, 1).all()


@pytest.mark.slow
def test_01_quickstart() -> None:
    since = time.time() - 1
    nb = execute(EXAMPLES / "01_quickstart.ipynb", EXAMPLES)
    (run,) = new_runs("01-quickstart", since)
    final = next(e.data for e in read_events(run / "events.jsonl") if e.type == "final")
    assert final["valid"] and (run / final["submission"]).is_file()
    assert (run / "final" / "solution.ipynb").is_file()
    assert "tiny-breast-cancer: roc_auc=" in text_outputs(nb)  # the grade was printed
    shutil.rmtree(run)  # kept only when a check failed, to look at


@pytest.mark.slow
def test_02_step_by_step() -> None:
    since = time.time() - 1
    execute(EXAMPLES / "02_mle_star_step_by_step.ipynb", EXAMPLES)
    (run,) = new_runs("02-step-by-step", since)
    types = {e.type for e in read_events(run / "events.jsonl")}
    # every phase the lesson walks through happened in its run
    assert {"models", "ablation", "target", "plan", "proposal", "ensemble_plan", "final"} <= types
    assert (run / "final" / "submission.csv").is_file()
    shutil.rmtree(run)


@pytest.mark.slow
def test_03_improve_my_notebook() -> None:
    since = time.time() - 1
    before = (EXAMPLES / "03_baseline_notebook.ipynb").read_bytes()
    execute(EXAMPLES / "03_improve_my_notebook.ipynb", EXAMPLES)
    assert (EXAMPLES / "03_baseline_notebook.ipynb").read_bytes() == before  # left untouched
    (run,) = new_runs("03-improve", since)
    evs = read_events(run / "events.jsonl")
    decided = {e.data["proposal_id"]: e.data["decision"] for e in evs if e.type == "decision"}
    # the reviewer decides in the order of the proposals; each path journals its decision when
    # it reads it, so two paths' decision events may come in either order
    proposed = [e.data["proposal_id"] for e in evs if e.type == "proposal"]
    assert [decided.get(pid) for pid in proposed[:2]] == ["accept", "reject"]
    for pid, decision in decided.items():
        assert json.loads((run / "decisions" / f"{pid}.json").read_text())["decision"] == decision
    assert next(e for e in evs if e.type == "candidate").data["id"] == "user"  # started from it
    assert (run / "my_notebook.ipynb").is_file() and (run / "final" / "submission.csv").is_file()
    shutil.rmtree(run)
