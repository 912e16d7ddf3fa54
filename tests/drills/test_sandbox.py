"""Fault drills for the candidate sandbox (issue 23, items 2 and 3): what candidate code can read,
reach and leave behind.

Each drill runs hostile code in a real kernel through ``Executor`` and asserts the outcome: files
outside ``./input`` and the work folder unreadable (``/etc/shadow``, another run's folder, the
repository, the answers), the network refused, no process left behind (``/proc`` scanned), the
time limit held, secrets scrubbed, ``./input`` read-only.  The jail drills need bubblewrap and
skip with the reason when it cannot run here; the fall-back drills check what the old sandbox
(user switch only) still guarantees.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mlestar_jupyter.execution import Executor
from mlestar_jupyter.execution import jail as jail_module
from mlestar_jupyter.execution.inputs import stat_digest

pytestmark = pytest.mark.drills

REPO = Path(__file__).resolve().parents[2]
ROOT = os.geteuid() == 0
SECRET = "sk-drill-" + uuid.uuid4().hex


# -- helpers -----------------------------------------------------------------------------------
def _report(ex: Executor, code: str, input_dir: Path, workdir: Path, timeout: float = 60) -> Any:
    """Run ``code`` (which sets ``out``) and return ``out`` as JSON."""
    script = f"import json\nout = None\n{code}\nprint('DRILL:' + json.dumps(out))\n"
    r = ex.run_script(script, input_dir=input_dir, workdir=workdir, timeout=timeout)
    line = next((x for x in r.stdout.splitlines() if x.startswith("DRILL:")), None)
    assert line is not None, f"drill code failed: {r.error}\n{r.stdout[-2000:]}"
    return json.loads(line[len("DRILL:") :])


PROBE_READS = """
import os
out = {}
for p in PATHS:
    try:
        with open(p, 'rb') as f:
            f.read(1)
        out[p] = 'read'
    except OSError as e:
        out[p] = type(e).__name__
"""


def _procs_with(token: str) -> list[int]:
    """Pids on this machine whose command line holds ``token`` (a scan of ``/proc``)."""
    found = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
            with open(f"/proc/{d}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if token in cmd and state != "Z":
            found.append(int(d))
    return found


def _no_procs_with(token: str, within: float = 10.0) -> list[int]:
    end = time.monotonic() + within
    while (left := _procs_with(token)) and time.monotonic() < end:
        time.sleep(0.2)
    return left


DAEMON = """
import os, time
TOKEN = {token!r}
pid = os.fork()
if pid == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv('/bin/sh', ['/bin/sh', '-c', 'exec sleep 300 # ' + TOKEN])
    os._exit(0)
os.waitpid(pid, 0)
time.sleep(0.5)
"""


# -- fixtures ----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A task folder with answers in both layouts, and another run's folder with an LLM cache."""
    base = tmp_path_factory.mktemp("world")
    task = base / "tasks" / "t1"
    (task / "input").mkdir(parents=True)
    (task / "input" / "train.csv").write_text("id,y\n1,0\n2,1\n")
    (task / "task.json").write_text("{}")
    (task / "private").mkdir()
    (task / "private" / "answers.csv").write_text("id,y\n3,1\n")
    answers = base / "tasks" / "answers" / "t1"
    answers.mkdir(parents=True)
    (answers / "answers.csv").write_text("id,y\n3,1\n")
    other = base / "runs" / "other-run"
    (other / "llm").mkdir(parents=True)
    (other / "llm" / "cache.json").write_text('{"prompt": "secret plan"}')
    os.chmod(base, 0o755)
    return {"base": base, "task": task, "input": task / "input", "other": other}


@pytest.fixture(scope="module")
def jailed() -> Iterator[Executor]:
    os.environ["OPENAI_API_KEY"] = SECRET  # the executor's own environment holds a secret
    try:
        with Executor(timeout=60, pool_size=1) as ex:  # warm kernels, as runs use them
            if ex.jail is None:
                pytest.skip(f"no bubblewrap jail here: {ex.sandbox.note}")
            yield ex
    finally:
        os.environ.pop("OPENAI_API_KEY", None)


def _wd(world: dict[str, Path], name: str) -> Path:
    return world["base"] / "runs" / "this-run" / "work" / f"{name}-{uuid.uuid4().hex[:6]}"


# -- the jail ----------------------------------------------------------------------------------
def test_jail_is_what_the_executor_reports(jailed: Executor) -> None:
    info = jailed.sandbox
    assert info.kind == "bwrap" and info.network is False
    assert info.to_json()["kind"] == "bwrap"


