"""A_ens_planner (paper §3.3): a plan to combine the L solutions, given earlier plans and scores."""

from __future__ import annotations

from ...notebook import SolutionNotebook
from ..policy import Plan
from .base import Role
from .caller import RoleCaller
from .context import RoleContext
from .planner import scored

ROLE = Role("ens_planner", "text")


def render(
    ctx: RoleContext, solutions: list[SolutionNotebook], history: list[tuple[Plan, float | None]]
) -> str:
    """The ensemble planner's prompt: the solutions share half of the room."""
    share = 0.5 / max(1, len(solutions))
    return ROLE.render(
        solutions=[ctx.fit(s.to_script(), share) for s in solutions],
        history=scored(history),
        metric=ctx.task.metric_name,
        direction=ctx.task.direction,
    )


def ask(
    caller: RoleCaller,
    ctx: RoleContext,
    solutions: list[SolutionNotebook],
    history: list[tuple[Plan, float | None]],
) -> Plan:
    """An ensemble plan unlike those in ``history``."""
    text = caller.ask(ROLE, render(ctx, solutions, history), salt=str(len(history)))
    return Plan(text=str(text).strip())
