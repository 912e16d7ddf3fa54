"""Tests of the ``gateway`` kernel provider against a real Jupyter Kernel Gateway on 127.0.0.1.

"Shared storage" is simulated with a symlink: the executor writes under ``local/`` (a link to
``remote/``) and the path map sends the kernel to ``remote/``, so the kernel really works in
the mapped path and the executor reads the results through its own.
"""

from __future__ import annotations

import asyncio
import os
import pickle
import threading
import time
from pathlib import Path

import psutil
import pytest

pytest.importorskip("kernel_gateway", reason="needs jupyter_kernel_gateway")

from mlestar_jupyter.execution import (  # noqa: E402
    ExecutionResult,
    Executor,
    GatewayConfig,
    GatewayConfigError,
    GatewayError,
    GatewayProvider,
    KernelStartError,
    PathMap,
    machine,  # noqa: E402
)
from mlestar_jupyter.execution.gateway_process import LocalGateway, free_port  # noqa: E402
from mlestar_jupyter.notebook import SolutionNotebook  # noqa: E402

TOKEN = "test-token-123"


def nb(*sources: str) -> SolutionNotebook:
    return SolutionNotebook.new([("other", s) for s in sources])


def gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def wait_for(cond, timeout: float = 15.0) -> bool:  # type: ignore[no-untyped-def]
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.1)
    return bool(cond())


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> LocalGateway:
    log = tmp_path_factory.mktemp("gw") / "gateway.log"
    with LocalGateway(token=TOKEN, log_path=log) as gw:
        yield gw


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """``local`` → ``remote`` (symlink), with the task data at ``local/data``."""
    root = tmp_path_factory.mktemp("storage")
    remote = root / "remote"
    (remote / "data").mkdir(parents=True)
    (remote / "data" / "train.csv").write_text("id,x,target\n1,0.5,0\n2,1.5,1\n3,2.5,1\n")
    local = root / "local"
    local.symlink_to(remote, target_is_directory=True)
    return {"root": root, "local": local, "remote": remote, "data": local / "data"}


@pytest.fixture(scope="module")
def ex(gateway: LocalGateway, shared: dict[str, Path]) -> Executor:
    with Executor(
        provider="gateway", gateway_url=gateway.url, gateway_token=TOKEN, timeout=60,
        path_map={str(shared["local"]): str(shared["remote"])}, threads_per_kernel=1,
    ) as e:  # fmt: skip
        yield e


# -- configuration (no gateway needed) ------------------------------------------------------------
def test_path_map_longest_prefix_and_parse() -> None:
    pm = PathMap.of({"/data": "/mnt/d", "/data/big": "/nfs/big", "/work": "/w"})
    assert pm.to_remote("/data/task/train.csv") == "/mnt/d/task/train.csv"
    assert pm.to_remote("/data/big/x") == "/nfs/big/x"
    assert pm.to_remote("/data") == "/mnt/d"
    assert pm.to_remote("/database/x") == "/database/x"  # a prefix of the name is no match
    assert pm.to_remote("/elsewhere/y") == "/elsewhere/y"
    assert pm.same_area("/work/a", "/work/b/c") and not pm.same_area("/work/a", "/data/a")
    assert PathMap.parse("/data=/mnt/d; /work=/w").to_remote("/work/1") == "/w/1"
    with pytest.raises(GatewayConfigError, match="no '='"):
        PathMap.parse("/data:/mnt/d")
    with pytest.raises(GatewayConfigError, match="not absolute"):
        PathMap.of({"data": "/mnt"})


def test_config_from_env_and_secrecy() -> None:
    env = {
        "MLESTAR_GATEWAY_URL": "https://gw.example:8888/",
        "MLESTAR_GATEWAY_TOKEN": "s3cret",
        "MLESTAR_GATEWAY_PATH_MAP": "/a=/b",
        "MLESTAR_GATEWAY_GPU_KERNEL_SPEC": "python3-gpu",
    }
    cfg = GatewayConfig.from_env(env)
    assert cfg is not None and cfg.url == "https://gw.example:8888" and cfg.token == "s3cret"
    assert cfg.ws_url == "wss://gw.example:8888" and cfg.gpu_kernel_spec == "python3-gpu"
    assert cfg.path_map.to_remote("/a/x") == "/b/x" and cfg.kernel_spec == "python3"
    assert "s3cret" not in repr(cfg) and "s3cret" not in cfg.redacted()
    assert GatewayConfig.from_env({}) is None
    assert GatewayConfig.from_env(env, token="other").token == "other"
    with pytest.raises(GatewayConfigError, match="http"):
        GatewayConfig(url="localhost:8888")


