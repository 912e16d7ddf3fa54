"""The paper's contamination check: is the solution ``"Novel"`` or the ``"Same"`` as a reference
discussion.  Any other answer is asked again."""

from __future__ import annotations

from ...llm.errors import ReplyFormatError
from ...notebook import SolutionNotebook
from .base import Role
from .caller import RoleCaller
from .context import RoleContext

VERDICTS = ("Novel", "Same")


class NoveltyRole(Role):
    """A text role whose answer must contain one of ``VERDICTS``."""

    def parse(self, reply: str) -> str:
        """The verdict in ``reply`` (``Novel`` wins when both appear)."""
        word = next((w for w in VERDICTS if w.lower() in reply.lower()), None)
        if word is None:
            raise ReplyFormatError("answer with one word: Novel or Same", raw=reply)
        return word


ROLE = NoveltyRole("novelty", "text")


def render(ctx: RoleContext, solution: SolutionNotebook, reference: str) -> str:
    """The check's prompt: the reference text and the solution."""
    return ROLE.render(reference=ctx.fit(reference, 0.3), code=ctx.script(solution))


def ask(caller: RoleCaller, ctx: RoleContext, solution: SolutionNotebook, reference: str) -> str:
    """``"Novel"`` or ``"Same"``."""
    return str(caller.ask(ROLE, render(ctx, solution, reference)))
