"""``Executor``: run a solution notebook in a fresh sandboxed kernel and report an ``ExecutionResult``.

Layout of a run's work folder (the kernel's cwd)::

    workdir/input    -> read-only view of the task's data (symlink; last on sys.path)
    workdir/final/   the candidate writes submission.csv here
    workdir/working/ scratch

All kernel work happens on one background event loop owned by the executor (``loop.py``), so
``run`` may be called from many threads at once and ``arun`` from any event loop.  Kernels come
from ``LocalKernels`` (``local.py``: sandbox, scratch folder, warm pool) or from a remote
``KernelProvider`` (``provider.py``); the executor schedules runs over them and reports.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import logging
import threading
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from ..notebook import NoCodeCellsError, SolutionNotebook
from .errors import ExecutionCancelled, ExecutionError, ExecutorMisuse
from .jail import Jail, SandboxInfo
from .kernels import KernelLauncher
from .local import LocalKernels, LocalSettings
from .loop import LoopThread
from .machine import describe_machine, probe_code, read_probe, usable_cpus
from .pool import KernelPool, Slots
from .provider import KernelProvider, execute_remote, resolve_provider
from .result import CellOutcome, ExecutionResult
from .sandbox import Identity

log = logging.getLogger(__name__)
COMMON_PREIMPORTS = (
    "numpy", "pandas", "sklearn", "sklearn.model_selection", "sklearn.metrics",
    "sklearn.linear_model", "sklearn.ensemble", "sklearn.preprocessing", "sklearn.pipeline",
)  # fmt: skip
"""A good ``preimport`` for tabular tasks: what most candidates import first."""
OnCellComplete = Callable[[CellOutcome], Any]


class Executor:
    """Runs solution notebooks in sandboxed, single-use kernels (see the module docstring).

    Besides the settings commented below: ``sandbox_user`` is the user kernels drop to when
    the executor runs as root (``None``: no drop); ``scratch_dir`` holds kernel folders and
    input views (put it on the data's filesystem so views can hard-link instead of copy);
    ``startup_timeout`` bounds a kernel's start.  Use it as a context manager, or ``close()``.
    ``jail``: wrap each local kernel in a bubblewrap jail when ``bwrap`` works here (own PID
    namespace, no network unless ``network``, only the work folder, the input view and the
    Python installation mounted; see jail.py); where it does not, a warning says so once and
    kernels get the user switch only.  A warm jailed kernel, started before its run is known,
    mounts its own empty folder and the input views; the run's work folder is moved into that
    folder for the run and back after (a link stands in meanwhile); a work folder on another
    filesystem gets a fresh kernel that mounts it.  ``sandbox`` says which sandbox kernels get.

    ``provider`` picks where kernels come from: ``"local"`` (this machine, the default) or
    ``"gateway"`` (remote kernels through a Jupyter Kernel Gateway at ``gateway_url`` with
    ``gateway_token``; ``path_map`` maps local to remote paths of the shared storage;
    ``kernel_spec``/``gpu_kernel_spec`` name the remote kernel specs; unset ones come from the
    ``MLESTAR_GATEWAY_*`` variables), or a provider object such as ``GatewayProvider``.
    See docs/gateway.md.
    """

    def __init__(
        self,
        *,
        timeout: float = 600,
        kernel_name: str = "python3",
        pool_size: int = 0,
        threads_per_kernel: int | None = None,
        memory_limit_mb: int | None = None,
        gpu_ids: list[str] | None = None,
        max_parallel: int = 1,
        extra_env: dict[str, str] | None = None,
        preimport: tuple[str, ...] = (),
        sandbox_user: str | None = "nobody",
        scratch_dir: str | Path | None = None,
        startup_timeout: float = 60,
        provider: str | KernelProvider = "local",
        gateway_url: str | None = None,
        gateway_token: str | None = None,
        path_map: dict[str, str] | None = None,
        kernel_spec: str | None = None,
        gpu_kernel_spec: str | None = None,
        jail: bool = True,
        network: bool = False,
    ) -> None:
        self.provider = resolve_provider(
            provider, gateway_url=gateway_url, gateway_token=gateway_token, path_map=path_map,
            kernel_spec=kernel_spec, gpu_kernel_spec=gpu_kernel_spec, pool_size=pool_size,
        )  # fmt: skip  # None: local kernels
        self.timeout = timeout  # default wall-clock limit per run (seconds)
        self.kernel_name = kernel_name  # kernelspec of a Python kernel
        self.pool_size = pool_size  # warm kernels kept ready (0: start one per run)
        self.max_parallel = max(1, int(max_parallel))  # runs at once
        self.threads_per_kernel = threads_per_kernel or max(1, usable_cpus() // self.max_parallel)
        self.memory_limit_mb = memory_limit_mb  # RLIMIT_AS per kernel
        self.gpu_ids = list(gpu_ids) if gpu_ids else None  # one run per GPU, round-robin
        self.preimport = tuple(preimport)  # modules warm kernels import ahead of use
        self.local = LocalKernels(
            LocalSettings(
                kernel_name=kernel_name, sandbox_user=sandbox_user, jail=jail, network=network,
                scratch_dir=scratch_dir, threads=self.threads_per_kernel,
                memory_limit_mb=memory_limit_mb, extra_env=extra_env, preimport=self.preimport,
                startup_timeout=startup_timeout, pool_size=pool_size,
            ),
            remote=self.provider is not None,
        )  # fmt: skip
        self.warnings: list[str] = list(self.local.warnings)
        self.sandbox = self.local.sandbox
        if self.provider is not None:
            self._bind(self.provider, threads_per_kernel)
        self.slots = Slots(self.max_parallel, self.gpu_ids)
        self._loop = LoopThread()
        self._closed = False
        self._runs_lock = threading.Lock()  # guards the two below (``run`` vs ``cancel_all``)
        self._in_flight: set[concurrent.futures.Future[ExecutionResult]] = set()
        self._cancelled = False
        self._cleanups: set[asyncio.Task[None]] = set()
        if pool_size:
            self._loop.submit(self._fill())

    def _bind(self, provider: KernelProvider, threads: int | None) -> None:
        """Hand the settings to a remote provider; its warnings and sandbox replace the local ones."""
        provider.bind(max_parallel=self.max_parallel, preimport=self.preimport, threads=threads)
        self.warnings = list(provider.warnings)
        self.sandbox = SandboxInfo("gateway", "the gateway's kernel user", True, "remote kernels")

    # the local side's parts, under the names callers (and tests) know them by
    @property
    def root(self) -> Path:
        """The scratch folder of this executor (kernel folders and input views)."""
        return self.local.root

    @property
    def pool(self) -> KernelPool:
        """The warm pool of local kernels (empty with a remote provider)."""
        return self.local.pool

    @property
    def jail(self) -> Jail | None:
        """The bubblewrap jail local kernels run in (None: none)."""
        return self.local.jail

    @property
    def identity(self) -> Identity:
        """The user local kernels run as."""
        return self.local.identity

    @property
    def launcher(self) -> KernelLauncher:
        """Starts local kernels."""
        return self.local.launcher

    async def _fill(self) -> None:
        if self.provider is not None:
            self.provider.start()
        else:
            self.pool.fill()

    # -- public API ---------------------------------------------------------------------------
    def warm_up(self, timeout: float = 120) -> None:
        """Block until the warm pool is full (no-op with ``pool_size=0``)."""
        if self.pool_size:
            waiting = (
                self.provider.warm_up(timeout) if self.provider else self.pool.wait_ready(timeout)
            )
            self._loop.submit(waiting).result()

    async def arun(
        self,
        notebook: SolutionNotebook,
        *,
        input_dir: Path,
        workdir: Path,
        timeout: float | None = None,
        on_cell_complete: OnCellComplete | None = None,
    ) -> ExecutionResult:
        """Run ``notebook`` in ``workdir`` with ``input_dir`` as ``./input``.

        Failures of the candidate (errors, timeout, kernel death) come back as a failed result;
        ``WorkdirError`` is raised for an unusable input or work folder.  ``on_cell_complete``
        (sync or async) gets each ``CellOutcome``; it runs on the executor's loop thread.
        """
        coro = self._arun(notebook, Path(input_dir), Path(workdir), timeout, on_cell_complete)
        try:
            if asyncio.get_running_loop() is self._loop.loop:
                return await coro
        except RuntimeError:
            pass
        self._check_open()
        return await asyncio.wrap_future(self._loop.submit(coro))

    def run(
        self,
        notebook: SolutionNotebook,
        *,
        input_dir: Path,
        workdir: Path,
        timeout: float | None = None,
        on_cell_complete: OnCellComplete | None = None,
    ) -> ExecutionResult:
        """Blocking ``arun``; safe from many threads (at most ``max_parallel`` run at once)."""
        self._check_open()
        if threading.current_thread() is self._loop.thread:
            raise ExecutorMisuse(
                "Executor.run was called on the executor's own loop (e.g. from on_cell_complete): "
                "await Executor.arun there instead"
            )
        coro = self._arun(notebook, Path(input_dir), Path(workdir), timeout, on_cell_complete)
        with self._runs_lock:
            if self._cancelled:
                coro.close()
                raise ExecutionCancelled("the run was cancelled: the search is stopping")
            future = self._loop.submit(coro)
            self._in_flight.add(future)
        try:
            return future.result()
        except concurrent.futures.CancelledError:
            raise ExecutionCancelled("the run was cancelled: the search is stopping") from None
        finally:
            with self._runs_lock:
                self._in_flight.discard(future)

    def describe_machine(
        self, *, input_dir: Path, workdir: Path, timeout: float = 60
    ) -> dict[str, Any] | None:
        """What the kernels' machine offers (``machine.describe_machine``): this machine's own
        answer for local kernels; a remote provider's kernel is asked (``input_dir`` and
        ``workdir`` as for ``run``), and ``None`` comes back when it cannot answer.  A remote
        provider given no thread count caps its kernels at their share of the cores answered."""
        if self.provider is None:
            return describe_machine()
        result = self.run_script(
            probe_code(), input_dir=input_dir, workdir=workdir, timeout=timeout
        )
        answer = read_probe(result.stdout)
        if answer is None:
            log.warning("the remote kernels did not describe their machine: %s", result.error)
        elif hasattr(self.provider, "share_cores"):  # threads by the remote machine's cores
            self.provider.share_cores(answer["cpus"])
        return answer

    def cancel_all(self) -> None:
        """Cancel every ``run`` in flight (its kernel is killed; the caller gets
        ``ExecutionCancelled``) and refuse new ones: for a search that is stopping (Ctrl-C)."""
        with self._runs_lock:
            self._cancelled = True
            futures = list(self._in_flight)
        for f in futures:
            f.cancel()

    def run_script(
        self, source: str, *, input_dir: Path, workdir: Path, timeout: float | None = None
    ) -> ExecutionResult:
        """Run a plain Python script as a one-cell notebook (used for ablation scripts)."""
        return self.run(
            script_notebook(source), input_dir=input_dir, workdir=workdir, timeout=timeout
        )

    async def arun_script(
        self, source: str, *, input_dir: Path, workdir: Path, timeout: float | None = None
    ) -> ExecutionResult:
        """Async ``run_script``."""
        return await self.arun(
            script_notebook(source), input_dir=input_dir, workdir=workdir, timeout=timeout
        )

    def close(self) -> None:
        """Shut down warm kernels, stop the loop thread and delete the scratch folder."""
        if self._closed:
            return
        self._closed = True
        try:
            self._loop.submit(self._shutdown()).result(timeout=60)
        except Exception as e:  # noqa: BLE001 - cleanup: a failing shutdown must not hide the caller's error
            log.warning("executor shutdown: %s", e)
        self._loop.stop()
        self.local.remove()

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- one run ------------------------------------------------------------------------------
    def _check_open(self) -> None:
        if self._closed:
            raise ExecutionError("this Executor is closed; create a new one")

    async def _shutdown(self) -> None:
        current = asyncio.current_task()
        await asyncio.gather(*self._cleanups, return_exceptions=True)
        tasks = [t for t in asyncio.all_tasks() if t is not current]
        await self.pool.close()
        if self.provider is not None:
            await self.provider.close()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _arun(
        self,
        notebook: SolutionNotebook,
        input_dir: Path,
        workdir: Path,
        timeout: float | None,
        on_cell_complete: OnCellComplete | None,
    ) -> ExecutionResult:
        limit = float(timeout if timeout is not None else self.timeout)
        side: KernelProvider | LocalKernels = self.provider or self.local
        slot = await self.slots.acquire()
        try:
            started = time.time()
            t0 = time.monotonic()
            prepared, workdir = await asyncio.to_thread(side.prepare, input_dir, workdir)
            try:
                result = await self._execute(notebook, workdir, limit, slot.gpu, on_cell_complete)
            except ExecutionError as e:  # kernel start, entering the workdir
                result = ExecutionResult(ok=False, error=str(e))
            except Exception as e:  # noqa: BLE001 - an executor bug fails this run, not the search
                log.exception("executor failure")
                result = ExecutionResult(ok=False, error=f"executor error: {type(e).__name__}: {e}")
            result.duration = time.monotonic() - t0
            self._annotate(result, workdir, slot.gpu)
            await asyncio.to_thread(side.finish, prepared, workdir, result, started)
            return result
        finally:
            self.slots.release(slot)

    def _annotate(self, result: ExecutionResult, workdir: Path, gpu: str | None) -> None:
        """What the result says about where and how it ran (besides the cells' outcomes)."""
        if self.memory_limit_mb and self.provider is None:
            name_memory_cap(result, self.memory_limit_mb)
        result.workdir, result.gpu = str(workdir), gpu
        result.sandboxed = self.provider.sandboxed if self.provider else self.identity.dropped
        result.warnings[:0] = self.warnings + [
            f"extra_env entry {k} dropped: it looks like a secret"
            for k in self.launcher.dropped_env
        ]

    async def _execute(
        self,
        notebook: SolutionNotebook,
        workdir: Path,
        limit: float,
        gpu: str | None,
        on_cell_complete: OnCellComplete | None,
    ) -> ExecutionResult:
        try:
            notebook.require_code()
        except NoCodeCellsError as e:
            return ExecutionResult(ok=False, error=str(e))
        callback = _safe_callback(on_cell_complete)
        if self.provider is not None:
            return await execute_remote(
                self.provider, notebook, workdir, limit=limit, gpu=gpu,
                on_cell_complete=callback, background=self._background,
            )  # fmt: skip
        return await self.local.execute(
            notebook, workdir, limit=limit, gpu=gpu, on_cell_complete=callback,
            background=self._background,
        )  # fmt: skip

    def _background(self, coro: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._cleanups.add(task)
        task.add_done_callback(self._cleanups.discard)


def name_memory_cap(result: ExecutionResult, megabytes: int) -> None:
    """A run that failed with a ``MemoryError`` under a memory cap says which cap it hit."""
    if result.ok or "MemoryError" not in result.error:
        return
    result.error += (
        f" (this kernel's memory cap is {megabytes} MB of address space, set by --memory-limit / "
        "RunConfig.memory_limit_mb / Executor(memory_limit_mb=...): raise the cap or use less "
        "memory, e.g. subsample or smaller dtypes)"
    )


def _safe_callback(cb: OnCellComplete | None) -> Callable[[CellOutcome], Any] | None:
    if cb is None:
        return None

    async def call(outcome: CellOutcome) -> None:
        try:
            out = cb(outcome)
            if inspect.isawaitable(out):
                await out
        except Exception as e:  # noqa: BLE001 - a broken observer must not fail the run
            log.warning("on_cell_complete raised %s: %s", type(e).__name__, e)

    return call


def script_notebook(source: str) -> SolutionNotebook:
    """A one-cell notebook holding ``source`` (a plain Python script)."""
    return SolutionNotebook.new([("other", source)])


def run_script(
    source: str, *, input_dir: Path, workdir: Path, timeout: float = 600, **executor_kw: Any
) -> ExecutionResult:
    """Run a plain script once in a throwaway ``Executor`` (convenience for one-off runs)."""
    with Executor(timeout=timeout, **executor_kw) as ex:
        return ex.run_script(source, input_dir=input_dir, workdir=workdir)