def test_provider_selection(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MLESTAR_GATEWAY_URL", raising=False)
    with pytest.raises(GatewayConfigError, match="MLESTAR_GATEWAY_URL"):
        Executor(provider="gateway")
    with pytest.raises(ValueError, match="unknown kernel provider"):
        Executor(provider="kubernetes")
    monkeypatch.setenv("MLESTAR_GATEWAY_URL", "http://127.0.0.1:1")
    monkeypatch.setenv("MLESTAR_GATEWAY_TOKEN", "from-env")
    with Executor(provider="gateway", max_parallel=3) as e:
        assert isinstance(e.provider, GatewayProvider)
        assert e.provider.config.token == "from-env" and e.provider.max_kernels == 3
    with Executor() as e:
        assert e.provider is None  # local stays the default


def test_gateway_error_pickles_and_says_what_to_check() -> None:
    err = GatewayError("http://h:1", "unreachable: refused", "check that it is running")
    back = pickle.loads(pickle.dumps(err))
    assert (
        str(back)
        == str(err)
        == "gateway at http://h:1 unreachable: refused — check that it is running"
    )
    assert isinstance(back, KernelStartError)


# -- real gateway -------------------------------------------------------------------------------
def test_candidate_runs_remotely_in_the_mapped_workdir(
    ex: Executor, shared: dict[str, Path], gateway: LocalGateway
) -> None:
    wd = shared["local"] / "work" / "c1"
    code1 = (
        "import os, pandas as pd\nprint('cwd', os.getcwd())\ndf = pd.read_csv('input/train.csv')"
    )
    code2 = (
        "df.to_csv('final/submission.csv', index=False)\n"
        "print('threads', os.environ.get('OMP_NUM_THREADS'))\n"
        "print('Final Validation Performance: 0.75')"
    )
    seen: list[str | None] = []
    r = ex.run(nb(code1, code2), input_dir=shared["data"], workdir=wd,
               on_cell_complete=lambda c: seen.append(c.block_id))  # fmt: skip
    assert r.ok, r.error
    assert r.score == 0.75 and seen == ["b1", "b2"] and [c.ok for c in r.cells] == [True, True]
    assert f"cwd {shared['remote'] / 'work' / 'c1'}" in r.stdout  # the kernel used the mapped path
    assert "threads 1" in r.stdout
    assert r.submission_path == str(wd / "final" / "submission.csv")
    assert Path(r.submission_path).read_text().startswith("id,x,target")
    assert os.readlink(wd / "input") == "../../data"  # relative: resolves on both sides
    assert not r.sandboxed and r.peak_memory_mb is None and r.workdir == str(wd)
    assert wait_for(lambda: gateway.kernels() == [])  # the kernel was deleted after its run


@pytest.mark.skipif(
    not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2,
    reason="needs two CPUs to give the remote kernels fewer than this process has",
)
def test_the_remote_kernels_describe_their_own_machine(
    shared: dict[str, Path], tmp_path: Path
) -> None:
    """A gateway whose kernels may use one core (``taskset``'s way: the CPU affinity its kernels
    inherit) while this process has more: the executor reports the kernels' one core, not ours."""
    mine = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(mine)})  # the gateway and its kernels inherit one core
    try:
        gw = LocalGateway(token=TOKEN, log_path=tmp_path / "gateway.log").start()
    finally:
        os.sched_setaffinity(0, mine)
    try:
        with Executor(
            provider="gateway", gateway_url=gw.url, gateway_token=TOKEN, timeout=120,
            path_map={str(shared["local"]): str(shared["remote"])}, max_parallel=1,
        ) as e:  # fmt: skip  # no thread count given: the remote machine's cores decide it
            wd = shared["local"] / "work" / "machine"
            remote = e.describe_machine(input_dir=shared["data"], workdir=wd)
            threads = "import os\nprint('threads', os.environ.get('OMP_NUM_THREADS'))"
            after = e.run(nb(threads), input_dir=shared["data"], workdir=shared["local"] / "w2")
    finally:
        gw.stop()
    here = machine.describe_machine()
    assert remote is not None and here["cpus"] >= 2
    assert remote["cpus"] == 1
    assert (remote["python"], remote["packages"]) == (here["python"], here["packages"])
    assert "threads 1" in after.stdout  # one kernel at a time on the remote machine's one core


