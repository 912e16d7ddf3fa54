"""A_planner (paper §3.2): a new plan for the same block, given every earlier plan and its score."""

from __future__ import annotations

from ...notebook import SolutionNotebook
from ..policy import Plan, RefineTarget
from .base import Role
from .caller import RoleCaller
from .context import RoleContext

ROLE = Role("planner", "text")


def scored(history: list[tuple[Plan, float | None]]) -> list[tuple[str, str]]:
    """Plans with their scores as the planner prompts show them (``failed``: no score)."""
    return [(p.text, "failed" if s is None else f"{s:.5g}") for p, s in history]


def render(
    ctx: RoleContext,
    solution: SolutionNotebook,
    target: RefineTarget,
    history: list[tuple[Plan, float | None]],
) -> str:
    """The planner's prompt: the block, the plans tried and the score before any change."""
    block = target.fragment or solution.block(target.block_id).source
    return ROLE.render(
        block=ctx.fit(block, 0.4),
        history=scored(history),
        metric=ctx.task.metric_name,
        direction=ctx.task.direction,
        baseline=score_of(solution),
    )


def ask(
    caller: RoleCaller,
    ctx: RoleContext,
    solution: SolutionNotebook,
    target: RefineTarget,
    history: list[tuple[Plan, float | None]],
) -> Plan:
    """A plan unlike those in ``history``."""
    text = caller.ask(ROLE, render(ctx, solution, target, history), salt=str(len(history)))
    return Plan(text=str(text).strip())


def score_of(nb: SolutionNotebook) -> str:
    """The score recorded on the notebook's first scored cell, or ``"unknown"``."""
    for c in nb.nb.cells:
        if c.cell_type == "code":
            scores = c.metadata.get("mlestar", {}).get("scores") or []
            if scores:
                return str(scores[-1])
    return "unknown"
