"""The one summary of a run, folded from its events: ``summarise_run(run_dir) -> RunSummary``.

``mlestar show`` prints it (``RunSummary.to_json`` is ``show --json``), the server's
``DescribeRun`` is built from it, and the widgets' panel feeds it event by event
(``RunSummary.add``).  "Better" is always ``metrics.Score.better_than`` in the task's direction.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..metrics import Direction, Score
from .events import Event, read_events
from .kinds import (
    CandidateEvent,
    DecisionEvent,
    EnsemblePickEvent,
    FinalEvent,
    HeldoutEvent,
    ImprovementEvent,
    LLMCallEvent,
    PhaseEvent,
    ProposalEvent,
    RunFinishedEvent,
    RunStartedEvent,
    WarningEvent,
)

# Warnings said to the user whatever the display (``mlestar run`` prints them, ``show`` lists
# them): how the task was read, what was done to the submission, a cell of the user's notebook
# the run does not run (``agent.stale_cells``).
TOLD = frozenset({"task", "submission", "notebook"})
# Candidate phases that measure (ablation variants, submission runs), not solutions: never "best".
MEASUREMENTS = frozenset({"ablation", "submission"})


@dataclass
class RunSummary:
    """What a run's events say about it, as far as they go (``add`` one more event)."""

    run_dir: str | None = None
    task_id: str | None = None
    metric: str | None = None
    direction: Direction | None = None
    budget_seconds: float | None = None
    started: float | None = None  # time of the first run_started
    last_time: float | None = None  # time of the last event
    last_type: str | None = None
    phase: str | None = None
    path: str | int | None = None
    finished_status: str | None = None  # run_finished's status (None: not finished)
    finished_reason: str = ""
    finished_elapsed: float | None = None
    finished_best: float | None = None
    stopped: bool = False  # the last process of the run ended with run_stopped (resumable)
    candidates: list[Event] = field(default_factory=list)
    failed: int = 0
    best: Event | None = None  # the best solution candidate (ablation and submission runs excluded)
    picked: str | None = None  # the node the last ensemble_pick chose (decides ties of "best")
    final: Event | None = None
    heldout: Event | None = None  # the submission graded on a dataset's held-out rows
    # what the user is told whatever the display: how the task was read, what the submission is
    told: list[str] = field(default_factory=list)
    improvements: int = 0  # kept changes that scored better
    kept_ties: int = 0  # kept changes that scored the same (kept, as the paper keeps them)
    proposals: list[Event] = field(default_factory=list)  # proposal events
    decided: dict[str, str | None] = field(default_factory=dict)  # proposal id -> decision event's
    llm_calls: int = 0
    cost_usd: float = 0.0

    # -- folding ----------------------------------------------------------------------------
    def add(self, ev: Event | dict[str, Any]) -> None:
        """Take one more event (an ``Event`` or its JSON object)."""
        if not isinstance(ev, Event):
            ev = Event.from_json(ev, index=-1)
        p = ev.payload
        if ev.time:
            self.last_time = ev.time
        self.last_type = ev.type
        if isinstance(p, RunStartedEvent):
            self._started(p, ev.time)
        elif isinstance(p, PhaseEvent):
            self.phase, self.path = p.phase or self.phase, p.path
        elif isinstance(p, CandidateEvent):
            self._candidate(ev, p)
        elif isinstance(p, FinalEvent):
            self.final = ev
        elif isinstance(p, EnsemblePickEvent) and p.chosen:
            self.picked = p.chosen
        elif isinstance(p, HeldoutEvent):
            self.heldout = ev
        elif isinstance(p, WarningEvent) and p.what in TOLD and p.message not in self.told:
            self.told.append(p.message)
        elif isinstance(p, ImprovementEvent):
            if p.kept and self.better(p.new_score, p.old_score):
                self.improvements += 1
            elif p.kept:
                self.kept_ties += 1
        elif isinstance(p, ProposalEvent) and p.proposal_id:
            self.proposals.append(ev)
        elif isinstance(p, DecisionEvent) and p.proposal_id:
            self.decided[p.proposal_id] = p.decision
        elif isinstance(p, LLMCallEvent):
            self.llm_calls += 1
            self.cost_usd += p.cost_usd or 0.0
        elif isinstance(p, RunFinishedEvent):
            self.finished_status = p.status or "done"
            self.finished_reason = p.reason
            self.finished_elapsed = p.elapsed
            self.finished_best = p.best_score
        elif ev.type == "run_stopped":
            self.stopped = True
        elif ev.type == "resumed":
            self.stopped = False

    def _started(self, p: RunStartedEvent, time: float) -> None:
        task, config = p.task, p.config
        self.task_id = task.get("id") or self.task_id
        self.metric = task.get("metric_name") or self.metric
        if task.get("direction") in ("maximize", "minimize"):
            self.direction = task["direction"]
        budget = config.get("budget")
        wall = budget.get("wall_seconds") if isinstance(budget, dict) else None
        self.budget_seconds = float(wall) if isinstance(wall, int | float) and wall else None
        self.started = self.started or time or None

    def _candidate(self, ev: Event, p: CandidateEvent) -> None:
        self.candidates.append(ev)
        self.failed += not p.ok
        if p.ok is not False and p.phase not in MEASUREMENTS:
            best = self.best.payload if self.best is not None else None
            assert best is None or isinstance(best, CandidateEvent)
            if self.score(p.score).better_than(self.score(best.score if best else None)):
                self.best = ev

    # -- derived ----------------------------------------------------------------------------
    def score(self, value: float | None) -> Score:
        """``value`` as a ``Score`` in the run's direction (maximize until the task says)."""
        return Score(value, self.direction or "maximize")

    def better(self, a: float | None, b: float | None) -> bool:
        """Score ``a`` strictly better than ``b`` in the run's direction (``None`` is worst)."""
        return self.score(a).better_than(self.score(b))

    @property
    def best_score(self) -> float | None:
        """The final submission's score, else what run_finished kept, else the best candidate's."""
        final = self.final.payload if self.final is not None else None
        if isinstance(final, FinalEvent) and final.score is not None:
            return final.score
        if self.finished_best is not None:
            return self.finished_best
        best = self.best.payload if self.best is not None else None
        return best.score if isinstance(best, CandidateEvent) else None

    @property
    def kept(self) -> Event | None:
        """The solution candidate the run kept: the one with run_finished's best score (a
        rejected proposal is not "best"), else the best-scoring one.  Where several candidates
        have that score, the one ``ensemble_pick`` chose is it (the run submits that one)."""
        best = self.best.payload if self.best is not None else None
        score = self.finished_best
        if score is None and isinstance(best, CandidateEvent):
            score = best.score
        if score is None:
            return self.best
        tied = [
            ev
            for ev in self.solutions
            if isinstance(ev.payload, CandidateEvent) and ev.payload.score == score
        ]
        for ev in tied:
            if self.picked is not None and ev.data.get("node_id") == self.picked:
                return ev
        return tied[0] if tied else self.best

    @property
    def solutions(self) -> list[Event]:
        """Candidates that are solutions (not measurements) and have a score, in order."""
        out = []
        for ev in self.candidates:
            p = ev.payload
            if isinstance(p, CandidateEvent) and p.score is not None:
                if p.phase not in MEASUREMENTS:
                    out.append(ev)
        return out

    @property
    def status(self) -> str:
        """``run_finished``'s status; else ``stopped`` or ``running or killed``."""
        if self.finished_status:
            return self.finished_status
        return "stopped" if self.last_type == "run_stopped" else "running or killed"

    def to_json(self) -> dict[str, Any]:
        """Key figures of the run (what ``mlestar show --json`` prints)."""
        kept = self.kept
        return {
            "run_dir": self.run_dir,
            "task": self.task_id,
            "metric": self.metric,
            "direction": self.direction or "maximize",
            "status": self.status,
            "message": self.finished_reason,
            "candidates": len(self.candidates),
            "failed": self.failed,
            "best": kept.data if kept is not None else None,
            "improvements": self.improvements,
            "kept_ties": self.kept_ties,
            "proposals": len(self.proposals),
            "llm_calls": self.llm_calls,
            "final": self.final.data if self.final is not None else None,
            "heldout": self.heldout.data if self.heldout is not None else None,
            "warnings": list(self.told),
            "elapsed": self.finished_elapsed,
            "trajectory": [
                (
                    ev.data.get("node_id") or ev.data.get("id"),
                    ev.data.get("phase"),
                    ev.data["score"],
                )
                for ev in self.solutions
            ],
        }


