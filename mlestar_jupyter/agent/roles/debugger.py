"""A_debugger (paper §3.4): the notebook with the error fixed.

The prompt shows the notebook with its block ids, the error's head and tail, the data at a
glance, and the harness's latest findings about printed scores; the answer is a whole program
whose block ids map back onto the notebook.
"""

from __future__ import annotations

from ...notebook import SolutionNotebook
from ..percent_script import script_to_notebook
from .base import Role
from .caller import RoleCaller
from .context import RoleContext

ROLE = Role("debugger", "code")


def render(ctx: RoleContext, solution: SolutionNotebook, error: str) -> str:
    """The debugger's prompt for ``solution`` failing with ``error``."""
    return ROLE.render(
        code=ctx.script(solution),
        error=ctx.fit(error, 0.2),
        data=ctx.data(0.1),
        submission="submission" in error.lower(),
        score_notes=list(ctx.score_notes),
    )


def ask(
    caller: RoleCaller, ctx: RoleContext, solution: SolutionNotebook, error: str
) -> SolutionNotebook:
    """``solution`` fixed."""
    prompt = render(ctx, solution, error)
    code = caller.code(ROLE, prompt, salt=error[-200:], whole=True, starter=ctx.starter())
    return script_to_notebook(code, base=solution, origin="debugger")
