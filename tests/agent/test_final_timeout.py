"""How long one execution may run: search runs obey the limit, final runs get room."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from mlestar_jupyter.agent.candidates import FINAL_TIMEOUT_CAP, CandidateRunner
from mlestar_jupyter.agent.clock import RunClock
from mlestar_jupyter.agent.config import Budget, RunConfig
from mlestar_jupyter.journal import RunJournal
from mlestar_jupyter.notebook import SolutionNotebook
from mlestar_jupyter.task import Task, load_task


class RecordingExecutor:
    def __init__(self) -> None:
        self.timeouts: list[float] = []

    def run(self, nb, *, input_dir, workdir, timeout):  # type: ignore[no-untyped-def]
        self.timeouts.append(timeout)
        return SimpleNamespace(ok=False, score=None, error="x", notebook=None)


def _runner(task: Task, folder: Path, config: RunConfig, ex: RecordingExecutor) -> CandidateRunner:
    """A runner for ``task`` journaling into ``folder``, its clock on ``config``'s budget."""
    return CandidateRunner(task, RunJournal.create(folder, {}), ex, RunClock(config.budget), config)


def test_final_runs_may_outlast_the_per_execution_limit(tabular_task: Path, tmp_path: Path) -> None:
    config = RunConfig(budget=Budget(wall_seconds=150, exec_timeout=37.5))
    ex = RecordingExecutor()
    runner = _runner(load_task(tabular_task), tmp_path / "run", config, ex)

    def run(code: str, **kw) -> float:  # type: ignore[no-untyped-def]
        runner.execute(SolutionNotebook.new([("other", code)]), "n", "refine", **kw)
        return ex.timeouts[-1]

    assert run("a = 1") <= 37.5  # a search run keeps the per-execution limit
    assert run("a = 2", submission=True, min_timeout=90) == 90  # 3 x a 20 s search run + 30 s
    assert run("a = 3", submission=True, min_timeout=5000) == FINAL_TIMEOUT_CAP


def test_llm_calls_get_the_budget_left_and_a_grace_for_the_submission() -> None:
    clock = RunClock(Budget(wall_seconds=900), offset=850)
    left = clock.llm_time_left()
    assert left is not None and 49 < left <= 50
    clock.start_final()  # the submission's calls may run 15 % of the budget (at least 2 min) over
    left = clock.llm_time_left()
    assert left is not None and 184 < left <= 185
    assert RunClock(Budget(wall_seconds=None)).llm_time_left() is None


def test_the_submission_reserve_grows_with_what_the_best_run_says_its_final_needs(
    tabular_task: Path, tmp_path: Path
) -> None:
    """A final notebook fits twice on all the labelled rows: the best search run so far, on
    half of them, predicts 2 x 2 x its seconds; the reserve never drops below the budget's final
    share nor grows past 30 % of the budget."""
    task = load_task(tabular_task)
    assert task.metric.direction == "maximize"
    config = RunConfig(budget=Budget(wall_seconds=120))  # the final share, 15 %: 18 s
    runner = _runner(task, tmp_path / "run", config, RecordingExecutor())
    assert runner.submission_reserve() == pytest.approx(18.0)
    split = runner.scorer.split
    assert split is not None
    half = split.n_labelled / 2
    runner.note_search_run(0.80, 6.0, int(half))
    assert runner.submission_reserve() == pytest.approx(24.0, rel=0.01)  # 2 fits x 6 s x 2
    runner.note_search_run(0.70, 60.0, split.n_labelled)  # slower but worse: not the final's
    assert runner.submission_reserve() == pytest.approx(24.0, rel=0.01)
    runner.note_search_run(0.90, 40.0, split.n_labelled)  # the best, slow: capped at 30 %
    assert runner.submission_reserve() == pytest.approx(36.0)
    runner.note_search_run(0.95, 2.0, split.n_labelled)  # the best, quick: the final share
    assert runner.submission_reserve() == pytest.approx(18.0)
    unlimited = RunConfig(budget=Budget(wall_seconds=None))
    free = _runner(task, tmp_path / "free", unlimited, RecordingExecutor())
    assert free.submission_reserve() == 0.0
