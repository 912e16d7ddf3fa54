"""Grade one submission: made, valid (with the exact reason), score, rank, medal, constraints.

``grade_submission(task, submission_path)`` works for pack tasks (TAM-Bench ``task.json``,
answers in ``answers/<task>/answers.csv`` beside the task folder, or in an older pack's
``private/answers.csv``; ``leaderboard.csv`` in the task folder) and for MLE-bench
competition folders (answers in ``prepared/private/test.csv`` or ``answers.csv``, the
competition's ``leaderboard.csv`` with a score column).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from pydantic import BaseModel, Field

from ..task import Task
from ..task.class_submission import class_header
from ..task.errors import TaskFormatError
from ..task.layout.tables import format_name, read_args, submission_args, submission_columns
from ..task.loaders import answers_folder
from .constraints import (
    ConstraintVerdict,
    Judge,
    judge_constraints,
    method_counts,
    pass_rate,
    read_code,
)
from .difficulty import stated_participants, task_difficulty
from .errors import GradingError, LeaderboardError
from .leaderboard import Leaderboard, load_leaderboard
from .submission import GradingSpec, align, check_submission, read_csv_str, score_aligned

LEADERBOARD_PLACES = (
    "leaderboard.csv",
    "prepared/leaderboard.csv",
    "prepared/private/leaderboard.csv",
    "private/leaderboard.csv",
)


class GradeReport(BaseModel):
    """Everything known about one graded submission."""

    task_id: str
    modality: str
    metric: str
    direction: str
    submission_path: str
    made_submission: bool
    valid_submission: bool
    invalid_reason: str | None = None
    score: float | None = None
    rank: int | None = None
    participants: int | None = None
    rank_pct: float | None = Field(
        None, description="TAM-Bench RankPct = rank / participants (lower is better)"
    )
    beats_pct: float | None = Field(
        None, description="share of the leaderboard strictly worse, in percent"
    )
    medal: str = "none"
    above_median: bool = False
    thresholds: dict[str, float] | None = None
    difficulty: float | None = None
    difficulty_level: str | None = None
    difficulty_participants: int | None = Field(
        None, description="P in the difficulty's log10(P + 1) term"
    )
    difficulty_scale: str | None = Field(
        None,
        description="'stated': P is the real competition's team count (task.json "
        "leaderboard_participants), the paper's scale; 'board': P is the reference board's size",
    )
    constraints: list[ConstraintVerdict] = Field(default_factory=list)
    constraint_pass_rate: float | None = None

    @property
    def any_medal(self) -> bool:
        """Whether the submission earned a gold, silver or bronze medal."""
        return self.medal != "none"

    def summary(self) -> str:
        """One line for a terminal."""
        if not self.made_submission:
            return f"{self.task_id}: no submission ({self.invalid_reason})"
        if not self.valid_submission:
            return f"{self.task_id}: invalid submission: {self.invalid_reason}"
        s = f"{self.task_id}: {self.metric}={self.score:.5g}"
        if self.rank is not None:
            s += f", rank {self.rank}/{self.participants} (RankPct {self.rank_pct:.3f}, beats {self.beats_pct:.0f}%), medal: {self.medal}"
        if self.constraints:
            r = self.constraint_pass_rate
            n = method_counts(self.constraints)
            s += (
                f", constraints passed: {'n/a' if r is None else f'{100 * r:.0f}%'}"
                f" of {len(self.constraints)} ({n['static']} judged statically,"
                f" {n['judge']} by the judge, {n['not judged']} not judged)"
            )
        return s


def find_leaderboard(task: Task) -> Path | None:
    """The task's leaderboard file, if it has one."""
    return next((task.root / p for p in LEADERBOARD_PLACES if (task.root / p).is_file()), None)


def load_task_leaderboard(task: Task) -> Leaderboard | None:
    """The task's leaderboard, or ``None`` when it has none."""
    p = find_leaderboard(task)
    return load_leaderboard(p, task.direction) if p else None


def read_answers(task: Task) -> pd.DataFrame:
    """The task's private answers (all columns as strings)."""
    if task.answers_path is None or not task.answers_path.is_file():
        raise GradingError(
            f"{task.root}: no answers (expected {answers_folder(task.root) / 'answers.csv'}, private/answers.csv, answers.csv or prepared/private/test.csv); grading needs the private labels"
        )
    return read_csv_str(task.answers_path)


def read_sample(task: Task) -> pd.DataFrame:
    """The task's sample submission (all columns as strings), its one prediction column
    replaced by one per class where it cannot hold the metric's probabilities of more than two
    classes (``Task.class_columns``: ``id,cultivar`` graded as ``id,0,1,2``).  Without one, an
    empty frame of the columns the task names (a README's or task.json's header, else its id
    and targets: one probability column per class where the metric needs them)."""
    p = task.sample_submission_path
    if p is None and task.target_cols:  # the header the task names, else its id and targets
        named = [str(c) for c in task.extra.get("submission_columns") or ()]
        ids = [task.id_col] if task.id_col and task.id_col not in named else []
        return pd.DataFrame(columns=named or [*ids, *submission_columns(task)])
    if p is None or not p.is_file():
        raise GradingError(
            f"{task.input_dir}: no sample_submission.csv; grading needs it to know the submission's columns"
        )
    sample = read_csv_str(p)
    return (
        sample.reindex(columns=class_header(task, sample.columns)) if task.class_columns else sample
    )


