"""Charts: ``AblationBars`` (what each block is worth) and ``ScoreTrajectory`` (every candidate)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import ipywidgets as w

from ..journal import Event
from ._base import NOT_SOLUTIONS, RunInfo, View, esc, fmt_score, fmt_seconds, number
from .svg import bar_chart, line_chart

BOLD = ' style="font-weight:bold"'


class AblationBars(View):
    """The latest ablation study as bars: each ablation's score change against the baseline."""

    handles = frozenset({"ablation"})

    def __init__(self, info: RunInfo) -> None:
        super().__init__(info)
        self.studies: list[dict[str, Any]] = []
        self.widget = w.HTML()

    @property
    def bars(self) -> list[tuple[str, float]]:
        """``(ablation name, delta)`` of the latest study."""
        if not self.studies:
            return []
        results = self.studies[-1].get("results") or []
        return [(str(r.get("name")), number(r.get("delta")) or 0.0) for r in results]

    def feed(self, ev: Event) -> bool:
        self.studies.append(ev.data)
        return True

    def render(self) -> None:
        if not self.studies:
            self.widget.value = "<i>No ablation study yet.</i>"
            return
        s = self.studies[-1]
        head = (
            f"<b>Ablation {len(self.studies)} (path {esc(s.get('path'))}, t={esc(s.get('t'))})</b> · "
            f"baseline {self.info.metric} {fmt_score(number(s.get('baseline')))}"
        )
        self.widget.value = (
            f'<div class="mlestar-ablation">{head}<br>{bar_chart(self.bars)}'
            f"<div>{esc(s.get('summary') or '')}</div></div>"
        )


@dataclass(frozen=True)
class CandidateRow:
    """One executed candidate as the trajectory shows it."""

    index: int
    node_id: str
    label: str
    phase: str
    score: float | None
    error: str | None
    duration: float | None


class ScoreTrajectory(View):
    """Every candidate's score in order, the best-so-far line, and a table of the latest ones."""

    handles = frozenset({"candidate"})

    def __init__(self, info: RunInfo, table_rows: int = 30) -> None:
        super().__init__(info)
        self.rows: list[CandidateRow] = []
        self.table_rows = table_rows
        self.chart = w.HTML()
        self.table = w.HTML()
        self.widget = w.VBox([self.chart, self.table])

    @property
    def points(self) -> list[tuple[int, float]]:
        """``(candidate index, score)`` of every candidate that produced a score."""
        return [(r.index, r.score) for r in self.rows if r.score is not None]

    @property
    def best_line(self) -> list[tuple[int, float]]:
        """The best score so far among solutions (ablation variants and submission runs are
        measurements, not solutions), at each candidate that improved it."""
        solutions = {r.index for r in self.rows if r.phase not in NOT_SOLUTIONS}
        out: list[tuple[int, float]] = []
        for i, s in self.points:
            if i in solutions and (not out or self.info.better(s, out[-1][1])):
                out.append((i, s))
        return out

    def feed(self, ev: Event) -> bool:
        d = ev.data
        score = number(d.get("score")) if d.get("ok", True) else None
        self.rows.append(
            CandidateRow(
                len(self.rows) + 1,
                str(d.get("node_id")),
                str(d.get("label") or ""),
                str(d.get("phase") or ""),
                score,
                d.get("error"),
                number(d.get("duration")),
            )
        )
        return True

    def render(self) -> None:
        self.chart.value = line_chart(self.points, self.best_line, ylabel=self.info.metric)
        best = self.best_line[-1][0] if self.best_line else None
        body = "".join(
            f'<tr class="mlestar-cand"{BOLD if r.index == best else ""}>'
            f"<td>{r.index}</td><td>{esc(r.node_id)}</td><td>{esc(r.phase)}</td><td>{esc(r.label)}</td>"
            f"<td>{fmt_score(r.score) if r.score is not None else '✗ ' + esc(r.error or 'failed')}</td>"
            f"<td>{fmt_seconds(r.duration)}</td></tr>"
            for r in reversed(self.rows[-self.table_rows :])
        )
        self.table.value = (
            '<table class="mlestar-candidates"><tr><th>#</th><th>node</th><th>phase</th><th>label</th>'
            f"<th>{esc(self.info.metric)}</th><th>time</th></tr>{body}</table>"
        )
