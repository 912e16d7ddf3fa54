"""``mlestar run`` and ``mlestar resume``: a run in this process, with a progress bar fed by its
journal events, and its outcome printed (as text, or JSON with ``--json``)."""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from pathlib import Path
from typing import Any

from .agent.config import RunConfig
from .agent.stop import StopRequest, signals_stop
from .cli_show import summary_text
from .journal import Event, RunJournal, RunSummary
from .journal.summary import TOLD

EXIT_NO_SUBMISSION = 1
# every candidate solution failed: the submission written (if any) is a fall-back (a catalog
# model or the prior-only baseline), not a searched solution; a script must not read it as one
EXIT_ALL_FAILED = 3
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report a Ctrl-C


class UserError(Exception):
    """A problem the user can fix; printed as one line."""


# --------------------------------------------------------------------------- run / resume
def cmd_run(args: argparse.Namespace) -> int:
    """``mlestar run``: a new run of the task folder; prints its outcome."""
    from . import api

    if args.task_dir.suffix.lower() == ".ipynb":  # `mlestar run my_notebook.ipynb`
        if args.notebook is not None:
            raise UserError(
                f"{args.task_dir}: a notebook where the task folder goes, and --notebook "
                f"{args.notebook} too; pass the folder that holds the data, or one notebook alone"
            )
        args.notebook, args.task_dir = args.task_dir, args.task_dir.parent
    if args.notebook is not None:
        _read_notebook(args.notebook, args.task_dir)  # a clear error before a run folder is made
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
        max_train_rows=args.max_train_rows,
    )
    progress = None if args.no_progress else Progress(api.make_config(**knobs), offset=0.0)
    try:
        with signals_stop(StopRequest(), on_first=_say_stopping) as stop:
            outcome = api.run(
                args.task_dir,
                out=args.out,
                notebook=args.notebook,
                catalog=args.catalog,
                replay_from=args.replay_from,
                on_event=progress.on_event if progress else _print_said,
                stop=stop,
                target=args.target,
                metric=args.metric,
                **knobs,
            )
    finally:
        if progress:
            progress.close()
    return _report(outcome, args, stop)


def cmd_resume(args: argparse.Namespace) -> int:
    """``mlestar resume``: continue a stopped or killed run, with new limits if given."""
    from . import api

    journal = RunJournal.open(args.run_dir)
    meta = journal.meta
    if meta.get("status") in (
        "done",
        "failed",
        "no_improvement",
        "not_understood",
        "timed_out",
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
    progress = None if args.no_progress else Progress(config, offset=spent)
    try:
        with signals_stop(StopRequest(), on_first=_say_stopping) as stop:
            outcome = api.resume(
                args.run_dir,
                on_event=progress.on_event if progress else _print_said,
                stop=stop,
                **limits,
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
        print(summary_text(outcome.run_dir))
    if stop is not None and stop.is_set() and outcome.status == "stopped":
        print(
            f"mlestar: stopped; continue with 'mlestar resume {outcome.run_dir}'", file=sys.stderr
        )
        return EXIT_INTERRUPTED
    if not outcome.final.ok:
        return EXIT_NO_SUBMISSION
    if outcome.status == "all_failed":
        print(
            f"mlestar: {outcome.stop_reason or 'every candidate solution failed'}; "
            f"{outcome.final.submission} comes from a fall-back ({outcome.final.rung}), not from "
            f"a searched solution: read why in 'mlestar show {outcome.run_dir}' (exit code "
            f"{EXIT_ALL_FAILED})",
            file=sys.stderr,
        )
        return EXIT_ALL_FAILED
    return 0


def said_to_user(ev: Event) -> str | None:
    """The line a run prints for an event whatever the progress display: how the task was read
    (task.json's names, a notebook's or a dataset's inferred target and metric) and what was
    done to the submission (rewritten, one prediction everywhere)."""
    d = ev.data
    if ev.type == "warning" and d.get("what") in TOLD:
        return f"mlestar: {d.get('message')}"
    return None


def _print_said(ev: Event) -> None:
    """``--no-progress``: the events' lines for the user, without a progress bar."""
    said = said_to_user(ev)
    if said:
        print(said, file=sys.stderr, flush=True)


def _read_notebook(path: Path, task_dir: Path) -> Any:
    from .api import start_notebook
    from .notebook import NotebookFormatError

    if not path.exists():
        raise UserError(f"{path}: no such notebook")
    try:
        return start_notebook(path, task_dir)[0]
    except NotebookFormatError as e:  # its message names the file and what to do
        raise UserError(str(e)) from None
    except (ValueError, json.JSONDecodeError) as e:
        raise UserError(
            f"{path}: not a readable notebook ({str(e)[:200]}); open and re-save it in Jupyter"
        ) from None


# --------------------------------------------------------------------------- progress
class Progress:
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
        self.phase, self.step = "start", ""
        self.summary = RunSummary()
        self.tty, self.last_logged = sys.stderr.isatty(), ""
        self._stop = False
        self.thread = threading.Thread(target=self._tick, daemon=True)
        self.thread.start()

    def on_event(self, ev: Event) -> None:
        """Take one journal event (the run calls this for every event)."""
        self.summary.add(ev)
        d = ev.data
        said = said_to_user(ev)
        if said:
            self.bar.write(said, file=sys.stderr)
        elif ev.type == "phase":
            self.phase = d.get("phase", "")
        elif ev.type == "candidate":
            self.step = d.get("id", "")
        self._refresh()

    @property
    def best(self) -> float | None:
        """The best solution candidate's score so far (``Score.better_than``, via the summary)."""
        best = self.summary.best
        return best.data.get("score") if best is not None else None

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
        """Stop the ticking thread and close the bar."""
        self._stop = True
        self._refresh()
        self.bar.close()
