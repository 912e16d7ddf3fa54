"""A role call from the search loop against a server that holds its answer (a hung local model):
the run's client gives the call only the time the run has left (``RunClock.llm_time_left``,
wired by ``run_mlestar``), and the backend's own HTTP request ends then too."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from mlestar_jupyter.agent.config import RunConfig
from mlestar_jupyter.llm.client import LLMClient
from mlestar_jupyter.llm.errors import Unavailable
from mlestar_jupyter.llm.testing import FakeLLMServer, Reply
from mlestar_jupyter.notebook import SolutionNotebook
from mlestar_jupyter.policies import grounded_llm_policy
from mlestar_jupyter.task import load_task

NB = SolutionNotebook.new([("load", "import pandas as pd\ndf = pd.read_csv('input/train.csv')")])


@pytest.mark.parametrize("stream", [None, False], ids=["auto (streamed)", "not streamed"])
def test_a_role_call_never_waits_past_the_time_the_run_has_left(
    tabular_task: Path, tmp_path: Path, stream: bool | None
) -> None:
    with FakeLLMServer(retry_after_ms=1) as srv:
        srv.on(lambda r: True, Reply("```python\nprint(1)\n```", delay_s=4), repeat=True)
        settings = srv.settings("openai", timeout_s=30, retries=2, stream=stream)
        client = LLMClient.from_settings(settings, cache_dir=tmp_path / "llm")
        policy = grounded_llm_policy(load_task(tabular_task), RunConfig(backend="openai"), client)
        end = time.monotonic() + 1.0  # the run's budget ends in a second
        client.time_left = lambda: end - time.monotonic()
        t0 = time.monotonic()
        with pytest.raises(Unavailable, match="no answer within"):
            policy.ablation(NB, [])
        assert time.monotonic() - t0 < 2.0  # not the 4 s the server holds it, nor 30 s x 3
        time.sleep(0.5)
        assert len(srv.requests) == 1  # the abandoned call was not sent again after the deadline
