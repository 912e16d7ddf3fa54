"""The paper's contamination check: is the solution ``"Novel"`` or the ``"Same"`` as a reference
discussion.  Any other answer is asked again."""

from __future__ import annotations

import re

from ...llm.code_answer import final_answer
from ...llm.errors import ReplyFormatError
from ...notebook import SolutionNotebook
from .base import Role
from .caller import RoleCaller
from .context import RoleContext

VERDICTS = ("Novel", "Same")


class NoveltyRole(Role):
    """A text role whose answer must contain one of ``VERDICTS``."""

    def parse(self, reply: str) -> str:
        """The verdict in ``reply`` (its reasoning left out): the verdict word it ends with,
        else the last one it names, a negated "not novel" read as ``Same``."""
        text = final_answer(reply).strip()
        found = [
            ("Same" if m.group(1) else m.group(2).capitalize(), m.start())
            for m in re.finditer(r"\b(not\s+)?(novel|same)\b", text, re.IGNORECASE)
            if not (m.group(1) and m.group(2).lower() == "same")
        ]
        if not found:
            raise ReplyFormatError("answer with one word: Novel or Same", raw=reply)
        return found[-1][0]


ROLE = NoveltyRole("novelty", "text")


def render(ctx: RoleContext, solution: SolutionNotebook, reference: str) -> str:
    """The check's prompt: the reference text and the solution."""
    return ROLE.render(reference=ctx.fit(reference, 0.3), code=ctx.script(solution))


def ask(caller: RoleCaller, ctx: RoleContext, solution: SolutionNotebook, reference: str) -> str:
    """``"Novel"`` or ``"Same"``."""
    return str(caller.ask(ROLE, render(ctx, solution, reference)))
