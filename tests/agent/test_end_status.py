"""The words a run ends with when nothing beat the user's notebook: changes that scored the
same are still offered as proposals, and the status said "your cells are unchanged" beside
"proposals: 2" (seen on a Titanic-style notebook)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mlestar_jupyter.agent.run import _end_status
from mlestar_jupyter.agent.search import Solution
from mlestar_jupyter.agent.submission import FinalResult
from mlestar_jupyter.journal import Node
from mlestar_jupyter.task import load_task

from .notebooks import BREAST_CANCER
from .notebooks import code_notebook as _nb


@pytest.mark.parametrize(
    ("proposals", "said"),
    [
        (
            0,
            "no refinement beat your notebook's validation roc_auc (0.81629); your cells are unchanged",
        ),
        (
            2,
            "no refinement beat your notebook's validation roc_auc (0.81629); 2 change(s) that "
            "scored the same are offered as proposals to accept or reject; until you accept one, "
            "your cells are unchanged",
        ),
    ],
)
def test_nothing_beat_the_notebook_says_what_is_offered(proposals: int, said: str) -> None:
    task = load_task(BREAST_CANCER)
    user = Solution(
        _nb("x = 1"),
        Node("user", None, "init", "user", "your notebook", None, "user", 0.81629, True),
    )
    final = FinalResult(True, "best", 0.81629, Path("final/submission.csv"), None)
    status, reason = _end_status(task, final, [user], ("done", ""), "", True, proposals)
    assert (status, reason) == ("no_improvement", said)


def test_refinements_skipped_for_time_are_not_called_nothing_to_refine() -> None:
    """Hunt A9 (session 26): a GridSearchCV notebook that took 38 s, each refinement skipped as
    it could run 21 s, was told "nothing in your notebook could be refined: no cell builds a
    model" though its cells were refinable."""
    task = load_task(BREAST_CANCER)
    user = Solution(
        _nb("x = 1"),
        Node("user", None, "init", "user", "your notebook", None, "user", 0.81629, True),
    )
    final = FinalResult(True, "best", 0.81629, Path("final/submission.csv"), None)
    status, reason = _end_status(task, final, [user], ("done", ""), "", False, 0, (38.4, 21.5))
    assert status == "no_improvement"
    assert reason.startswith(
        "no refinement of your notebook could finish in the time left: each would need about "
        "38 s, as your notebook took, and could run 22 s; give the run more time (--time-limit)"
    )
    _, plain = _end_status(task, final, [user], ("done", ""), "", False, 0, None)
    assert plain.startswith("nothing in your notebook could be refined")
