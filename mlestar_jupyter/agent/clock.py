"""Wall-clock budget split by phase.  Time already spent before a resume is carried over."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from .config import Budget

PHASES = ("initial", "refine", "ensemble", "final")


@dataclass
class RunClock:
    """Elapsed time and per-phase deadlines of one run."""

    budget: Budget
    offset: float = 0.0  # seconds spent by earlier processes of this run
    started: float = field(default_factory=time.monotonic)

    @property
    def elapsed(self) -> float:
        return self.offset + time.monotonic() - self.started

    @property
    def total(self) -> float | None:
        return self.budget.wall_seconds

    def remaining(self) -> float:
        return float("inf") if self.total is None else max(0.0, self.total - self.elapsed)

    def phase_end(self, phase: str) -> float:
        """Elapsed-time mark by which ``phase`` should be done (phases in order share the budget)."""
        if self.total is None:
            return float("inf")
        shares = self.budget.phase_shares
        norm = sum(shares.get(p, 0.0) for p in PHASES) or 1.0
        upto = 0.0
        for p in PHASES:
            upto += shares.get(p, 0.0) / norm
            if p == phase:
                break
        return self.total * upto

    def phase_left(self, phase: str) -> float:
        return max(0.0, self.phase_end(phase) - self.elapsed)

    def exec_timeout(self, phase: str, floor: float = 20.0) -> float:
        """Timeout for one execution now: the per-execution cap, never past the phase's end (but at least ``floor``)."""
        left = self.phase_left(phase) if phase != "final" else self.remaining()
        return max(floor, min(self.budget.exec_timeout, left))
