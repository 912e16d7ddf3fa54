"""``ProposalView``: each proposed cell change as a diff with Accept / Reject buttons.

A decision is written with ``RunJournal.record_decision`` (the run picks it up; in step mode it
waits for it).  Given ``notebook_path``, an accepted change is also applied to that notebook on
disk: a changed cell when it still holds the old source, an added cell after the cell it follows
in the run's notebook, a removed cell when it is unchanged.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

import ipywidgets as w

from ..journal import Event, RunJournal
from ..notebook import CodeBlock, SolutionNotebook
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
    """Apply an accepted proposal (a changed, added or removed cell) to the notebook at ``path``;
    returns what happened."""
    nb = SolutionNotebook.read(path)
    kind = proposal.get("kind") or "change"
    new_source = str(proposal.get("new_source") or "")
    block = _find_block(nb, proposal.get("cell_id"), proposal.get("block_id"))
    if kind == "insert":
        if block is not None:
            if block.source.strip() == new_source.strip():
                return f"notebook unchanged: cell {block.id} is already in it"
            return f"notebook unchanged: it already has a different cell {block.id}"
        after = _find_block(nb, proposal.get("after_cell_id"), proposal.get("after_block_id"))
        if after is None and proposal.get("after_block_id"):
            after = nb.code_blocks[-1] if nb.code_blocks else None  # anchor gone: append
        nb = nb.insert_block_after(
            after.id if after else None,
            new_source,
            block_id=proposal.get("block_id"),
            origin="mlestar",
        )
        nb.write(path)
        where = f"after cell {after.id}" if after else "before the first code cell"
        return f"added a cell to {path.name} ({where})"
    if block is None:
        return "notebook unchanged: the cell is not in it"
    if block.source.strip() != str(proposal.get("old_source") or "").strip():
        return f"notebook unchanged: cell {block.id} was edited since the proposal"
    if kind == "delete":
        nb.delete_block(block.id).write(path)
        return f"removed cell {block.id} from {path.name}"
    nb.replace_block(block.id, new_source, origin="mlestar").write(path)
    return f"applied to {path.name} (cell {block.id})"


def _find_block(nb: SolutionNotebook, cell_id: Any, block_id: Any) -> CodeBlock | None:
    """The block whose cell has nbformat id ``cell_id``, else the block ``block_id``."""
    for b in nb.code_blocks:
        if cell_id and nb.nb.cells[b.index].get("id") == cell_id:
            return b
    return nb.block(block_id) if block_id in nb.block_ids else None


class ProposalBox:
    """One proposal: plan, score change, diff, buttons, status."""

    def __init__(self, data: dict[str, Any], on_decide: Any) -> None:
        self.data = data
        self.decision: str | None = None
        self.note = ""
        before, after = number(data.get("score_before")), number(data.get("score_after"))
        what = {"insert": "new cell", "delete": "removes cell"}.get(str(data.get("kind")), "block")
        head = (
            f"<b>{esc(data.get('proposal_id'))}</b> · {what} {esc(data.get('block_id'))} · "
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
