"""What ``DescribeRun`` shows, folded from a run's events (pure; no process or HTTP here)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any


@dataclass
class RunSummary:
    """The fields of a run that its events determine."""

    phase: str | None = None
    metric: str | None = None
    direction: str | None = None
    best_score: float | None = None
    started: float | None = None
    last_time: float | None = None
    finished_status: str | None = None
    finished_elapsed: float | None = None
    stopped: bool = False  # the last process of the run ended with run_stopped (resumable)
    finished_reason: str = ""
    proposals: tuple[dict[str, Any], ...] = ()
    decided: frozenset[str] = frozenset()


# Candidate phases that measure (ablation variants, submission runs), not solutions: not "best".
MEASUREMENTS = frozenset({"ablation", "submission"})


def _finite(x: Any) -> float | None:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def summarize(events: list[dict[str, Any]]) -> RunSummary:
    """Fold events into a ``RunSummary`` (the final score wins over the best candidate's)."""
    s = RunSummary()
    best: float | None = None
    final: float | None = None
    proposals: list[dict[str, Any]] = []
    decided: set[str] = set()
    for ev in events:
        t, data = ev.get("type"), ev.get("data") or {}
        s.last_time = _finite(ev.get("time")) or s.last_time
        if t == "run_started":
            task = data.get("task") or {}
            s.metric = task.get("metric_name") or s.metric
            s.direction = task.get("direction") or s.direction
            s.started = s.started or _finite(ev.get("time"))
        elif t == "phase":
            s.phase = data.get("phase") or s.phase
        elif t == "candidate" and data.get("ok", True) and data.get("phase") not in MEASUREMENTS:
            v = _finite(data.get("score"))
            if v is not None and (best is None or _better(v, best, s.direction)):
                best = v
        elif t == "final":
            final = _finite(data.get("score"))
        elif t == "proposal" and data.get("proposal_id"):
            proposals.append(data)
        elif t == "decision" and data.get("proposal_id"):
            decided.add(str(data["proposal_id"]))
        elif t == "run_stopped":
            s.stopped = True
        elif t == "resumed":
            s.stopped = False
        elif t == "run_finished":
            s.finished_status = data.get("status") or "done"
            s.finished_elapsed = _finite(data.get("elapsed"))
            s.finished_reason = str(data.get("reason") or "")
            final = _finite(data.get("best_score")) if final is None else final
    s.best_score = final if final is not None else best
    s.proposals, s.decided = tuple(proposals), frozenset(decided)
    return s


def _better(a: float, b: float, direction: str | None) -> bool:
    return a < b if direction == "minimize" else a > b
