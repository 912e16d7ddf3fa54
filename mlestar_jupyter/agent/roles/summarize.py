"""A_summarize (paper §3.2): the ablation study's result in a few lines, with per-ablation scores.

Scores written as strings are read as numbers (``"0.95"``, ``"n/a"`` for none); a percentage
(``"95.2%"``) is a hundredth of the metric's value when the task's metric is fraction-valued
(accuracy, AUC, F1 …: bounded by 1), the number as written otherwise.  When the model's answer is
unusable (after the re-asks), or the model stays rate-limited, the program's printed
``Ablation <name>: <score>`` lines are enough for the bars: the summary falls back to them.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from pydantic import BaseModel, Field

from ...llm.errors import RateLimited
from ...llm.structured import parse_json, validate_value
from ...metrics import UnknownMetricError, get_metric
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
FALLS_BACK_ON: tuple[type[Exception], ...] = (*MODEL_ERRORS, RateLimited)
"""An unusable answer, or a model that stays rate-limited: the printed scores stand in."""
_NUMBER = re.compile(r"^\s*([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)\s*(%?)\s*$")
_NO_SCORE = frozenset({"", "n/a", "na", "none", "null", "nan", "-", "failed", "error"})


def fraction_valued(metric_name: str) -> bool:
    """Whether the metric's values are fractions (bounded by 1: accuracy, AUC, F1, kappa …), so
    that a percentage stands for a hundredth of the value."""
    try:
        bounds = get_metric(metric_name).bounds
    except UnknownMetricError:
        return False
    return bounds is not None and bounds[1] == 1


def score_value(value: Any, fraction: bool) -> Any:
    """A score as written, read as a number: ``"0.95"`` → 0.95; ``"95.2%"`` → 0.952 when the
    metric is ``fraction``-valued (95.2 otherwise); ``"n/a"``, ``"failed"`` → None; anything
    else as it is (validation then says what is wrong)."""
    if not isinstance(value, str):
        return value
    m = _NUMBER.match(value)
    if m is None:
        return None if value.strip().lower() in _NO_SCORE else value
    number = float(m.group(1))
    return number / 100 if m.group(2) and fraction else number


def _scores_read(data: Any, fraction: bool) -> Any:
    """``data`` with every ``"score"`` value read by ``score_value``, at any depth."""
    if isinstance(data, dict):
        return {
            k: score_value(v, fraction) if k == "score" else _scores_read(v, fraction)
            for k, v in data.items()
        }
    if isinstance(data, list):
        return [_scores_read(v, fraction) for v in data]
    return data


def parse(reply: str, metric_name: str) -> AblationAnswer:
    """The summarizer's answer in ``reply``, its scores read as numbers for ``metric_name``."""
    data = _scores_read(parse_json(reply), fraction_valued(metric_name))
    return validate_value(data, AblationAnswer, raw=reply)


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
        ans: AblationAnswer = caller.ask(
            ROLE, render(ctx, code, output), parse=lambda r: parse(r, ctx.task.metric_name)
        )
        text = ans.summary
        items = {i.name: i.score for i in ans.results} or parsed
    except FALLS_BACK_ON as e:  # the printed lines are enough for the bars
        log.info("summarize: %s; using the printed scores", e)
        text, items = (output[-1500:] or "no output"), parsed
    base = items.pop("baseline", None) if "baseline" in items else baseline
    sign = 1 if ctx.task.direction == "maximize" else -1
    results = tuple(
        AblationResult(n, None, s, None if (s is None or base is None) else sign * (base - s))
        for n, s in items.items()
    )
    return AblationSummary(text=text, baseline=base, results=results)
