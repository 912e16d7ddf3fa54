"""A run on a user's notebook that ends honestly (no_improvement, not_understood) is reported
with that status and its reason, not as done."""

from __future__ import annotations

from pathlib import Path

import pytest

from mlestar_jupyter.journal import RunJournal
from mlestar_jupyter.server.service import RunService


@pytest.mark.parametrize(
    ("status", "reason"),
    [
        ("not_understood", "no model fit found: MLE-STAR looks for an estimator's .fit(...)"),
        ("no_improvement", "no refinement beat your notebook's validation roc_auc (0.98)"),
    ],
)
def test_honest_endings_reach_the_run_description(tmp_path: Path, status: str, reason: str) -> None:
    service = RunService(tmp_path)
    j = RunJournal.create(service.runs_path / "cli-run", {})
    j.emit("run_started", task={"metric_name": "roc_auc", "direction": "maximize"})
    j.emit("run_finished", status=status, best_score=0.98, elapsed=3.0, reason=reason)
    j.update_meta(status=status)
    j.close()
    d = next(r for r in service.list_runs() if r.run_id == "cli-run")
    assert d.status == status and d.message == reason
