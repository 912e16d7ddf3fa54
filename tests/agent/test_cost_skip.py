"""Cost-aware scheduling on real kernels: with a tight time limit, a candidate the measured
timings say cannot finish is not started; a ``skipped`` event says why."""

from __future__ import annotations

from pathlib import Path

import pytest

from mlestar_jupyter.agent.config import Budget, RunConfig
from mlestar_jupyter.agent.run import run_mlestar
from mlestar_jupyter.execution import Executor
from mlestar_jupyter.journal import RunJournal, read_events
from mlestar_jupyter.task import load_task

from .scripted_policy import MODELS, ScriptedPolicy

pytestmark = pytest.mark.slow

SLEEP = 16  # seconds the slow model adds to its init, so a merge with it needs over 16 s


class SlowSecondModel(ScriptedPolicy):
    """Its second model is the first plus a sleep; its merge is new code (not a cached run)."""

    def init_solution(self, card):  # type: ignore[no-untyped-def]
        if card.name != "slowpoke":
            return super().init_solution(card)
        nb = super().init_solution(card.__class__("logreg", "logreg model"))
        b = nb.blocks_by_role("model")[0]
        return nb.replace_block(b.id, f"{MODELS['logreg']}\nimport time\ntime.sleep({SLEEP})")

    def merge(self, base, reference):  # type: ignore[no-untyped-def]
        self.calls.append("merge")
        b = base.blocks_by_role("model")[0]
        return base.replace_block(b.id, f"{b.source}\n# and the reference's model")


def test_a_merge_that_cannot_finish_in_the_time_left_is_not_started(
    tabular_task: Path, tmp_path: Path
) -> None:
    # The merge costs what its inputs cost together (m1 + m2 > SLEEP = 16 s), and they ran one
    # after the other, so at least that much of the 46 s is gone when it is considered; what is
    # left before the submission's reserve (0.35 x 46 = 16.1 s) is at most 46 - 16.1 - 16 < 14 s,
    # less than the estimate however fast the kernels start: it is skipped, and the submission
    # is still written.  (A 40 s budget with a 12 s sleep left this to a 1-2 s margin.)
    budget = Budget(
        wall_seconds=46,
        exec_timeout=30,
        phase_shares={"initial": 0.6, "refine": 0.05, "ensemble": 0.0, "final": 0.35},
    )
    config = RunConfig(
        num_models=2,
        inner_steps=1,
        outer_steps=1,
        parallel_solutions=1,
        ensemble_rounds=0,
        debug_rounds=0,
        budget=budget,
    )
    policy = SlowSecondModel(models=("logreg", "slowpoke"))
    journal = RunJournal.create(tmp_path / "run", {"task_dir": str(tabular_task)})
    with Executor(timeout=60, max_parallel=1, pool_size=1) as ex:
        out = run_mlestar(load_task(tabular_task), config, journal, ex, lambda i: policy)
    evs = read_events(journal.events_path)
    cands = {e.data["id"]: e.data for e in evs if e.type == "candidate"}
    assert cands["init-m2"]["ok"] and cands["init-m2"]["duration"] >= SLEEP
    assert policy.calls.count("merge") == 1 and "p0-merge1" not in cands
    (skip,) = [e.data for e in evs if e.type == "skipped"][:1]
    assert skip["node_id"] == "p0-merge1" and skip["phase"] == "merge"
    assert skip["estimate"] > skip["limit"] and "would need" in skip["reason"]
    assert "init-m1, init-m2" in skip["reason"]  # the merge costs what its two inputs cost
    assert not [e for e in evs if e.type == "improvement" and e.data["node_id"] == "p0-merge1"]
    assert out.final.ok and out.best_score is not None
