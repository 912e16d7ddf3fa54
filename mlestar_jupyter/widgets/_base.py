"""What every view shares: the ``View`` protocol, run facts from ``run_started``, formatting."""

from __future__ import annotations

import html
import math
from dataclasses import dataclass
from typing import Any, ClassVar

import ipywidgets as w

from ..journal import Event

NOT_SOLUTIONS = frozenset({"ablation", "submission"})  # candidate phases that measure, not solve


def as_event(ev: Event | dict[str, Any]) -> Event:
    """An ``Event`` from an ``Event`` or its JSON dict (as served by the REST API)."""
    return ev if isinstance(ev, Event) else Event.from_json(ev)


@dataclass
class RunInfo:
    """Facts of the run that several views need (set from ``run_started``)."""

    metric: str = "score"
    direction: str = "maximize"
    budget_seconds: float | None = None
    started: float | None = None

    def update(self, ev: Event) -> None:
        task = ev.data.get("task") or {}
        config = ev.data.get("config") or {}
        self.metric = task.get("metric_name") or self.metric
        self.direction = task.get("direction") or self.direction
        self.budget_seconds = number((config.get("budget") or {}).get("wall_seconds"))
        self.started = self.started or ev.time

    def better(self, a: float | None, b: float | None) -> bool:
        """``a`` strictly better than ``b`` (``None`` is worse than anything)."""
        if a is None:
            return False
        if b is None:
            return True
        return a < b if self.direction == "minimize" else a > b


class View:
    """One picture over some event types; ``feed`` updates state, ``render`` the widget."""

    handles: ClassVar[frozenset[str]] = frozenset()
    widget: w.Widget

    def __init__(self, info: RunInfo) -> None:
        self.info = info

    def feed(self, ev: Event) -> bool:
        """Take one event; return whether the picture changed."""
        raise NotImplementedError

    def render(self) -> None:
        """Push the state into the widget's value (bounded, never appended)."""
        raise NotImplementedError


def number(x: Any) -> float | None:
    """``x`` as a finite float, else ``None``."""
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def fmt_score(x: float | None) -> str:
    return "—" if x is None else f"{x:.4f}"


def fmt_seconds(s: float | None) -> str:
    if s is None:
        return "—"
    s = max(0, int(s))
    h, m, sec = s // 3600, s % 3600 // 60, s % 60
    return f"{h}h {m:02d}m" if h else f"{m}m {sec:02d}s"


def esc(x: Any) -> str:
    return html.escape(str(x), quote=True)
