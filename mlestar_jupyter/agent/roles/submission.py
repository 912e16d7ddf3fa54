"""A_test (paper §3.4): the final notebook that trains on all the training rows and writes
``./final/submission.csv`` for every test row, in the task's format and with the values its
metric reads."""

from __future__ import annotations

from ...notebook import SolutionNotebook
from ..percent_script import script_to_notebook
from ..submission import value_spec
from .base import Role
from .caller import RoleCaller
from .context import RoleContext

ROLE = Role("submission", "code")


def render(ctx: RoleContext, solution: SolutionNotebook) -> str:
    """The submission prompt: the task, its data, the solution, the output format and values."""
    task = ctx.task
    values = value_spec(task)  # what the metric needs in each column
    return ROLE.render(
        task=ctx.describe(0.2),
        data=ctx.data(0.1),
        code=ctx.script(solution),
        output_format=task.output_format
        or ",".join(((task.id_col,) if task.id_col else ()) + task.target_cols),
        values=values.describe() if values is not None else "",
    )


def ask(caller: RoleCaller, ctx: RoleContext, solution: SolutionNotebook) -> SolutionNotebook:
    """The submission notebook made from ``solution``."""
    code = caller.code(ROLE, render(ctx, solution), whole=True, starter=ctx.starter())
    return script_to_notebook(code, base=solution, origin="submission")
