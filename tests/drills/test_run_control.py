"""Fault drills for run control (issue 23, items 1, 4, 5): Ctrl-C, bounded server runs, bad numbers.

Each drill runs the installed product the way a user would (a real ``mlestar`` subprocess, real
kernels, a real Jupyter server on 127.0.0.1) and asserts the outcome, not the mechanism.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psutil
import pytest

pytestmark = pytest.mark.drills

REPO = Path(__file__).resolve().parents[2]
BREAST_CANCER = REPO / "example_notebooks" / "tasks" / "breast-cancer"
STOP_LIMIT_S = 5.0


def _mlestar(*args: str) -> list[str]:
    return [sys.executable, "-m", "mlestar_jupyter", *args]


def _events(run_dir: Path) -> list[dict[str, Any]]:
    p = run_dir / "events.jsonl"
    if not p.exists():
        return []
    return [json.loads(line) for line in p.read_text(encoding="utf-8").splitlines() if line]


def _wait_for(pred: Any, timeout: float, what: str) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")


def _alive(procs: list[psutil.Process]) -> list[psutil.Process]:
    out = []
    for p in procs:
        try:
            if p.is_running() and p.status() != psutil.STATUS_ZOMBIE:
                out.append(p)
        except psutil.NoSuchProcess:
            pass
    return out


# --------------------------------------------------------------------------- Ctrl-C
@pytest.mark.slow
def test_first_ctrl_c_stops_a_parallel_run_within_5s_and_resume_finishes(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    argv = _mlestar(
        "run", str(BREAST_CANCER), "-L", "2", "-M", "2", "-K", "2", "-T", "2", "-R", "1",
        "--time-limit", "600", "--no-progress", "--out", str(run_dir),
    )  # fmt: skip
    proc = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        # Wait until both parallel paths are at work (the thread pool of agent/run.py).
        _wait_for(
            lambda: {"p0", "p1"}
            <= {e["data"].get("path") for e in _events(run_dir) if e["type"] == "phase"},
            240,
            "both refinement paths to start",
        )
        time.sleep(1.0)  # let the paths submit candidates to the kernels
        kids = psutil.Process(proc.pid).children(recursive=True)
        t0 = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        took = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    print(f"Ctrl-C stop time: {took:.2f}s; {len(kids)} child processes at the signal")
    assert took <= STOP_LIMIT_S, f"the run took {took:.1f}s to stop after Ctrl-C\n{err[-3000:]}"
    assert proc.returncode == 130, err[-3000:]
    assert "mlestar resume" in err
    assert "Traceback" not in err, err[-3000:]
    left = _alive(kids)
    assert not left, f"processes left behind: {[p.cmdline() for p in left]}"

    events = _events(run_dir)
    assert events[-1]["type"] == "run_stopped", events[-3:]
    assert "Ctrl-C" in events[-1]["data"]["reason"]
    assert not any(e["type"] == "run_finished" for e in events)
    bad = [
        e
        for e in events
        if (e["type"] == "candidate" and not e["data"].get("ok"))
        or e["type"] == "debug"
        or "closed" in json.dumps(e["data"])
        or "Cancel" in json.dumps(e["data"])
    ]
    assert not bad, f"false failure events after the stop: {bad}"
    assert json.loads((run_dir / "run.json").read_text())["status"] == "stopped"
    cached = list((run_dir / "executions").glob("*.json"))
    assert all(json.loads(p.read_text())["ok"] for p in cached), "a cancelled run was cached"

    res = subprocess.run(
        _mlestar("resume", str(run_dir), "--no-progress", "--json"),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert res.returncode == 0, res.stderr[-3000:]
    outcome = json.loads(res.stdout.strip().splitlines()[-1])
    assert outcome["status"] == "done" and outcome["submission"], outcome
    after = _events(run_dir)
    assert after[-1]["type"] == "run_finished" and after[-1]["data"]["status"] == "done"
    keys = [e["key"] for e in after]
    assert len(keys) == len(set(keys)), "resume repeated journaled events"
    # What finished before the stop was not run again.
    before_ids = {e["data"]["node_id"] for e in events if e["type"] == "candidate"}
    rerun = [
        e
        for e in after[len(events) :]
        if e["type"] == "candidate" and e["data"]["node_id"] in before_ids
    ]
    assert not rerun
