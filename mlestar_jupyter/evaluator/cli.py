"""``mlestar bench``: prepare the task pack, run an agent on it, grade one submission.

    mlestar bench prepare [--out DIR] [--set default|tabular-extra] [--tasks NAME ...] [--tiny] [--quick] [--list]
    mlestar bench run --agent offline|gemini|openai [--tasks NAME|DIR ...] [--pack DIR] [--time-limit S] [--out DIR]
    mlestar bench grade TASK_DIR SUBMISSION [--code NOTEBOOK] [--json]

``register_cli(subparsers)`` adds the ``bench`` command to a main parser; every leaf sets
``func(args) -> int`` with ``set_defaults``, so the main CLI calls ``args.func(args)``.  Alone:
``python -m mlestar_jupyter.evaluator.cli bench ...``.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from .errors import EvaluatorError
from .pack.build import SET_NAMES, all_tasks, prepare, prepare_pack, set_tasks

DEFAULT_PACK = "mlestar-bench"
AGENTS = ("offline", "gemini", "openai")


def default_pack_dir() -> Path:
    """``$MLESTAR_BENCH_DIR``, else ``./mlestar-bench``."""
    return Path(os.environ.get("MLESTAR_BENCH_DIR") or DEFAULT_PACK)


def resolve_task_dirs(tasks: Sequence[str] | None, pack_dir: Path) -> list[Path]:
    """Task folders from names (looked up in ``pack_dir``) or paths; all built tasks by default."""
    if not tasks:
        found = sorted(p.parent for p in pack_dir.glob("*/task.json"))
        if not found:
            raise EvaluatorError(
                f"no tasks in {pack_dir}; run `mlestar bench prepare --out {pack_dir}` first"
            )
        return found
    out = []
    for t in tasks:
        p = Path(t)
        if p.is_dir():
            out.append(p)
        elif (pack_dir / t).is_dir():
            out.append(pack_dir / t)
        else:
            raise EvaluatorError(
                f"task {t!r} is neither a folder nor built in {pack_dir}; run `mlestar bench prepare --out {pack_dir} --tasks {t}` first"
            )
    return out


def _user_errors(fn: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """Turn an ``EvaluatorError`` into one line on stderr and exit status 1, whichever main runs us."""

    @functools.wraps(fn)
    def run(args: argparse.Namespace) -> int:
        try:
            return fn(args)
        except EvaluatorError as e:
            print(f"mlestar bench: {e}", file=sys.stderr)
            return 1

    return run


@_user_errors
def _cmd_prepare(args: argparse.Namespace) -> int:
    if args.list:
        for t in set_tasks(args.set):
            print(f"{t.name:<24} {t.modality:<12} {'tiny ' if t.tiny else ''}needs {t.requires}")
        return 0
    results = prepare(
        args.out or default_pack_dir(), args.tasks, args.tiny, quick=args.quick, task_set=args.set
    )
    skipped = [r for r in results if r.skipped]
    print(f"prepared {len(results) - len(skipped)} task(s), skipped {len(skipped)}")
    for r in skipped:
        print(f"  skipped: {r.skipped}")
    return 0 if len(skipped) < len(results) else 1


@_user_errors
def _cmd_run(args: argparse.Namespace) -> int:
    from .runner import run_bench

    pack = Path(args.pack) if args.pack else default_pack_dir()
    dirs = resolve_task_dirs(args.tasks, pack)
    report = run_bench(dirs, args.out, args.agent, args.time_limit, judge=make_judge(args.judge))
    s = report.summary
    print(
        f"valid {s.valid_submission_rate:.0%}; weighted RankPct {s.weighted_rank_pct if s.weighted_rank_pct is not None else 'n/a'}"
    )
    return 0


@_user_errors
def _cmd_grade(args: argparse.Namespace) -> int:
    from .grading import grade_submission

    report = grade_submission(
        args.task_dir, args.submission, args.code, judge=make_judge(args.judge)
    )
    print(report.model_dump_json(indent=2) if args.json else report.summary())
    if not args.json:
        for v in report.constraints:
            how = {"static": "static rule", "llm": "judge"}.get(v.method, "no judge")
            print(f"  [{v.verdict}] ({how}) {v.instruction} — {v.reason}")
    return 0 if report.valid_submission else 2


JUDGE_HELP = "LLM backend that judges the special instructions (MLESTAR_LLM_* settings); default: static rules only"


def make_judge(backend: str | None) -> Callable[[str], str] | None:
    """A constraint judge over an LLM backend (``None``: static rules, else "not judged")."""
    if backend is None:
        return None
    from ..llm import LLMClient, LLMSettings, generate_text

    client = LLMClient.from_settings(LLMSettings.from_env(backend=backend))
    return lambda prompt: generate_text(client, prompt, role="constraint_judge")


def register_cli(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:  # type: ignore[type-arg]
    """Add ``bench`` (with ``prepare``, ``run``, ``grade``) to a main parser's subparsers."""
    bench = subparsers.add_parser(
        "bench", help="prepare the task pack, run an agent on it, grade submissions"
    )
    sub = bench.add_subparsers(dest="bench_command", required=True)

    p = sub.add_parser(
        "prepare", help="build task folders from datasets that installed packages ship"
    )
    p.add_argument("--out", help=f"pack folder (default: $MLESTAR_BENCH_DIR or ./{DEFAULT_PACK})")
    p.add_argument(
        "--tasks",
        nargs="+",
        metavar="NAME",
        choices=[t.name for t in all_tasks()],
        help="tasks to build (default: all of --set)",
    )
    p.add_argument(
        "--set",
        choices=SET_NAMES,
        default="default",
        help="task set: the default pack, or an opt-in one (tabular-extra: mid-size tables "
        "with dates, ordered grades and skewed prices)",
    )
    p.add_argument(
        "--tiny",
        action="store_true",
        help="only the tiny scikit-learn tasks (no extra packages needed)",
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="smaller reference models for the leaderboards (for tests)",
    )
    p.add_argument(
        "--list", action="store_true", help="list the pack's tasks and what each needs, then stop"
    )
    p.set_defaults(func=_cmd_prepare)

    r = sub.add_parser("run", help="run an agent on pack tasks, grade, and write a report")
    r.add_argument(
        "--agent",
        choices=AGENTS,
        default="offline",
        help="agent backend passed to `mlestar run --backend`",
    )
    r.add_argument(
        "--tasks",
        nargs="+",
        metavar="NAME|DIR",
        help="task names in the pack, or task folders (default: every built task)",
    )
    r.add_argument("--pack", help="pack folder holding the named tasks")
    r.add_argument(
        "--time-limit", type=float, default=3600.0, help="seconds per task (default 3600)"
    )
    r.add_argument(
        "--out", default="bench-runs", help="where runs and the report go (default ./bench-runs)"
    )
    r.add_argument("--judge", choices=("gemini", "openai"), default=None, help=JUDGE_HELP)
    r.set_defaults(func=_cmd_run)

    g = sub.add_parser(
        "grade", help="grade one submission (pack task or MLE-bench competition folder)"
    )
    g.add_argument(
        "task_dir", help="task folder (task.json + input/ + private/, or an MLE-bench competition)"
    )
    g.add_argument("submission", help="submission CSV")
    g.add_argument(
        "--code", help="final solution notebook or .py, to judge the special instructions"
    )
    g.add_argument("--json", action="store_true", help="print the full grade report as JSON")
    g.add_argument("--judge", choices=("gemini", "openai"), default=None, help=JUDGE_HELP)
    g.set_defaults(func=_cmd_grade)
    return bench


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``bench ...`` standalone."""
    parser = argparse.ArgumentParser(prog="mlestar")
    register_cli(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return int(args.func(args))


__all__ = ["default_pack_dir", "main", "prepare_pack", "register_cli", "resolve_task_dirs"]

if __name__ == "__main__":
    sys.exit(main())
