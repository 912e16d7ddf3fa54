"""L parallel runs are independent: each its own retrieval, initial solutions, merge and
refinement; they share only the execution cache (identical code runs once), and a resumed run
executes nothing again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mlestar_jupyter.agent.config import Budget, RunConfig
from mlestar_jupyter.agent.run import run_mlestar
from mlestar_jupyter.execution import Executor
from mlestar_jupyter.journal import RunJournal, read_events
from mlestar_jupyter.offline import OfflinePolicy
from mlestar_jupyter.task import load_task

from .scripted_policy import ScriptedPolicy


def _config(**kw: Any) -> RunConfig:
    base: dict[str, Any] = dict(
        num_models=2,
        inner_steps=1,
        outer_steps=1,
        parallel_solutions=2,
        ensemble_rounds=0,
        debug_rounds=1,
        budget=Budget(wall_seconds=600, exec_timeout=60),
    )
    base.update(kw)
    return RunConfig(**base)


class CountingExecutor:
    """The real executor, counting the code it was asked to run (by notebook digest)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.digests: list[str] = []

    def run(self, nb: Any, **kw: Any) -> Any:
        self.digests.append(nb.digest)
        return self.inner.run(nb, **kw)


def test_offline_paths_draw_the_same_models_in_their_own_order_and_seed(
    tabular_task: Path,
) -> None:
    task = load_task(tabular_task)
    config = _config(num_models=3)
    p0 = OfflinePolicy(task, config, seed=0, path=0)
    p1 = OfflinePolicy(task, config, seed=1, path=1)
    a, b = [c.name for c in p0.retrieve(3)], [c.name for c in p1.retrieve(3)]
    assert len(a) >= 2 and a != b and sorted(a) == sorted(b)
    assert b == a[1:] + a[:1]
    # the same model, written by two runs, differs by the run's seed
    assert p0.init_solution(p0.retrieve(1)[0]).digest != p1.init_solution(p0.retrieve(1)[0]).digest


@pytest.mark.slow
def test_two_paths_each_retrieve_init_and_merge_share_executions_and_resume(
    tabular_task: Path, tmp_path: Path
) -> None:
    task = load_task(tabular_task)
    policies = [ScriptedPolicy(), ScriptedPolicy()]
    journal = RunJournal.create(tmp_path / "run", {"task_dir": str(tabular_task)})
    with Executor(timeout=60, max_parallel=2, pool_size=2) as ex:
        counting = CountingExecutor(ex)
        out = run_mlestar(task, _config(), journal, counting, lambda i: policies[i])
    assert out.final.ok
    for p in policies:  # each run asked its own policy for models, initial code and a merge
        assert p.calls.count("retrieve") == 1
        assert p.calls.count("init") == 2 and "merge" in p.calls
    evs = read_events(journal.events_path)
    keys = {e.key for e in evs}
    assert {"models", "models/p1"} <= keys
    cands = {e.data["node_id"] for e in evs if e.type == "candidate"}
    assert {"init-m1", "init-m2", "p1-init-m1", "p1-init-m2"} <= cands
    assert {"p0-merge1", "p1-merge1"} <= cands
    # both runs wrote the same initial notebooks: each one ran once, the other read the cache
    assert len(counting.digests) == len(set(counting.digests))
    by_id = {e.data["node_id"]: e.data for e in evs if e.type == "candidate"}
    assert by_id["p1-init-m1"]["digest"] == by_id["init-m1"]["digest"]
    assert by_id["p1-init-m1"]["score"] == by_id["init-m1"]["score"] is not None
    n_events = len(evs)
    journal.close()

    class NoRun:
        def run(self, *a: Any, **k: Any) -> Any:
            raise AssertionError("a finished candidate was executed again")

    j2 = RunJournal.open(journal.dir)
    again = [ScriptedPolicy(), ScriptedPolicy()]
    out2 = run_mlestar(task, _config(), j2, NoRun(), lambda i: again[i])
    assert out2.final.ok
    evs2 = read_events(journal.events_path)
    assert len(evs2) == n_events + 1 and evs2[-1].type == "resumed"
