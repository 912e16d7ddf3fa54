"""A run stopped by its budget right after the user's notebook ran without a score (hunt M's
``colab_export`` at ``--time-limit 60`` under load: the notebook was killed at its 20 s share,
the debugger's turn found the budget at its reserve, and the run ended ``stopped: time budget
reached`` with the catalog's file and no line saying the notebook had timed out)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from mlestar_jupyter.agent.run import _say_why_unscored
from mlestar_jupyter.journal.journal import RunJournal


def _journal(tmp_path: Path) -> RunJournal:
    return RunJournal.create(tmp_path / "run", {"task": "t"})


def test_a_notebook_killed_before_a_budget_stop_is_said_to_have_given_no_score(
    tmp_path: Path,
) -> None:
    journal = _journal(tmp_path)
    journal.emit(
        "candidate",
        key="cand/user",
        node_id="user",
        id="user",
        score=None,
        ok=False,
        error="timed out after 20s; the kernel and its child processes were killed",
    )
    _say_why_unscored(SimpleNamespace(journal=journal))  # type: ignore[arg-type]
    said = journal.get("warn/user-notebook")
    assert said is not None
    assert said.data["message"].startswith(
        "your notebook gave no validation score (timed out after 20s"
    )
    assert "--time-limit" in said.data["message"]


def test_nothing_is_said_when_it_scored_did_not_run_or_was_said(tmp_path: Path) -> None:
    journal = _journal(tmp_path)
    _say_why_unscored(SimpleNamespace(journal=journal))  # type: ignore[arg-type]
    assert journal.get("warn/user-notebook") is None  # it did not run
    journal.emit("candidate", key="cand/user", node_id="user", id="user", score=0.9, ok=True)
    _say_why_unscored(SimpleNamespace(journal=journal))  # type: ignore[arg-type]
    assert journal.get("warn/user-notebook") is None  # it scored
