"""Fault drill: Ctrl-C while an LLM call is in flight (issue 23's gap).  A real ``mlestar run
--backend openai`` subprocess talks to the fake LLM server, which holds its reply for a minute;
the first SIGINT must end the process within ``STOP_LIMIT_S`` with a resumable folder, the held
call journaled as cancelled and not cached, and ``mlestar resume`` must ask it again."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from mlestar_jupyter.llm.testing import FakeLLMServer, Reply

pytestmark = pytest.mark.drills

REPO = Path(__file__).resolve().parents[2]
BREAST_CANCER = REPO / "example_notebooks" / "tasks" / "breast-cancer"
STOP_LIMIT_S = 2.0
HELD_S = 60.0  # how long the server holds every reply: far longer than a stop may take


def _events(run_dir: Path) -> list[dict[str, Any]]:
    p = run_dir / "events.jsonl"
    lines = p.read_text(encoding="utf-8").splitlines() if p.exists() else []
    return [json.loads(line) for line in lines if line]


def _interrupt_while_held(argv: list[str], srv: FakeLLMServer, env: dict[str, str]) -> tuple:
    """Start ``argv``, wait until the server holds a request, send SIGINT; (seconds, rc, stderr)."""
    seen = len(srv.requests)
    proc = subprocess.Popen(
        argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 240
        while len(srv.requests) == seen and time.monotonic() < deadline:
            if proc.poll() is not None:
                raise AssertionError(f"the run ended before asking the LLM:\n{proc.stderr.read()}")  # type: ignore[union-attr]
            time.sleep(0.05)
        assert len(srv.requests) > seen, "no LLM request within 240 s"
        time.sleep(0.5)  # the call is in flight: the server is holding its reply
        t0 = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=HELD_S / 2)
        return time.monotonic() - t0, proc.returncode, err
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _assert_stopped_with_call_cancelled(run_dir: Path, took: float, rc: int, err: str) -> None:
    assert took <= STOP_LIMIT_S, f"the run took {took:.2f}s to stop after Ctrl-C\n{err[-3000:]}"
    assert rc == 130, err[-3000:]
    assert "mlestar resume" in err and "Traceback" not in err, err[-3000:]
    events = _events(run_dir)
    assert events[-1]["type"] == "run_stopped" and "Ctrl-C" in events[-1]["data"]["reason"]
    calls = [e["data"] for e in events if e["type"] == "llm_call"]
    assert calls and all((c["error"] or {}).get("type") == "Cancelled" for c in calls), calls
    assert json.loads((run_dir / "run.json").read_text())["status"] == "stopped"
    assert not list((run_dir / "llm").glob("??/*.json")), "a cancelled call was cached"


@pytest.mark.slow
def test_ctrl_c_abandons_an_llm_call_in_flight_and_resume_asks_it_again(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    with FakeLLMServer(default=Reply(text="{}", delay_s=HELD_S)) as srv:
        env = {
            **os.environ,
            "MLESTAR_LLM_BASE_URL": srv.openai_url,
            "MLESTAR_LLM_API_KEY": "test-key",
            "MLESTAR_LLM_MODEL": "fake-model",
        }
        run = [sys.executable, "-m", "mlestar_jupyter", "run", str(BREAST_CANCER),
               "--backend", "openai", "--time-limit", "600", "--no-progress",
               "--out", str(run_dir)]  # fmt: skip
        took, rc, err = _interrupt_while_held(run, srv, env)
        print(f"Ctrl-C stop time with an LLM call in flight: {took:.2f}s")
        _assert_stopped_with_call_cancelled(run_dir, took, rc, err)
        asked = {r.prompt for r in srv.requests}

        resume = [sys.executable, "-m", "mlestar_jupyter", "resume", str(run_dir), "--no-progress"]
        n_before = len(srv.requests)
        took2, rc2, err2 = _interrupt_while_held(resume, srv, env)
        print(f"Ctrl-C stop time of the resumed run: {took2:.2f}s")
        again = {r.prompt for r in srv.requests[n_before:]}
        assert asked & again, "the resumed run did not ask the cancelled call again"
        _assert_stopped_with_call_cancelled(run_dir, took2, rc2, err2)
        assert [e["type"] for e in _events(run_dir)].count("run_stopped") == 2
