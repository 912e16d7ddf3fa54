"""Refinement takes the ensemble's share of the budget when the ensemble could not run in it.

Read from a 120 s hotel-rates journal: both paths ended their refinement steps a few seconds
after the refine phase's mark (90 s), the ensemble then needed 9.8 s and had 9.1 s, so it was
skipped and the run ended with 20 s unused; a path that had started one more outer step would
have reached the settings search, the run's best candidate in a quieter run."""

from __future__ import annotations

from pathlib import Path

import pytest

from mlestar_jupyter.agent.candidates import CandidateRunner
from mlestar_jupyter.agent.clock import RunClock
from mlestar_jupyter.agent.config import Budget, RunConfig
from mlestar_jupyter.agent.cost import Job
from mlestar_jupyter.agent.run import run_mlestar
from mlestar_jupyter.execution import Executor
from mlestar_jupyter.journal import RunJournal, read_events
from mlestar_jupyter.task import load_task

from .scripted_policy import ScriptedPolicy

SLEEP = 4  # seconds every model of the real-kernel run adds to its fit


def _runner(task_dir: Path, folder: Path, config: RunConfig, elapsed: float) -> CandidateRunner:
    """A runner whose clock has ``elapsed`` seconds of ``config``'s budget behind it."""
    clock = RunClock(config.budget, offset=elapsed)
    journal = RunJournal.create(folder, {})
    return CandidateRunner(load_task(task_dir), journal, None, clock, config)


def _budget_events(folder: Path) -> list[dict]:  # type: ignore[type-arg]
    return [e.data for e in read_events(folder / "events.jsonl") if e.type == "budget"]


def test_refinement_goes_on_when_the_ensemble_could_not_run_in_its_share(
    tabular_task: Path, tmp_path: Path
) -> None:
    # 120 s: refine ends at 90 s, the ensemble at 102 s; at 91 s its share has 11 s left, and
    # two solutions of 4.9 s after one more step under way need about 15 s
    config = RunConfig(budget=Budget(wall_seconds=120))
    runner = _runner(tabular_task, tmp_path / "run", config, elapsed=91)
    runner.costs.observe("p0-t1k0", Job("a plan", ("p0-merge1",)), 4.9)
    assert runner.clock.phase_end("refine") == 90
    assert not runner.refine_over("p0-t1k0")  # refinement goes on ...
    assert runner.clock.phase_end("refine") == 102  # ... until the ensemble's end
    assert runner.clock.exec_timeout("refine") >= 11  # and its runs get that time
    (event,) = _budget_events(tmp_path / "run")
    assert event["what"] == "refine" and "needs about 15 s and 11 s are left" in event["message"]
    # decided once: the other path asking again neither journals nor changes anything
    assert not runner.refine_over("p1-t1k0")
    assert len(_budget_events(tmp_path / "run")) == 1


def test_refinement_stops_at_its_mark_when_the_ensemble_fits(
    tabular_task: Path, tmp_path: Path
) -> None:
    config = RunConfig(budget=Budget(wall_seconds=120))
    quick = _runner(tabular_task, tmp_path / "quick", config, elapsed=91)
    quick.costs.observe("p0-t1k0", Job("a plan", ("p0-merge1",)), 2.0)  # 3 x 2 s fit in 11 s
    assert quick.refine_over("p0-t1k0") and quick.clock.phase_end("refine") == 90
    early = _runner(tabular_task, tmp_path / "early", config, elapsed=60)
    early.costs.observe("p0-t1k0", Job("a plan", ("p0-merge1",)), 30.0)
    assert not early.refine_over("p0-t1k0")  # before the mark nothing is decided
    assert early.clock.phase_end("refine") == 90
    unmeasured = _runner(tabular_task, tmp_path / "unmeasured", config, elapsed=91)
    assert unmeasured.refine_over("p0-t1k0")  # nothing measured says the ensemble cannot run
    for folder in ("quick", "early", "unmeasured"):
        assert _budget_events(tmp_path / folder) == []