def test_the_remote_cores_do_not_override_a_thread_count_given() -> None:
    given = GatewayProvider(GatewayConfig(url="http://127.0.0.1:9", token=TOKEN))
    given.bind(max_parallel=2, preimport=(), threads=3)
    given.share_cores(64)
    assert given.run_env(None)["OMP_NUM_THREADS"] == "3"
    unset = GatewayProvider(GatewayConfig(url="http://127.0.0.1:9", token=TOKEN))
    unset.bind(max_parallel=2, preimport=(), threads=None)
    assert "OMP_NUM_THREADS" not in unset.run_env(None)
    unset.share_cores(64)
    assert unset.run_env(None)["OMP_NUM_THREADS"] == "32"  # its share: 64 cores, two kernels


def test_data_outside_the_work_area_is_linked_by_its_remote_path(
    gateway: LocalGateway, shared: dict[str, Path], tmp_path: Path
) -> None:
    other = tmp_path / "other-remote"
    other.mkdir()
    (tmp_path / "other-local").symlink_to(other, target_is_directory=True)
    (other / "train.csv").write_text("id\n7\n")
    pmap = {str(shared["local"]): str(shared["remote"]), str(tmp_path / "other-local"): str(other)}
    cfg = GatewayConfig(url=gateway.url, token=TOKEN, path_map=pmap)
    wd = shared["local"] / "work" / "c2"
    with Executor(provider=GatewayProvider(cfg), timeout=60) as e:
        r = e.run(nb("print(open('input/train.csv').read().split()[1])"),
                  input_dir=tmp_path / "other-local", workdir=wd)  # fmt: skip
    assert r.ok, r.error
    assert r.stdout.strip() == "7"
    assert os.readlink(wd / "input") == str(other)  # the remote path (dangling here is fine)


def test_infinite_loop_is_interrupted_and_deleted_at_the_timeout(
    ex: Executor, shared: dict[str, Path], gateway: LocalGateway
) -> None:
    t0 = time.monotonic()
    r = ex.run(nb("import os\nprint('pid', os.getpid())", "while True:\n    pass"),
               input_dir=shared["data"], workdir=shared["local"] / "work" / "loop", timeout=3)  # fmt: skip
    elapsed = time.monotonic() - t0
    assert r.timed_out and not r.ok and r.failed_block == "b2", repr(r.cells).replace("\n", " ")
    assert r.cells[1].error_name == "Timeout"
    assert elapsed < 3 + 25  # the limit, plus a kernel start and the interrupt + delete
    pid = int(r.stdout.split()[1])
    assert wait_for(lambda: gone(pid))  # the remote kernel process is gone
    assert wait_for(lambda: gateway.kernels() == [])


def test_kernel_exit_is_a_dead_kernel_not_a_gateway_failure(
    ex: Executor, shared: dict[str, Path]
) -> None:
    r = ex.run(nb("print('before')", "import os\nos._exit(3)"),
               input_dir=shared["data"], workdir=shared["local"] / "work" / "exit", timeout=30)  # fmt: skip
    assert not r.ok and r.kernel_died and r.failed_block == "b2"
    assert "died" in r.error and "gateway at" not in r.error


def test_missing_mapping_fails_with_a_clear_workdir_error(
    gateway: LocalGateway, shared: dict[str, Path]
) -> None:
    pmap = {str(shared["local"]): "/nonexistent/remote/mount"}
    with Executor(provider="gateway", gateway_url=gateway.url, gateway_token=TOKEN,
                  path_map=pmap, timeout=30) as e:  # fmt: skip
        r = e.run(
            nb("print(1)"), input_dir=shared["data"], workdir=shared["local"] / "work" / "nomap"
        )
    assert not r.ok and "/nonexistent/remote/mount/work/nomap" in r.error and "path_map" in r.error


def test_wrong_token_is_a_clear_failed_result(
    gateway: LocalGateway, shared: dict[str, Path]
) -> None:
    with Executor(provider="gateway", gateway_url=gateway.url, gateway_token="wrong") as e:
        t0 = time.monotonic()
        r = e.run(
            nb("print(1)"), input_dir=shared["data"], workdir=shared["local"] / "work" / "tok"
        )
    assert not r.ok and time.monotonic() - t0 < 10
    assert f"gateway at {gateway.url} refused the token (HTTP 401" in r.error
    assert "MLESTAR_GATEWAY_TOKEN" in r.error and "wrong" not in r.error


def test_gateway_down_is_a_clear_failed_result(shared: dict[str, Path]) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    with Executor(provider="gateway", gateway_url=url, gateway_token=TOKEN) as e:
        r = e.run(
            nb("print(1)"), input_dir=shared["data"], workdir=shared["local"] / "work" / "down"
        )
    assert not r.ok
    assert (
        r.error.startswith(f"gateway at {url} unreachable:")
        and "check that it is running" in r.error
    )
    assert isinstance(ExecutionResult.from_json(r.to_json()), ExecutionResult)


