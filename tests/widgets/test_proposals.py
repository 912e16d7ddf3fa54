"""Accept / reject from a plain notebook: decisions recorded, accepted changes applied on disk."""

from __future__ import annotations

from pathlib import Path

import pytest

from mlestar_jupyter.journal import RunJournal
from mlestar_jupyter.notebook import SolutionNotebook
from mlestar_jupyter.widgets import ProposalView, RunPanel, diff_html
from mlestar_jupyter.widgets._base import RunInfo, as_event

OLD = "clf = LogisticRegression(class_weight='balanced')"
NEW = "clf = LogisticRegression(class_weight='balanced', C=0.5)"


def proposal(
    pid: str = "p2", block_id: str = "b2", cell_id: str | None = None, old: str = OLD
) -> dict[str, object]:
    return {
        "seq": 0,
        "key": f"p:{pid}",
        "type": "proposal",
        "time": 1.0,
        "data": {
            "proposal_id": pid,
            "path": 0,
            "node_id": "n6",
            "block_id": block_id,
            "cell_id": cell_id,
            "old_source": old,
            "new_source": NEW,
            "plan": "Set C=0.5.",
            "score_before": 0.987,
            "score_after": 0.989,
        },
    }


@pytest.fixture
def notebook(tmp_path: Path) -> Path:
    nb = SolutionNotebook.new(
        [("load", "import pandas as pd"), ("model", OLD), ("train", "clf.fit(X, y)")]
    )
    return nb.write(tmp_path / "solution.ipynb")


def test_accept_records_the_decision_and_applies_it(tmp_path: Path, notebook: Path) -> None:
    panel = RunPanel(tmp_path / "run", notebook_path=notebook)
    panel.feed(proposal())
    box = panel.proposals.boxes["p2"]
    assert "C=0.5" in box.widget.children[0].value and "pending" in box.status.value
    box.accept.click()
    assert RunJournal(tmp_path / "run").decision("p2")["decision"] == "accept"
    assert RunJournal(tmp_path / "run").decision("p2")["by"] == "widget"
    assert SolutionNotebook.read(notebook).block("b2").source == NEW
    assert box.accept.disabled and box.reject.disabled and "applied" in box.status.value
    assert panel.proposals.pending == []


def test_apply_finds_the_cell_by_its_nbformat_id(tmp_path: Path, notebook: Path) -> None:
    nb = SolutionNotebook.read(notebook)
    cell_id = nb.nb.cells[1]["id"]
    panel = RunPanel(tmp_path / "run", notebook_path=notebook)
    panel.feed(proposal(block_id="b9", cell_id=cell_id))  # block ids differ; the cell id matches
    panel.proposals.boxes["p2"].accept.click()
    assert SolutionNotebook.read(notebook).block("b2").source == NEW


def test_a_view_alone_needs_no_panel(tmp_path: Path, notebook: Path) -> None:
    view = ProposalView(RunInfo(), tmp_path / "run", notebook)
    view.feed(as_event(proposal()))
    view.render()
    assert view.widget.children == (view.boxes["p2"].widget,)
    view.boxes["p2"].accept.click()
    assert SolutionNotebook.read(notebook).block("b2").source == NEW


def test_a_cell_edited_since_is_left_alone(tmp_path: Path, notebook: Path) -> None:
    panel = RunPanel(tmp_path / "run", notebook_path=notebook)
    panel.feed(proposal(old="clf = SomethingElse()"))
    panel.proposals.boxes["p2"].accept.click()
    assert SolutionNotebook.read(notebook).block("b2").source == OLD
    assert "edited since" in panel.proposals.boxes["p2"].status.value
    assert RunJournal(tmp_path / "run").decision("p2")["decision"] == "accept"


def test_reject_records_and_changes_nothing(tmp_path: Path, notebook: Path) -> None:
    panel = RunPanel(tmp_path / "run", notebook_path=notebook)
    panel.feed(proposal())
    panel.proposals.boxes["p2"].reject.click()
    assert RunJournal(tmp_path / "run").decision("p2")["decision"] == "reject"
    assert SolutionNotebook.read(notebook).block("b2").source == OLD
    assert "rejected" in panel.proposals.boxes["p2"].status.value


def test_a_decision_made_elsewhere_wins(tmp_path: Path) -> None:
    panel = RunPanel(tmp_path / "run")
    panel.feed(proposal())
    RunJournal(tmp_path / "run").record_decision("p2", "reject", by="jupyterlab")
    panel.proposals.boxes["p2"].accept.click()
    assert RunJournal(tmp_path / "run").decision("p2")["decision"] == "reject"
    assert (
        panel.proposals.boxes["p2"].decision == "reject"
        and "elsewhere" in panel.proposals.boxes["p2"].status.value
    )
    # and a panel opened later shows the recorded decision
    again = RunPanel(tmp_path / "run")
    again.feed(proposal())
    assert again.proposals.pending == []


def test_only_the_latest_proposals_are_shown(tmp_path: Path) -> None:
    panel = RunPanel(tmp_path / "run")
    panel.proposals.limit = 3
    for i in range(5):
        panel.feed(proposal(pid=f"p{i}"))
    shown = [
        b for b in panel.proposals.boxes.values() if b.widget in panel.proposals.widget.children
    ]
    assert [b.data["proposal_id"] for b in shown] == ["p2", "p3", "p4"]
    assert panel.proposals.widget.children[0] is panel.proposals.boxes["p4"].widget


def test_diff_is_escaped_and_coloured() -> None:
    html = diff_html("x = '<a>'\n", "x = '<b>'\n")
    assert "&lt;b&gt;" in html and "<b>" not in html and "#1a7f37" in html and "#cf222e" in html


def test_accepting_an_added_cell_inserts_it_after_its_neighbour(
    tmp_path: Path, notebook: Path
) -> None:
    ev = proposal(pid="p2-b9", block_id="b9", old="")
    ev["data"].update(  # type: ignore[union-attr]
        kind="insert", cell_id="zz9", after_block_id="b2", after_cell_id=None
    )
    panel = RunPanel(tmp_path / "run", notebook_path=notebook)
    panel.feed(ev)
    panel.proposals.boxes["p2-b9"].accept.click()
    nb = SolutionNotebook.read(notebook)
    assert nb.block_ids == ["b1", "b2", "b9", "b3"] and nb.block("b9").source == NEW
    assert "added a cell" in panel.proposals.boxes["p2-b9"].status.value
    assert "new cell b9" in panel.proposals.boxes["p2-b9"].widget.children[0].value


def test_accepting_a_removed_cell_deletes_it_only_when_unchanged(
    tmp_path: Path, notebook: Path
) -> None:
    from mlestar_jupyter.widgets.proposals import apply_to_notebook

    edited = {"kind": "delete", "block_id": "b2", "old_source": "something else"}
    assert "edited" in apply_to_notebook(notebook, edited)
    assert SolutionNotebook.read(notebook).block_ids == ["b1", "b2", "b3"]
    msg = apply_to_notebook(notebook, {"kind": "delete", "block_id": "b2", "old_source": OLD})
    assert "removed cell b2" in msg and SolutionNotebook.read(notebook).block_ids == ["b1", "b3"]
