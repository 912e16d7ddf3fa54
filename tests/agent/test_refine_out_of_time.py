"""A path whose outer step had every candidate left unstarted for lack of time ends there.

Read from a 90 s tiny-digits run on a lent H200: at 71 s path p0 had 2 s left before its mark and
each candidate needed 9 s, so every plan of step 0 was skipped; it then went through steps 1, 2
and 3 all the same (each an ablation, an extraction and plans, all skipped).  With an LLM backend
each of those steps is paid for; now the path ends after the step whose candidates all waited."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from mlestar_jupyter.agent.candidates import Outcome
from mlestar_jupyter.agent.config import RunConfig
from mlestar_jupyter.agent.policy import Plan, RefineTarget
from mlestar_jupyter.agent.refinement import refine
from mlestar_jupyter.agent.search import Solution
from mlestar_jupyter.journal import Node
from mlestar_jupyter.notebook import SolutionNotebook


def _node(node_id: str, score: float | None, nb: SolutionNotebook) -> Node:
    return Node(node_id, None, "refine", "p0", node_id, "b2", nb.digest, score, score is not None)


class OnePlanPolicy:
    """An ablation that finds nothing, the model block as the target, one plan per step."""

    def __init__(self) -> None:
        self.extracted = 0

    def ablation(self, nb: SolutionNotebook, previous: list[Any]) -> None:
        return None

    def summarize_ablation(self, *a: Any) -> None:
        return None

    def extract(self, nb: SolutionNotebook, summary: Any, refined: list[str]) -> RefineTarget:
        self.extracted += 1
        return RefineTarget("b2", Plan(f"plan of step {self.extracted}"))

    def plan(self, nb: SolutionNotebook, target: RefineTarget, history: list[Any]) -> Plan:
        return Plan(f"another plan {len(history)}")

    def code(self, nb: SolutionNotebook, target: RefineTarget, plan: Plan) -> str:
        return f"model = 'changed by {plan.text}'"


def _refine_with(statuses: list[str]) -> tuple[OnePlanPolicy, list[dict[str, Any]]]:
    """Refine a two-block notebook for 3 outer steps of 2 plans; candidate n gets
    ``statuses[n]`` (a scored one scores worse than the best)."""
    nb = SolutionNotebook.new([("load", "x = 1"), ("model", "model = 'first'")])
    best = Solution(nb, _node("init-m1", 0.5, nb))
    events: list[dict[str, Any]] = []
    asked: list[str] = []

    def evaluate(cand: Any, policy: Any) -> Outcome:
        status = statuses[len(asked)] if len(asked) < len(statuses) else "scored"
        asked.append(cand.node_id)
        score = 0.4 if status == "scored" else None
        return Outcome(_node(cand.node_id, score, cand.notebook), cand.notebook, status)  # type: ignore[arg-type]

    runner = SimpleNamespace(
        refine_over=lambda best_id: False,
        evaluate=evaluate,
        clock=SimpleNamespace(remaining=lambda: 9.0),
        skipped_on=lambda path: statuses.count("skipped"),
        stop_if_requested=lambda: None,
    )
    journal = SimpleNamespace(
        emit=lambda type_, key=None, **data: events.append({"type": type_, **data})
    )
    ctx = SimpleNamespace(
        runner=runner,
        journal=journal,
        config=RunConfig(outer_steps=3, inner_steps=2, mode="autopilot"),
        task=SimpleNamespace(metric_name="accuracy"),
        rejected=set(),
        better=lambda a, b: a is not None and (b is None or a > b),
        at_least=lambda a, b: a is not None and (b is None or a >= b),
        phase=lambda name, path="": None,
    )
    policy = OnePlanPolicy()
    refine(ctx, policy, best, "p0", lambda s: None)  # type: ignore[arg-type]
    return policy, events


def test_a_step_whose_candidates_all_waited_for_time_ends_the_path() -> None:
    policy, events = _refine_with(["skipped", "skipped"])
    assert policy.extracted == 1  # no step 1 or 2: no ablation, extraction or plans paid for
    (ended,) = [e for e in events if e["type"] == "budget"]
    assert ended["message"].startswith("p0: refinement ends after 1 outer step: ")
    assert "no candidate of its last step could start" in ended["message"]
    assert "2 of its candidates were not started" in ended["message"]


def test_the_last_step_ends_as_any_last_step() -> None:
    # only the last of the 3 steps had its candidates skipped: nothing is left to end early
    policy, events = _refine_with(["scored", "scored", "scored", "scored", "skipped", "skipped"])
    assert policy.extracted == 3
    assert not [e for e in events if e["type"] == "budget"]


def test_a_step_with_one_candidate_run_goes_on() -> None:
    # one of step 0's two candidates ran (and scored worse): the time is not what stopped it
    policy, events = _refine_with(["scored", "skipped"])
    assert policy.extracted == 3
    assert not [e for e in events if e["type"] == "budget"]
