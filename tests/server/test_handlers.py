"""The REST API end to end: a real jupyter_server with the extension, a fake agent subprocess."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import nbformat
import pytest
from tornado.httpclient import HTTPClientError
from traitlets.config import Config

from mlestar_jupyter.journal import RunJournal
from mlestar_jupyter.server.handlers import SERVICE_KEY
from mlestar_jupyter.server.service import RunService

FAKE_RUNNER = Path(__file__).with_name("fake_runner.py")


@pytest.fixture
def jp_server_config() -> Config:
    return Config(
        {
            "ServerApp": {"jpserver_extensions": {"mlestar_jupyter.server": True}},
            "RunService": {
                "command": [sys.executable, str(FAKE_RUNNER)],
                "cancel_grace_seconds": 0.5,
                "kill_grace_seconds": 0.5,
            },
        }
    )


@pytest.fixture
def service(jp_serverapp: Any) -> Any:
    """The extension's RunService; every run process it started is killed at teardown."""
    svc: RunService = jp_serverapp.web_app.settings[SERVICE_KEY]
    yield svc
    for rec in svc._runs.values():
        if rec.process is not None and rec.process.alive():
            rec.process.signal_group(signal.SIGKILL)
            if rec.process.popen is not None:
                rec.process.popen.wait(5)


@pytest.fixture
def project(jp_root_dir: Path) -> Path:
    """A task folder with a notebook inside the server root."""
    d = jp_root_dir / "proj"
    d.mkdir()
    (d / "description.md").write_text("# Task\nPredict target. Metric: ROC AUC\n")
    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_code_cell("print('Final Validation Performance: 0.9')"))
    nbformat.write(nb, d / "solution.ipynb")
    return d


async def call(
    fetch: Callable[..., Any], *parts: str, method: str = "GET", body: Any = None, **kw: Any
) -> tuple[int, Any]:
    """(status, JSON body) of a request; HTTP errors are returned, not raised."""
    if body is not None and not isinstance(body, str):
        body = json.dumps(body)
    try:
        r = await fetch("mlestar", *parts, method=method, body=body, **kw)
    except HTTPClientError as e:
        text = e.response.body.decode() if e.response is not None and e.response.body else "{}"
        return e.code, json.loads(text) if text.startswith(("{", "[")) else text
    return r.code, json.loads(r.body)


async def until(cond: Callable[[], Any], timeout: float = 15.0) -> Any:
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        v = cond()
        if asyncio.iscoroutine(v):
            v = await v
        if v:
            return v
        await asyncio.sleep(0.1)
    raise AssertionError("condition not met in time")


async def start(fetch: Any, **body: Any) -> dict[str, Any]:
    code, run = await call(
        fetch, "runs", method="POST", body={"notebook_path": "proj/solution.ipynb", **body}
    )
    assert code == 201, run
    return run  # type: ignore[no-any-return]


# -- security ----------------------------------------------------------------------------------
async def test_requests_without_token_are_refused(
    jp_fetch: Any, service: Any, project: Path
) -> None:
    for method, body in (("GET", None), ("POST", {"notebook_path": "proj/solution.ipynb"})):
        code, _ = await call(
            jp_fetch, "runs", method=method, body=body, headers={"Authorization": ""}
        )
        assert code in (401, 403)
    assert not service.runs_path.exists() or not any(service.runs_path.iterdir())


