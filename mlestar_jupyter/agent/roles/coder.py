"""A_coder (paper §3.2): the new source of the target block (or fragment) carrying out a plan.

The prompt quotes the harness's latest findings about printed scores, so the model keeps writing
the validation predictions the score is measured from.
"""

from __future__ import annotations

from ...notebook import SolutionNotebook
from ..policy import Plan, RefineTarget
from .base import Role
from .caller import RoleCaller
from .context import RoleContext

ROLE = Role("coder", "code")


def render(ctx: RoleContext, block: str, plan: Plan) -> str:
    """The coder's prompt: the block's code and the plan."""
    return ROLE.render(block=ctx.fit(block, 0.4), plan=plan.text, score_notes=list(ctx.score_notes))


def ask(
    caller: RoleCaller,
    ctx: RoleContext,
    solution: SolutionNotebook,
    target: RefineTarget,
    plan: Plan,
) -> str:
    """The target's new code."""
    block = target.fragment or solution.block(target.block_id).source
    return caller.code(ROLE, render(ctx, block, plan), salt=plan.text[:80])
