"""What one ``mlestar run`` spent its budget on, read from its run folder's ``events.jsonl``.

``read_journal(run_dir) -> JournalFacts``: candidates run, which timed out, which strategy was
**retried after it had timed out** (issue 21: a strategy that timed out must not run again on the
same block), the pick and the card it descends from.  Used by ``bench_offline_vs_flaml.py``.

A *strategy* is what a candidate tried: the refinement plan (the ``plan`` event's full text for
the candidate's path, t and k), the ensemble plan, or the model card of an initial solution
(``init: lightgbm``).  A candidate is a *retry after a time-out* when an earlier candidate with
the same block and strategy timed out and this one started after that time-out (its debug
rounds included: a debugger that re-runs a timed-out candidate retries it).  Candidates that ran
side by side on parallel paths do not count: neither knew the other would time out.  A debugger's
version that trains on fewer rows than the run that timed out (its ``debug`` event's ``rows``) is
a *lighter version*, listed apart: the issue asks that a time-out not be retried at the same size.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TIMEOUT_MARK = "timed out"
_DEBUG = re.compile(r" \(debug \d+\)$")
_REFINE = re.compile(r"^t\d+ k\d+: ")


@dataclass(frozen=True)
class Attempt:
    """One executed candidate, as the journal recorded it."""

    node_id: str
    phase: str
    block_id: str | None
    strategy: str
    start: float
    end: float
    timed_out: bool
    ok: bool
    score: float | None
    label: str
    parent_id: str | None
    # a debugger's version after a time-out: (rows of the run that timed out, its own rows)
    rows: tuple[int | None, int | None] | None = None

    @property
    def lighter(self) -> bool:
        """Whether it trains on fewer rows than the run whose time-out it follows."""
        before, after = self.rows or (None, None)
        return before is not None and after is not None and after < before


@dataclass
class JournalFacts:
    """The parts of a run's journal the benchmark reports."""

    candidates: int = 0
    failed: int = 0
    timed_out: list[str] = field(default_factory=list)  # node ids
    retried_after_timeout: list[str] = field(default_factory=list)  # "node (strategy, block)"
    lighter_after_timeout: list[str] = field(default_factory=list)  # "node (rows before -> now)"
    best: str = ""  # best-scoring solution (ablation variants are studies, not solutions)
    final_from: str = ""  # the label of the candidate that wrote the submission
    best_card: str = ""  # the initial card that candidate descends from
    rung: str = ""  # the final event's rung
    status: str = ""  # run_finished status

    def summary(self) -> str:
        """One line: counts, retries and the pick."""
        retry = (
            f"{len(self.retried_after_timeout)} retried after time-out"
            if self.retried_after_timeout
            else "no retry after time-out"
        )
        if self.lighter_after_timeout:
            retry += f", {len(self.lighter_after_timeout)} lighter version(s) after a time-out"
        return (
            f"{self.candidates} candidates, {self.failed} failed, {len(self.timed_out)} timed out, "
            f"{retry}; best {self.best or '-'} (card {self.best_card or '-'}); "
            f"final: {self.final_from or '-'}"
        )

    def to_json(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def _events(run_dir: Path) -> list[dict[str, Any]]:
    path = run_dir / "events.jsonl"
    if not path.is_file():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:  # a line cut by a kill
            continue
    return out


def _strategy(data: dict[str, Any], plans: dict[tuple[str, int, int], str]) -> str:
    """The candidate's strategy text: its refinement plan if the journal has it, else its label."""
    label = _DEBUG.sub("", str(data.get("label") or ""))
    node = str(data.get("node_id") or data.get("id") or "")
    m = re.match(r"^(?P<path>.+)-t(?P<t>\d+)k(?P<k>\d+)(?:-d\d+)?$", node)
    if m:
        plan = plans.get((m["path"], int(m["t"]), int(m["k"])))
        if plan:
            return plan.strip()
    return _REFINE.sub("", label).strip()


def attempts(events: list[dict[str, Any]]) -> list[Attempt]:
    """Every ``candidate`` event as an ``Attempt``, in journal order."""
    plans: dict[tuple[str, int, int], str] = {}
    rows = {
        str((ev.get("data") or {}).get("node_id")): tuple(ev["data"]["rows"])
        for ev in events
        if ev.get("type") == "debug" and len((ev.get("data") or {}).get("rows") or ()) == 2
    }
    out = []
    for ev in events:
        data = ev.get("data") or {}
        if ev.get("type") == "plan" and data.get("t") is not None and data.get("k") is not None:
            plans[(str(data.get("path") or ""), int(data["t"]), int(data["k"]))] = str(
                data.get("plan") or ""
            )
        if ev.get("type") != "candidate":
            continue
        end = float(ev.get("time") or 0.0)
        duration = float(data.get("duration") or 0.0)
        error = str(data.get("error") or "")
        out.append(
            Attempt(
                node_id=str(data.get("node_id") or data.get("id") or ""),
                phase=str(data.get("phase") or ""),
                block_id=data.get("block_id"),
                strategy=_strategy(data, plans),
                start=end - duration,
                end=end,
                timed_out=TIMEOUT_MARK in error,
                ok=bool(data.get("ok")),
                score=data.get("score"),
                label=str(data.get("label") or ""),
                parent_id=data.get("parent_id"),
                rows=rows.get(str(data.get("node_id") or data.get("id") or "")),  # type: ignore[arg-type]
            )
        )
    return out


def retries_after_timeout(runs: list[Attempt], *, lighter: bool = False) -> list[str]:
    """Candidates started after a candidate with the same block and strategy had timed out, at
    the same size (``lighter``: those that train on fewer rows instead)."""
    found = []
    for a in runs:
        if a.lighter != lighter:
            continue
        earlier = [
            b
            for b in runs
            if b is not a
            and b.timed_out
            and b.block_id == a.block_id
            and b.strategy == a.strategy
            and b.end <= a.start + 0.5  # started once the time-out was known
        ]
        if earlier and a.phase not in ("submission", "final"):
            rows = f", rows {a.rows[0]} -> {a.rows[1]}" if a.rows and lighter else ""
            found.append(
                f"{a.node_id} after {earlier[0].node_id} ({a.strategy[:60]!r}, block "
                f"{a.block_id}{rows})"
            )
    return found


def _root_card(best: Attempt, by_id: dict[str, Attempt]) -> str:
    node, seen = best, set()
    while node.parent_id and node.parent_id in by_id and node.node_id not in seen:
        seen.add(node.node_id)
        node = by_id[node.parent_id]
    label = _DEBUG.sub("", node.label)
    return label.split(":", 1)[1].strip() if label.startswith("init:") else label


def read_journal(run_dir: Path, higher_is_better: bool) -> JournalFacts:
    """The facts of one run folder (empty facts when it has no journal)."""
    events = _events(run_dir)
    runs = attempts(events)
    facts = JournalFacts(
        candidates=len(runs),
        failed=sum(1 for a in runs if not a.ok),
        timed_out=[a.node_id for a in runs if a.timed_out],
        retried_after_timeout=retries_after_timeout(runs),
        lighter_after_timeout=retries_after_timeout(runs, lighter=True),
    )
    scored = [
        a
        for a in runs
        if a.ok and a.score is not None and a.phase not in ("submission", "ablation")
    ]
    if scored:
        pick = max if higher_is_better else min
        best = pick(scored, key=lambda a: float(a.score))  # type: ignore[arg-type]
        facts.best = f"{best.node_id}: {best.label[:60]}"
        facts.best_card = _root_card(best, {a.node_id: a for a in runs})
    for ev in events:
        data = ev.get("data") or {}
        if ev.get("type") == "final":
            facts.rung = str(data.get("rung") or "")
            finals = [a for a in runs if a.phase == "submission" and a.ok]
            facts.final_from = finals[-1].label if finals else ""
        elif ev.get("type") == "run_finished":
            facts.status = str(data.get("status") or "")
    return facts
