"""The search-time subsample (a notebook's ``MAX_TRAIN_ROWS``) adapted to the time budget.

The paper trains every search candidate on at most 30 000 rows.  With a tight budget a mid-size
table makes each candidate too slow to try more than a few, so the run measures instead of
assuming: before the first candidate that carries a ``MAX_TRAIN_ROWS = <n>`` line (the offline
templates and code built on their starter cells) runs, the same notebook is run on a small
subsample (``PROBE_ROWS``) and on four times that (and on the small one again when the first run
was not the faster: a cold start).  The two timings give a fixed cost and a cost per
row; the cap becomes the most rows with which one candidate fits ``per_candidate`` seconds (the
search's share of the budget over ``TARGET_CANDIDATES``), between ``4 * PROBE_ROWS`` and the run's
``max_train_rows``.  Every later search notebook is given that cap; final notebooks train on
everything (their ``MAX_TRAIN_ROWS = None`` is left alone).

Nothing is probed when the table has at most ``4 * PROBE_ROWS`` rows, when the run has no time
limit, or when the user set ``max_train_rows`` (``RunConfig.adapt_train_rows`` off).  The
validation rows stay the run's (``scoring``): only the training part shrinks.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ..notebook import SolutionNotebook

ROW_CAP = re.compile(r"^MAX_TRAIN_ROWS = (\d+)[ \t]*$", re.MULTILINE)
PROBE_ROWS = 1_000  # the first probe; the second has four times as many
TARGET_CANDIDATES = 12  # the search should have time for about this many candidates


def row_cap(nb: SolutionNotebook) -> int | None:
    """The notebook's ``MAX_TRAIN_ROWS`` (``None`` when it has no such line, or it is ``None``)."""
    m = ROW_CAP.search(nb.source)
    return int(m.group(1)) if m else None


def with_row_cap(nb: SolutionNotebook, rows: int) -> SolutionNotebook:
    """``nb`` with its ``MAX_TRAIN_ROWS`` set to ``rows`` (unchanged when it has none)."""
    for b in nb.code_blocks:
        if ROW_CAP.search(b.source):
            return nb.replace_block(b.id, ROW_CAP.sub(f"MAX_TRAIN_ROWS = {rows}", b.source))
    return nb


def fit_rows(
    points: list[tuple[int, float]], per_candidate: float, lowest: int, highest: int
) -> int:
    """The most rows whose run fits ``per_candidate`` seconds, from timings ``(rows, seconds)``
    of two runs (seconds = fixed + rows x per row), within ``[lowest, highest]``.  Timings that
    show no cost per row (the larger run was not slower: noise, a cold first kernel) keep the
    most rows; when the fixed cost alone is over ``per_candidate``, the rows get half of it."""
    (r1, s1), (r2, s2) = min(points), max(points)
    per_row = (s2 - s1) / (r2 - r1) if r2 > r1 else 0.0
    if per_row <= 0:
        return highest
    fixed = max(0.0, s1 - per_row * r1)
    rows = int(max(per_candidate - fixed, per_candidate / 2) / per_row + 1e-6)
    return max(lowest, min(highest, rows))


@dataclass(frozen=True)
class RowChoice:
    """The search-time subsample a run settled on, and why."""

    rows: int
    reason: str
    fixed: float | None = None  # the seconds a run takes whatever its rows (None: not measured)


def card_seconds(fixed: float, probe_seconds: float, rows: int) -> float:
    """What a card probed on ``4 * PROBE_ROWS`` rows (``probe_seconds``) needs on ``rows``: the
    run's fixed cost plus the rest scaled by the rows."""
    return fixed + max(0.0, probe_seconds - fixed) * rows / (4 * PROBE_ROWS)


def choose_rows(
    nb: SolutionNotebook,
    *,
    table_rows: int | None,
    max_rows: int,
    per_candidate: float,
    run: Callable[[SolutionNotebook, str], float | None],
) -> RowChoice | None:
    """Probe ``nb`` on two small subsamples (``run(notebook, suffix)`` gives its seconds, or
    ``None`` when it failed) and choose the cap; ``None`` when there is nothing to adapt (no
    ``MAX_TRAIN_ROWS`` line, or a table no bigger than the smallest cap) or a probe failed."""
    lowest = 4 * PROBE_ROWS
    if row_cap(nb) is None or table_rows is None or min(table_rows, max_rows) <= lowest:
        return None
    small = run(with_row_cap(nb, PROBE_ROWS), f"probe{PROBE_ROWS}")
    big = run(with_row_cap(nb, lowest), f"probe{lowest}") if small is not None else None
    if small is None or big is None:
        return None
    if small >= big:  # the first run paid for a cold start: time the small one again
        again = run(with_row_cap(nb, PROBE_ROWS), f"probe{PROBE_ROWS}-again")
        small = min(small, again if again is not None else small)
    points = [(PROBE_ROWS, small), (lowest, big)]
    rows = fit_rows(points, per_candidate, lowest, min(table_rows, max_rows))
    (r1, s1), (r2, s2) = points
    per_row = (s2 - s1) / (r2 - r1)
    fixed = max(0.0, s1 - per_row * r1) if per_row > 0 else min(s1, s2)
    return RowChoice(
        rows,
        f"probes ran {s1:.1f} s on {r1} rows and {s2:.1f} s on {r2}: one candidate on {rows} "
        f"rows fits {per_candidate:.0f} s (the search's time over {TARGET_CANDIDATES} candidates)",
        fixed,
    )
