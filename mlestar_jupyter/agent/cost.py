"""How long a candidate will run, estimated from the run's own timings, and whether to start it.

Every finished execution is an observation: its seconds, the training rows it had, and what it
is built from.  A candidate is described to the model as a ``Job``: the nodes whose code it runs
(``inputs``: a refinement's parent; a merge's or an ensemble's solutions), a cost ``key`` (the
plan's strategy, or the model card of an initial solution), its target block and its rows.

- A job with measured inputs costs what they cost together, scaled by its rows over theirs and
  by its key's *factor*: how much slower (or faster) than their inputs earlier jobs with that key
  ran (1 until one is seen).  A merge of a 3 s and a 20 s solution is estimated at 23 s.  Fewer
  training rows do not shrink the work on the rows every run handles whatever its training rows
  (``fixed_rows``: the test examples it predicts, and transforms first): half the training rows
  of a series run that transforms as many test series as it has training series cost three
  quarters of it, not half.  More rows scale the whole (an estimate is never too low by it).
- A job without inputs (an initial solution) costs its card's measured seconds per row × rows;
  a card never measured has no estimate (it is started: there is nothing to judge it by).
- A run that timed out only says the job needs *more* than the time it had: it is counted as
  ``TIMEOUT_MARGIN`` × that, and the estimate is marked as a lower bound.

``verdict`` turns an estimate into a decision: do not start a job that cannot finish within the
time it may run (``limit``: the per-execution limit, or what is left of the budget before the
submission's reserve), nor one whose key timed out before on the same block at the same rows.
Thread-safe: parallel paths observe and ask at once.
"""

from __future__ import annotations

import statistics
import threading
from collections.abc import Callable
from dataclasses import dataclass

TIMEOUT_MARGIN = 1.5  # a timed-out run needed at least this many times the seconds it had


@dataclass(frozen=True)
class Job:
    """What the cost model needs to know about one candidate."""

    key: str | None = None  # a strategy id, a plan, or a model card: what sets its cost apart
    inputs: tuple[str, ...] = ()  # node ids whose code it runs (their seconds are its base)
    rows: int | None = None  # training rows it is given (None: unknown, taken as its inputs')
    block_id: str | None = None  # the block it changes (a time-out is remembered per block)


@dataclass(frozen=True)
class Estimate:
    """A job's expected seconds and how they were worked out."""

    seconds: float
    basis: str  # e.g. "inputs p0-merge1 (12.0 s) x 1.8 (strategy target_encoding)"
    lower_bound: bool = False  # built on a run that timed out: it needs at least this long


@dataclass(frozen=True)
class _Seen:
    seconds: float
    rows: int | None
    timed_out: bool