def test_a_run_without_an_ensemble_refines_through_its_share(
    tabular_task: Path, tmp_path: Path
) -> None:
    for name, knobs in {
        "one-path": {"parallel_solutions": 1},
        "r0": {"ensemble_rounds": 0},
    }.items():
        config = RunConfig(budget=Budget(wall_seconds=120), **knobs)  # type: ignore[arg-type]
        runner = _runner(tabular_task, tmp_path / name, config, elapsed=95)
        assert not runner.refine_over(None)
        (event,) = _budget_events(tmp_path / name)
        assert "no ensemble" in event["message"]
        runner.clock.offset = 103  # past the ensemble's end: refinement is over
        assert runner.refine_over(None)


class SlowModels(ScriptedPolicy):
    """Every model block sleeps ``SLEEP`` seconds: each solution costs at least that."""

    def init_solution(self, card):  # type: ignore[no-untyped-def]
        nb = super().init_solution(card)
        b = nb.blocks_by_role("model")[0]
        return nb.replace_block(b.id, f"{b.source}\nimport time\ntime.sleep({SLEEP})")


@pytest.mark.slow
def test_a_run_whose_ensemble_cannot_fit_refines_on_and_submits_without_it(
    tabular_task: Path, tmp_path: Path
) -> None:
    # refine ends at 12 s, the ensemble at 24 s, the submission's reserve is 96 s.  Two initial
    # solutions of over 4 s each bring a path to refinement after 8 s at the earliest; at the
    # refine mark (or later) an ensemble of two 4 s solutions after one more step needs over
    # 12 s and at most 12 s are left: refinement takes the ensemble's share, and the run goes
    # from the paths to its submission (the old code ran the ensemble's two rounds here).
    budget = Budget(
        wall_seconds=120,
        exec_timeout=60,
        phase_shares={"initial": 0.05, "refine": 0.05, "ensemble": 0.1, "final": 0.8},
    )
    config = RunConfig(
        num_models=2,
        inner_steps=2,
        outer_steps=3,
        parallel_solutions=2,
        ensemble_rounds=2,
        debug_rounds=0,
        budget=budget,
    )
    policies = [SlowModels(), SlowModels(models=("stump", "logreg"))]
    journal = RunJournal.create(tmp_path / "run", {"task_dir": str(tabular_task)})
    with Executor(timeout=60, max_parallel=2, pool_size=2) as ex:
        out = run_mlestar(load_task(tabular_task), config, journal, ex, lambda i: policies[i])
    evs = read_events(journal.events_path)
    (given,) = [
        e.data for e in evs if e.type == "budget" and "ensemble's share" in e.data["message"]
    ]
    assert given["what"] == "refine" and "until 24 s" in given["message"]
    assert not [e for e in evs if e.type in ("ensemble_plan", "ensemble_pick")]
    # "stopped" when the paths ran into the submission's reserve, as any run that uses its
    # budget; "done" when they ended their steps before it
    assert out.status in ("done", "stopped") and out.final.ok and out.best_score is not None


def test_a_path_whose_last_plans_were_skipped_for_time_says_so_when_it_ends() -> None:
    """A GPU run of a torch notebook ended "no part of the notebook has a refinement strategy
    left" when its last plans were not started for lack of time: the message now says that."""
    from types import SimpleNamespace

    from mlestar_jupyter.agent.refinement import _nothing_left

    said: list[dict[str, object]] = []
    for skipped in (0, 3):
        runner = SimpleNamespace(
            clock=SimpleNamespace(remaining=lambda: 12.0), skipped_on=lambda path, n=skipped: n
        )
        journal = SimpleNamespace(emit=lambda type_, key, **data: said.append(data))
        _nothing_left(SimpleNamespace(runner=runner, journal=journal), "p0", 2, "nothing left")  # type: ignore[arg-type]
    assert (
        said[0]["message"]
        == "p0: refinement ends after 2 outer steps: nothing left; 12 s of the budget left"
    )
    assert (
        "3 of its candidates were not started, as they would not have finished in the time"
        in str(said[1]["message"])
    )
