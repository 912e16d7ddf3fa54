"""Bench-level figures from graded tasks: TAM-Bench's weighted rank, group ranks and rates."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel

from .constraints import method_counts, pass_rate
from .grading import GradeReport
from .leaderboard import weighted_rank


class BenchSummary(BaseModel):
    """The bench's headline figures (rates in [0, 1]; RankPct lower is better)."""

    tasks: int
    made_submission_rate: float
    valid_submission_rate: float
    weighted_rank_pct: float | None
    mean_rank_pct: float | None
    rank_pct_by_modality: dict[str, float]
    rank_pct_by_difficulty: dict[str, float]
    mean_beats_pct: float | None
    any_medal_rate: float
    medals: dict[str, int]
    above_median_rate: float
    constraint_pass_rate: float | None
    constraints_judged: int
    constraints_total: int
    constraints_static: int = 0
    constraints_by_judge: int = 0


def _mean(xs: Sequence[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def summarize(grades: Sequence[GradeReport]) -> BenchSummary:
    """Aggregate graded tasks; a task without a rank counts as last place (RankPct 1.0, beats 0 %)."""
    n = len(grades)
    pct = [g.rank_pct if g.rank_pct is not None else 1.0 for g in grades]

    def by(key: str) -> dict[str, float]:
        groups: dict[str, list[float]] = {}
        for g, p in zip(grades, pct, strict=True):
            groups.setdefault(str(getattr(g, key) or "unknown"), []).append(p)
        return {k: sum(v) / len(v) for k, v in sorted(groups.items())}

    verdicts = [v for g in grades for v in g.constraints]
    judged = [v for v in verdicts if v.verdict != "not_judged"]
    how = method_counts(verdicts)
    medals = {m: sum(g.medal == m for g in grades) for m in ("gold", "silver", "bronze")}
    return BenchSummary(
        tasks=n,
        made_submission_rate=sum(g.made_submission for g in grades) / n if n else 0.0,
        valid_submission_rate=sum(g.valid_submission for g in grades) / n if n else 0.0,
        weighted_rank_pct=weighted_rank([g.rank_pct for g in grades], [g.modality for g in grades])
        if n
        else None,
        mean_rank_pct=_mean(pct),
        rank_pct_by_modality=by("modality"),
        rank_pct_by_difficulty=by("difficulty_level"),
        mean_beats_pct=_mean([g.beats_pct if g.beats_pct is not None else 0.0 for g in grades]),
        any_medal_rate=sum(g.medal != "none" for g in grades) / n if n else 0.0,
        medals=medals,
        above_median_rate=sum(g.above_median for g in grades) / n if n else 0.0,
        constraint_pass_rate=pass_rate(verdicts),
        constraints_judged=len(judged),
        constraints_total=len(verdicts),
        constraints_static=how["static"],
        constraints_by_judge=how["judge"],
    )