def summarise_events(
    events: Iterable[Event | dict[str, Any]], run_dir: str | Path | None = None
) -> RunSummary:
    """Fold ``events`` (``Event`` objects or their JSON objects) into a ``RunSummary``."""
    s = RunSummary(run_dir=str(run_dir) if run_dir is not None else None)
    for ev in events:
        s.add(ev)
    return s


def summarise_run(run_dir: str | Path) -> RunSummary:
    """The summary of the run folder ``run_dir`` (its ``events.jsonl`` as written so far)."""
    return summarise_events(read_events(Path(run_dir) / "events.jsonl"), run_dir)


def heldout_line(h: dict[str, Any]) -> str:
    """A ``heldout`` event's data (a dataset's run: the submission graded on the rows held
    out of the search) in one line, as ``mlestar show`` and the panel's log say it."""
    rows = f"{h['rows']} " if h.get("rows") else ""
    if h.get("score") is None:
        return f"held-out rows ({rows.strip() or '?'}): not graded: {h.get('reason') or 'no score'}"
    val = h.get("validation_score")
    beside = f" (its validation score: {val:.5g})" if isinstance(val, int | float) else ""
    return (
        f"held-out score: {h.get('metric')} {h['score']:.5g} on the {rows}rows held out of "
        f"{h.get('held_out_of') or 'the dataset'}, which the search never saw{beside}"
    )


__all__ = ["MEASUREMENTS", "RunSummary", "heldout_line", "summarise_events", "summarise_run"]
