"""The data-leakage checker's detector: does information from validation or test rows shape
training, and which code block (quoted exactly) preprocesses them."""

from __future__ import annotations

from pydantic import BaseModel

from ...notebook import SolutionNotebook
from .base import Role
from .caller import RoleCaller
from .context import RoleContext


# The detector's answer: whether it leaks, the code quoted, and why.
# (No docstring: pydantic would put it in the JSON schema sent with every request, and the
# schema is part of the cache key of the run's recorded answers.)
class LeakageAnswer(BaseModel):
    leakage: bool
    code_block: str = ""
    reason: str = ""


ROLE = Role("leakage_detect", "json", LeakageAnswer)


def render(ctx: RoleContext, solution: SolutionNotebook) -> str:
    """The detector's prompt: the whole notebook."""
    return ROLE.render(code=ctx.script(solution))


def ask(caller: RoleCaller, ctx: RoleContext, solution: SolutionNotebook) -> LeakageAnswer:
    """The detector's verdict on ``solution``."""
    answer: LeakageAnswer = caller.ask(ROLE, render(ctx, solution))
    return answer