def grade_frame(
    sub: pd.DataFrame, spec: GradingSpec, answers: pd.DataFrame
) -> tuple[float | None, str | None]:
    """``(score, None)`` for a valid submission frame, else ``(None, reason)``."""
    reason = check_submission(sub, spec, answers)
    if reason is not None:
        return None, reason
    try:
        return score_aligned(align(sub, spec, answers), spec, answers), None
    except (ValueError, GradingError) as e:
        return None, f"cannot be scored: {e}"


def grade_submission(
    task: Task | str | Path,
    submission_path: str | Path | None,
    code_path: str | Path | None = None,
    judge: Judge | None = None,
    leaderboard: Leaderboard | None = None,
) -> GradeReport:
    """Grade ``submission_path`` for ``task``; judge the constraints when ``code_path`` is given."""
    t = task if isinstance(task, Task) else Task.load(task)
    answers, sample = read_answers(t), read_sample(t)
    spec = GradingSpec.build(t, sample, answers)
    base: dict[str, Any] = dict(
        task_id=t.id,
        modality=t.modality,
        metric=t.metric_name,
        direction=t.direction,
        submission_path=str(submission_path or ""),
    )
    base.update(_difficulty_fields(t, leaderboard))
    if code_path is not None and Path(code_path).is_file():
        verdicts = judge_constraints(t.special_instructions, read_code(code_path), judge, t.goal)
        base.update(constraints=verdicts, constraint_pass_rate=pass_rate(verdicts))
    elif t.special_instructions:
        why = (
            "no solution code to judge"
            if code_path is None
            else f"solution code {code_path} not found"
        )
        verdicts = [
            ConstraintVerdict(instruction=i, verdict="not_judged", method="none", reason=why)
            for i in t.special_instructions
        ]
        base.update(constraints=verdicts, constraint_pass_rate=pass_rate(verdicts))
    p = Path(submission_path) if submission_path else None
    if p is None or not p.is_file():
        return GradeReport(
            **base,
            made_submission=False,
            valid_submission=False,
            invalid_reason="no submission file" if p is None else f"no submission file at {p}",
        )
    try:  # read as the sample submission is written, as the task's own grader would
        sub = read_csv_str(p, submission_args(t))
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
        return GradeReport(
            **base,
            made_submission=True,
            valid_submission=False,
            invalid_reason=f"cannot be read as CSV: {str(e).strip()}",
        )
    score, reason = grade_frame(sub, spec, answers)
    if reason is not None:
        reason += _format_hint(t, p)
        return GradeReport(
            **base, made_submission=True, valid_submission=False, invalid_reason=reason
        )
    board = leaderboard if leaderboard is not None else _board_or_none(t)
    ranked: dict[str, Any] = {}
    if board is not None:
        r = board.rank(score)
        th = r.thresholds
        ranked = dict(
            rank=r.rank,
            participants=r.participants,
            rank_pct=r.rank_pct,
            beats_pct=r.beats_pct,
            medal=r.medal,
            above_median=r.above_median,
            thresholds=dict(gold=th.gold, silver=th.silver, bronze=th.bronze, median=th.median),
        )
    return GradeReport(**base, made_submission=True, valid_submission=True, score=score, **ranked)


def _format_hint(t: Task, path: Path) -> str:
    """Why a file may read wrong: it is written otherwise than the sample submission (another
    separator or decimal mark); ``""`` when not."""
    want, own = submission_args(t), read_args(path)
    if own.get("sep", ",") == want.get("sep", ","):
        return ""
    return (
        f" (the file is {format_name(own)}, the sample submission {format_name(want)}: "
        "write the submission as the sample is written)"
    )


def _board_or_none(t: Task) -> Leaderboard | None:
    try:
        return load_task_leaderboard(t)
    except LeaderboardError:
        return None


def _difficulty_fields(t: Task, board: Leaderboard | None) -> dict[str, Any]:
    """Difficulty from the leaderboard (with the stated participant count), else task.json's."""
    from ..task.spec_file import raw_spec, task_file

    spec = raw_spec(t.root)
    tj = task_file(t.root) or t.root / "task.json"
    try:
        stated = stated_participants(spec)
    except ValueError as e:
        raise TaskFormatError(tj, str(e)) from e
    d = spec.get("difficulty")
    if stated is None and isinstance(d, dict) and "score" in d:
        return dict(
            difficulty=float(d["score"]),
            difficulty_level=str(d.get("level")),
            difficulty_participants=d.get("participants"),
            difficulty_scale=str(d.get("scale", "board")),
        )
    board = board if board is not None else _board_or_none(t)
    if board is None:
        return {}
    diff = task_difficulty(board, t.metric_name, stated)
    return dict(
        difficulty=diff.score,
        difficulty_level=diff.level,
        difficulty_participants=diff.participants,
        difficulty_scale=diff.scale,
    )
