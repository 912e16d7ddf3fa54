"""``ProposalView``: each proposed cell change as a diff with Accept / Reject buttons.

A decision is written with ``RunJournal.record_decision`` (the run picks it up; in step mode it
waits for it).  Given ``notebook_path``, an accepted change is also applied to that notebook on
disk through ``SolutionNotebook.replace_block`` when the cell still holds the old source.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

import ipywidgets as w

from ..journal import Event, RunJournal
from ..notebook import SolutionNotebook
from ._base import RunInfo, View, esc, fmt_score, number


def diff_html(old: str, new: str) -> str:
    """A unified diff of two sources as coloured, escaped HTML."""
    lines = difflib.unified_diff(
        old.splitlines(), new.splitlines(), "before", "after", lineterm="", n=2
    )
    colors = {"+": "#1a7f37", "-": "#cf222e", "@": "#8250df"}
    out = [
        f'<span style="color:{colors.get(line[:1], "inherit")}">{esc(line)}</span>'
        for line in lines
    ]
    return '<pre class="mlestar-diff" style="margin:0">' + "\n".join(out) + "</pre>"


def apply_to_notebook(path: Path, proposal: dict[str, Any]) -> str:
    """Apply an accepted proposal to the notebook at ``path``; returns what happened."""
    nb = SolutionNotebook.read(path)
    block = next(
        (
            b
            for b in nb.code_blocks
            if proposal.get("cell_id") and nb.nb.cells[b.index].get("id") == proposal["cell_id"]
        ),
        None,
    )
    if block is None and proposal.get("block_id") in nb.block_ids:
        block = nb.block(proposal["block_id"])
    if block is None:
        return "notebook unchanged: the cell is not in it"
    if block.source.strip() != str(proposal.get("old_source") or "").strip():
        return f"notebook unchanged: cell {block.id} was edited since the proposal"
    nb.replace_block(block.id, str(proposal.get("new_source") or ""), origin="mlestar").write(path)
    return f"applied to {path.name} (cell {block.id})"


class ProposalBox:
    """One proposal: plan, score change, diff, buttons, status."""

    def __init__(self, data: dict[str, Any], on_decide: Any) -> None:
        self.data = data
        self.decision: str | None = None
        self.note = ""
        before, after = number(data.get("score_before")), number(data.get("score_after"))
        head = (
            f"<b>{esc(data.get('proposal_id'))}</b> · block {esc(data.get('block_id'))} · "
            f"{fmt_score(before)} → {fmt_score(after)}<div>{esc(data.get('plan') or '')}</div>"
        )
        self.accept = w.Button(description="Accept", button_style="success", icon="check")
        self.reject = w.Button(description="Reject", button_style="warning", icon="times")
        self.accept.on_click(lambda _b: on_decide(self, "accept"))
        self.reject.on_click(lambda _b: on_decide(self, "reject"))
        self.status = w.HTML()
        self.widget = w.VBox(
            [
                w.HTML(
                    head
                    + diff_html(
                        str(data.get("old_source") or ""), str(data.get("new_source") or "")
                    )
                ),
                w.HBox([self.accept, self.reject, self.status]),
            ]
        )

    def render(self) -> None:
        self.accept.disabled = self.reject.disabled = self.decision is not None
        text = f"{self.decision}ed" if self.decision else "pending"
        self.status.value = f"<i>{esc(text)}{' — ' + esc(self.note) if self.note else ''}</i>"


class ProposalView(View):
    """The run's proposals, newest first (at most ``limit`` shown), each decidable once."""

    handles = frozenset({"proposal", "decision"})

    def __init__(
        self,
        info: RunInfo,
        run_dir: str | Path,
        notebook_path: str | Path | None = None,
        limit: int = 20,
    ) -> None:
        super().__init__(info)
        self.journal = RunJournal(run_dir)
        self.notebook_path = Path(notebook_path) if notebook_path else None
        self.boxes: dict[str, ProposalBox] = {}
        self.limit = limit
        self._empty = w.HTML("<i>No proposals yet.</i>")
        self.widget = w.VBox([self._empty])

    @property
    def pending(self) -> list[str]:
        return [pid for pid, b in self.boxes.items() if b.decision is None]

    def feed(self, ev: Event) -> bool:
        pid = str(ev.data.get("proposal_id"))
        if ev.type == "proposal" and pid not in self.boxes:
            box = ProposalBox(ev.data, self.decide)
            recorded = self.journal.decision(pid)
            box.decision = recorded.get("decision") if recorded else None
            self.boxes[pid] = box
        elif ev.type == "decision" and pid in self.boxes:
            self.boxes[pid].decision = ev.data.get("decision")
        return True

    def decide(self, box: ProposalBox, decision: str) -> None:
        """Record ``decision`` (unless one exists already) and, on accept, apply it if asked."""
        pid = str(box.data.get("proposal_id"))
        existing = self.journal.decision(pid)
        if existing:
            box.decision, box.note = existing.get("decision"), "decided elsewhere"
        else:
            self.journal.record_decision(pid, decision, by="widget")
            box.decision = decision
            if decision == "accept" and self.notebook_path is not None:
                box.note = apply_to_notebook(self.notebook_path, box.data)
        box.render()

    def render(self) -> None:
        shown = list(self.boxes.values())[-self.limit :][::-1]
        for b in shown:
            b.render()
        if not shown:
            self.widget.children = (self._empty,)
        else:
            self.widget.children = tuple(b.widget for b in shown)
