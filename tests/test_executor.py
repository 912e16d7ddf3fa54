"""Tests of ``mlestar_jupyter.execution``: real kernels, short limits, no network."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import pickle
import threading
import time
from pathlib import Path

import psutil
import pytest

import mlestar_jupyter.execution as execution
from mlestar_jupyter.execution import (
    CellError,
    CellOutcome,
    CellTimeout,
    ExecutionError,
    ExecutionResult,
    Executor,
    InputModified,
    KernelDied,
    KernelStartError,
    Slots,
    WorkdirError,
    is_secret,
    kernel_env,
    parse_score,
    run_script,
)
from mlestar_jupyter.execution.inputs import InputViews
from mlestar_jupyter.execution.result import CELL_STDOUT_LIMIT, STDOUT_LIMIT
from mlestar_jupyter.execution.sandbox import Identity, plan_identity
from mlestar_jupyter.notebook import SolutionNotebook

FILES = Path(__file__).parent / "files"
ROOT = os.geteuid() == 0


def nb(*sources: str) -> SolutionNotebook:
    return SolutionNotebook.new([("other", s) for s in sources])


def tree_digest(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def gone(pid: int, within: float = 5.0) -> bool:
    """The process has exited (or is a zombie) within ``within`` seconds."""
    deadline = time.monotonic() + within
    while True:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("data")
    (d / "train.csv").write_text((FILES / "exec_train.csv").read_text())
    (d / "sub").mkdir()
    (d / "sub" / "notes.txt").write_text("nested file\n")
    return d


@pytest.fixture(scope="module")
def ex() -> Executor:
    with Executor(timeout=60, pool_size=1, max_parallel=2, threads_per_kernel=1) as e:
        yield e


@pytest.fixture
def wd(tmp_path: Path) -> Path:
    return tmp_path / "work"


# -- pure helpers ------------------------------------------------------------------------------
def test_parse_score_takes_the_last_match() -> None:
    text = "Final Validation Performance: 0.5\nnoise\nFinal Validation Performance: 1.5e-3 (rmse)\n"
    assert parse_score(text) == pytest.approx(0.0015)
    assert parse_score("Final Validation Performance: -2") == -2.0
    assert parse_score("no score here") is None


@pytest.mark.parametrize(
    "name", ["GEMINI_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "AWS_ACCESS_KEY_ID",
             "GOOGLE_APPLICATION_CREDENTIALS", "HF_TOKEN", "AZURE_OPENAI_ENDPOINT", "JPY_SESSION_NAME",
             "JUPYTER_TOKEN", "DB_PASSWORD", "MY_SERVICE_TOKEN", "SOME_SECRET_VALUE"],
)  # fmt: skip
def test_secret_names_are_recognised(name: str) -> None:
    assert is_secret(name)


def test_kernel_env_is_an_allow_list(tmp_path: Path) -> None:
    base = {
        "PATH": "/bin",
        "GEMINI_API_KEY": "s",
        "RANDOM_VAR": "x",
        "LC_ALL": "C",
        "AWS_REGION": "eu",
    }
    env, dropped = kernel_env(base, threads=3, home=tmp_path, extra={"SEED": "1", "X_TOKEN": "t"})
    assert env["PATH"] == "/bin" and env["LC_ALL"] == "C" and env["SEED"] == "1"
    assert not {"GEMINI_API_KEY", "RANDOM_VAR", "AWS_REGION", "X_TOKEN"} & set(env)
    assert dropped == ["X_TOKEN"]
    assert env["OMP_NUM_THREADS"] == env["OPENBLAS_NUM_THREADS"] == env["MKL_NUM_THREADS"] == "3"
    assert env["OMP_WAIT_POLICY"] == "PASSIVE" and env["HOME"] == str(tmp_path)


def test_slots_round_robin_one_run_per_gpu() -> None:
    slots = Slots(max_parallel=4, gpu_ids=["0", "1", "2"])
    assert slots.capacity == 3
    a, b, c = slots.try_acquire(), slots.try_acquire(), slots.try_acquire()
    assert [s.gpu for s in (a, b, c)] == ["0", "1", "2"]
    assert slots.try_acquire() is None
    slots.release(b)
    d = slots.try_acquire()
    assert d is not None and d.gpu == "1"
    slots.release(a)
    slots.release(c)
    assert slots.try_acquire().gpu == "2"  # round-robin continues after the last one handed out
    assert Slots(max_parallel=2).try_acquire().gpu is None


def test_slots_acquire_waits_for_release() -> None:
    async def scenario() -> list[str]:
        slots = Slots(max_parallel=1, gpu_ids=["7"])
        first = await slots.acquire()
        waiter = asyncio.ensure_future(slots.acquire())
        await asyncio.sleep(0.05)
        assert not waiter.done()
        slots.release(first)
        second = await asyncio.wait_for(waiter, 2)
        return [first.gpu, second.gpu]

    assert asyncio.run(scenario()) == ["7", "7"]


def test_public_api() -> None:
    for name in execution.__all__:
        assert getattr(execution, name).__doc__, name
    assert {"Executor", "ExecutionResult", "parse_score", "run_script", "CellTimeout"} <= set(
        execution.__all__
    )


# -- real kernels ------------------------------------------------------------------------------
SUCCESS = (
    "import pandas as pd\ndf = pd.read_csv('input/train.csv')\nprint('rows', len(df))",
    "df.to_csv('final/submission.csv', index=False)\nprint('Final Validation Performance: 0.25')\n"
    "print('Final Validation Performance: 0.875')",
)


def test_success_parses_score_and_reports_submission(ex: Executor, data: Path, wd: Path) -> None:
    seen: list[CellOutcome] = []
    r = asyncio.run(ex.arun(nb(*SUCCESS), input_dir=data, workdir=wd, on_cell_complete=seen.append))
    assert r.ok, r.error
    assert r.score == 0.875 and r.valid_score == 0.875
    assert [c.block_id for c in r.cells] == ["b1", "b2"] and all(c.ok for c in r.cells)
    assert [c.block_id for c in seen] == ["b1", "b2"]
    assert "rows 6" in r.cells[0].stdout and "rows 6" in r.stdout
    assert r.submission_path == str(wd.absolute() / "final" / "submission.csv")
    assert Path(r.submission_path).read_text().startswith("id,")
    assert (wd / "working").is_dir() and r.failed_block is None and r.error == ""
    assert r.peak_memory_mb and r.peak_memory_mb > 10
    outputs = r.notebook["cells"][1]["outputs"]
    assert any("0.875" in o.get("text", "") for o in outputs)
    assert r.solution().block_ids == ["b1", "b2"]


def test_error_in_second_cell(ex: Executor, data: Path, wd: Path) -> None:
    r = ex.run(nb("x = 1\nprint('first')", "def f():\n    return 1 / 0\nf()", "print('never')"),
               input_dir=data, workdir=wd)  # fmt: skip
    assert not r.ok and not r.timed_out and not r.kernel_died
    assert r.failed_block == "b2" and len(r.cells) == 2 and r.cells[0].ok
    bad = r.cells[1]
    assert bad.error_name == "ZeroDivisionError" and "division by zero" in bad.error_value
    assert "\x1b[" not in bad.traceback and "return 1 / 0" in bad.traceback
    assert r.error.startswith("ZeroDivisionError") and r.score is None
    with pytest.raises(CellError, match="b2 raised ZeroDivisionError"):
        r.raise_for_error()


def test_timeout_kills_kernel_and_children(data: Path, wd: Path) -> None:
    secs = f"1000.{os.getpid()}{time.monotonic_ns() % 10**6}"  # found by command line below
    with Executor(timeout=3) as ex1:
        code = (
            "import subprocess\n"
            f"a = subprocess.Popen(['sleep', '{secs}'])\n"
            f"b = subprocess.Popen(['sleep', '{secs}'], start_new_session=True)\n"
            "open('working/pids', 'w').write(f'{a.pid} {b.pid}')"
        )
        t0 = time.monotonic()
        r = ex1.run(nb(code, "while True:\n    pass"), input_dir=data, workdir=wd)
        elapsed = time.monotonic() - t0
    assert r.timed_out and not r.ok and r.failed_block == "b2"
    assert elapsed < 3 + 5 + 4  # the limit, the kill, plus a cold kernel start
    assert r.duration < 3 + 5 + 4
    assert len((wd / "working" / "pids").read_text().split()) == 2
    # pids inside a jail are its own namespace's: find the sleeps by their command line instead
    pids = [p.pid for p in psutil.process_iter(["cmdline"]) if secs in (p.info["cmdline"] or [])]
    deadline = time.monotonic() + 5
    while not all(gone(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert all(gone(p) for p in pids)
    with pytest.raises(CellTimeout):
        r.raise_for_error()


def test_huge_output_is_bounded_but_scored(ex: Executor, data: Path, wd: Path) -> None:
    code = (
        "for _ in range(3):\n    print('x' * 120_000)\nprint('Final Validation Performance: 0.5')"
    )
    r = ex.run(nb(code), input_dir=data, workdir=wd)
    assert r.ok and r.score == 0.5
    assert len(r.stdout) < STDOUT_LIMIT + 200 and "characters cut" in r.stdout
    assert r.stdout.rstrip().endswith("Final Validation Performance: 0.5")
    stored = "".join(o.get("text", "") for o in r.notebook["cells"][0]["outputs"])
    assert len(stored) < CELL_STDOUT_LIMIT + 200


def test_os_exit_is_a_failed_result(ex: Executor, data: Path, wd: Path) -> None:
    r = ex.run(
        nb("print('before')", "import os\nos._exit(1)"), input_dir=data, workdir=wd, timeout=30
    )
    assert not r.ok and r.kernel_died and not r.timed_out
    assert r.failed_block == "b2" and "died" in r.error
    assert r.cells[0].ok and r.cells[1].error_name == "KernelDied"
    with pytest.raises(KernelDied):
        r.raise_for_error()


def test_memory_blowup_is_capped(data: Path, wd: Path) -> None:
    with Executor(timeout=30, memory_limit_mb=1024) as ex1:
        r = ex1.run(nb("x = 1", "blob = bytearray(3 * 1024**3)\nprint('allocated')"),
                    input_dir=data, workdir=wd)  # fmt: skip
    assert not r.ok and not r.timed_out
    assert r.failed_block == "b2"
    assert r.kernel_died or r.cells[1].error_name == "MemoryError"
    assert "allocated" not in r.stdout


def test_input_is_read_only_and_unchanged(ex: Executor, data: Path, wd: Path) -> None:
    before = tree_digest(data)
    code = (
        "import os\n"
        "def attempt(name, fn):\n"
        "    try:\n"
        "        fn()\n"
        "        print(name, 'ALLOWED')\n"
        "    except OSError:  # PermissionError, or EROFS in a jail\n"
        "        print(name, 'refused')\n"
        "attempt('overwrite', lambda: open('input/train.csv', 'w').write('x'))\n"
        "attempt('append', lambda: open('input/sub/notes.txt', 'a').write('x'))\n"
        "attempt('create', lambda: open('input/new.csv', 'w').write('x'))\n"
        "attempt('remove', lambda: os.remove('input/train.csv'))\n"
        "attempt('chmod', lambda: os.chmod('input/train.csv', 0o666))\n"
        "print(len(open('input/train.csv').read()) > 0)"
    )
    r = ex.run(nb(code), input_dir=data, workdir=wd)
    assert r.ok, r.error
    if ROOT:
        assert r.sandboxed, ex.warnings
    if r.sandboxed or not ROOT:
        for what in ("overwrite", "append", "create", "remove", "chmod"):
            assert f"{what} refused" in r.stdout, r.stdout
    assert tree_digest(data) == before
    assert not r.input_modified
    assert tree_digest(wd / "input") == before  # the view itself is intact


def test_the_datas_own_modules_import_as_beside_a_notebook(ex: Executor, tmp_path: Path) -> None:
    """A notebook task's input is the notebook's folder: ``from helpers import features`` with
    ``helpers.py`` there (or a package) imports, as in Jupyter; it failed ``No module named
    'helpers'``.  They come after the installed packages: a ``json.py`` there shadows nothing."""
    data = tmp_path / "data"
    (data / "mypkg").mkdir(parents=True)
    (data / "helpers.py").write_text("def features(x):\n    return x * 2\n")
    (data / "mypkg" / "__init__.py").write_text("X = 7\n")
    (data / "json.py").write_text("raise RuntimeError('shadowed')\n")
    before = tree_digest(data)
    code = "from helpers import features\nimport json, mypkg\nprint(features(2), mypkg.X, json.dumps(1))"
    r = ex.run(nb(code), input_dir=data, workdir=tmp_path / "work")
    assert r.ok, r.error
    assert "4 7 1" in r.stdout
    assert tree_digest(data) == before and not r.input_modified


def test_input_views_detect_changes(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.csv").write_text("x\n1\n")
    views = InputViews(tmp_path / "views", plan_identity(None)[0])
    v = views.view(src)
    assert v.copied == 1 and (v.path / "a.csv").read_text() == "x\n1\n"
    assert views.view(src) is v  # cached while nothing changes
    assert views.check(v) == (False, False)
    (src / "a.csv").write_text("x\n2\n")
    assert views.check(v) == (True, False)
    assert views.view(src) is not v and (views.view(src).path / "a.csv").read_text() == "x\n2\n"


def test_input_used_in_place_only_when_the_kernel_user_is_locked_out(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.csv").write_text("x\n")
    os.chmod(src / "a.csv", 0o644)
    os.chmod(src, 0o755)
    owner = os.stat(src).st_uid
    other = Identity(
        uid=owner + 4242, gid=os.stat(src).st_gid + 4242, dropped=True, prefix=("setpriv",)
    )
    views = InputViews(tmp_path / "views", other)
    assert views.view(src).path == src.resolve()  # nothing to copy: the OS refuses every write
    os.chmod(src / "a.csv", 0o666)  # world-writable: the kernel could change it, so copy
    v = views.view(src)
    assert v.path != src.resolve() and v.copied == 1
    assert os.stat(v.path / "a.csv").st_mode & 0o777 == 0o444


def test_unsandboxed_kernel_cannot_touch_the_original(data: Path, wd: Path) -> None:
    """Without a uid drop (a root kernel ignores file modes) writes land in the copy, never the data."""
    before = tree_digest(data)
    with Executor(timeout=30, sandbox_user=None, jail=False) as ex1:
        r = ex1.run(
            nb("open('input/train.csv', 'w').write('clobbered')"), input_dir=data, workdir=wd
        )
        assert not r.sandboxed and not r.input_modified
        if ROOT:  # root writes through 0444; the damaged view is detected and rebuilt
            assert r.ok and any("wrote into ./input" in w for w in r.warnings)
        else:
            assert not r.ok and r.cells[0].error_name == "PermissionError"
        again = ex1.run(nb("print(open('input/train.csv').read()[:3])"), input_dir=data, workdir=wd)
        assert again.ok and again.stdout.startswith("id,")
    assert tree_digest(data) == before


def test_secrets_are_not_in_the_kernel(
    monkeypatch: pytest.MonkeyPatch, data: Path, wd: Path
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "secret-gemini")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret-aws")
    monkeypatch.setenv("MY_SERVICE_TOKEN", "secret-token")
    code = (
        "import os\n"
        "print('LEAK' if any('secret-' in v for v in os.environ.values()) else 'clean')\n"
        "print('threads', os.environ['OMP_NUM_THREADS'], os.environ['OMP_WAIT_POLICY'])\n"
        "print('gpu', os.environ.get('CUDA_VISIBLE_DEVICES'))\n"
        "try:\n"
        "    parent = open(f'/proc/{os.getppid()}/environ', 'rb').read()\n"
        "    print('parent', 'LEAK' if b'secret-' in parent else 'clean')\n"
        "except PermissionError:\n"
        "    print('parent unreadable')"
    )
    with Executor(
        timeout=30, threads_per_kernel=2, gpu_ids=["3"], extra_env={"OPENAI_API_KEY": "x"}
    ) as ex1:
        r = ex1.run(nb(code), input_dir=data, workdir=wd)
    assert r.ok, r.error
    assert "clean" in r.stdout and "LEAK" not in r.stdout
    assert "threads 2 PASSIVE" in r.stdout and "gpu 3" in r.stdout and r.gpu == "3"
    if r.sandboxed:
        assert "parent unreadable" in r.stdout
    assert any("OPENAI_API_KEY" in w for w in r.warnings)


def test_pool_kernels_are_used_once(data: Path, wd: Path) -> None:
    """Only kernels without a jail are pooled (a jail's mounts need the run's work folder)."""
    with Executor(timeout=60, pool_size=1, jail=False) as ex:
        _check_pool(ex, data, wd)


def _check_pool(ex: Executor, data: Path, wd: Path) -> None:
    ex.warm_up(timeout=60)
    before = ex.pool.handed_out
    code = "import os\nprint('fresh' if 'marker' not in globals() else 'reused', os.getpid())\nmarker = 1"
    pids = []
    for i in range(3):
        r = ex.run(nb(code), input_dir=data, workdir=wd / str(i))
        assert r.ok and "fresh" in r.stdout, r.stdout
        pids.append(int(r.stdout.split()[-1]))
        assert gone(pids[-1])  # discarded after its one candidate
    assert len(set(pids)) == 3
    assert ex.pool.handed_out - before == 3


def test_two_runs_in_parallel_threads(data: Path, tmp_path: Path) -> None:
    code = "import time\nt0 = time.time()\ntime.sleep(1.5)\nprint('span', t0, time.time())"
    results: dict[int, ExecutionResult] = {}
    ex = Executor(timeout=30, pool_size=2, max_parallel=2)
    ex.warm_up(timeout=60)

    def work(i: int) -> None:
        results[i] = ex.run(nb(code), input_dir=data, workdir=tmp_path / f"w{i}")

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    ex.close()
    assert all(results[i].ok for i in range(2)), [results[i].error for i in results]
    (a0, a1), (b0, b1) = ([float(x) for x in results[i].stdout.split()[1:3]] for i in range(2))
    assert a0 < b1 and b0 < a1  # the two cells overlapped in time


def test_run_script_and_workdir_errors(ex: Executor, data: Path, tmp_path: Path) -> None:
    r = ex.run_script(
        "import os\nprint(sorted(os.listdir('input')))\nprint('Final Validation Performance: 3')",
        input_dir=data, workdir=tmp_path / "s",
    )  # fmt: skip
    assert r.ok and r.score == 3.0 and "'train.csv'" in r.stdout
    with pytest.raises(WorkdirError, match="input folder not found"):
        ex.run(nb("x = 1"), input_dir=tmp_path / "missing", workdir=tmp_path / "m")
    empty = ex.run(
        SolutionNotebook.new([("markdown", "just a plan")]), input_dir=data, workdir=tmp_path / "e"
    )
    assert not empty.ok and "no code cells" in empty.error
    (tmp_path / "bad" / "input").mkdir(parents=True)
    with pytest.raises(WorkdirError, match="real folder"):
        ex.run(nb("x = 1"), input_dir=data, workdir=tmp_path / "bad")


def test_module_level_run_script(data: Path, wd: Path) -> None:
    r = run_script(
        "print('Final Validation Performance: 0.1')", input_dir=data, workdir=wd, timeout=30
    )
    assert r.ok and r.score == 0.1


# -- serialisation -------------------------------------------------------------------------------
def test_result_round_trips_json_and_pickle(ex: Executor, data: Path, wd: Path) -> None:
    r = ex.run(nb(*SUCCESS), input_dir=data, workdir=wd)
    again = ExecutionResult.from_json(json.loads(json.dumps(r.to_json())))
    assert again == r
    assert ExecutionResult.from_json(json.dumps(r.to_json())) == r
    assert pickle.loads(pickle.dumps(r)) == r
    failed = ExecutionResult(ok=False, error="x", timed_out=True, duration=3.0, failed_block="b2",
                             cells=[CellOutcome("b2", 1, False, error_name="Timeout")])  # fmt: skip
    assert ExecutionResult.from_json(failed.to_json()) == failed
    assert isinstance(pickle.loads(pickle.dumps(failed)).to_error(), CellTimeout)


@pytest.mark.parametrize(
    "err",
    [ExecutionError("plain"), CellError("b3", "ValueError", "bad"), CellTimeout(5.0, "b2"),
     KernelDied("b1", "exit 1"), KernelStartError("no such kernel"),
     WorkdirError("/tmp/x", "cannot create it"), InputModified("/data")],
)  # fmt: skip
def test_errors_pickle_and_say_what_to_do(err: ExecutionError) -> None:
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is type(err) and str(back) == str(err) and back.args == err.args
    assert isinstance(back, ExecutionError)


def test_a_notebook_folders_run_checkpoints_and_notebooks_are_not_its_data(
    tmp_path: Path,
) -> None:
    """A notebook task's input folder is the notebook's own folder.  A run started from it (the
    CLI's ``runs/``, JupyterLab's ``.mlestar/runs``) writes its folder there, Jupyter saves
    checkpoints and the user saves the notebook: every candidate failed with "the original input
    folder changed during the run".  Those are not data; a data file changing still is."""
    from mlestar_jupyter.execution.inputs import stat_digest

    views = InputViews(tmp_path / "views", Identity(os.geteuid(), os.getegid()))
    tmp_path = tmp_path / "notebook-folder"
    tmp_path.mkdir()
    (tmp_path / "train.csv").write_text("a,b\n1,2\n")
    (tmp_path / "nb.ipynb").write_text("{}")
    before = stat_digest(tmp_path)
    run = tmp_path / "runs" / "nb-1"
    run.mkdir(parents=True)
    (run / "run.json").write_text("{}")
    (run / "events.jsonl").write_text("{}\n")
    (tmp_path / ".mlestar" / "runs").mkdir(parents=True)
    (tmp_path / ".ipynb_checkpoints").mkdir()
    (tmp_path / ".ipynb_checkpoints" / "nb-checkpoint.ipynb").write_text("{}")
    (tmp_path / "nb.ipynb").write_text('{"cells": []}')
    assert stat_digest(tmp_path) == before
    view = views.view(tmp_path)
    if view.path != view.source:  # a copy: without the run's folder and the checkpoints
        assert sorted(p.name for p in view.path.iterdir()) == ["nb.ipynb", "runs", "train.csv"]
        assert list((view.path / "runs").iterdir()) == []
    (tmp_path / "extra.csv").write_text("x\n")
    assert stat_digest(tmp_path) != before  # data added: changed
    time.sleep(0.01)
    after = stat_digest(tmp_path)
    (tmp_path / "train.csv").write_text("a,b\n1,3\n")
    assert stat_digest(tmp_path) != after  # data rewritten: changed


