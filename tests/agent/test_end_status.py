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
