"""The data-usage checker (paper §3.4): does the solution use every provided file, and if not,
the notebook with what is missing added.

Files the code never names are found statically and told to the model.  An answer that says
everything is used (without code), or whose code does not pass the pre-screen, adds nothing.
"""

from __future__ import annotations

from ...codecheck.prescreen import prescreen
from ...codecheck.static_checks import unused_files
from ...llm.code_answer import extract_code, final_answer
from ...notebook import SolutionNotebook
from ...task.layout import files_to_read
from ..percent_script import script_to_notebook
from ..policy import DataUsageReport
from .base import Role
from .caller import RoleCaller
from .context import RoleContext

ROLE = Role("data_usage", "text")
ALL_USED = "all the provided information is used"


def render(ctx: RoleContext, solution: SolutionNotebook, unused: list[str]) -> str:
    """The checker's prompt: the solution, the task, the files and those never read."""
    return ROLE.render(
        code=ctx.script(solution),
        task=ctx.describe(0.2),
        files=[f"{f.path} ({f.role})" for f in ctx.task.files],
        unused=unused,
    )


def unread_files(ctx: RoleContext, solution: SolutionNotebook) -> DataUsageReport:
    """The files ``solution`` never reads (found statically), nothing added."""
    return DataUsageReport(tuple(unused_files(solution.source, files_to_read(ctx.task))))


def ask(caller: RoleCaller, ctx: RoleContext, solution: SolutionNotebook) -> DataUsageReport:
    """The files ``solution`` never reads, and the notebook using them (None: nothing added)."""
    unused = unread_files(ctx, solution).unused_files
    text = final_answer(str(caller.ask(ROLE, render(ctx, solution, list(unused)))))
    if ALL_USED in text.lower() and "```" not in text:
        return DataUsageReport(unused, None)
    code, problem = prescreen(extract_code(text), caller.local_modules)
    if problem:
        return DataUsageReport(unused, None)
    return DataUsageReport(unused, script_to_notebook(code, base=solution, origin="data_usage"))