def test_another_runs_hard_links_do_not_change_the_input(tmp_path: Path) -> None:
    """Two runs on one task folder: each run's view hard-links the data files, which moves
    their ``ctime`` (the link count), and the other run's candidates all failed with "the
    original input folder changed during the run"."""
    from mlestar_jupyter.execution.inputs import stat_digest

    data = tmp_path / "task"
    data.mkdir()
    (data / "train.csv").write_text("a,b\n1,2\n")
    before = stat_digest(data)
    time.sleep(0.01)
    os.link(data / "train.csv", tmp_path / "other-runs-view.csv")
    assert os.stat(data / "train.csv").st_nlink == 2
    assert stat_digest(data) == before
    (tmp_path / "other-runs-view.csv").unlink()
    assert stat_digest(data) == before


@pytest.mark.parametrize("mounted", [False, True])
def test_a_data_file_that_is_a_link_is_in_the_view_as_a_file(tmp_path: Path, mounted: bool) -> None:
    """``ln -s /data/big.csv input/train.csv`` (and the run's own copy of a folder whose train
    table lost its unlabelled rows, which links the other files): ``link()`` of a symlink makes
    another symlink, so the view held a link to a path a jailed kernel cannot see, and every
    candidate failed with "No such file or directory: 'input/test.csv'"."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "test.csv").write_text("x\n1\n")
    src = tmp_path / "src"
    src.mkdir()
    (src / "test.csv").symlink_to(elsewhere / "test.csv")
    views = InputViews(tmp_path / "views", Identity(os.geteuid(), os.getegid()), mounted=mounted)
    v = views.view(src)
    assert v.path != src.resolve()
    copy = v.path / "test.csv"
    assert not copy.is_symlink() and copy.read_text() == "x\n1\n"
