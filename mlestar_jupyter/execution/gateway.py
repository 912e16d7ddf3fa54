"""The ``gateway`` kernel provider: each candidate runs on a fresh remote kernel that a Jupyter
Kernel Gateway (or Enterprise Gateway) starts, reached through its REST and websocket API.

Data model (shared storage, see docs/gateway.md): the task's data and the candidate's work
folder lie on storage both sides mount; ``PathMap`` turns local paths into the kernel's paths.
The kernel's first step is ``os.chdir(<remote workdir>)``; ``./input`` is a symlink to the data
(relative when data and work folder share a mapping entry, so it resolves on both sides).  The
data must be read-only for the remote kernel's user (a read-only mount); the executor checks
the data's digest after each run and fails a run that changed it.

Limits: ``max_kernels`` candidate kernels at once; a timeout interrupts, then deletes the
kernel through the gateway.  Failures of the gateway itself (down, wrong token, lost mid-run)
become failed ``ExecutionResult``s whose error says so; the search goes on.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import logging
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from queue import Empty
from typing import Any

from .errors import KernelDied, KernelLost, WorkdirError
from .gateway_client import ChannelClient, GatewayError, GatewayHTTP
from .gateway_config import GatewayConfig, GatewayConfigError, PathMap
from .inputs import INPUT_ON_PATH, make_workdir, stat_digest
from .pool import KernelPool
from .result import ExecutionResult
from .sandbox import THREAD_VARS

log = logging.getLogger(__name__)
SUBMISSION_CLOCK_SLACK = 30.0  # seconds: the storage server's clock may differ from ours
ENTER_CODE = """\
import os as _mlestar_os, sys as _mlestar_sys
_mlestar_os.chdir({remote!r})
if not _mlestar_os.path.isdir('final'):
    raise FileNotFoundError('no ./final in ' + {remote!r} + ': not the shared work folder')
if not _mlestar_os.path.isdir('input'):
    raise FileNotFoundError('./input does not resolve to the data folder ' + {data!r})
_mlestar_os.environ.update({env})
if {threads}:  # a warm kernel imported its libraries already: cap their pools directly
    try:
        import threadpoolctl as _mlestar_tp
        _mlestar_tp.threadpool_limits({threads})
        del _mlestar_tp
    except Exception:  # noqa: BLE001 - in the kernel: threadpoolctl missing or refusing
        pass
    if 'torch' in _mlestar_sys.modules:
        _mlestar_sys.modules['torch'].set_num_threads({threads})
