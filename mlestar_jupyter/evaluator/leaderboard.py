"""Leaderboards: rank a score among others, and award MLE-bench-style medals.

A leaderboard is a list of scores with a direction.  ``Leaderboard.rank(score)`` places a new
score among them: the submission joins the board, its rank is one plus the number of entries
strictly better, ``rank_pct = rank / (n + 1)`` (TAM-Bench's RankPct, lower is better) and
``beats_pct`` is the share of the existing entries strictly worse.  Medal thresholds follow
Kaggle's progression rules as MLE-bench applies them (scores at given positions of the board,
which depend on the board's size).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pandas as pd

from ..metrics import Direction, Score
from .errors import LeaderboardError

Medal = Literal["gold", "silver", "bronze", "none"]
SCORE_COLUMNS = (
    "score",
    "scorenullable",
    "private_score",
    "privatescore",
    "private score",
    "public_score",
)


@dataclass(frozen=True)
class MedalThresholds:
    """Scores needed for each medal, and the board's median."""

    gold: float
    silver: float
    bronze: float
    median: float


@dataclass(frozen=True)
class RankResult:
    """Where one score lands on a leaderboard."""

    score: float | None
    rank: int | None
    participants: int
    rank_pct: float | None
    beats_pct: float | None
    medal: Medal
    above_median: bool
    thresholds: MedalThresholds


def medal_positions(num_teams: int) -> tuple[int, int, int]:
    """1-based board positions whose scores are the gold, silver and bronze thresholds.

    Kaggle's progression rules as used by MLE-bench: under 100 teams the top 10/20/40 %;
    100-249 teams the top 10 places, 20 %, 40 %; 250-999 teams top 10 + 0.2 %, 50 and 100
    places; 1000 or more teams top 10 + 0.2 %, 5 %, 10 %.
    """
    n = num_teams
    if n < 1:
        raise LeaderboardError("a leaderboard needs at least one entry to award medals")
    if n < 100:
        return max(1, int(n * 0.1)), max(1, int(n * 0.2)), max(1, int(n * 0.4))
    if n < 250:
        return 10, max(1, int(n * 0.2)), max(1, int(n * 0.4))
    if n < 1000:
        return 10 + int(n * 0.002), 50, 100
    return 10 + int(n * 0.002), max(1, int(n * 0.05)), max(1, int(n * 0.1))


@dataclass(frozen=True)
class Leaderboard:
    """Scores of a competition's participants, best first, with the metric's direction."""

    scores: tuple[float, ...]
    direction: Direction
    names: tuple[str, ...] = ()

    @classmethod
    def of(
        cls, scores: Iterable[float], direction: Direction, names: Sequence[str] = ()
    ) -> Leaderboard:
        """A board from scores in any order (non-finite scores are dropped)."""
        pairs = [
            (float(s), str(n))
            for s, n in zip(scores, list(names) or _blank(), strict=False)
            if s is not None and math.isfinite(float(s))
        ]
        pairs.sort(key=lambda p: p[0], reverse=direction == "maximize")
        if not pairs:
            raise LeaderboardError(
                "the leaderboard has no finite score; rebuild it with `mlestar bench prepare`"
            )
        return cls(
            tuple(p[0] for p in pairs), direction, tuple(p[1] for p in pairs) if names else ()
        )

    def __len__(self) -> int:
        return len(self.scores)

    def better(self, a: float, b: float) -> bool:
        """Whether score ``a`` is strictly better than ``b``."""
        return Score(a, self.direction).better_than(Score(b, self.direction))

    @property
    def best(self) -> float:
        """The top score on the board."""
        return self.scores[0]

    @property
    def mean(self) -> float:
        """The mean of all scores on the board (the difficulty formula's mean term)."""
        return float(sum(self.scores) / len(self.scores))

    def thresholds(self) -> MedalThresholds:
        """Medal thresholds and median for this board's size."""
        g, s, b = medal_positions(len(self.scores))
        median = float(pd.Series(self.scores).median())
        return MedalThresholds(self.scores[g - 1], self.scores[s - 1], self.scores[b - 1], median)

    def rank(self, score: float | None) -> RankResult:
        """Place ``score`` on the board (``None`` or non-finite: unranked, no medal)."""
        th = self.thresholds()
        n = len(self.scores)
        if score is None or not math.isfinite(score):
            return RankResult(None, None, n + 1, None, None, "none", False, th)
        better = sum(1 for s in self.scores if self.better(s, score))
        worse = sum(1 for s in self.scores if self.better(score, s))
        rank = better + 1

        def reaches(t: float) -> bool:
            return score == t or self.better(score, t)

        medal: Medal = (
            "gold"
            if reaches(th.gold)
            else "silver"
            if reaches(th.silver)
            else "bronze"
            if reaches(th.bronze)
            else "none"
        )
        return RankResult(
            score,
            rank,
            n + 1,
            rank / (n + 1),
            100.0 * worse / n,
            medal,
            self.better(score, th.median),
            th,
        )


def _blank() -> Iterable[str]:
    while True:
        yield ""


def load_leaderboard(path: str | Path, direction: Direction) -> Leaderboard:
    """Read a leaderboard CSV with a score column (``score``, ``scoreNullable``, ``private_score``...)."""
    p = Path(path)
    if not p.is_file():
        raise LeaderboardError(
            f"{p}: no leaderboard file; build one with `mlestar bench prepare` or put the competition's leaderboard.csv there"
        )
    df = pd.read_csv(p)
    cols = {c.lower().strip(): c for c in df.columns}
    col = next((cols[c] for c in SCORE_COLUMNS if c in cols), None)
    if col is None:
        raise LeaderboardError(
            f"{p}: no score column (expected one of: {', '.join(SCORE_COLUMNS)}); columns are {list(df.columns)}"
        )
    scores = pd.to_numeric(df[col], errors="coerce")
    name_col = next((cols[c] for c in ("team", "teamname", "name", "method") if c in cols), None)
    names = df[name_col].astype(str).tolist() if name_col else []
    return Leaderboard.of(scores.tolist(), direction, names)


def weighted_rank(rank_pcts: Sequence[float | None], modalities: Sequence[str]) -> float | None:
    """TAM-Bench's modality-weighted average RankPct: each task weighs 1 / (tasks of its modality).

    A task without a rank (no valid submission) counts as last place, RankPct 1.0.
    """
    counts: dict[str, int] = {}
    for m in modalities:
        counts[m] = counts.get(m, 0) + 1
    num = den = 0.0
    for r, m in zip(rank_pcts, modalities, strict=True):
        num += (1.0 if r is None else r) / counts[m]
        den += 1 / counts[m]
    return num / den if den else None
