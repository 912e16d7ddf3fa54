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
import json
import logging
import os
import sys
import time
from pathlib import Path
from typing import Any

from . import __version__
from .agent.config import RunConfig
from .agent.errors import InvalidConfig
from .agent.stop import StopRequest, signals_stop
from .journal import JournalError, RunJournal, read_events
from .messages import clip

EXIT_BAD_INPUT = 2
EXIT_NO_SUBMISSION = 1
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report a Ctrl-C


class UserError(Exception):
    """A problem the user can fix; printed as one line."""


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
        help="task folder (task.json, MLE-bench folder, or description.md + input/)",
    )
    r.add_argument(
        "--notebook",
        type=Path,
        help="start from this notebook (refined directly if it prints a validation score)",
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
        help="time limit of one execution in seconds (default: min(600, budget/4))",
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
    from .task.importer.cli import register_cli as register_task_cli

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


# --------------------------------------------------------------------------- run / resume
def cmd_run(args: argparse.Namespace) -> int:
    from . import api

    if args.notebook is not None:
        _read_notebook(args.notebook)  # a clear error before a run folder is made
    knobs = dict(
        backend=args.backend,
        model=args.model,
        time_limit=args.time_limit,
        exec_timeout=args.exec_timeout,
        models=args.models,
        inner=args.inner,
        outer=args.outer,
        parallel=args.parallel,
        ensemble_rounds=args.ensemble_rounds,
        mode=args.mode,
        block=args.block,
        seed=args.seed,
        max_llm_calls=args.max_llm_calls,
        max_tokens=args.max_tokens,
        max_cost=args.max_cost,
        gpus=args.gpus,
        memory_limit=args.memory_limit,
        allow_network=args.allow_network,
        novelty_reference=args.novelty_reference,
    )
    progress = None if args.no_progress else _Progress(api.make_config(**knobs), offset=0.0)
    try:
        with signals_stop(StopRequest(), on_first=_say_stopping) as stop:
            outcome = api.run(
                args.task_dir,
                out=args.out,
                notebook=args.notebook,
                catalog=args.catalog,
                replay_from=args.replay_from,
                on_event=progress.on_event if progress else None,
                stop=stop,
                **knobs,
            )
    finally:
        if progress:
            progress.close()
    return _report(outcome, args, stop)


def cmd_resume(args: argparse.Namespace) -> int:
    from . import api

    journal = RunJournal.open(args.run_dir)
    meta = journal.meta
    if meta.get("status") in (
        "done",
        "failed",
        "no_improvement",
        "not_understood",
        "all_failed",
    ) and journal.has("run_finished"):
        print(
            f"mlestar: {journal.dir} already finished; 'mlestar show {args.run_dir}' summarises it",
            file=sys.stderr,
        )
        return 0
    limits = {
        "time_limit": args.time_limit,
        "max_llm_calls": args.max_llm_calls,
        "max_tokens": args.max_tokens,
        "max_cost": args.max_cost,
    }
    config = api.with_budget(RunConfig.from_json(meta["config"]), **limits)
    spent = float(meta.get("elapsed") or 0)
    wall = config.budget.wall_seconds
    if wall is not None and spent >= wall:
        print(
            f"mlestar: {journal.dir} has already used {spent:.0f}s of its {wall:.0f}s budget; "
            f"it will only write the submission (give a larger total with --time-limit)",
            file=sys.stderr,
        )
    print(f"mlestar: resuming {journal.dir}", file=sys.stderr)
    progress = None if args.no_progress else _Progress(config, offset=spent)
    try:
        with signals_stop(StopRequest(), on_first=_say_stopping) as stop:
            outcome = api.resume(
                args.run_dir, on_event=progress.on_event if progress else None, stop=stop, **limits
            )
    finally:
        if progress:
            progress.close()
    return _report(outcome, args, stop)


def _say_stopping(reason: str) -> None:
    print(
        f"mlestar: {reason}: stopping the run (a second Ctrl-C quits at once)",
        file=sys.stderr,
        flush=True,
    )


def _report(outcome: Any, args: argparse.Namespace, stop: StopRequest | None = None) -> int:
    if args.json:
        print(
            json.dumps(
                {
                    "run_dir": str(outcome.run_dir),
                    "status": outcome.status,
                    "message": outcome.stop_reason,
                    "best_score": outcome.best_score,
                    "submission": str(outcome.final.submission)
                    if outcome.final.submission
                    else None,
                    "notebook": str(outcome.final.notebook) if outcome.final.notebook else None,
                    "rung": outcome.final.rung,
                }
            )
        )
    else:
        print(_summary(outcome.run_dir))
    if stop is not None and stop.is_set() and outcome.status == "stopped":
        print(
            f"mlestar: stopped; continue with 'mlestar resume {outcome.run_dir}'", file=sys.stderr
        )
        return EXIT_INTERRUPTED
    return 0 if outcome.final.ok else EXIT_NO_SUBMISSION


def _read_notebook(path: Path) -> Any:
    from .notebook import SolutionNotebook

    if not path.exists():
        raise UserError(f"{path}: no such notebook")
    try:
        return SolutionNotebook.read(path).require_code()
    except (ValueError, json.JSONDecodeError) as e:
        raise UserError(
            f"{path}: not a readable notebook ({str(e)[:200]}); open and re-save it in Jupyter"
        ) from None


# --------------------------------------------------------------------------- clean
def cmd_clean(args: argparse.Namespace) -> int:
    from .execution.scratch import clean_scratch

    for d in args.run_dirs:
        RunJournal.open(d)  # a typo is an error, not "nothing to clean"
    report = clean_scratch(args.scratch_dir, run_dirs=args.run_dirs or None)
    for path in report.removed:
        print(f"removed {path}")
    for path, why in report.failed:
        print(f"mlestar: could not remove {path}: {clip(why)}", file=sys.stderr)
    print(
        f"mlestar: removed {len(report.removed)} scratch folder(s); "
        f"{len(report.in_use)} in use by a running process kept",
        file=sys.stderr,
    )
    if report.unknown:
        print(
            f"mlestar: {len(report.unknown)} folder(s) name no owner (made by an older version), "
            f"e.g. {report.unknown[0]}: delete them by hand when no run is going on",
            file=sys.stderr,
        )
    return 1 if report.failed else 0


# --------------------------------------------------------------------------- show
def cmd_show(args: argparse.Namespace) -> int:
    journal = RunJournal.open(args.run_dir)
    if args.json:
        print(json.dumps(summarise(journal.dir), default=str, indent=2))
    else:
        print(_summary(journal.dir))
    if args.html is not None:
        from .widgets.report import write_run_report

        print(f"pictures: {write_run_report(journal.dir, args.html)}", file=sys.stderr)
    return 0


def summarise(run_dir: Path) -> dict[str, Any]:
    """Key figures of a run folder (also used by ``show --json``)."""
    evs = read_events(Path(run_dir) / "events.jsonl")
    cands = [e.data for e in evs if e.type == "candidate"]
    final = next((e.data for e in reversed(evs) if e.type == "final"), None)
    finished = next((e.data for e in reversed(evs) if e.type == "run_finished"), None)
    started = next((e.data for e in evs if e.type == "run_started"), {})
    task = started.get("task", {})
    scored = [
        c
        for c in cands
        if c.get("score") is not None and c.get("phase") not in ("ablation", "submission")
    ]
    direction = task.get("direction", "maximize")
    best = (
        (max if direction == "maximize" else min)(scored, key=lambda c: c["score"])
        if scored
        else None
    )
    if (
        finished and finished.get("best_score") is not None
    ):  # what the run kept (a rejected proposal is not "best")
        best = next((c for c in scored if c["score"] == finished["best_score"]), best)
    return {
        "run_dir": str(run_dir),
        "task": task.get("id"),
        "metric": task.get("metric_name"),
        "direction": direction,
        "status": (finished or {}).get("status")
        or ("stopped" if evs and evs[-1].type == "run_stopped" else "running or killed"),
        "message": (finished or {}).get("reason") or "",
        "candidates": len(cands),
        "failed": sum(1 for c in cands if not c.get("ok")),
        "best": best,
        "improvements": sum(1 for e in evs if e.type == "improvement" and e.data.get("kept")),
        "proposals": sum(1 for e in evs if e.type == "proposal"),
        "llm_calls": sum(1 for e in evs if e.type == "llm_call"),
        "final": final,
        "elapsed": (finished or {}).get("elapsed"),
        "trajectory": [
            (c.get("node_id") or c.get("id"), c.get("phase"), c.get("score")) for c in scored
        ],
    }


def _summary(run_dir: Path) -> str:
    s = summarise(run_dir)
    lines = [
        f"Run {s['run_dir']}  task={s['task']}  metric={s['metric']} ({s['direction']})  status={s['status']}"
    ]
    if s["message"]:  # why the run ended as it did (no_improvement, not_understood, a stop)
        lines.append(f"  {s['status']}: {s['message']}")
    lines.append(
        f"  candidates: {s['candidates']} ({s['failed']} failed), kept improvements: {s['improvements']}, proposals: {s['proposals']}, LLM calls: {s['llm_calls']}"
    )
    if s["best"]:
        b = s["best"]
        lines.append(
            f"  best validation score: {b['score']:.5g}  ({b.get('node_id') or b.get('id')}: {b.get('label', '')})"
        )
    for nid, phase, score in s["trajectory"][-12:]:
        lines.append(f"    {nid:<18} {phase:<10} {score:.5g}")
    f = s["final"]
    if f and f.get("valid"):
        lines.append(f"  submission: {Path(run_dir) / f['submission']}  (rung: {f['rung']})")
        lines.append(f"  notebook:   {Path(run_dir) / f['notebook']}")
    elif f:
        lines.append(f"  no valid submission: {f.get('reason')}")
    if s["elapsed"]:
        lines.append(f"  elapsed: {s['elapsed']:.0f} s")
    return "\n".join(lines)


# --------------------------------------------------------------------------- progress
class _Progress:
    """A terminal progress bar fed by journal events: phase, step, best score, elapsed / budget."""

    def __init__(self, config: RunConfig, offset: float = 0.0) -> None:
        from tqdm import tqdm

        self.total = config.budget.wall_seconds or 0
        self.bar = tqdm(
            total=int(self.total) or None,
            unit="s",
            desc="mlestar",
            file=sys.stderr,
            dynamic_ncols=True,
            disable=not sys.stderr.isatty(),
            bar_format="{desc} |{bar}| {n:.0f}/{total:.0f}s {postfix}"
            if self.total
            else "{desc} {n:.0f}s {postfix}",
        )
        self.start = time.monotonic() - offset
        self.phase, self.step, self.best = "start", "", None
        self.tty, self.last_logged = sys.stderr.isatty(), ""
        self.direction = "maximize"
        self._stop = False
        import threading

        self.thread = threading.Thread(target=self._tick, daemon=True)
        self.thread.start()

    def on_event(self, ev: Any) -> None:
        d = ev.data
        if ev.type == "run_started":
            self.direction = d.get("task", {}).get("direction", "maximize")
        elif ev.type == "warning" and d.get("what") == "task":  # how task.json was read
            self.bar.write(f"mlestar: {d.get('message')}", file=sys.stderr)
        elif ev.type == "phase":
            self.phase = d.get("phase", "")
        elif ev.type == "candidate":
            self.step = d.get("id", "")
            sc = d.get("score")
            if sc is not None and d.get("phase") not in ("ablation", "submission"):
                if self.best is None or (
                    sc > self.best if self.direction == "maximize" else sc < self.best
                ):
                    self.best = sc
        self._refresh()

    def _refresh(self) -> None:
        best = f"{self.best:.5g}" if self.best is not None else "-"
        self.bar.set_postfix_str(f"phase={self.phase} step={self.step} best={best}", refresh=False)
        el = time.monotonic() - self.start
        self.bar.n = min(el, self.total) if self.total else el
        if self.tty:
            self.bar.refresh()
        elif self.step != self.last_logged:  # a log file: one line per candidate, not per tick
            self.last_logged = self.step
            print(f"[{el:5.0f}s] phase={self.phase} step={self.step} best={best}", file=sys.stderr)

    def _tick(self) -> None:
        while not self._stop:
            time.sleep(1.0)
            if not self._stop:
                self._refresh()

    def close(self) -> None:
        self._stop = True
        self._refresh()
        self.bar.close()


if __name__ == "__main__":
    raise SystemExit(main())
