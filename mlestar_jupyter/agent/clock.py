"""Wall-clock budget split by phase.  Time already spent before a resume is carried over."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from .config import Budget

PHASES = ("initial", "refine", "ensemble", "final")


@dataclass
class RunClock:
    """Elapsed time and per-phase deadlines of one run."""

    budget: Budget
    offset: float = 0.0  # seconds spent by earlier processes of this run
    started: float = field(default_factory=time.monotonic)
    llm_grace: float = 0.0  # seconds past the budget LLM calls may still take (the final phase)
    # the ensemble cannot run in its share: refinement has it too (``give_ensemble_to_refine``)
    refine_has_ensemble_share: bool = False
    paused: float = 0.0  # seconds spent waiting for the user's decisions (``waiting``)
    _waiters: int = field(default=0, repr=False)
    _pause_started: float = field(default=0.0, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def elapsed(self) -> float:
        """Seconds this run has used, earlier processes included, without the time it waited
        for the user's decisions."""
        now = time.monotonic()
        with self._lock:
            waiting = now - self._pause_started if self._waiters else 0.0
            return self.offset + now - self.started - self.paused - waiting

    @contextmanager
    def waiting(self) -> Iterator[None]:
        """The run waits for the user (step mode's decisions): that time is not the budget's.
        Paths waiting at once count their common wait once."""
        with self._lock:
            if not self._waiters:
                self._pause_started = time.monotonic()
            self._waiters += 1
        try:
            yield
        finally:
            with self._lock:
                self._waiters -= 1
                if not self._waiters:
                    self.paused += time.monotonic() - self._pause_started

    @property
    def total(self) -> float | None:
        """The wall-clock budget in seconds; None when the run has no time limit."""
        return self.budget.wall_seconds

    def llm_time_left(self) -> float | None:
        """How long an LLM call may take from now: until the budget ends (plus ``llm_grace``
        once the final phase has begun); None without a time budget."""
        return None if self.total is None else self.total + self.llm_grace - self.elapsed

    def start_final(self) -> None:
        """The submission is being written: its LLM calls may go past the budget a little."""
        if self.total is not None:
            self.llm_grace = max(self.llm_grace, 120.0, 0.15 * self.total)

    def remaining(self) -> float:
        """Seconds left of the whole budget (never negative; infinite without a time limit)."""
        return float("inf") if self.total is None else max(0.0, self.total - self.elapsed)

    def give_ensemble_to_refine(self) -> None:
        """The ensemble cannot run in its share: refinement goes on until the ensemble's end."""
        self.refine_has_ensemble_share = True

    def phase_end(self, phase: str) -> float:
        """Elapsed-time mark by which ``phase`` should be done (phases in order share the budget;
        refinement until the ensemble's end once it was given the ensemble's share)."""
        if self.total is None:
            return float("inf")
        if phase == "refine" and self.refine_has_ensemble_share:
            phase = "ensemble"
        shares = self.budget.phase_shares
        norm = sum(shares.get(p, 0.0) for p in PHASES) or 1.0
        upto = 0.0
        for p in PHASES:
            upto += shares.get(p, 0.0) / norm
            if p == phase:
                break
        return self.total * upto

    def phase_left(self, phase: str) -> float:
        """Seconds left until ``phase`` should be done (never negative)."""
        return max(0.0, self.phase_end(phase) - self.elapsed)

    def exec_timeout(self, phase: str, floor: float = 20.0) -> float:
        """Timeout for one execution now: the per-execution cap, never past the phase's end (but at least ``floor``)."""
        left = self.phase_left(phase) if phase != "final" else self.remaining()
        return max(floor, min(self.budget.exec_timeout, left))
