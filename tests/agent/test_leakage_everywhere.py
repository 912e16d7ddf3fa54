"""The leakage checker runs before every evaluation of generated or user code: also on what the
debugger wrote and on the user's starting notebook (real kernels, scripted policy)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mlestar_jupyter.agent.algorithms import Context
from mlestar_jupyter.agent.candidates import Candidate, CandidateRunner
from mlestar_jupyter.agent.clock import RunClock
from mlestar_jupyter.agent.config import Budget, RunConfig
from mlestar_jupyter.agent.policy import ModelCard
from mlestar_jupyter.agent.run import _Best, _starting_points
from mlestar_jupyter.execution import Executor
from mlestar_jupyter.journal import RunJournal
from mlestar_jupyter.task import load_task

from .scripted_policy import ScriptedPolicy

pytestmark = pytest.mark.slow


class LeakyDebugger(ScriptedPolicy):
    """Its debugger repairs the name error but fits the model on the validation rows."""

    def debug(self, solution, error, failed_block):  # type: ignore[no-untyped-def]
        self.calls.append("debug")
        b = next(b for b in solution.code_blocks if "y_missing" in b.source)
        return solution.replace_block(
            b.id, b.source.replace("fit(X_tr, y_missing)", "fit(X_val, y_val)")
        )


def _runner(
    tabular_task: Path, tmp_path: Path, executor: Executor
) -> tuple[CandidateRunner, RunJournal, RunConfig]:
    config = RunConfig(debug_rounds=1, budget=Budget(wall_seconds=600, exec_timeout=60))
    journal = RunJournal.create(tmp_path / "run", {})
    return (
        CandidateRunner(
            load_task(tabular_task), journal, executor, RunClock(config.budget), config
        ),
        journal,
        config,
    )


@pytest.fixture(scope="module")
def executor():  # type: ignore[no-untyped-def]
    with Executor(timeout=60, max_parallel=1, pool_size=1) as ex:
        yield ex


def test_the_debuggers_code_is_checked_for_leakage(
    tabular_task: Path, tmp_path: Path, executor
) -> None:  # type: ignore[no-untyped-def]
    runner, journal, _ = _runner(tabular_task, tmp_path, executor)
    policy = LeakyDebugger(broken_first_init=True)
    nb = policy.init_solution(ModelCard("logreg", "logreg model"))
    out = runner.evaluate(Candidate(nb, "init-m1", "init", "init", path="init"), policy)
    node, ran = out.node, out.notebook
    assert node.id == "init-m1-d1" and node.ok
    leak = journal.of_type("leakage")[-1].data
    assert leak["node_id"] == "init-m1-d1" and leak["fixed"] is True
    assert "fit(X_val" not in ran.source and "fit(X_tr, y_tr)" in ran.source


def test_the_users_starting_notebook_is_checked_for_leakage(
    tabular_task: Path, tmp_path: Path, executor
) -> None:  # type: ignore[no-untyped-def]
    runner, journal, config = _runner(tabular_task, tmp_path, executor)
    policy = ScriptedPolicy()
    leaky = policy.init_solution(ModelCard("logreg", "logreg model"))
    b = leaky.blocks_by_role("model")[0]
    leaky = leaky.replace_block(b.id, b.source.replace("fit(X_tr, y_tr)", "fit(X_val, y_val)"))
    ctx = Context(runner.task, config, journal, runner)
    starts, why = _starting_points(ctx, policy, leaky, _Best(ctx))
    assert why == "" and starts[0].node.id == "user"
    leak = journal.of_type("leakage")[-1].data
    assert leak["node_id"] == "user" and leak["fixed"] is True
    assert "fit(X_val" not in starts[0].nb.source
