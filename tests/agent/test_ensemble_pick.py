"""Ensemble selection (paper §3.3): the best over the ensembles, and a journaled, explained
decision when a single solution is kept instead because it scores better."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from mlestar_jupyter.agent.algorithms import Context, Solution, ensemble
from mlestar_jupyter.agent.candidates import Node, Outcome
from mlestar_jupyter.agent.config import RunConfig
from mlestar_jupyter.agent.errors import NotEnsembled
from mlestar_jupyter.agent.policy import Plan
from mlestar_jupyter.journal import RunJournal
from mlestar_jupyter.notebook import SolutionNotebook
from mlestar_jupyter.offline.errors import UserCodeEnsembleError
from mlestar_jupyter.task import load_task

NB = SolutionNotebook.new([("model", "x = 1")])


def _node(node_id: str, score: float | None) -> Node:
    return Node(node_id, None, "refine", node_id, node_id, None, node_id, score, score is not None)


class _Ensembler:
    def ensemble_plan(self, nbs: list[SolutionNotebook], history: list[Any]) -> Plan:
        return Plan(f"plan {len(history)}")

    def ensemble(self, nbs: list[SolutionNotebook], plan: Plan) -> SolutionNotebook:
        return NB


def _pick(
    tabular_task: Path, tmp_path: Path, ens_scores: list[float], policy: Any = None
) -> tuple[Solution, dict]:  # type: ignore[type-arg]
    scores = iter(ens_scores)
    runner = SimpleNamespace(
        phase_over=lambda phase: False,
        stop_if_requested=lambda: None,
        evaluate=lambda cand, policy: Outcome(
            _node(cand.node_id, next(scores)), cand.notebook, "scored"
        ),
    )
    journal = RunJournal.create(tmp_path / "run", {})
    ctx = Context(
        load_task(tabular_task),
        RunConfig(parallel_solutions=2, ensemble_rounds=len(ens_scores)),
        journal,
        runner,  # type: ignore[arg-type]
    )
    finals = [Solution(NB, _node("p0-final", 0.96)), Solution(NB, _node("p1-final", 0.97))]
    best = ensemble(ctx, policy or _Ensembler(), finals)
    picks = [e.data for e in journal.of_type("ensemble_pick")]
    warnings = [w.data["message"] for w in journal.of_type("warning")]
    return best, {**(picks[0] if len(picks) == 1 else {"picks": picks}), "warnings": warnings}


def test_single_solution_kept_over_worse_ensembles_is_journaled(
    tabular_task: Path, tmp_path: Path
) -> None:
    best, pick = _pick(tabular_task, tmp_path, [0.95, 0.94])
    assert best.node.id == "p1-final" and pick["kind"] == "single"
    assert (pick["best_ensemble"], pick["best_ensemble_score"]) == ("ens-r0", 0.95)
    assert (pick["best_single"], pick["best_single_score"]) == ("p1-final", 0.97)
    assert "scores better than the best ensemble ens-r0" in pick["reason"]


def test_best_ensemble_wins_when_it_beats_every_single(tabular_task: Path, tmp_path: Path) -> None:
    best, pick = _pick(tabular_task, tmp_path, [0.95, 0.99])
    assert best.node.id == "ens-r1" and pick["kind"] == "ensemble"
    assert pick["best_ensemble_score"] == pytest.approx(0.99)


def test_a_tie_keeps_the_single_solution(tabular_task: Path, tmp_path: Path) -> None:
    """A greedy ensemble selection that puts all its weight on one model scores what that model
    scores: the simpler single solution is submitted, and the journal says it was a tie."""
    best, pick = _pick(tabular_task, tmp_path, [0.95, 0.97])
    assert best.node.id == "p1-final" and pick["kind"] == "single"
    assert pick["best_ensemble"] == "ens-r1"
    assert "scores as well as the best ensemble ens-r1" in pick["reason"]


class _UserCode(_Ensembler):
    def ensemble_plan(self, nbs: list[SolutionNotebook], history: list[Any]) -> Plan:
        raise NotEnsembled("the solutions are your notebook's own code")


def test_a_policy_that_does_not_ensemble_is_no_failure(tabular_task: Path, tmp_path: Path) -> None:
    """The offline policy does not join a user's own code: the best single solution goes on,
    and the journal says why without calling it a failure ("ensemble planner failed: ...")."""
    best, pick = _pick(tabular_task, tmp_path, [0.99], _UserCode())  # (never scored)
    assert best.node.id == "p1-final"
    assert pick["warnings"] == ["no ensemble: the solutions are your notebook's own code"]
    assert issubclass(UserCodeEnsembleError, NotEnsembled)