def test_concurrency_limit_per_provider(gateway: LocalGateway, shared: dict[str, Path]) -> None:
    code = "import time\nt0 = time.time()\ntime.sleep(1.0)\nprint('span', t0, time.time())"
    cfg = GatewayConfig(url=gateway.url, token=TOKEN, max_kernels=1,
                        path_map={str(shared["local"]): str(shared["remote"])})  # fmt: skip
    with Executor(provider=GatewayProvider(cfg), max_parallel=2, timeout=60) as e:

        async def both() -> list[ExecutionResult]:
            return await asyncio.gather(*(
                e.arun(nb(code), input_dir=shared["data"], workdir=shared["local"] / "work" / f"p{i}")
                for i in range(2)
            ))  # fmt: skip

        results = asyncio.run(both())
    assert all(r.ok for r in results), [r.error for r in results]
    (a0, a1), (b0, b1) = ([float(x) for x in r.stdout.split()[1:3]] for r in results)
    assert a1 <= b0 or b1 <= a0  # max_kernels=1: the two runs did not overlap


def test_warm_remote_pool_serves_each_kernel_once(
    gateway: LocalGateway, shared: dict[str, Path]
) -> None:
    pmap = {str(shared["local"]): str(shared["remote"])}
    code = (
        "import sys, threadpoolctl\n"
        "print('fresh' if 'marker' not in globals() else 'reused', 'numpy' in sys.modules)\n"
        "print(sorted({p['num_threads'] for p in threadpoolctl.threadpool_info()}))\n"
        "marker = 1"
    )
    # the gateway's kernels inherit OMP_NUM_THREADS=1; the cap of 2 must reach numpy's BLAS,
    # which the warm kernel loaded before the run
    with Executor(provider="gateway", gateway_url=gateway.url, gateway_token=TOKEN, path_map=pmap,
                  pool_size=1, preimport=("numpy",), threads_per_kernel=2, timeout=60) as e:  # fmt: skip
        e.warm_up(timeout=60)
        assert e.provider.pool.ready_count == 1
        r = e.run(nb(code), input_dir=shared["data"], workdir=shared["local"] / "work" / "warm")
        assert r.ok and r.stdout.split()[:2] == ["fresh", "True"], r.stdout  # preimported, unused
        assert r.stdout.splitlines()[1] == "[2]", r.stdout
        assert e.provider.pool.handed_out == 1
        e.warm_up(timeout=60)  # its replacement is warming
    assert wait_for(lambda: gateway.kernels() == [])  # close() deleted the warm one too


def test_gateway_killed_mid_run(shared: dict[str, Path], tmp_path: Path) -> None:
    """The running candidate and the queued ones fail with a clear reason; nothing hangs."""
    gw = LocalGateway(token=TOKEN, log_path=tmp_path / "gw.log").start()
    pmap = {str(shared["local"]): str(shared["remote"])}
    started = threading.Event()
    try:
        with Executor(provider="gateway", gateway_url=gw.url, gateway_token=TOKEN, path_map=pmap,
                      max_parallel=1, timeout=60) as e:  # fmt: skip
            loop_nb = nb("print('started')", "import time\nwhile True:\n    time.sleep(0.1)")
            results: list[ExecutionResult] = []

            def run_all() -> None:
                for i in range(3):
                    results.append(e.run(
                        loop_nb, input_dir=shared["data"], workdir=shared["local"] / "work" / f"k{i}",
                        on_cell_complete=lambda c: started.set(),
                    ))  # fmt: skip

            worker = threading.Thread(target=run_all)
            t0 = time.monotonic()
            worker.start()
            assert started.wait(60), "the first candidate never started"
            time.sleep(0.5)
            gw.kill()
            worker.join(45)
            assert not worker.is_alive(), "the run hung after the gateway died"
            elapsed = time.monotonic() - t0
    finally:
        gw.stop()  # also ends the orphaned kernels
    assert len(results) == 3 and elapsed < 60
    first, *later = results
    assert not first.ok and not first.kernel_died and not first.timed_out
    assert first.error.startswith(f"gateway at {gw.url} unreachable") and "mid-way" in first.error
    assert [c.ok for c in first.cells] == [True] and "started" in first.stdout
    for r in later:
        assert not r.ok and r.error.startswith(f"gateway at {gw.url} unreachable")
        assert "check that it is running" in r.error