_mlestar_sys.path[:] = [p for p in _mlestar_sys.path if p != '']
_mlestar_sys.path.insert(0, '')
{input_on_path}del _mlestar_os, _mlestar_sys
"""


@dataclass
class RemoteKernel:
    """A kernel on the gateway, used for one candidate and then deleted."""

    kernel_id: str
    kc: ChannelClient
    http: GatewayHTTP
    paths: PathMap
    loop: asyncio.AbstractEventLoop
    spec: str
    warm: bool = False
    data_remote: str = ""  # where ./input points on the remote side (for error messages)
    started_at: float = field(default_factory=time.monotonic)
    km: Any = None  # nbclient is handed our client directly; there is no local manager
    pid: int | None = None  # a remote process: no local memory sampling
    deleted: bool = False

    async def is_alive(self) -> bool:
        """Whether the websocket is open and the kernel was not reported dead."""
        return not self.deleted and await self.kc.is_alive()

    async def run_silent(self, code: str, timeout: float) -> dict[str, Any]:
        """Run ``code`` without output or history; returns the execute reply's content."""
        msg_id = self.kc.execute(code, silent=True, store_history=False, allow_stdin=False)
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"no reply within {timeout:g}s")
            try:
                msg = await self.kc.shell_channel.get_msg(timeout=min(remaining, 1.0))
            except Empty:  # check the connection, then keep waiting
                if not await self.is_alive():
                    raise KernelLost(detail=self.kc.closed_reason or "") from None
                continue
            if msg.get("parent_header", {}).get("msg_id") == msg_id:
                return dict(msg.get("content") or {})

    async def enter(self, workdir: Path, env: dict[str, str], timeout: float = 30) -> None:
        """``os.chdir`` to the remote path of ``workdir`` and apply ``env``."""
        remote = self.paths.to_remote(workdir)
        threads = int(env.get("OMP_NUM_THREADS", "0") or 0)
        code = ENTER_CODE.format(
            remote=remote,
            data=self.data_remote,
            env=json.dumps(env),
            threads=threads,
            input_on_path=INPUT_ON_PATH,
        )
        try:
            reply = await self.run_silent(code, timeout)
        except (TimeoutError, KernelDied) as e:
            problem = await self.http.probe()
            if problem is not None:
                raise problem from None
            raise WorkdirError(str(workdir), f"the remote kernel could not enter it: {e}") from None
        if reply.get("status") != "ok":
            raise WorkdirError(
                str(workdir),
                f"the remote kernel could not enter it as {remote}: {reply.get('ename')}: "
                f"{reply.get('evalue')}; check path_map and that the gateway's host mounts the "
                "shared storage there (the data folder too)",
            )

    async def terminate(self) -> None:
        """Interrupt the kernel, then delete it through the gateway (idempotent)."""
        if self.deleted:
            return
        self.deleted = True
        alive = await self.kc.is_alive()
        self.kc.freeze("the kernel was interrupted and deleted by the executor")
        if alive:
            with contextlib.suppress(GatewayError):
                await self.http.interrupt(self.kernel_id)
        try:
            await self.http.delete(self.kernel_id)
        except GatewayError as e:
            log.warning("could not delete remote kernel %s: %s", self.kernel_id, e)
        finally:
            self.kc.stop_channels()

    def kill(self) -> list[int]:
        """Interrupt and delete the kernel now; callable from any thread (the timeout path)."""
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self.loop:  # cannot block our own loop: finish in the background
            self.loop.create_task(self.terminate())
            return []
        fut = asyncio.run_coroutine_threadsafe(self.terminate(), self.loop)
        with contextlib.suppress(concurrent.futures.TimeoutError, Exception):
            fut.result(timeout=45)
        return []

    async def shutdown(self) -> None:
        """Delete the kernel and close its websocket."""
        await self.terminate()


class GatewayLauncher:
    """Starts ready remote kernels (the ``KernelPool`` launcher interface)."""

    def __init__(
        self, config: GatewayConfig, http: GatewayHTTP, preimport: tuple[str, ...] = ()
    ) -> None:
        self.config = config
        self.http = http
        self.preimport = preimport
        self.startup_timeout = config.startup_timeout  # KernelPool reads it
        self.dropped_env: list[str] = []  # nothing is forwarded from our environment

    async def start(
        self, *, cwd: Path | None = None, warm: bool = False, spec: str | None = None
    ) -> RemoteKernel:
        """Start a kernel of ``spec`` (default: ``kernel_spec``) and wait until it answers.

        ``cwd`` is ignored: the kernel enters the work folder in ``RemoteKernel.enter``.
        Raises ``GatewayError`` (a ``KernelStartError``) when the gateway cannot be used.
        """
        spec = spec or self.config.kernel_spec
        kernel_id = await self.http.start_kernel(spec)
        kc = ChannelClient(self.config, kernel_id)
        kernel = RemoteKernel(
            kernel_id, kc, self.http, self.config.path_map, asyncio.get_running_loop(), spec,
            warm=warm,
        )  # fmt: skip
        try:
            await kc.connect()
            await kc.wait_for_ready(self.config.startup_timeout)
            if warm and self.preimport:
                await kernel.run_silent(
                    _preimport_code(self.preimport), self.config.startup_timeout
                )
            return kernel
        except BaseException as e:  # never leak a remote kernel, also on cancellation
            with contextlib.suppress(Exception):
                await asyncio.shield(kernel.terminate())
            if isinstance(e, GatewayError) or not isinstance(e, Exception):
                raise
            problem = await self.http.probe()
            if problem is not None:
                raise problem from None
            raise GatewayError(
                self.config.url, f"started kernel {kernel_id} but it never became ready: {e}",
                f"check that the {spec!r} kernel spec works on the gateway's host",
            ) from None  # fmt: skip


