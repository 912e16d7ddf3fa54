"""``RunControls``: pause and stop buttons writing the run's ``control.json``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ipywidgets as w

from ..journal import Event, RunJournal
from ._base import RunInfo, View


class RunControls(View):
    """Pause/resume (a toggle) and stop; both disabled once the run has finished."""

    handles = frozenset({"run_finished", "resumed"})

    def __init__(self, info: RunInfo, run_dir: str | Path) -> None:
        super().__init__(info)
        self.journal = RunJournal(run_dir)
        control = self.journal.control()
        self.finished = False
        self.pause = w.ToggleButton(
            value=bool(control.get("pause")),
            description="Pause",
            icon="pause",
            tooltip="Pause the run between steps",
        )
        self.stop = w.Button(
            description="Stop",
            icon="stop",
            button_style="danger",
            tooltip="End the run with the best result so far",
        )
        self.status = w.HTML()
        self.pause.observe(self._on_pause, names="value")
        self.stop.on_click(self._on_stop)
        self.widget = w.HBox([self.pause, self.stop, self.status])
        self.stop_requested = bool(control.get("stop"))

    def _on_pause(self, change: dict[str, Any]) -> None:
        self.journal.set_control(pause=bool(change["new"]))
        self.render()

    def _on_stop(self, _button: w.Button) -> None:
        self.journal.set_control(stop=True, pause=False)
        self.stop_requested = True
        self.pause.value = False
        self.render()

    def feed(self, ev: Event) -> bool:
        self.finished = ev.type == "run_finished"
        return True

    def render(self) -> None:
        self.pause.disabled = self.stop.disabled = self.finished or self.stop_requested
        self.pause.description = "Resume" if self.pause.value else "Pause"
        self.pause.icon = "play" if self.pause.value else "pause"
        if self.finished:
            self.status.value = "<i>run finished</i>"
        elif self.stop_requested:
            self.status.value = "<i>stopping after the current step…</i>"
        else:
            self.status.value = (
                "<i>paused (the current step finishes first)</i>" if self.pause.value else ""
            )
