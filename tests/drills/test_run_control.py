"""Fault drills for run control (issue 23, items 1, 4, 5): Ctrl-C, bounded server runs, bad numbers.

Each drill runs the installed product the way a user would (a real ``mlestar`` subprocess, real
kernels, a real Jupyter server on 127.0.0.1) and asserts the outcome, not the mechanism.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
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
            lambda: (
                {"p0", "p1"}
                <= {e["data"].get("path") for e in _events(run_dir) if e["type"] == "phase"}
            ),
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


# --------------------------------------------------------------------------- the server
@pytest.fixture
def jp_server_config() -> Any:
    from traitlets.config import Config

    return Config(
        {
            "ServerApp": {"jpserver_extensions": {"mlestar_jupyter.server": True}},
            "RunService": {"command": [sys.executable, "-m", "mlestar_jupyter"]},
        }
    )


@pytest.fixture
def service(jp_serverapp: Any) -> Any:
    """The server's RunService; whatever it started is killed at teardown, whatever happened."""
    from mlestar_jupyter.server.handlers import SERVICE_KEY

    svc = jp_serverapp.web_app.settings[SERVICE_KEY]
    yield svc
    for rec in svc._runs.values():
        if rec.process is not None and rec.process.alive():
            procs = rec.process.descendants()
            rec.process.signal_group(signal.SIGKILL)
            for p in procs:
                with contextlib.suppress(psutil.Error):
                    p.kill()


@pytest.fixture
def task_in_root(jp_root_dir: Path) -> Path:
    """The breast-cancer example task (task.json and input/ only) inside the server root."""
    d = jp_root_dir / "bc"
    shutil.copytree(BREAST_CANCER / "input", d / "input")
    shutil.copy(BREAST_CANCER / "task.json", d / "task.json")
    return d


async def _post(fetch: Any, path: str, body: bytes, method: str = "POST") -> tuple[int, bytes]:
    from tornado.httpclient import HTTPClientError

    try:
        r = await fetch("mlestar", *path.split("/"), method=method, body=body)
    except HTTPClientError as e:
        return e.code, (e.response.body if e.response is not None else b"") or b""
    return r.code, r.body


MALFORMED_START_BODIES = {
    "not UTF-8": b'{"task_dir": "bc\xff\xfe"}',
    "latin-1 body": '{"task_dir": "bc-é"}'.encode("latin-1"),
    "NUL in task_dir": b'{"task_dir": "bc\\u0000/../etc"}',
    "NUL in notebook_path": b'{"notebook_path": "x\\u0000.ipynb"}',
    "NUL in a key": b'{"task_dir\\u0000": "bc"}',
    "raw NUL byte": b'{"task_dir": "bc\x00"}',
    "time_limit 1e308": b'{"task_dir": "bc", "time_limit": 1e308}',
    "time_limit 1e309 (inf)": b'{"task_dir": "bc", "time_limit": 1e309}',
    "time_limit NaN": b'{"task_dir": "bc", "time_limit": NaN}',
    "time_limit Infinity": b'{"task_dir": "bc", "time_limit": Infinity}',
    "time_limit -5": b'{"task_dir": "bc", "time_limit": -5}',
    "time_limit 24h + 1s": b'{"task_dir": "bc", "time_limit": 86401}',
    "models 0": b'{"task_dir": "bc", "models": 0}',
    "100 KB key": b'{"' + b"k" * 100_000 + b'": 1}',
    "100 KB path": b'{"task_dir": "' + b"a" * 100_000 + b'"}',
    "not JSON": b"{task_dir: bc",
    "a list": b"[1, 2]",
}


@pytest.mark.parametrize("case", sorted(MALFORMED_START_BODIES))
async def test_malformed_start_requests_get_400_not_500(
    jp_fetch: Any, service: Any, task_in_root: Path, case: str
) -> None:
    code, body = await _post(jp_fetch, "runs", MALFORMED_START_BODIES[case])
    assert code == 400, (case, code, body[:500])
    err = json.loads(body)
    assert err["message"] and len(body) < 4000, (case, len(body))
    assert "Traceback" not in err["message"]
    assert not service.runs_path.exists() or not any(service.runs_path.iterdir())


async def test_malformed_steering_requests_get_400(jp_fetch: Any, service: Any) -> None:
    run = service.runs_path / "r1"
    from mlestar_jupyter.journal import RunJournal

    RunJournal.create(run, {"task_dir": "x"}).close()
    for path, body in (
        ("runs/r1/pause", b'{"pause": "\xff"}'),
        ("runs/r1/pause", b'{"pause\\u0000": true}'),
        ("runs/r1/proposals/p1/decision", b'{"decision": "accept\\u0000"}'),
        ("runs/r1/proposals/p1/decision", b"\xfe\xff"),
    ):
        code, out = await _post(jp_fetch, path, body)
        assert code == 400, (path, body, code, out[:300])


