"""A_init (paper §3.1): a first, simple solution notebook built around one retrieved model.

The prompt shows the task, its data at a glance, the model's card and, where the grounded policy
can make them, cells that load the data; the answer is a whole program.
"""

from __future__ import annotations

from ...notebook import SolutionNotebook
from ..percent_script import script_to_notebook
from ..policy import ModelCard
from .base import Role
from .caller import RoleCaller
from .context import RoleContext

ROLE = Role("init", "code")


def render(ctx: RoleContext, card: ModelCard, starter: str) -> str:
    """The init prompt for ``card`` (``starter``: the cells that load the data, or "")."""
    return ROLE.render(
        task=ctx.describe(0.25),
        data=ctx.data(),
        card=card,
        starter=starter,
        max_rows=ctx.config.max_train_rows,
        subsample=ctx.needs_subsample(),
    )


def ask(caller: RoleCaller, ctx: RoleContext, card: ModelCard) -> SolutionNotebook:
    """A first notebook using ``card``."""
    starter = ctx.starter()
    code = caller.code(
        ROLE, render(ctx, card, starter), salt=card.name, whole=True, starter=starter
    )
    return script_to_notebook(code, origin=f"init:{card.name}")
