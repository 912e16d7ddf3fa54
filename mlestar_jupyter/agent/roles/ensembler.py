"""A_ensembler (paper §3.3): one notebook carrying out an ensemble plan over the solutions."""

from __future__ import annotations

from ...notebook import SolutionNotebook
from ..percent_script import script_to_notebook
from ..policy import Plan
from .base import Role
from .caller import RoleCaller
from .context import RoleContext

ROLE = Role("ensembler", "code")


def render(ctx: RoleContext, solutions: list[SolutionNotebook], plan: Plan) -> str:
    """The ensembler's prompt: the solutions share half of the room."""
    share = 0.5 / max(1, len(solutions))
    return ROLE.render(
        solutions=[ctx.fit(s.to_script(), share) for s in solutions],
        plan=plan.text,
        metric=ctx.task.metric_name,
    )


def ask(
    caller: RoleCaller, ctx: RoleContext, solutions: list[SolutionNotebook], plan: Plan
) -> SolutionNotebook:
    """The ensemble notebook."""
    code = caller.code(ROLE, render(ctx, solutions, plan), salt=plan.text[:80], whole=True)
    return script_to_notebook(code, origin="ensembler")
