"""A_summarize (paper §3.2): the ablation study's result in a few lines, with per-ablation scores.

When the model's answer is unusable (after the re-asks), the program's printed
``Ablation <name>: <score>`` lines are enough for the bars: the summary falls back to them.
"""

from __future__ import annotations

import logging

from pydantic import BaseModel, Field

from ..policy import AblationResult, AblationStudy, AblationSummary
from .ablation import parse_ablation_lines
from .base import Role
from .caller import MODEL_ERRORS, RoleCaller
from .context import RoleContext

log = logging.getLogger("mlestar.agent")


# The summarizer's answer: prose, and each ablation's score.
# (No docstring: pydantic would put it in the JSON schema sent with every request, and the
# schema is part of the cache key of the run's recorded answers.)
class AblationAnswer(BaseModel):
    class Item(BaseModel):
        name: str
        score: float | None = None

    summary: str
    results: list[Item] = Field(default_factory=list)


ROLE = Role("summarize", "json", AblationAnswer)


def render(ctx: RoleContext, code: str, output: str) -> str:
    """The summarizer's prompt: the ablation program and what it printed."""
    return ROLE.render(
        code=ctx.fit(code, 0.3),
        output=ctx.fit(output, 0.2),
        metric=ctx.task.metric_name,
        direction=ctx.task.direction,
    )


def ask(
    caller: RoleCaller,
    ctx: RoleContext,
    study: AblationStudy,
    baseline: float | None,
    output: str,
) -> AblationSummary:
    """The summary of ``study``'s ``output``; each result's delta is signed so that positive
    means the part helps."""
    code = study.notebook.source if study.notebook else ""
    parsed = parse_ablation_lines(output)
    try:
        ans: AblationAnswer = caller.ask(ROLE, render(ctx, code, output))
        text = ans.summary
        items = {i.name: i.score for i in ans.results} or parsed
    except MODEL_ERRORS as e:  # the printed lines are enough for the bars
        log.info("summarize: %s; using the printed scores", e)
        text, items = (output[-1500:] or "no output"), parsed
    base = items.pop("baseline", None) if "baseline" in items else baseline
    sign = 1 if ctx.task.direction == "maximize" else -1
    results = tuple(
        AblationResult(n, None, s, None if (s is None or base is None) else sign * (base - s))
        for n, s in items.items()
    )
    return AblationSummary(text=text, baseline=base, results=results)
