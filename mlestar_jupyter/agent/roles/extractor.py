"""A_extractor (paper §3.2): the code block whose improvement should help most, and a first plan.

The answer names a block id and quotes code; ``resolve_target`` maps it onto a block (by its id,
else by locating the quoted code).  A block that cannot be found is a reply-format error: the
model is asked again with the valid block ids.
"""

from __future__ import annotations

import re

from pydantic import BaseModel

from ...llm.errors import ReplyFormatError
from ...notebook import BlockMatchError, SolutionNotebook
from ..percent_script import without_markers
from ..policy import AblationSummary, Plan, RefineTarget
from .base import Role
from .caller import RoleCaller
from .context import RoleContext


# The extractor's answer: the block (id and/or quoted code) and the plan.
# (No docstring: pydantic would put it in the JSON schema sent with every request, and the
# schema is part of the cache key of the run's recorded answers.)
class ExtractAnswer(BaseModel):
    block_id: str = ""
    code_block: str
    plan: str


ROLE = Role("extractor", "json", ExtractAnswer)


def render(
    ctx: RoleContext, solution: SolutionNotebook, summary: AblationSummary, refined: list[str]
) -> str:
    """The extractor's prompt: the solution, the ablation summary, the blocks already refined."""
    return ROLE.render(
        solution=ctx.script(solution), summary=ctx.fit(summary.text, 0.1), refined=refined
    )


def ask(
    caller: RoleCaller,
    ctx: RoleContext,
    solution: SolutionNotebook,
    summary: AblationSummary,
    refined: list[str],
) -> RefineTarget:
    """The block of ``solution`` to refine (preferring ones not in ``refined``) and its plan."""

    def parse(text: str) -> RefineTarget:
        ans: ExtractAnswer = ROLE.parse(text)
        try:
            return resolve_target(solution, ans.block_id, ans.code_block, ans.plan)
        except BlockMatchError as e:
            raise ReplyFormatError(
                f"{e}. Valid block ids: {', '.join(solution.block_ids)}", raw=text
            ) from e

    target: RefineTarget = caller.ask(ROLE, render(ctx, solution, summary, refined), parse=parse)
    return target


def _known_block(solution: SolutionNotebook, block_id: str) -> str:
    """``block_id`` as the notebook spells it: ``"b2 (model)"``, ``"[b2]"``, ``"B2"`` are b2."""
    if block_id in solution.block_ids:
        return block_id
    ids = {b.lower(): b for b in solution.block_ids}
    for word in re.findall(r"[A-Za-z]+\d+", block_id):
        if word.lower() in ids:
            return ids[word.lower()]
    return block_id


def _unfenced(code: str) -> str:
    """The code inside a Markdown fence the model put around the quoted block."""
    m = re.match(r"^\s*(`{3,}|~{3,})[\w+.-]*[^\n]*\n(.*?)\n?\s*\1\s*$", code, re.DOTALL)
    return m.group(2) if m else code


def resolve_target(
    solution: SolutionNotebook, block_id: str, code_block: str, plan: str
) -> RefineTarget:
    """Map the extractor's answer onto a block: by its id, or by locating the quoted code."""
    frag = without_markers(_unfenced(code_block))
    block_id = _known_block(solution, block_id)
    if block_id in solution.block_ids:
        src = solution.block(block_id).source
        if not frag.strip() or frag.strip() == src.strip():
            return RefineTarget(block_id, Plan(plan), None)
        if frag in src:
            return RefineTarget(block_id, Plan(plan), frag)
    bid = solution.locate(frag)  # raises BlockMatchError with a clear message
    src = solution.block(bid).source
    return RefineTarget(
        bid, Plan(plan), None if frag.strip() == src.strip() or frag not in src else frag
    )
