"""A_merger (paper §3.1): the reference solution's model integrated into the base solution."""

from __future__ import annotations

from ...notebook import SolutionNotebook
from ..percent_script import script_to_notebook
from .base import Role
from .caller import RoleCaller
from .context import RoleContext

ROLE = Role("merger", "code")


def render(ctx: RoleContext, base: SolutionNotebook, reference: SolutionNotebook) -> str:
    """The merger's prompt: both solutions, each in under a third of the room."""
    return ROLE.render(
        base=ctx.fit(base.to_script(), 0.3),
        reference=ctx.fit(reference.to_script(), 0.3),
        max_rows=ctx.config.max_train_rows,
        metric=ctx.task.metric_name,
    )


def ask(
    caller: RoleCaller, ctx: RoleContext, base: SolutionNotebook, reference: SolutionNotebook
) -> SolutionNotebook:
    """``base`` with ``reference`` merged in (usually an ensemble of both models)."""
    code = caller.code(ROLE, render(ctx, base, reference), whole=True)
    return script_to_notebook(code, origin="merger")
