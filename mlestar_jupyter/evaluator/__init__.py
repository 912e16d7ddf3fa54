"""The evaluator: a task pack from real datasets, graders, ranks, difficulty, constraints, reports.

- ``prepare_pack(out_dir, tasks=None)`` builds TAM-Bench task folders with leaderboards
  (``pack/``); ``register_cli(subparsers)`` adds ``mlestar bench prepare|run|grade``.
- ``grade_submission(task, submission_path, code_path=None, judge=None) -> GradeReport``:
  made / valid (with the reason) / score / rank / medal / difficulty / constraint verdicts.
- ``Leaderboard``, ``task_difficulty``, ``weighted_rank``: TAM-Bench and MLE-bench figures.
- ``judge_constraints(instructions, code, judge=None)``: static rules, else an LLM judge.
- ``run_bench(task_dirs, out_dir, agent, time_limit, run_agent=cli_run_agent)``: run, grade, report.
"""

from .constraints import (
    ConstraintVerdict,
    Judge,
    judge_constraints,
    pass_rate,
    read_code,
    render_judge_prompt,
)
from .difficulty import Difficulty, difficulty_score, level_of, task_difficulty
from .errors import EvaluatorError, GradingError, LeaderboardError, SourceMissing
from .grading import GradeReport, grade_frame, grade_submission
from .leaderboard import (
    Leaderboard,
    MedalThresholds,
    RankResult,
    load_leaderboard,
    medal_positions,
    weighted_rank,
)
from .pack.build import PACK, pack_task_names, prepare, prepare_pack
from .runner import (
    AgentOutcome,
    BenchReport,
    CliAgent,
    RunAgent,
    TaskResult,
    cli_run_agent,
    run_bench,
)
from .submission import GradingSpec, check_submission
from .summary import BenchSummary, summarize


def register_cli(subparsers):  # type: ignore[no-untyped-def]
    """Add ``mlestar bench`` to a main parser's subparsers (see ``evaluator.cli``)."""
    from .cli import register_cli as _register

    return _register(subparsers)


__all__ = [
    "PACK",
    "AgentOutcome",
    "BenchReport",
    "BenchSummary",
    "CliAgent",
    "ConstraintVerdict",
    "Difficulty",
    "EvaluatorError",
    "GradeReport",
    "GradingError",
    "GradingSpec",
    "Judge",
    "Leaderboard",
    "LeaderboardError",
    "MedalThresholds",
    "RankResult",
    "RunAgent",
    "SourceMissing",
    "TaskResult",
    "check_submission",
    "cli_run_agent",
    "difficulty_score",
    "grade_frame",
    "grade_submission",
    "judge_constraints",
    "level_of",
    "load_leaderboard",
    "medal_positions",
    "pack_task_names",
    "pass_rate",
    "prepare",
    "prepare_pack",
    "read_code",
    "register_cli",
    "render_judge_prompt",
    "run_bench",
    "summarize",
    "task_difficulty",
    "weighted_rank",
]
