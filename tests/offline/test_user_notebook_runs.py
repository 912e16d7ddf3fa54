"""Press MLE-STAR on plain, untagged notebooks (offline backend, real kernels)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mlestar_jupyter.agent.config import Budget, RunConfig
from mlestar_jupyter.agent.run import run_mlestar
from mlestar_jupyter.execution import Executor
from mlestar_jupyter.journal import RunJournal, read_events
from mlestar_jupyter.notebook import SolutionNotebook
from mlestar_jupyter.offline import OfflinePolicy
from mlestar_jupyter.task import load_task

pytestmark = pytest.mark.slow

ROOT = Path(__file__).parents[2]
PACK = ROOT / "tests" / "files" / "user_notebooks"
BREAST_CANCER = ROOT / "example_notebooks" / "tasks" / "breast-cancer"


def _run(name: str, tmp_path: Path, **kw: int) -> tuple[object, list]:  # type: ignore[type-arg]
    task = load_task(BREAST_CANCER)
    cfg = RunConfig(
        inner_steps=kw.get("k", 2),
        outer_steps=kw.get("t", 2),
        parallel_solutions=2,
        ensemble_rounds=0,
        debug_rounds=1,
        budget=Budget(wall_seconds=400, exec_timeout=60),
    )
    journal = RunJournal.create(tmp_path / "run", {"task_dir": str(BREAST_CANCER)})
    start = SolutionNotebook.read(PACK / f"{name}.ipynb")
    with Executor(timeout=60, max_parallel=2, pool_size=2) as ex:
        out = run_mlestar(
            task,
            cfg,
            journal,
            ex,
            lambda i: OfflinePolicy(task, cfg, seed=i),
            start_notebook=start,
        )
    journal.close()
    return out, read_events(journal.events_path)


def test_an_untagged_notebook_is_ablated_and_refined_without_repeats(tmp_path: Path) -> None:
    out, evs = _run("bc_random_forest", tmp_path)
    data = [(e.type, e.data) for e in evs]
    understanding = next(d for t, d in data if t == "understanding")
    assert understanding["understood"] and understanding["roles"]["b4"] == "model"
    user = next(d for t, d in data if t == "candidate" and d["id"] == "user")
    assert user["score"] is not None
    studies = [d for t, d in data if t == "ablation" and d["t"] == 0]
    assert studies and all(len(s["results"]) >= 2 for s in studies)
    assert all(r["score"] is not None for s in studies for r in s["results"])
    proposals = [d for t, d in data if t == "proposal"]
    assert any(p["score_after"] > user["score"] for p in proposals)
    for path in ("p0", "p1"):
        targets = [d["block_id"] for t, d in data if t == "target" and d["path"] == path]
        plans = [(d["block_id"], d["plan"]) for t, d in data if t == "plan" and d["path"] == path]
        # a block is refined again only once every refinable part was refined
        parts = len(set(targets))
        assert len(set(targets[:parts])) == parts, targets
        assert len(plans) == len(set(plans)), plans  # no plan applied twice to a block
    first = {d["path"]: d["plan"] for t, d in data if t == "plan" and d["t"] == 0 and d["k"] == 0}
    assert first["p0"] != first["p1"]  # the two paths start differently
    finished = next(d for t, d in data if t == "run_finished")
    assert finished["status"] in ("done", "stopped") and out.final.ok  # type: ignore[attr-defined]


def test_a_notebook_without_a_model_ends_not_understood(tmp_path: Path) -> None:
    out, evs = _run("bc_eda_only", tmp_path, t=1, k=1)
    finished = next(e.data for e in evs if e.type == "run_finished")
    assert finished["status"] == "not_understood"
    assert finished["reason"].startswith("no model fit found")
    assert not any(e.type == "candidate" and e.data["id"] == "user" for e in evs)
    assert out.status == "not_understood"  # type: ignore[attr-defined]