async def test_time_limit_bound_is_configurable(
    jp_fetch: Any, service: Any, task_in_root: Path
) -> None:
    service.max_time_limit = 60.0
    code, body = await _post(jp_fetch, "runs", b'{"task_dir": "bc", "time_limit": 61}')
    assert code == 400 and b"max_time_limit" in body
    argv = service._argv(
        __import__("mlestar_jupyter.server.models", fromlist=["StartRun"]).StartRun(task_dir="bc"),
        task_in_root,
        service.runs_path / "x",
        None,
    )
    assert argv[argv.index("--time-limit") + 1] == "60"  # no limit asked: the bound, not 3600


@pytest.mark.slow
async def test_server_shutdown_stops_its_runs_resumably_and_leaves_no_process(
    jp_fetch: Any, jp_serverapp: Any, service: Any, task_in_root: Path
) -> None:
    body = {"task_dir": "bc", "time_limit": 600, "models": 2, "inner": 1, "outer": 1}
    body |= {"parallel": 2, "ensemble_rounds": 1}
    code, out = await _post(jp_fetch, "runs", json.dumps(body).encode())
    assert code == 201, out
    run_id = json.loads(out)["run_id"]
    rec = service._runs[run_id]
    run_dir = rec.dir

    end = time.monotonic() + 240
    while not any(e["type"] == "candidate" for e in _events(run_dir)):
        assert time.monotonic() < end, "the run produced no candidate in time"
        assert rec.process.alive(), (run_dir / "stderr.log").read_text()[-2000:]
        await asyncio.sleep(0.5)
    tree = [psutil.Process(rec.process.pid), *rec.process.descendants()]

    t0 = time.monotonic()
    await jp_serverapp.cleanup_extensions()  # what every server shutdown awaits
    took = time.monotonic() - t0
    print(f"server shutdown stopped the run in {took:.2f}s")
    assert took <= service.shutdown_grace_seconds + 6
    left = _alive(tree)
    assert not left, f"left behind: {[p.cmdline() for p in left]}"
    orphans = [
        p.info
        for p in psutil.process_iter(["pid", "ppid", "cmdline"])
        if str(run_dir) in " ".join(p.info["cmdline"] or [])
    ]
    assert not orphans, orphans

    events = _events(run_dir)
    assert events[-1]["type"] == "run_stopped", events[-3:]
    assert "SIGTERM" in events[-1]["data"]["reason"]  # the run stopped itself, in time
    assert not any(e["type"] == "run_finished" for e in events)
    assert json.loads((run_dir / "run.json").read_text())["status"] == "stopped"
    assert service.describe(run_id).status == "stopped"

    res = subprocess.run(
        _mlestar("resume", str(run_dir), "--no-progress", "--json"),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert res.returncode == 0, res.stderr[-3000:]
    assert json.loads(res.stdout.strip().splitlines()[-1])["status"] == "done"


STUBBORN_RUN = """
import os, signal, subprocess, sys, time
from mlestar_jupyter.journal import RunJournal
signal.signal(signal.SIGTERM, signal.SIG_IGN)
out = sys.argv[sys.argv.index("--out") + 1]
j = RunJournal.create(out, {"task_dir": sys.argv[2]})
j.emit("run_started", key="run_started", task={}, config={}, backend="offline")
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True)
time.sleep(600)
"""


async def test_a_run_that_ignores_sigterm_is_killed_with_its_tree_on_shutdown(
    jp_fetch: Any, jp_serverapp: Any, service: Any, task_in_root: Path, tmp_path: Path
) -> None:
    script = tmp_path / "stubborn.py"
    script.write_text(STUBBORN_RUN)
    service.command = [sys.executable, str(script)]
    service.shutdown_grace_seconds = 1.0
    code, out = await _post(jp_fetch, "runs", b'{"task_dir": "bc"}')
    assert code == 201, out
    rec = service._runs[json.loads(out)["run_id"]]
    end = time.monotonic() + 60
    while len(rec.process.descendants()) < 1 or not _events(rec.dir):
        assert time.monotonic() < end, (rec.dir / "stderr.log").read_text()[-2000:]
        await asyncio.sleep(0.2)
    tree = [psutil.Process(rec.process.pid), *rec.process.descendants()]

    await jp_serverapp.cleanup_extensions()
    assert not _alive(tree), "the run or its own-session child outlived the server"
    events = _events(rec.dir)
    assert events[-1]["type"] == "run_stopped"
    assert events[-1]["data"]["by"] == "server"
    assert service.describe(rec.run_id).status == "stopped"


# --------------------------------------------------------------------------- bad numbers and bytes
BAD_CLI_NUMBERS = {
    "--time-limit -5": ["--time-limit", "-5"],
    "--time-limit nan": ["--time-limit", "nan"],
    "--time-limit inf": ["--time-limit", "inf"],
    "--exec-timeout -1": ["--exec-timeout", "-1"],
    "--exec-timeout 0": ["--exec-timeout", "0"],
    "--max-cost nan": ["--max-cost", "nan"],
    "--max-llm-calls 0": ["--max-llm-calls", "0"],
    "--memory-limit 0": ["--memory-limit", "0"],
    "-M 0": ["-M", "0"],
    "-K 0": ["-K", "0"],
    "-T 0": ["-T", "0"],
    "-L 0": ["-L", "0"],
    "-R -1": ["-R", "-1"],
}


@pytest.mark.parametrize("case", sorted(BAD_CLI_NUMBERS))
def test_bad_budget_or_knob_is_one_line_exit_2_and_no_run(tmp_path: Path, case: str) -> None:
    out = tmp_path / "run"
    res = subprocess.run(
        _mlestar("run", str(BREAST_CANCER), "--no-progress", "--out", str(out))
        + BAD_CLI_NUMBERS[case],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 2, (case, res.stderr[-1000:])
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mlestar: "), res.stderr[-1000:]
    flag = case.split()[0]
    assert flag in lines[0] or flag.lstrip("-") in lines[0]
    assert not out.exists(), "a run folder was made for a refused run"


def test_help_states_what_zero_ensemble_rounds_means() -> None:
    res = subprocess.run(_mlestar("run", "--help"), capture_output=True, text=True, timeout=60)
    text = " ".join(res.stdout.split())
    assert "R >= 0" in text and "0: no ensembling" in text
    for knob in ("M >= 1", "K >= 1", "T >= 1", "L >= 1"):
        assert knob in text


def test_run_json_is_strict_json_whatever_the_numbers(tmp_path: Path) -> None:
    from mlestar_jupyter.journal import RunJournal

    j = RunJournal.create(tmp_path / "run", {"task_dir": "x"})
    j.update_meta(best_score=float("nan"), elapsed=float("inf"), scores=[1.0, float("-inf")])

    def refuse(token: str) -> None:
        raise AssertionError(f"run.json holds {token}: not JSON")

    meta = json.loads((tmp_path / "run" / "run.json").read_text(), parse_constant=refuse)
    assert meta["best_score"] is None and meta["elapsed"] is None
    assert meta["scores"] == [1.0, None]


def test_a_100kb_metric_name_is_cut_in_the_message(tmp_path: Path) -> None:
    task = tmp_path / "task"
    shutil.copytree(BREAST_CANCER / "input", task / "input")
    spec = json.loads((BREAST_CANCER / "task.json").read_text())
    spec["metric"]["metric_name"] = "m" * 100_000
    (task / "task.json").write_text(json.dumps(spec))
    res = subprocess.run(
        _mlestar("run", str(task), "--no-progress", "--out", str(tmp_path / "run")),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 2
    assert "unknown metric" in res.stderr and len(res.stderr) < 1000, len(res.stderr)


@pytest.mark.slow
def test_memory_error_under_a_cap_names_the_cap(tmp_path: Path) -> None:
    from mlestar_jupyter.execution import Executor

    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.csv").write_text("x\n1\n")
    code = "import numpy as np\nx = np.ones(3_000_000_000, dtype=np.uint8)\nprint(x.sum())"
    with Executor(memory_limit_mb=600, timeout=120) as ex:
        r = ex.run_script(code, input_dir=tmp_path / "in", workdir=tmp_path / "w")
    assert not r.ok and "MemoryError" in r.error
    assert "memory cap is 600 MB" in r.error and "--memory-limit" in r.error


@pytest.mark.slow
def test_scratch_left_by_kill_9_is_removed_by_clean_and_a_live_one_is_kept(
    tmp_path: Path,
) -> None:
    from mlestar_jupyter.execution.scratch import OWNER_FILE, claim, find_scratch

    base = tmp_path / "scratch"
    base.mkdir()
    run_dir = tmp_path / "run"
    env = dict(os.environ, TMPDIR=str(base))
    proc = subprocess.Popen(
        _mlestar("run", str(BREAST_CANCER), "--no-progress", "--out", str(run_dir)),
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        _wait_for(
            lambda: any((s.path / OWNER_FILE).exists() and s.run_dir for s in find_scratch(base)),
            240,
            "the run's scratch folder",
        )
        kids = psutil.Process(proc.pid).children(recursive=True)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    with contextlib.suppress(psutil.Error):
        for p in kids:
            p.kill()
    left = find_scratch(base)
    assert len(left) == 1 and left[0].run_dir == str(run_dir.resolve())

    live = base / "mlestar-exec-live"
    live.mkdir()
    claim(live, run_dir=run_dir)  # owned by this (running) test process

    res = subprocess.run(
        _mlestar("clean", str(run_dir), "--scratch-dir", str(base)),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert res.returncode == 0, res.stderr
    assert not left[0].path.exists(), "the dead run's scratch folder is still there"
    assert live.exists(), "a scratch folder of a running process was removed"
    assert "removed 1 scratch folder" in res.stderr
