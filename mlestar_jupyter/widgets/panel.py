"""``RunPanel``: every view of a run in one widget, fed by replay or by following the journal.

    panel = RunPanel("runs/20260101-120000-abc123")
    panel.replay()      # what is on disk now
    panel.start()       # then follow events.jsonl in a background thread
    panel               # show it (or use ``show_run(run_dir)``)

Views update widget values only (never ``with out:``), so updates from the follower thread reach
the browser after the cell has finished.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import ipywidgets as w

from ..journal import Event, EventTail
from ._base import RunInfo, View, as_event
from .charts import AblationBars, ScoreTrajectory
from .controls import RunControls
from .progress import ActivityLog, PhaseView, PlanView
from .proposals import ProposalView
from .search import EnsemblePanel, SolutionTree

log = logging.getLogger(__name__)


class RunPanel(w.VBox):
    """Phase and controls on top; plan and scores, ablation, ensemble, tree, proposals, log in tabs."""

    def __init__(
        self, run_dir: str | Path, *, notebook_path: str | Path | None = None, **kwargs: Any
    ) -> None:
        self.run_dir = Path(run_dir)
        self.info = RunInfo()
        self.phase = PhaseView(self.info)
        self.controls = RunControls(self.info, self.run_dir)
        self.plan = PlanView(self.info)
        self.trajectory = ScoreTrajectory(self.info)
        self.ablation = AblationBars(self.info)
        self.ensemble = EnsemblePanel(self.info)
        self.tree = SolutionTree(self.info)
        self.proposals = ProposalView(self.info, self.run_dir, notebook_path)
        self.activity = ActivityLog(self.info)
        self.views: list[View] = [
            self.phase,
            self.controls,
            self.plan,
            self.trajectory,
            self.ablation,
            self.ensemble,
            self.tree,
            self.proposals,
            self.activity,
        ]
        tabs = w.Tab(
            children=[
                w.VBox([self.plan.widget, self.trajectory.widget]),
                self.ablation.widget,
                self.ensemble.widget,
                self.tree.widget,
                self.proposals.widget,
                self.activity.widget,
            ]
        )
        for i, title in enumerate(
            ("Plan & scores", "Ablation", "Ensemble", "Tree", "Proposals", "Log")
        ):
            tabs.set_title(i, title)
        self.tabs = tabs
        self.seen = 0  # events of events.jsonl consumed by replay/follow
        self.finished = False
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        super().__init__([self.phase.widget, self.controls.widget, tabs], **kwargs)
        for v in self.views:
            v.render()

    # -- feeding ------------------------------------------------------------------------------
    def feed(self, event: Event | dict[str, Any]) -> None:
        """Show one event now (tests replay a recorded file through this)."""
        self.feed_many([event])

    def feed_many(self, events: Iterable[Event | dict[str, Any]]) -> None:
        """Show several events, rendering each changed view once at the end."""
        with self._lock:
            dirty: list[View] = []
            for raw in events:
                ev = as_event(raw)
                self.info.update(ev)  # the run's summary first: the views read it
                if ev.type == "run_started":
                    dirty = list(self.views)  # metric and direction change every picture
                self.finished = self.finished or ev.type == "run_finished"
                for v in self.views:
                    if ev.type in v.handles and self._safe_feed(v, ev) and v not in dirty:
                        dirty.append(v)
            for v in dirty:
                v.render()

    def _safe_feed(self, view: View, ev: Event) -> bool:
        try:
            return view.feed(ev)
        except Exception:  # noqa: BLE001 - one malformed event must not stop the live panel
            log.exception(
                "mlestar: %s could not show event %s (%s)", type(view).__name__, ev.seq, ev.type
            )
            return False

    def replay(self) -> int:
        """Feed every event on disk not fed yet; returns how many."""
        tail = self._tail()
        new = tail.events()[self.seen :]
        self.feed_many(new)
        self.seen += len(new)
        return len(new)

    # -- following -------------------------------------------------------------------------------
    def start(self, poll: float = 1.0) -> None:
        """Follow ``events.jsonl`` in a daemon thread until the run finishes or ``stop_following``."""
        if self._thread is not None and self._thread.is_alive():
            return
        self._stop.clear()
        self._thread = threading.Thread(
            target=self._follow,
            args=(poll,),
            daemon=True,
            name=f"mlestar-follow-{self.run_dir.name}",
        )
        self._thread.start()

    def stop_following(self, timeout: float = 5.0) -> None:
        """End the follower thread (the run itself goes on)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    @property
    def following(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def _follow(self, poll: float) -> None:
        while not self._stop.is_set():
            self.replay()
            if self.finished:
                return
            self._stop.wait(poll)

    def _tail(self) -> EventTail:
        if not hasattr(self, "_event_tail"):
            self._event_tail = EventTail(self.run_dir / "events.jsonl")
        return self._event_tail


def show_run(
    run_dir: str | Path, *, notebook_path: str | Path | None = None, poll: float = 1.0
) -> RunPanel:
    """Display a live ``RunPanel`` for ``run_dir`` in the notebook and return it."""
    from IPython.display import display

    panel = RunPanel(run_dir, notebook_path=notebook_path)
    panel.replay()
    panel.start(poll)
    display(panel)
    return panel
