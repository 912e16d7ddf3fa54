"""TAM-Bench's task difficulty from a leaderboard (paper §3.2, eqs. 1-4).

    NormMean = (mean - min) / (max - min + eps)      NormBest = (best - min) / (max - min + eps)
    higher is better:  D = 0.4 NormMean + 0.1 log10(P + 1) + 0.5 (1 - NormBest)
    lower is better:   D = 0.4 NormMean + 0.1 log10(P + 1) + 0.5 NormBest

``min``/``max`` are the metric's range when it is bounded (accuracy, AUC: 0 and 1), else the
lowest and highest score on the board.  Levels: easy <= 0.6 < medium <= 0.85 < hard.  The
formula is the paper's, taken literally.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Literal

from ..metrics import get_metric
from .leaderboard import Leaderboard

Level = Literal["easy", "medium", "hard"]
W_MEAN, W_PARTICIPANTS, W_BEST = 0.4, 0.1, 0.5
EPS = 1e-9


@dataclass(frozen=True)
class Difficulty:
    """A task's difficulty score, its level, and the terms it is made of."""

    score: float
    level: Level
    norm_mean: float
    norm_best: float
    participants: int
    range_min: float
    range_max: float

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def level_of(score: float) -> Level:
    """easy <= 0.6 < medium <= 0.85 < hard."""
    return "easy" if score <= 0.6 else "medium" if score <= 0.85 else "hard"


def difficulty_score(
    mean: float,
    best: float,
    participants: int,
    lo: float,
    hi: float,
    higher_is_better: bool,
) -> Difficulty:
    """The difficulty from the board's mean and best, its size and the score range ``[lo, hi]``."""
    span = hi - lo + EPS
    norm_mean = (mean - lo) / span
    norm_best = (best - lo) / span
    best_term = (1.0 - norm_best) if higher_is_better else norm_best
    score = W_MEAN * norm_mean + W_PARTICIPANTS * math.log10(participants + 1) + W_BEST * best_term
    return Difficulty(score, level_of(score), norm_mean, norm_best, participants, lo, hi)


def task_difficulty(board: Leaderboard, metric_name: str) -> Difficulty:
    """Difficulty of a task whose leaderboard is ``board``, scored by ``metric_name``."""
    metric = get_metric(metric_name)
    if metric.bounds is not None:
        lo, hi = float(metric.bounds[0]), float(metric.bounds[1])
    else:
        lo, hi = min(board.scores), max(board.scores)
    return difficulty_score(
        board.mean, board.best, len(board), lo, hi, board.direction == "maximize"
    )
