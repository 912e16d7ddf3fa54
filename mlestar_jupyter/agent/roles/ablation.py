"""A_abl (paper §3.2): one program that runs an ablation study of the solution and prints
``Ablation <name>: <score>`` lines, parsed by ``parse_ablation_lines``."""

from __future__ import annotations

import re

from ...notebook import SolutionNotebook
from ..policy import AblationStudy, AblationSummary
from .base import Role
from .caller import RoleCaller
from .context import RoleContext

ROLE = Role("ablation", "code")
_ABL = re.compile(r"ablation\s+(.+?)\s*[:=]\s*(-?\d+(?:\.\d+)?(?:e-?\d+)?)", re.I)


def render(ctx: RoleContext, solution: SolutionNotebook, previous: list[AblationSummary]) -> str:
    """The ablation prompt: the solution and the earlier studies' summaries."""
    return ROLE.render(
        solution=ctx.script(solution), previous=[ctx.fit(p.text, 0.05) for p in previous]
    )


def ask(
    caller: RoleCaller,
    ctx: RoleContext,
    solution: SolutionNotebook,
    previous: list[AblationSummary],
) -> AblationStudy:
    """A study of 2–3 parts the ``previous`` studies did not cover, as one notebook."""
    code = caller.code(ROLE, render(ctx, solution, previous))
    return AblationStudy(notebook=SolutionNotebook.new([("other", code)], origin="ablation"))


def parse_ablation_lines(output: str) -> dict[str, float | None]:
    """``Ablation <name>: <score>`` lines of an ablation program's output."""
    out: dict[str, float | None] = {}
    for m in _ABL.finditer(output):
        name = m.group(1).strip()
        out[name.lower() if name.lower() == "baseline" else name] = float(m.group(2))
    return out