@pytest.mark.parametrize(
    "body",
    [
        {"task_dir": "../"},
        {"task_dir": "proj/../../"},
        {"task_dir": "/etc"},
        {"notebook_path": "../outside.ipynb"},
        {"task_dir": "escape"},
    ],
)
async def test_paths_outside_the_root_are_forbidden(
    jp_fetch: Any,
    service: Any,
    project: Path,
    jp_root_dir: Path,
    tmp_path: Path,
    body: dict[str, Any],
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (jp_root_dir / "escape").symlink_to(outside, target_is_directory=True)
    code, err = await call(jp_fetch, "runs", method="POST", body=body)
    assert code == 403, err
    assert "outside" in err["message"]


async def test_absolute_path_inside_the_root_is_accepted(
    jp_fetch: Any, service: Any, project: Path
) -> None:
    run = await start(jp_fetch, task_dir=str(project))
    assert run["task_dir"] == "proj"


# -- validation and unknown ids --------------------------------------------------------------------
async def test_invalid_bodies_answer_400_with_the_fields(
    jp_fetch: Any, service: Any, project: Path
) -> None:
    code, err = await call(
        jp_fetch,
        "runs",
        method="POST",
        body={"task_dir": "proj", "mode": "fast", "inner": 0, "backend": "gpt", "bogus": 1},
    )
    assert code == 400
    assert {f["field"] for f in err["fields"]} == {"mode", "inner", "backend", "bogus"}
    code, err = await call(jp_fetch, "runs", method="POST", body={})
    assert code == 400 and err["fields"][0]["field"] == "task_dir"
    code, err = await call(jp_fetch, "runs", method="POST", body={"task_dir": "missing"})
    assert code == 400 and err["fields"][0]["field"] == "task_dir"
    code, err = await call(
        jp_fetch, "runs", method="POST", body={"notebook_path": "proj/description.md"}
    )
    assert code == 400 and err["fields"][0]["field"] == "notebook_path"
    code, err = await call(jp_fetch, "runs", method="POST", body="{not json")
    assert code == 400 and err["fields"][0]["field"] == "body"
    assert not service.runs_path.exists() or not any(service.runs_path.iterdir())

    run = await start(jp_fetch, time_limit=5)
    rid = run["run_id"]
    code, err = await call(jp_fetch, "runs", rid, "events", params={"after": "x"})
    assert code == 400 and err["fields"][0]["field"] == "after"
    code, err = await call(jp_fetch, "runs", rid, "events", params={"after": "-1"})
    assert code == 400
    code, err = await call(
        jp_fetch, "runs", rid, "pause", method="POST", body={"pause": "sometimes"}
    )
    assert code == 400 and err["fields"][0]["field"] == "pause"
    code, err = await call(
        jp_fetch,
        "runs",
        rid,
        "proposals",
        "p1",
        "decision",
        method="POST",
        body={"decision": "maybe"},
    )
    assert code == 400 and err["fields"][0]["field"] == "decision"


@pytest.mark.parametrize(
    "method,parts,body",
    [
        ("GET", ("runs", "nope"), None),
        ("GET", ("runs", "nope", "events"), None),
        ("GET", ("runs", "nope", "proposals"), None),
        ("POST", ("runs", "nope", "cancel"), {}),
        ("POST", ("runs", "nope", "pause"), {"pause": True}),
        ("POST", ("runs", "nope", "proposals", "p1", "decision"), {"decision": "accept"}),
    ],
)
async def test_unknown_runs_answer_404(
    jp_fetch: Any, service: Any, method: str, parts: tuple[str, ...], body: Any
) -> None:
    code, err = await call(jp_fetch, *parts, method=method, body=body)
    assert code == 404
    assert "nope" in err["message"]


# -- running ----------------------------------------------------------------------------------------
async def test_start_creates_the_run_folder_and_serves_its_events(
    jp_fetch: Any, service: Any, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUPYTER_TOKEN", "server-secret")
    monkeypatch.setenv("JUPYTERHUB_API_TOKEN", "hub-secret")
    monkeypatch.setenv("FAKE_RUN_SECONDS", "60")
    run = await start(
        jp_fetch,
        time_limit=120,
        mode="step",
        inner=2,
        ensemble_rounds=0,
        backend="openai",
        model="qwen2.5-coder:1.5b",
        block="b2",
    )
    assert run["status"] == "running"
    assert run["notebook_path"] == "proj/solution.ipynb"
    assert run["task_dir"] == "proj"  # defaults to the notebook's folder
    run_dir = service.root / run["run_dir"]
    assert run_dir.parent == service.root / ".mlestar" / "runs"

    await until(
        lambda: (
            (run_dir / "events.jsonl").exists()
            and len((run_dir / "events.jsonl").read_text().splitlines()) >= 6
        )
    )
    assert (run_dir / "run.json").exists() and (run_dir / "stdout.log").exists()
    argv = json.loads((run_dir / "argv.json").read_text())
    assert argv[:2] == ["run", str(project)]
    for flag, value in (
        ("--notebook", str(project / "solution.ipynb")),
        ("--time-limit", "120"),
        ("--mode", "step"),
        ("--inner", "2"),
        ("--ensemble-rounds", "0"),
        ("--backend", "openai"),
        ("--model", "qwen2.5-coder:1.5b"),
        ("--block", "b2"),
    ):
        assert argv[argv.index(flag) + 1] == value
    env = json.loads((run_dir / "env.json").read_text())
    assert "JUPYTER_TOKEN" not in env and "JUPYTERHUB_API_TOKEN" not in env
    assert env["FAKE_RUN_SECONDS"] == "60"

    code, page = await call(jp_fetch, "runs", run["run_id"], "events", params={"after": "0"})
    assert code == 200
    assert [e["type"] for e in page["events"]][:3] == ["run_started", "phase", "candidate"]
    assert page["next"] == len(page["events"]) >= 6
    assert [e["seq"] for e in page["events"]] == list(range(page["next"]))
    code, page2 = await call(
        jp_fetch, "runs", run["run_id"], "events", params={"after": "2", "limit": "2"}
    )
    assert [e["seq"] for e in page2["events"]] == [2, 3] and page2["next"] == 4

    code, d = await call(jp_fetch, "runs", run["run_id"])
    assert d["phase"] == "refine" and d["metric"] == "roc_auc" and d["direction"] == "maximize"
    assert d["best_score"] == pytest.approx(0.93) and d["pending_proposals"] == 1
    assert d["elapsed"] >= 0 and d["started"] <= time.time()

    code, runs = await call(jp_fetch, "runs", params={"notebook": "proj/solution.ipynb"})
    assert [r["run_id"] for r in runs] == [run["run_id"]]
    code, runs = await call(jp_fetch, "runs", params={"notebook": "other.ipynb"})
    assert runs == []

    code, d = await call(
        jp_fetch, "runs", run["run_id"], "pause", method="POST", body={"pause": True}
    )
    assert code == 200 and d["paused"] is True
    assert RunJournal(run_dir).control() == {"pause": True}


async def test_run_finishing_reports_done_with_final_score(
    jp_fetch: Any, service: Any, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_RUN_SECONDS", "0.2")
    run = await start(jp_fetch)

    async def done() -> Any:
        return (await call(jp_fetch, "runs", run["run_id"]))[1]["status"] == "done"

    await until(done)
    _, d = await call(jp_fetch, "runs", run["run_id"])
    assert d["best_score"] == pytest.approx(0.94) and d["phase"] == "done"


async def test_proposals_are_listed_and_decided_once(
    jp_fetch: Any, service: Any, project: Path
) -> None:
    run = await start(jp_fetch)
    rid = run["run_id"]

    async def proposals() -> Any:
        return (await call(jp_fetch, "runs", rid, "proposals"))[1]

    props = await until(proposals)
    assert props == [
        {
            "proposal_id": "p1",
            "kind": "change",  # events written before kinds existed read as a change
            "block_id": "b2",
            "cell_id": "cell-2",
            "after_block_id": None,
            "after_cell_id": None,
            "old_source": "model = LGBMClassifier()",
            "new_source": "model = LGBMClassifier(n_estimators=400)",
            "plan": "More trees.",
            "score_before": 0.91,
            "score_after": 0.93,
            "decision": None,
        }
    ]
    code, p = await call(
        jp_fetch,
        "runs",
        rid,
        "proposals",
        "p1",
        "decision",
        method="POST",
        body={"decision": "accept"},
    )
    assert code == 200 and p["decision"] == "accept"
    assert RunJournal(service.root / run["run_dir"]).decision("p1")["decision"] == "accept"
    code, err = await call(
        jp_fetch,
        "runs",
        rid,
        "proposals",
        "p1",
        "decision",
        method="POST",
        body={"decision": "reject"},
    )
    assert code == 409 and "already decided" in err["message"]
    code, _ = await call(
        jp_fetch,
        "runs",
        rid,
        "proposals",
        "p9",
        "decision",
        method="POST",
        body={"decision": "reject"},
    )
    assert code == 404
    assert (await proposals())[0]["decision"] == "accept"
    _, d = await call(jp_fetch, "runs", rid)
    assert d["pending_proposals"] == 0

    async def decision_event() -> bool:
        page = (await call(jp_fetch, "runs", rid, "events"))[1]
        return any(e["type"] == "decision" for e in page["events"])

    await until(decision_event)  # the run picked the decision up


@pytest.mark.parametrize("stubborn", [False, True])
async def test_cancel_stops_the_process(
    jp_fetch: Any, service: Any, project: Path, monkeypatch: pytest.MonkeyPatch, stubborn: bool
) -> None:
    monkeypatch.setenv("FAKE_RUN_SECONDS", "120")
    if stubborn:
        monkeypatch.setenv("FAKE_RUN_STUBBORN", "1")
    run = await start(jp_fetch)
    rid = run["run_id"]
    run_dir = service.root / run["run_dir"]
    await until(lambda: (run_dir / "events.jsonl").exists())
    proc = service._runs[rid].process
    assert proc.alive()
    code, d = await call(jp_fetch, "runs", rid, "cancel", method="POST", body={})
    assert code == 200 and d["stop_requested"] is True
    await until(lambda: not proc.alive(), timeout=10)
    _, d = await call(jp_fetch, "runs", rid)
    assert d["status"] == "stopped"
    if stubborn:  # ended by SIGTERM: no run_finished event
        assert proc.popen.returncode == -signal.SIGTERM
        assert not any(e["type"] == "run_finished" for e in service._runs[rid].events())
    else:
        assert proc.popen.returncode == 0
    code, d = await call(jp_fetch, "runs", rid, "cancel", method="POST", body={})
    assert code == 200 and d["status"] == "stopped"


# -- re-discovery after a server restart -------------------------------------------------------------
@pytest.fixture
def runs_on_disk(jp_root_dir: Path) -> Any:
    """Run folders left by an earlier server: one done, one still running (own session), one dead."""
    runs = jp_root_dir / ".mlestar" / "runs"
    done = RunJournal.create(runs / "r-done", {"status": "running"})
    done.emit("run_started", task={"metric_name": "rmse", "direction": "minimize"})
    done.emit("phase", phase="refine", path=0)
    for i, s in enumerate((3.0, 2.0, 2.5)):
        done.emit(
            "candidate",
            node_id=f"n{i}",
            parent_id=None,
            phase="refine",
            path=0,
            label="x",
            block_id="b1",
            score=s,
            ok=True,
            error=None,
            duration=0.1,
            notebook="",
        )
    done.emit("run_finished", status="done", best_score=None, elapsed=12.5)
    done.close()
    (runs / "r-done" / "server.json").write_text(
        json.dumps(
            {"run_id": "r-done", "notebook_path": "a/nb.ipynb", "task_dir": "a", "started": 1000.0}
        )
    )

    live = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True
    )
    import psutil

    for name, pid, ctime in (
        ("r-live", live.pid, psutil.Process(live.pid).create_time()),
        ("r-dead", 2**22 - 3, 1.0),
    ):
        j = RunJournal.create(runs / name, {})
        j.emit("run_started", task={"metric_name": "accuracy", "direction": "maximize"})
        j.close()
        (runs / name / "server.json").write_text(
            json.dumps({"run_id": name, "pid": pid, "create_time": ctime, "started": time.time()})
        )
    yield live
    if live.poll() is None:
        live.kill()
    live.wait()


async def test_runs_on_disk_are_rediscovered(
    runs_on_disk: subprocess.Popen[bytes], jp_fetch: Any, service: Any
) -> None:
    assert {"r-done", "r-live", "r-dead"} <= set(service._runs)  # found when the server started
    _, runs = await call(jp_fetch, "runs")
    by_id = {r["run_id"]: r for r in runs}
    assert by_id["r-done"]["status"] == "done"
    assert by_id["r-done"]["best_score"] == 2.0  # minimize: the lowest candidate
    assert by_id["r-done"]["elapsed"] == 12.5 and by_id["r-done"]["notebook_path"] == "a/nb.ipynb"
    assert by_id["r-live"]["status"] == "running"
    assert by_id["r-dead"]["status"] == "failed"

    code, _ = await call(jp_fetch, "runs", "r-live", "cancel", method="POST", body={})
    assert code == 200
    await until(lambda: runs_on_disk.poll() is not None, timeout=10)  # SIGTERM to a non-child group
    assert runs_on_disk.returncode == -signal.SIGTERM
    _, d = await call(jp_fetch, "runs", "r-live")
    assert d["status"] == "stopped"


async def test_new_run_folders_appear_without_restart(jp_fetch: Any, service: Any) -> None:
    j = RunJournal.create(service.runs_path / "cli-run", {})
    j.emit("run_started", task={"metric_name": "accuracy", "direction": "maximize"})
    j.close()
    code, d = await call(jp_fetch, "runs", "cli-run")
    assert code == 200 and d["status"] == "running"  # fresh events, no known process
    os.utime(service.runs_path / "cli-run" / "events.jsonl", (0, 0))
    _, d = await call(jp_fetch, "runs", "cli-run")
    assert d["status"] == "failed"
