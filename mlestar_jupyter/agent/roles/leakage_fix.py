"""The data-leakage checker's fixer: a block rewritten so that everything is fitted on training
rows only."""

from __future__ import annotations

from .base import Role
from .caller import RoleCaller

ROLE = Role("leakage_fix", "code")


def render(block: str, reason: str) -> str:
    """The fixer's prompt: the leaking code and why it leaks."""
    return ROLE.render(block=block, reason=reason)


def ask(caller: RoleCaller, block: str, reason: str) -> str:
    """The new code of ``block``."""
    return caller.code(ROLE, render(block, reason))
