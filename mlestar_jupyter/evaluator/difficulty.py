"""TAM-Bench's task difficulty from a leaderboard (paper §3.2, eqs. 1-4).

    NormMean = (mean - min) / (max - min + eps)      NormBest = (best - min) / (max - min + eps)
    higher is better:  D = 0.4 NormMean + 0.1 log10(P + 1) + 0.5 (1 - NormBest)
    lower is better:   D = 0.4 NormMean + 0.1 log10(P + 1) + 0.5 NormBest

``min``/``max`` are the metric's range when it is bounded (accuracy, AUC: 0 and 1), else the
lowest and highest score on the board.  Levels: easy <= 0.6 < medium <= 0.85 < hard.  The
formula is the paper's, taken literally.

The scale of ``P``.  The paper's ``P`` is a real competition's participant count (Kaggle boards
hold 10^2..10^4 teams, so ``0.1 log10(P + 1)`` adds 0.2..0.4).  The task pack's reference
leaderboards are ladders of ~17 synthetic entries, where the term adds only ~0.13, so the same
mean and best read one level easier.  A task.json that states the real competition's count
(``"leaderboard_participants": 1315``) puts ``P`` on the paper's scale; otherwise ``P`` is the
number of board entries, and :attr:`Difficulty.scale` says ``"board"`` so a report can say so.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from typing import Any, Literal, cast

from ..metrics import get_metric
from .errors import TaskFieldError
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
    board_entries: int = 0
    scale: Literal["stated", "board"] = "board"

    def to_json(self) -> dict[str, Any]:
        """All fields as a JSON-ready dict."""
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


def stated_participants(task_json: dict[str, Any]) -> int | None:
    """The real competition's participant count a task.json states, if any.

    Raises ``TaskFieldError`` (a ``ValueError``, saying what to write) when the field is there
    but not a count.
    """
    raw = task_json.get("leaderboard_participants")
    if raw is None:
        return None
    if isinstance(raw, bool) or not isinstance(raw, int | float | str):
        raw = None
    try:
        n = int(str(raw).replace(",", "").strip()) if raw is not None else 0
    except ValueError:
        n = 0
    if n < 1:
        raise TaskFieldError(
            f"'leaderboard_participants' in task.json must be the competition's number of teams, a "
            f"whole number >= 1 (e.g. 1315), not {task_json.get('leaderboard_participants')!r}"
        )
    return n


def task_difficulty(
    board: Leaderboard, metric_name: str, participants: int | None = None
) -> Difficulty:
    """Difficulty of a task whose leaderboard is ``board``, scored by ``metric_name``.

    ``participants`` is the real competition's team count when known (the paper's scale);
    without it ``P`` is the number of entries on ``board``.
    """
    metric = get_metric(metric_name)
    if metric.bounds is not None:
        lo, hi = float(metric.bounds[0]), float(metric.bounds[1])
    else:
        lo, hi = min(board.scores), max(board.scores)
    d = difficulty_score(
        board.mean, board.best, participants or len(board), lo, hi, board.direction == "maximize"
    )
    scale = cast(Literal["stated", "board"], "stated" if participants else "board")
    return replace(d, board_entries=len(board), scale=scale)