def test_candidate_cannot_read_outside_input_and_workdir(
    jailed: Executor, world: dict[str, Path]
) -> None:
    task = world["task"]
    paths = [
        "/etc/shadow",
        "/root/.bashrc",
        str(world["other"] / "llm" / "cache.json"),
        str(REPO / "README.md"),
        str(REPO / "mlestar_jupyter" / "__init__.py"),
        str(task / "private" / "answers.csv"),
        str(world["base"] / "tasks" / "answers" / "t1" / "answers.csv"),
        str(task / "task.json"),
        "input/train.csv",  # the control: the task's input is readable
    ]
    code = f"PATHS = {paths!r}\n{PROBE_READS}"
    got = _report(jailed, code, world["input"], _wd(world, "reads"))
    assert got.pop("input/train.csv") == "read"
    assert all(v != "read" for v in got.values()), got


def test_another_candidates_folder_is_not_visible(jailed: Executor, world: dict[str, Path]) -> None:
    first = _wd(world, "first")
    _report(jailed, "open('working/mine.txt', 'w').write('x'); out = 1", world["input"], first)
    assert (first / "working" / "mine.txt").is_file()
    code = f"PATHS = [{str(first / 'working' / 'mine.txt')!r}]\n{PROBE_READS}"
    got = _report(jailed, code, world["input"], _wd(world, "second"))
    assert got[str(first / "working" / "mine.txt")] != "read", got


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP server on 127.0.0.1 that accepts connections; yields its port."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    srv.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
                conn.close()
            except OSError:
                pass

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    yield srv.getsockname()[1]
    stop.set()
    t.join(2)
    srv.close()


CONNECT = """
import socket
try:
    socket.create_connection(('127.0.0.1', {port}), timeout=3).close()
    out = 'connected'
except OSError as e:
    out = type(e).__name__
"""


def test_network_is_refused_in_the_jail(
    jailed: Executor, world: dict[str, Path], listener: int
) -> None:
    got = _report(jailed, CONNECT.format(port=listener), world["input"], _wd(world, "net"))
    assert got != "connected"


def test_network_opt_in_reaches_the_host(world: dict[str, Path], listener: int) -> None:
    with Executor(timeout=60, network=True) as ex:
        if ex.jail is None:
            pytest.skip(f"no bubblewrap jail here: {ex.sandbox.note}")
        assert ex.sandbox.network is True
        got = _report(ex, CONNECT.format(port=listener), world["input"], _wd(world, "net-on"))
    assert got == "connected"  # the control: the refusal above is the jail's doing


def test_double_forked_daemon_dies_with_the_kernel(
    jailed: Executor, world: dict[str, Path]
) -> None:
    token = f"drill-daemon-{uuid.uuid4().hex}"
    code = DAEMON.format(token=token) + "out = 'spawned'"
    assert _report(jailed, code, world["input"], _wd(world, "daemon")) == "spawned"
    assert _no_procs_with(token) == []


def test_daemon_and_infinite_loop_die_at_the_time_limit(
    jailed: Executor, world: dict[str, Path]
) -> None:
    token = f"drill-loop-{uuid.uuid4().hex}"
    code = DAEMON.format(token=token) + "while True:\n    pass\n"
    t0 = time.monotonic()
    r = jailed.run_script(code, input_dir=world["input"], workdir=_wd(world, "loop"), timeout=4)
    assert not r.ok and r.timed_out
    assert time.monotonic() - t0 < 4 + 15
    assert _no_procs_with(token) == []


def test_secrets_are_scrubbed_and_the_host_environment_is_unreachable(
    jailed: Executor, world: dict[str, Path]
) -> None:
    code = f"""
import os
seen = [k for k, v in os.environ.items() if {SECRET!r} in v]
for d in os.listdir('/proc'):
    if d.isdigit():
        try:
            if {SECRET!r}.encode() in open(f'/proc/{{d}}/environ', 'rb').read():
                seen.append(d)
        except OSError:
            pass
out = {{'seen': seen, 'pids': sorted(int(d) for d in os.listdir('/proc') if d.isdigit())}}
"""
    got = _report(jailed, code, world["input"], _wd(world, "env"))
    assert got["seen"] == []
    assert max(got["pids"]) < 100  # its own PID namespace: the host's processes are not there


INPUT_WRITES = """
import os
out = {}
for name, fn in [
    ('append', lambda: open('input/train.csv', 'a').write('x')),
    ('create', lambda: open('input/new.csv', 'w').write('x')),
    ('delete', lambda: os.remove('input/train.csv')),
    ('chmod', lambda: os.chmod('input/train.csv', 0o666)),
    ('mkdir', lambda: os.mkdir('input/sub')),
]:
    try:
        fn()
        out[name] = 'done'
    except OSError as e:
        out[name] = type(e).__name__
"""