class CostModel:
    """Seconds per job, learned from the run's finished executions (see the module docstring)."""

    def __init__(self, fixed_rows: int | Callable[[], int | None] | None = None) -> None:
        # rows every run handles (see the module docstring); a function is called once, when an
        # estimate first needs them (counting a large sample submission is not start-up work)
        self._fixed_rows = fixed_rows
        self._nodes: dict[str, _Seen] = {}  # node id -> what its run took
        self._factors: dict[str, list[tuple[float, bool]]] = {}  # key -> (seconds / inputs', t/o)
        self._rates: dict[str, list[tuple[float, bool]]] = {}  # key -> (seconds per row, t/o)
        self._timed_out: set[tuple[str, str | None, int | None]] = set()
        self._lock = threading.Lock()

    @property
    def fixed_rows(self) -> int:
        """The rows every run handles whatever its training rows (0 unknown)."""
        if callable(self._fixed_rows):
            self._fixed_rows = self._fixed_rows() or 0
        return self._fixed_rows or 0

    # -- learning ---------------------------------------------------------------------------
    def observe(self, node_id: str, job: Job, seconds: float, *, timed_out: bool = False) -> None:
        """Record that ``job`` (node ``node_id``) ran for ``seconds`` (``timed_out``: was cut off)."""
        cost = seconds * (TIMEOUT_MARGIN if timed_out else 1.0)
        with self._lock:
            self._nodes[node_id] = _Seen(cost, job.rows, timed_out)
            if timed_out and job.key is not None:
                self._timed_out.add((job.key, job.block_id, job.rows))
            if job.key is None:
                return
            base = self._inputs_seconds(job)
            if base is not None and base[0] > 0:
                self._factors.setdefault(job.key, []).append((cost / base[0], timed_out))
            elif not job.inputs:
                rate = cost / max(1, job.rows or 1)
                self._rates.setdefault(job.key, []).append((rate, timed_out))

    def seconds(self, node_id: str) -> float | None:
        """What node ``node_id``'s run took (a timed-out run: ``TIMEOUT_MARGIN`` × its limit)."""
        with self._lock:
            seen = self._nodes.get(node_id)
        return seen.seconds if seen is not None else None

    # -- estimating -------------------------------------------------------------------------
    def estimate(self, job: Job) -> Estimate | None:
        """The job's expected seconds, or ``None`` when nothing measured says anything about it."""
        with self._lock:
            base = self._inputs_seconds(job)
            if base is not None:
                seconds, rows, slow = base
                scale = self._row_scale(job.rows, rows)
                factor, from_timeout = _mean(self._factors.get(job.key or "", []))
                basis = f"inputs {', '.join(job.inputs)} ({seconds:.1f} s)"
                if job.rows and rows and job.rows != rows:
                    basis += f" x {self._rows_text(job.rows, rows)} rows"
                if job.key in self._factors:
                    basis += f" x {factor:.2g} ({job.key})"
                return Estimate(seconds * scale * factor, basis, slow or from_timeout)
            rates = self._rates.get(job.key or "")
            if job.inputs or not rates:
                return None
            rate, from_timeout = _mean(rates)
            rows = max(1, job.rows or 1)
            return Estimate(rate * rows, f"{job.key}: {rate:.3g} s per row x {rows}", from_timeout)

    def _row_scale(self, rows: int | None, base: int | None) -> float:
        """How much a job on ``rows`` training rows costs against one on ``base`` rows: their
        ratio, and for fewer rows the ratio of all rows handled (``fixed_rows`` added to both)."""
        if not rows or not base:
            return 1.0
        if rows >= base:
            return rows / base
        return (rows + self.fixed_rows) / (base + self.fixed_rows)

    def _rows_text(self, rows: int, base: int) -> str:
        """The row ratio of ``_row_scale`` as the estimate's basis says it."""
        if rows >= base or not self.fixed_rows:
            return f"{rows}/{base}"
        return f"({rows}+{self.fixed_rows})/({base}+{self.fixed_rows})"

    def timed_out_before(self, job: Job) -> bool:
        """A job with this key timed out before on the same block at the same rows."""
        with self._lock:
            return job.key is not None and (job.key, job.block_id, job.rows) in self._timed_out

    def verdict(self, job: Job, limit: float) -> str | None:
        """Why ``job`` should not be started with ``limit`` seconds to run in (``None``: start it)."""
        if self.timed_out_before(job):
            where = f" on block {job.block_id}" if job.block_id else ""
            return f"{job.key} timed out before{where} at {job.rows or 'the same'} rows"
        est = self.estimate(job)
        if est is None or est.seconds <= limit:
            return None
        bound = "at least " if est.lower_bound else ""
        return f"it would need {bound}{est.seconds:.0f} s ({est.basis}) and can run {limit:.0f} s"

    def _inputs_seconds(self, job: Job) -> tuple[float, int | None, bool] | None:
        """The inputs' seconds together, their rows (the largest) and whether one timed out;
        ``None`` unless every input was measured."""
        seen = [self._nodes.get(i) for i in job.inputs]
        if not seen or any(s is None for s in seen):
            return None
        known = [s for s in seen if s is not None]
        rows = [s.rows for s in known if s.rows]
        total = sum(s.seconds for s in known)
        return total, max(rows) if rows else None, any(s.timed_out for s in known)


def _mean(values: list[tuple[float, bool]]) -> tuple[float, bool]:
    """The median of measured values (1.0 for none) and whether one came from a time-out."""
    if not values:
        return 1.0, False
    return statistics.median(v for v, _ in values), any(t for _, t in values)
