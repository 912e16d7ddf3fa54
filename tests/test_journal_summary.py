"""``summarise_run``: the one run summary, with "better" from the task's direction."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mlestar_jupyter.journal import RunJournal, heldout_line, summarise_events, summarise_run

EVENTS = Path(__file__).parent / "files" / "widgets_events.jsonl"


def _journal(tmp_path: Path, direction: str) -> RunJournal:
    j = RunJournal.create(tmp_path / "r", {})
    j.emit(
        "run_started",
        task={"id": "t", "metric_name": "rmse", "direction": direction},
        config={"budget": {"wall_seconds": 60}},
        backend="offline",
    )
    return j


@pytest.mark.parametrize(("direction", "best"), [("minimize", 1.5), ("maximize", 3.0)])
def test_best_candidate_follows_the_direction(tmp_path: Path, direction: str, best: float) -> None:
    j = _journal(tmp_path, direction)
    for i, s in enumerate((3.0, 2.0, 1.5, 2.5)):
        j.emit("candidate", node_id=f"n{i}", phase="refine", score=s, ok=True)
    j.emit("candidate", node_id="abl", phase="ablation", score=0.1 if best < 2 else 9.0, ok=True)
    j.emit("candidate", node_id="bad", phase="refine", score=None, ok=False)
    s = summarise_run(j.dir)
    assert s.best_score == best and s.best is not None and s.best.data["score"] == best
    assert (len(s.candidates), s.failed, s.budget_seconds, s.status) == (
        6,
        1,
        60.0,
        "running or killed",
    )
    assert [t[2] for t in s.to_json()["trajectory"]] == [3.0, 2.0, 1.5, 2.5]


def test_final_and_run_finished_decide_the_kept_solution(tmp_path: Path) -> None:
    j = _journal(tmp_path, "minimize")
    j.emit("candidate", node_id="n0", phase="init", score=2.0, ok=True)
    j.emit("candidate", node_id="n1", phase="refine", score=1.0, ok=True)  # a rejected proposal
    j.emit("final", score=2.1, valid=True, rung="best", notebook="f.ipynb", submission="s.csv")
    j.emit("run_finished", status="done", best_score=2.0, elapsed=12.0, reason="")
    s = summarise_run(j.dir)
    assert s.best_score == 2.1  # the submission's score wins
    assert s.to_json()["best"]["node_id"] == "n0"  # what the run kept, not the best ever
    assert (s.status, s.finished_elapsed) == ("done", 12.0)


def test_the_widget_fixture_summarised(tmp_path: Path) -> None:
    shutil.copy(EVENTS, tmp_path / "events.jsonl")
    s = summarise_run(tmp_path)
    assert (s.metric, s.direction, s.status) == ("roc_auc", "maximize", "done")
    assert (len(s.candidates), s.failed, s.llm_calls) == (8, 1, 2)
    assert s.best_score == pytest.approx(0.99)
    assert s.proposals and all(p.type == "proposal" for p in s.proposals)
    assert s.to_json()["heldout"]["score"] == pytest.approx(0.9712)
    assert heldout_line(s.to_json()["heldout"]).startswith("held-out score: roc_auc 0.9712 on")
    assert "not graded: no submission was written" in heldout_line(
        {"score": None, "rows": 5, "reason": "no submission was written"}
    )


def test_stop_and_resume_and_plain_dicts() -> None:
    s = summarise_events(
        [
            {"type": "run_started", "data": {"task": {"direction": "sideways"}}},
            {"type": "run_stopped", "data": {"reason": "Ctrl-C"}},
        ]
    )
    assert s.stopped and s.status == "stopped" and s.direction is None
    assert s.better(0.9, 0.8) and not s.better(None, 0.1)  # maximize until the task says
    s.add({"type": "resumed", "data": {}})
    assert not s.stopped


def test_what_the_user_is_told_is_kept_once_in_order() -> None:
    evs = [
        {"seq": 0, "key": "a", "type": "warning", "data": {"what": "task", "message": "read X"}},
        {"seq": 1, "key": "b", "type": "warning", "data": {"what": "score", "message": "noise"}},
        {
            "seq": 2,
            "key": "c",
            "type": "warning",
            "data": {"what": "submission", "message": "same"},
        },
        {"seq": 3, "key": "d", "type": "warning", "data": {"what": "task", "message": "read X"}},
    ]
    assert summarise_events(evs).to_json()["warnings"] == ["read X", "same"]


def test_a_kept_change_at_an_equal_score_is_no_improvement() -> None:
    """A run ending no_improvement said "kept improvements: 12" beside it: the paper keeps a
    change that scores the same, and every such tie was counted as an improvement."""
    start = {
        "seq": 0,
        "key": "s",
        "type": "run_started",
        "data": {"task": {"direction": "minimize"}},
    }
    imp = [
        {
            "seq": i + 1,
            "key": f"i{i}",
            "type": "improvement",
            "data": {"old_score": old, "new_score": new, "kept": kept},
        }
        for i, (old, new, kept) in enumerate(
            [(5.0, 4.0, True), (4.0, 4.0, True), (4.0, 4.5, False), (4.0, 4.0, True)]
        )
    ]
    s = summarise_events([start, *imp]).to_json()
    assert (s["improvements"], s["kept_ties"]) == (1, 2)


def test_a_tie_for_best_is_the_candidate_the_ensemble_pick_chose(tmp_path: Path) -> None:
    """Two solutions at the same score: `show` named the first as "best" while the run picked
    (and submitted) the second; the summary now names the one the run picked."""
    j = _journal(tmp_path, "maximize")
    j.emit("candidate", node_id="init-0", phase="init", score=0.9, ok=True)
    j.emit("candidate", node_id="ref-1", phase="refine", score=0.95, ok=True)
    j.emit("candidate", node_id="ens-r0", phase="ensemble", score=0.95, ok=True)
    j.emit("ensemble_pick", chosen="ens-r0", label="ensemble", score=0.95, kind="ensemble")
    s = summarise_run(j.dir)
    assert s.to_json()["best"]["node_id"] == "ens-r0"
    j.emit("run_finished", status="done", best_score=0.95, elapsed=3.0, reason="")
    assert summarise_run(j.dir).to_json()["best"]["node_id"] == "ens-r0"