def test_input_is_read_only_in_the_jail(jailed: Executor, world: dict[str, Path]) -> None:
    before = stat_digest(world["input"])
    got = _report(jailed, INPUT_WRITES, world["input"], _wd(world, "ro"))
    assert all(v != "done" for v in got.values()), got
    assert stat_digest(world["input"]) == before


def test_work_folder_stays_writable(jailed: Executor, world: dict[str, Path]) -> None:
    wd = _wd(world, "rw")
    code = "open('final/submission.csv', 'w').write('id,y\\n3,1\\n'); out = 'ok'"
    handed_out = jailed.pool.handed_out
    r = jailed.run_script(code + "\nprint(out)", input_dir=world["input"], workdir=wd)
    assert r.ok, r.error
    assert wd.is_dir() and not wd.is_symlink()  # a folder lent to a warm kernel is back
    assert (wd / "final" / "submission.csv").read_text() == "id,y\n3,1\n"
    assert r.submission_path == str(wd / "final" / "submission.csv")
    assert jailed.pool.handed_out == handed_out + 1  # it ran in a warm kernel


def test_cold_jailed_kernel_mounts_the_work_folder(world: dict[str, Path]) -> None:
    with Executor(timeout=60) as ex:  # no pool: the kernel starts with the folder mounted
        if ex.jail is None:
            pytest.skip(f"no bubblewrap jail here: {ex.sandbox.note}")
        code = f"PATHS = ['input/train.csv', {str(REPO / 'README.md')!r}]\n{PROBE_READS}"
        got = _report(ex, code, world["input"], _wd(world, "cold"))
    assert got["input/train.csv"] == "read" and got[str(REPO / "README.md")] != "read"


# -- fall-back: no bubblewrap --------------------------------------------------------------------
@pytest.fixture(scope="module")
def fallback() -> Iterator[Executor]:
    os.environ["OPENAI_API_KEY"] = SECRET
    try:
        with Executor(timeout=60, jail=False) as ex:
            yield ex
    finally:
        os.environ.pop("OPENAI_API_KEY", None)


def test_missing_bwrap_is_said_once_and_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    real_which = jail_module.shutil.which
    monkeypatch.setattr(
        jail_module.shutil, "which", lambda n: None if n == "bwrap" else real_which(n)
    )
    with Executor(timeout=30) as ex:
        assert ex.jail is None
        assert ex.sandbox.kind != "bwrap" and ex.sandbox.network is True
        assert "bubblewrap" in ex.sandbox.note
        assert sum("bubblewrap" in w for w in ex.warnings) == 1


def test_fallback_kills_an_infinite_loop_at_its_limit(
    fallback: Executor, world: dict[str, Path]
) -> None:
    t0 = time.monotonic()
    r = fallback.run_script(
        "while True:\n    pass\n",
        input_dir=world["input"],
        workdir=_wd(world, "fb-loop"),
        timeout=3,
    )
    assert not r.ok and r.timed_out
    assert time.monotonic() - t0 < 3 + 15


def test_fallback_scrubs_secrets(fallback: Executor, world: dict[str, Path]) -> None:
    code = f"import os\nout = [k for k, v in os.environ.items() if {SECRET!r} in v]"
    assert _report(fallback, code, world["input"], _wd(world, "fb-env")) == []


@pytest.mark.skipif(not ROOT, reason="the fall-back's read-only input needs the root user switch")
def test_fallback_input_is_read_only(fallback: Executor, world: dict[str, Path]) -> None:
    before = stat_digest(world["input"])
    got = _report(fallback, INPUT_WRITES, world["input"], _wd(world, "fb-ro"))
    assert all(v != "done" for v in got.values()), got
    assert stat_digest(world["input"]) == before


# -- a whole run --------------------------------------------------------------------------------
def test_a_run_journals_its_sandbox_and_works_in_it(tabular_task: Path, tmp_path: Path) -> None:
    from mlestar_jupyter.cli import main
    from mlestar_jupyter.journal import read_events

    out = tmp_path / "run"
    small = ["-M", "1", "-K", "1", "-T", "1", "-L", "1", "-R", "0", "--time-limit", "600"]
    assert main(["run", str(tabular_task), "--out", str(out), "--no-progress", *small]) == 0
    events = read_events(out / "events.jsonl")
    sandbox = [e.data for e in events if e.type == "sandbox"]
    with Executor(timeout=30) as ex:
        expected = ex.sandbox.kind
    assert len(sandbox) == 1 and sandbox[0]["kind"] == expected
    assert sandbox[0]["network"] is (expected != "bwrap")
    final = next(e.data for e in events if e.type == "final")
    assert final["valid"], final