def _preimport_code(mods: tuple[str, ...]) -> str:
    return (
        "def _mlestar_pre(mods):\n"
        "    import importlib\n"
        "    for m in mods:\n"
        "        try:\n"
        "            importlib.import_module(m)\n"
        "        except Exception:  # noqa: BLE001 - in the kernel: the cell that needs it fails\n"
        "            pass\n"
        f"_mlestar_pre({list(mods)!r})\n"
        "del _mlestar_pre\n"
    )


@dataclass
class Prepared:
    """What ``prepare`` learned before a run (to check the data afterwards)."""

    source: Path
    source_digest: str


class GatewayProvider:
    """Runs candidates on remote kernels of one gateway (see the module docstring).

    Pass it as ``Executor(provider=GatewayProvider(GatewayConfig(...)))`` or let the executor
    build it from ``provider="gateway", gateway_url=..., gateway_token=...``.
    """

    name = "gateway"

    def __init__(self, config: GatewayConfig, *, preimport: tuple[str, ...] | None = None) -> None:
        self.config = config
        self.http = GatewayHTTP(config)
        self._preimport = preimport
        self.launcher = GatewayLauncher(config, self.http, tuple(preimport or ()))
        self.pool = KernelPool(self.launcher, config.pool_size)  # type: ignore[arg-type]
        self.max_kernels = config.max_kernels
        self._limit: asyncio.Semaphore | None = None
        self.kernel_name = config.kernel_spec
        self.warnings: list[str] = []
        self.sandboxed = False  # isolation is the gateway host's business (docs/gateway.md)

    def bind(self, *, max_parallel: int, preimport: tuple[str, ...], threads: int | None) -> None:
        """Take the executor's settings where this provider has none of its own."""
        if self.max_kernels is None:
            self.max_kernels = max_parallel
        if self._preimport is None:
            self.launcher.preimport = tuple(preimport)
        if threads is not None and self.config.threads_per_kernel is None:
            self._threads: int | None = threads
        else:
            self._threads = self.config.threads_per_kernel

    def share_cores(self, cpus: int) -> None:
        """The remote machine has ``cpus`` cores (its kernels said so): cap each kernel's thread
        pools at its share of them, unless a thread count was set (the executor's
        ``threads_per_kernel`` or the ``GatewayConfig``'s)."""
        if getattr(self, "_threads", None) is None:
            self._threads = max(1, int(cpus) // max(1, self.max_kernels or 1))

    def describe(self) -> str:
        """One line for logs (no token)."""
        return self.config.redacted()

    # -- before / after a run (on a worker thread) ------------------------------------------
    def prepare(self, input_dir: Path, workdir: Path) -> tuple[Prepared, Path]:
        """Lay out ``workdir`` (``final/``, ``working/``, ``input`` → the data) on shared storage."""
        src = Path(input_dir).absolute()
        if not src.is_dir():
            raise WorkdirError(
                str(input_dir), "input folder not found; pass the task's data folder"
            )
        link = make_workdir(workdir)
        workdir = link.parent
        paths = self.config.path_map
        if paths.same_area(src, workdir):  # the same relative path works on both sides
            link.symlink_to(os.path.relpath(src, workdir), target_is_directory=True)
        else:
            link.symlink_to(paths.to_remote(src), target_is_directory=True)
        return Prepared(src, stat_digest(src)), workdir

    def finish(
        self, prepared: Prepared, workdir: Path, result: ExecutionResult, started: float
    ) -> None:
        """Check the data is unchanged and report ``final/submission.csv``."""
        if stat_digest(prepared.source) != prepared.source_digest:
            result.input_modified = True
            result.warnings.append(
                f"the input {prepared.source} changed during the run; mount it read-only on the "
                "gateway's host (docs/gateway.md)"
            )
            if result.ok:
                result.ok = False
                result.error = "the original input folder changed during the run"
        sub = workdir / "final" / "submission.csv"
        if sub.is_file() and sub.stat().st_mtime >= started - SUBMISSION_CLOCK_SLACK:
            result.submission_path = str(sub)

    # -- kernels (on the executor's loop) ---------------------------------------------------
    def _semaphore(self) -> asyncio.Semaphore:
        if self._limit is None:
            self._limit = asyncio.Semaphore(self.max_kernels or 1)
        return self._limit

    async def acquire(self, workdir: Path, gpu: str | None) -> RemoteKernel:
        """A ready remote kernel for one candidate (waits while ``max_kernels`` are busy)."""
        limit = self._semaphore()
        await limit.acquire()
        try:
            if gpu is not None and self.config.gpu_kernel_spec:
                kernel = await self.launcher.start(spec=self.config.gpu_kernel_spec)
            else:
                kernel = await self.pool.acquire(workdir)  # type: ignore[assignment]  # the pool hands out RemoteKernels here
        except BaseException:
            limit.release()
            raise
        with contextlib.suppress(OSError):
            kernel.data_remote = os.readlink(workdir / "input")
        return kernel

    def run_env(self, gpu: str | None) -> dict[str, str]:
        """Environment updates the kernel applies before the candidate's first cell."""
        env: dict[str, str] = {}
        threads = getattr(self, "_threads", self.config.threads_per_kernel)
        if threads:
            env.update(dict.fromkeys(THREAD_VARS, str(threads)))
            env["OMP_WAIT_POLICY"] = "PASSIVE"
        if gpu is not None and not self.config.gpu_kernel_spec:
            env["CUDA_VISIBLE_DEVICES"] = gpu  # ids of the gateway host's GPUs
        return env

    async def review(self, kernel: RemoteKernel, result: ExecutionResult) -> None:
        """Turn a run cut off by the gateway into a failure that says so (not the candidate's)."""
        if result.ok or result.timed_out or not result.kernel_died:
            return
        problem = await self.http.probe()
        if problem is None:
            if kernel.kc.closed_reason:
                result.warnings.append(
                    f"remote kernel {kernel.kernel_id}: {kernel.kc.closed_reason}"
                )
            return
        if result.cells and result.cells[-1].error_name == "KernelDied":
            result.cells.pop()  # the cell did not fail: the gateway went away under it
        result.kernel_died = False
        result.failed_block = None
        result.error = f"{problem}; the run was cut off mid-way (an infrastructure failure)"

    async def discard(self, kernel: RemoteKernel) -> None:
        """Delete a used kernel and free its place under ``max_kernels``."""
        try:
            await kernel.terminate()
        finally:
            self._semaphore().release()

    async def warm_up(self, timeout: float) -> None:
        """Block until the warm pool of remote kernels is full (no-op with ``pool_size=0``)."""
        if self.pool.size:
            await self.pool.wait_ready(timeout)

    def start(self) -> None:
        """Begin filling the warm pool (call on the executor's loop)."""
        if self.pool.size:
            self.pool.fill()

    async def close(self) -> None:
        """Delete warm kernels and close the HTTP connections."""
        try:
            await self.pool.close()
        finally:
            await self.http.aclose()


def make_gateway_provider(
    *,
    url: str | None,
    token: str | None,
    path_map: dict[str, str] | PathMap | None,
    kernel_spec: str | None,
    gpu_kernel_spec: str | None,
    pool_size: int,
) -> GatewayProvider:
    """The provider ``Executor(provider="gateway", ...)`` builds.  Arguments left as None come
    from ``MLESTAR_GATEWAY_URL``/``_TOKEN``/``_PATH_MAP``/``_KERNEL_SPEC``/``_GPU_KERNEL_SPEC``."""
    given = {
        "url": url, "token": token, "path_map": path_map, "kernel_spec": kernel_spec,
        "gpu_kernel_spec": gpu_kernel_spec,
    }  # fmt: skip
    overrides: dict[str, Any] = {k: v for k, v in given.items() if v is not None}
    overrides["pool_size"] = pool_size
    config = GatewayConfig.from_env(**overrides)
    if config is None:
        raise GatewayConfigError(
            "provider='gateway' needs gateway_url= or the MLESTAR_GATEWAY_URL variable"
        )
    return GatewayProvider(config)
