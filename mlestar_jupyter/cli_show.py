"""``mlestar show`` (a run's summary, as text or JSON, and its pictures as HTML) and ``mlestar
clean`` (scratch folders left by killed runs)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .journal import RunJournal, heldout_line, summarise_run
from .messages import clip


# --------------------------------------------------------------------------- show
def cmd_show(args: argparse.Namespace) -> int:
    """``mlestar show``: the run summary as text or JSON, and its pictures with ``--html``."""
    journal = RunJournal.open(args.run_dir)
    if args.json:
        print(json.dumps(summarise(journal.dir), default=str, indent=2))
    else:
        print(summary_text(journal.dir))
    if args.html is not None:
        from .widgets.report import write_run_report

        print(f"pictures: {write_run_report(journal.dir, args.html)}", file=sys.stderr)
    return 0


def summarise(run_dir: Path) -> dict[str, Any]:
    """Key figures of a run folder (what ``show --json`` prints): ``summarise_run(...).to_json()``."""
    return summarise_run(run_dir).to_json()


def summary_text(run_dir: Path) -> str:
    """The run's summary as the lines ``mlestar show`` prints."""
    s = summarise(run_dir)
    lines = [
        f"Run {s['run_dir']}  task={s['task']}  metric={s['metric']} ({s['direction']})  status={s['status']}"
    ]
    if s["message"]:  # why the run ended as it did (no_improvement, not_understood, a stop)
        lines.append(f"  {s['status']}: {s['message']}")
    lines.append(
        f"  candidates: {s['candidates']} ({s['failed']} failed), improvements kept: {s['improvements']}"
        + (f" (and {s['kept_ties']} kept at an equal score)" if s.get("kept_ties") else "")
        + f", proposals: {s['proposals']}, LLM calls: {s['llm_calls']}"
    )
    if s["best"]:
        b = s["best"]
        lines.append(
            f"  best validation score: {b['score']:.5g}  ({b.get('node_id') or b.get('id')}: {b.get('label', '')})"
        )
    for nid, phase, score in s["trajectory"][-12:]:
        lines.append(f"    {nid:<18} {phase:<10} {score:.5g}")
    f = s["final"]
    if f and f.get("valid") and f.get("submission"):
        lines.append(f"  submission: {Path(run_dir) / f['submission']}  (rung: {f['rung']})")
        lines.append(f"  notebook:   {Path(run_dir) / f['notebook']}")
    elif f and f.get("valid"):  # a task with no rows to predict: the notebook is the result
        lines.append(f"  no submission: {f.get('reason')}")
        lines.append(f"  notebook:   {Path(run_dir) / f['notebook']}")
    elif f:
        lines.append(f"  no valid submission: {f.get('reason')}")
        if f.get("notebook"):  # the search's best notebook, kept though it wrote no submission
            lines.append(f"  notebook:   {Path(run_dir) / f['notebook']}")
    if s.get("heldout"):
        lines.append(f"  {heldout_line(s['heldout'])}")
    for told in s.get("warnings") or []:  # how the task was read, what the submission is
        lines.append(f"  warning: {clip(told, 400)}")
    if s["elapsed"]:
        lines.append(f"  elapsed: {s['elapsed']:.0f} s")
    return "\n".join(lines)


# --------------------------------------------------------------------------- clean
def cmd_clean(args: argparse.Namespace) -> int:
    """``mlestar clean``: remove scratch folders whose owning process is gone."""
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
