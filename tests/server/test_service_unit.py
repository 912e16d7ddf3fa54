"""RunService's reading of proposal events, without a server."""

from __future__ import annotations

from mlestar_jupyter.journal.summary import summarise_events as summarize
from mlestar_jupyter.server.service import _proposal_model


def test_insert_proposals_carry_their_anchor() -> None:
    p = _proposal_model(
        {
            "proposal_id": "p0-t1-b7",
            "kind": "insert",
            "block_id": "b7",
            "cell_id": "c7",
            "after_block_id": "b3",
            "after_cell_id": "c3",
            "new_source": "import numpy as np",
        },
        None,
    )
    assert (p.kind, p.after_block_id, p.after_cell_id) == ("insert", "b3", "c3")
    assert p.old_source == "" and p.decision is None


def test_an_unknown_kind_keeps_the_proposal_visible() -> None:
    p = _proposal_model({"proposal_id": "p9", "kind": "rename", "new_source": "x"}, "accept")
    assert p.proposal_id == "p9" and p.new_source == ""


def test_best_score_counts_solutions_not_ablation_variants() -> None:
    events = [
        {"type": "run_started", "data": {"task": {"direction": "maximize"}}},
        {"type": "candidate", "data": {"phase": "init", "score": 0.57, "ok": True}},
        {"type": "candidate", "data": {"phase": "ablation", "score": 0.67, "ok": True}},
        {"type": "candidate", "data": {"phase": "refine", "score": 0.6, "ok": True}},
    ]
    assert summarize(events).best_score == 0.6


def test_a_dataset_file_is_a_task_as_the_cli_takes_it(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Hunt, session 24: ``{"task_dir": "ds/wine.csv"}`` was refused "is not a folder", while
    ``mlestar run ds/wine.csv`` takes one table as a dataset."""
    import pytest
    from sklearn.datasets import load_wine

    from mlestar_jupyter.server.errors import InvalidRequest
    from mlestar_jupyter.server.launch import start_paths
    from mlestar_jupyter.server.models import StartRun

    (tmp_path / "ds").mkdir()
    load_wine(as_frame=True).frame.to_csv(tmp_path / "ds" / "wine.csv", index=False)
    (tmp_path / "ds" / "notes.md").write_text("not a table")
    task_dir, nb = start_paths(tmp_path, StartRun(task_dir="ds/wine.csv"))
    assert task_dir == tmp_path / "ds" / "wine.csv" and nb is None
    with pytest.raises(InvalidRequest, match="nor one table"):
        start_paths(tmp_path, StartRun(task_dir="ds/notes.md"))
