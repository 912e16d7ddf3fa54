"""``mlestar``: run, resume and inspect MLE-STAR runs from a terminal.

    mlestar run TASK_DIR [--notebook NB] [--backend offline] [--time-limit S] [--out RUN_DIR]
    mlestar resume RUN_DIR [--time-limit S] [--max-llm-calls N]
    mlestar show RUN_DIR
    mlestar clean [RUN_DIR ...]
    mlestar bench prepare|run|grade ...
    mlestar task import SOURCE... --data DIR --out TASK_DIR [--backend offline] [--from-mlebench DIR]

Bad input ends with exit code 2 and one line saying what to fix, never a traceback.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path

from . import __version__
from .agent.errors import InvalidConfig
from .cli_run import (
    EXIT_ALL_FAILED,
    EXIT_INTERRUPTED,
    EXIT_NO_SUBMISSION,
    UserError,
    cmd_resume,
    cmd_run,
)
from .cli_show import cmd_clean, cmd_show, summarise
from .journal import JournalError
from .messages import clip

EXIT_BAD_INPUT = 2

# the commands live beside: cli_run (run, resume), cli_show (show, clean)
__all__ = [
    "EXIT_ALL_FAILED",
    "EXIT_BAD_INPUT",
    "EXIT_INTERRUPTED",
    "EXIT_NO_SUBMISSION",
    "UserError",
    "build_parser",
    "cmd_clean",
    "cmd_resume",
    "cmd_run",
    "cmd_show",
    "main",
    "summarise",
]


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="mlestar",
        description="MLE-STAR: search, targeted refinement and ensembling of ML solutions as notebooks.",
    )
    p.add_argument("--version", action="version", version=f"mlestar-jupyter {__version__}")
    p.add_argument(
        "-v", "--verbose", action="count", default=0, help="more log lines (-vv for debug)"
    )
    sub = p.add_subparsers(dest="command", required=True)

    r = sub.add_parser("run", help="run MLE-STAR on a task folder")
    r.add_argument(
        "task_dir",
        type=Path,
        help="task folder (task.json, MLE-bench folder, or description.md + input/), or a "
        "dataset: one table (a CSV file, or a folder holding one) without test rows, of which "
        "20%% are held out to grade the final submission on; or your notebook (.ipynb): the "
        "run starts from it, its task read from the folder that holds it (as --notebook)",
    )
    r.add_argument(
        "--notebook",
        type=Path,
        help="start from this notebook (refined directly if it prints a validation score)",
    )
    r.add_argument(
        "--target",
        default=None,
        help="the column to predict: of a dataset (one table, no test rows), or with --notebook "
        "on a folder without task.json, instead of the one read from the notebook",
    )
    r.add_argument(
        "--metric",
        default=None,
        help="the metric (e.g. rmse, roc_auc, 'MAP@3'): of a dataset (default: accuracy for "
        "classes, rmse for numbers), or with --notebook on a folder without task.json, instead "
        "of the one read from the notebook",
    )
    r.add_argument(
        "--backend", default=None, help="offline (default, no API key) | gemini | openai | replay"
    )
    r.add_argument("--model", default=None, help="LLM model name for gemini/openai backends")
    r.add_argument(
        "--replay-from",
        type=Path,
        default=None,
        help="with --backend replay: the run folder (or llm log) to play back",
    )
    r.add_argument(
        "--time-limit",
        type=float,
        default=3600.0,
        help="wall-clock budget in seconds (default 3600)",
    )
    r.add_argument(
        "--exec-timeout",
        type=float,
        default=None,
        help="time limit of one execution in seconds, > 0 (default: min(600, max(30, "
        "budget/4))); 0 is refused: no execution runs past its phase's share of the budget",
    )
    r.add_argument("--out", type=Path, default=None, help="run folder (default runs/<task>-<time>)")
    r.add_argument(
        "--mode",
        choices=("autopilot", "step"),
        default="autopilot",
        help="step: wait for accept/reject after each proposal",
    )
    r.add_argument(
        "--models", "-M", type=int, default=4, help="models retrieved (M >= 1, default 4)"
    )
    r.add_argument(
        "--inner", "-K", type=int, default=4, help="plans per refined block (K >= 1, default 4)"
    )
    r.add_argument(
        "--outer", "-T", type=int, default=4, help="refinement steps (T >= 1, default 4)"
    )
    r.add_argument(
        "--parallel",
        "-L",
        type=int,
        default=2,
        help="solutions refined in parallel (L >= 1, default 2)",
    )
    r.add_argument(
        "--ensemble-rounds",
        "-R",
        type=int,
        default=5,
        help="ensemble rounds (R >= 0, default 5; 0: no ensembling, the best of the L solutions "
        "is submitted)",
    )
    r.add_argument("--block", default=None, help="refine only this block id (e.g. b4)")
    r.add_argument("--max-llm-calls", type=int, default=None)
    r.add_argument("--max-tokens", type=int, default=None)
    r.add_argument("--max-cost", type=float, default=None, help="LLM cost cap in USD")
    r.add_argument(
        "--catalog",
        type=Path,
        action="append",
        default=[],
        help="extra model-card folder (repeatable)",
    )
    r.add_argument("--seed", type=int, default=0)
    r.add_argument(
        "--max-train-rows",
        type=int,
        default=None,
        help="search candidates train on at most this many rows, as given (default: at most "
        "30000, fewer when the time limit calls for it); the submission trains on all of them",
    )
    r.add_argument(
        "--gpus",
        default=None,
        help="comma-separated GPU ids; one candidate per GPU at a time (default: CUDA_VISIBLE_DEVICES as is)",
    )
    r.add_argument(
        "--memory-limit",
        type=int,
        default=None,
        help="memory cap per kernel in MB (address space: leave a few hundred MB of headroom)",
    )
    r.add_argument(
        "--allow-network",
        action="store_true",
        help="let candidate code reach the network (jailed kernels have none by default)",
    )
    r.add_argument(
        "--novelty-reference",
        type=Path,
        default=None,
        help="a reference write-up; an LLM backend checks the final solution is not a copy of it",
    )
    r.add_argument("--no-progress", action="store_true", help="no progress bar")
    r.add_argument("--json", action="store_true", help="print the outcome as JSON")

    s = sub.add_parser("resume", help="continue a run that was killed or stopped")
    s.add_argument("run_dir", type=Path)
    s.add_argument(
        "--time-limit",
        type=float,
        default=None,
        help="new total wall-clock budget in seconds (time already spent counts; default: keep)",
    )
    s.add_argument("--max-llm-calls", type=int, default=None, help="new total LLM call limit")
    s.add_argument("--max-tokens", type=int, default=None, help="new total token limit")
    s.add_argument("--max-cost", type=float, default=None, help="new total LLM cost limit in USD")
    s.add_argument("--no-progress", action="store_true")
    s.add_argument("--json", action="store_true")

    w = sub.add_parser("show", help="summarise a run folder")
    w.add_argument("run_dir", type=Path)
    w.add_argument("--json", action="store_true")
    w.add_argument(
        "--html",
        type=Path,
        default=None,
        help="also write the run's pictures (score trajectory, ablation bars, ensemble plans, solution tree) to this HTML file",
    )

    c = sub.add_parser(
        "clean",
        help="remove scratch folders (<tmp>/mlestar-exec-*) left by runs that were killed",
        description="Remove executor scratch folders whose owning process is gone (a run killed "
        "with SIGKILL cannot remove its own); folders of processes still running are kept.",
    )
    c.add_argument(
        "run_dirs",
        type=Path,
        nargs="*",
        metavar="RUN_DIR",
        help="only the scratch folders of these run folders (default: of every run)",
    )
    c.add_argument(
        "--scratch-dir",
        type=Path,
        default=None,
        help="where the scratch folders are (default: the system's temp folder)",
    )

    from .evaluator.cli import register_cli

    register_cli(sub)
    from .importer.cli import register_cli as register_task_cli

    register_task_cli(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=[logging.WARNING, logging.INFO, logging.DEBUG][min(args.verbose, 2)],
        format="%(message)s",
    )
    try:
        if args.command == "run":
            return _exit_now_if_stopped(cmd_run(args), as_command=argv is None)
        if args.command == "resume":
            return _exit_now_if_stopped(cmd_resume(args), as_command=argv is None)
        if args.command == "show":
            return cmd_show(args)
        if args.command == "clean":
            return cmd_clean(args)
        if hasattr(args, "func"):
            return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("mlestar: interrupted; resume with 'mlestar resume <run folder>'", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `mlestar show RUN | head`: the reader is gone, which is fine
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as e:  # noqa: BLE001 - user-facing errors become one line
        if _is_user_error(e):
            print(f"mlestar: {clip(str(e))}", file=sys.stderr)
            return EXIT_BAD_INPUT
        raise
    return 0


def _exit_now_if_stopped(code: int, *, as_command: bool) -> int:
    """A command stopped by Ctrl-C ends at once: its folder is on disk and its kernels are dead,
    while unloading the ML libraries at interpreter exit can take seconds."""
    if code == EXIT_INTERRUPTED and as_command:
        sys.stdout.flush()
        sys.stderr.flush()
        logging.shutdown()
        os._exit(code)
    return code


def _is_user_error(e: Exception) -> bool:
    from .notebook import NotebookError
    from .policies import BackendChoiceError
    from .task import TaskError

    names = {
        "ConfigError",
        "AuthFailed",
        "LLMError",
        "ExecutionError",
        "WorkdirError",
        "GatewayConfigError",
        "GatewayError",
    }
    return (
        isinstance(
            e,
            UserError
            | TaskError
            | NotebookError
            | JournalError
            | BackendChoiceError
            | InvalidConfig,
        )
        or type(e).__name__ in names
    )


if __name__ == "__main__":
    raise SystemExit(main())
