"""What every view shares: the ``View`` protocol, run facts from ``run_started``, formatting."""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

import ipywidgets as w

from ..journal import Event, RunSummary
from ..journal.summary import MEASUREMENTS

NOT_SOLUTIONS = MEASUREMENTS  # candidate phases that measure, not solve


def as_event(ev: Event | dict[str, Any]) -> Event:
    """An ``Event`` from an ``Event`` or its JSON dict (as served by the REST API)."""
    return ev if isinstance(ev, Event) else Event.from_json(ev)


@dataclass
class RunInfo:
    """Facts of the run that several views need: the run's ``RunSummary``, fed every event by
    the panel (``update``), with defaults for what the events have not said yet."""

    summary: RunSummary = field(default_factory=RunSummary)

    def update(self, ev: Event) -> None:
        """Take one more event into the summary."""
        self.summary.add(ev)

    @property
    def metric(self) -> str:
        """The metric name (``score`` until the task says)."""
        return self.summary.metric or "score"

    @property
    def direction(self) -> str:
        """``maximize`` or ``minimize`` (``maximize`` until the task says)."""
        return self.summary.direction or "maximize"

    @property
    def budget_seconds(self) -> float | None:
        """The run wall-clock budget, if it has one."""
        return self.summary.budget_seconds

    @property
    def started(self) -> float | None:
        """Time of the first ``run_started``."""
        return self.summary.started

    def better(self, a: float | None, b: float | None) -> bool:
        """``a`` strictly better than ``b`` (``None`` is worse than anything): ``Score.better_than``."""
        return self.summary.better(a, b)


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
    """A score with four decimals, or a dash."""
    return "—" if x is None else f"{x:.4f}"


def fmt_seconds(s: float | None) -> str:
    """Seconds as ``1h 02m`` or ``3m 04s``, or a dash."""
    if s is None:
        return "—"
    s = max(0, int(s))
    h, m, sec = s // 3600, s % 3600 // 60, s % 60
    return f"{h}h {m:02d}m" if h else f"{m}m {sec:02d}s"


def esc(x: Any) -> str:
    """``x`` as HTML-escaped text."""
    return html.escape(str(x), quote=True)
