"""``Executor``: run a solution notebook in a fresh sandboxed kernel and report an ``ExecutionResult``.

Layout of a run's work folder (the kernel's cwd)::

    workdir/input    -> read-only view of the task's data (symlink)
    workdir/final/   the candidate writes submission.csv here
    workdir/working/ scratch

All kernel work happens on one background event loop owned by the executor, so ``run`` may be
called from many threads at once and ``arun`` from any event loop.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import inspect
import logging
import os
import shutil
import tempfile
import threading
import time
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..notebook import NoCodeCellsError, SolutionNotebook
from .errors import ExecutionCancelled, ExecutionError
from .inputs import InputViews, make_workdir, unseal
from .jail import Jail, SandboxInfo, plan_jail
from .kernels import Kernel, KernelLauncher
from .pool import KernelPool, Slots
from .provider import KernelProvider, resolve_provider
from .result import CellOutcome, ExecutionResult
from .runner import run_cells
from .sandbox import Identity, chown_tree, cpu_count, plan_identity
from .scratch import claim

log = logging.getLogger(__name__)
COMMON_PREIMPORTS = (
    "numpy", "pandas", "sklearn", "sklearn.model_selection", "sklearn.metrics",
    "sklearn.linear_model", "sklearn.ensemble", "sklearn.preprocessing", "sklearn.pipeline",
)  # fmt: skip
"""A good ``preimport`` for tabular tasks: what most candidates import first."""
OnCellComplete = Callable[[CellOutcome], Any]


class _LoopThread:
    """An event loop running in a daemon thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(
            target=self.loop.run_forever, name="mlestar-exec", daemon=True
        )
        self.thread.start()

    def submit(self, coro: Any) -> concurrent.futures.Future[Any]:
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        if not self.thread.is_alive():
            self.loop.close()


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
        self.threads_per_kernel = threads_per_kernel or max(1, cpu_count() // self.max_parallel)
        self.memory_limit_mb = memory_limit_mb  # RLIMIT_AS per kernel
        self.gpu_ids = list(gpu_ids) if gpu_ids else None  # one run per GPU, round-robin
        self.preimport = tuple(preimport)  # modules warm kernels import ahead of use
        self.identity, warning = plan_identity(sandbox_user)
        self.warnings: list[str] = [warning] if warning else []
        self.jail: Jail | None = None
        why = "" if jail else "the jail is turned off (jail=False)"
        if jail and self.provider is None:
            self.jail, why = plan_jail(network=network, identity=self.identity)
            if why:
                self.warnings.append(why)
        if warning:
            log.warning(warning)
        if why and jail:
            log.warning(why)
        self.sandbox = _sandbox_info(self.identity, self.jail, self.provider, why)
        base = Path(scratch_dir) if scratch_dir else Path(tempfile.gettempdir())
        base.mkdir(parents=True, exist_ok=True)
        self.root = Path(tempfile.mkdtemp(prefix="mlestar-exec-", dir=base))
        self._remove_root = weakref.finalize(self, _remove_tree, self.root)  # also at exit
        claim(self.root)  # after a kill -9, 'mlestar clean' knows whose it was
        os.chmod(self.root, 0o711)
        (self.root / "kernels").mkdir(mode=0o711)
        # a jailed kernel keeps no capability: its input view must be readable by plain rights
        viewer = dataclasses.replace(self.identity, prefix=()) if self.jail else self.identity
        self.views = InputViews(self.root / "inputs", viewer, mounted=self.jail is not None)
        (self.root / "inputs").mkdir(mode=0o711)
        self.launcher = KernelLauncher(
            kernel_name=kernel_name, root=self.root / "kernels", identity=self.identity,
            threads=self.threads_per_kernel, memory_limit_mb=memory_limit_mb,
            extra_env=extra_env, preimport=self.preimport, startup_timeout=startup_timeout,
            jail=self.jail,
        )  # fmt: skip
        self.launcher.views_root = self.root / "inputs"
        self.pool = KernelPool(self.launcher, 0 if self.provider else pool_size)
        if self.provider is not None:
            self.provider.bind(
                max_parallel=self.max_parallel, preimport=self.preimport, threads=threads_per_kernel
            )
            self.warnings = list(self.provider.warnings)
        self.slots = Slots(self.max_parallel, self.gpu_ids)
        self._loop = _LoopThread()
        self._closed = False
        self._runs_lock = threading.Lock()  # guards the two below (``run`` vs ``cancel_all``)
        self._in_flight: set[concurrent.futures.Future[ExecutionResult]] = set()
        self._cancelled = False
        self._cleanups: set[asyncio.Task[None]] = set()
        if pool_size:
            self._loop.submit(self._fill())

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
            raise RuntimeError("Executor.run was called on the executor's own loop: use arun")
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
        except Exception as e:  # never let cleanup raise
            log.warning("executor shutdown: %s", e)
        self._loop.stop()
        self._remove_root()

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

    def _prepare(self, input_dir: Path, workdir: Path):  # type: ignore[no-untyped-def]
        if self.provider is not None:
            return self.provider.prepare(input_dir, workdir)
        view = self.views.view(input_dir)
        link = make_workdir(workdir)
        workdir = link.parent
        link.symlink_to(view.path, target_is_directory=True)
        if self.identity.dropped:
            chown_tree(workdir, self.identity.uid, self.identity.gid, skip=("input",))
        return view, workdir

    def _finish(self, view, workdir: Path, result: ExecutionResult, started: float) -> None:  # type: ignore[no-untyped-def]
        if self.provider is not None:
            return self.provider.finish(view, workdir, result, started)
        if self.identity.dropped:
            chown_tree(workdir, os.geteuid(), os.getegid(), skip=("input",))
        source_changed, view_changed = self.views.check(view)
        if source_changed:
            result.input_modified = True
            result.warnings.append(f"the original input {view.source} changed during the run")
            if result.ok:
                result.ok = False
                result.error = "the original input folder changed during the run"
        if view_changed:
            result.warnings.append("the run wrote into ./input; the read-only view was rebuilt")
        sub = workdir / "final" / "submission.csv"
        if sub.is_file() and sub.stat().st_mtime >= started - 1:
            result.submission_path = str(sub)

    async def _arun(
        self,
        notebook: SolutionNotebook,
        input_dir: Path,
        workdir: Path,
        timeout: float | None,
        on_cell_complete: OnCellComplete | None,
    ) -> ExecutionResult:
        limit = float(timeout if timeout is not None else self.timeout)
        slot = await self.slots.acquire()
        try:
            started = time.time()
            t0 = time.monotonic()
            view, workdir = await asyncio.to_thread(self._prepare, input_dir, workdir)
            try:
                result = await self._execute(notebook, workdir, limit, slot.gpu, on_cell_complete)
            except ExecutionError as e:  # kernel start, entering the workdir
                result = ExecutionResult(ok=False, error=str(e))
            except Exception as e:  # an executor bug must not end the search loop
                log.exception("executor failure")
                result = ExecutionResult(ok=False, error=f"executor error: {type(e).__name__}: {e}")
            result.duration = time.monotonic() - t0
            if self.memory_limit_mb and self.provider is None:
                name_memory_cap(result, self.memory_limit_mb)
            result.workdir, result.gpu = str(workdir), slot.gpu
            result.sandboxed = self.provider.sandboxed if self.provider else self.identity.dropped
            result.warnings[:0] = self.warnings + [
                f"extra_env entry {k} dropped: it looks like a secret"
                for k in self.launcher.dropped_env
            ]
            await asyncio.to_thread(self._finish, view, workdir, result, started)
            return result
        finally:
            self.slots.release(slot)

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
        if self.provider is not None:
            return await self._execute_on(
                self.provider, notebook, workdir, limit, gpu, on_cell_complete
            )
        kernel = await self._acquire(workdir)
        lent = await asyncio.to_thread(_lend, workdir, kernel.slot)
        try:
            env = {"CUDA_VISIBLE_DEVICES": gpu} if gpu is not None else {}
            await kernel.enter(lent or workdir, env)
            return await run_cells(
                kernel, notebook.nb, limit=limit, kernel_name=self.kernel_name,
                on_cell_complete=_safe_callback(on_cell_complete),
            )  # fmt: skip
        finally:
            kernel.kill()  # the tree is dead before the result is reported...
            if lent is not None:
                await asyncio.to_thread(_take_back, workdir, lent)
            self._background(kernel.shutdown())  # ...the bookkeeping finishes in the background

    async def _acquire(self, workdir: Path) -> Kernel:
        """A kernel for ``workdir``: from the pool, or (jailed, with the work folder on another
        filesystem than the warm kernels' folders) a fresh one with the folder mounted."""
        view = workdir / "input"
        readonly = (Path(os.readlink(view)),) if view.is_symlink() else ()
        if self.jail is not None and self.pool.size:
            if os.stat(workdir).st_dev != os.stat(self.root).st_dev:  # cannot lend by rename
                return await self.launcher.start(cwd=workdir, readonly=readonly)
        return await self.pool.acquire(workdir, readonly)

    def _background(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._cleanups.add(task)
        task.add_done_callback(self._cleanups.discard)

    async def _execute_on(
        self,
        provider: KernelProvider,
        notebook: SolutionNotebook,
        workdir: Path,
        limit: float,
        gpu: str | None,
        on_cell_complete: OnCellComplete | None,
    ) -> ExecutionResult:
        kernel = await provider.acquire(workdir, gpu)
        try:
            await kernel.enter(workdir, provider.run_env(gpu))
            result = await run_cells(
                kernel, notebook.nb, limit=limit, kernel_name=provider.kernel_name,
                on_cell_complete=_safe_callback(on_cell_complete),
            )  # fmt: skip
            await provider.review(kernel, result)
            return result
        finally:
            self._background(provider.discard(kernel))


def _sandbox_info(
    identity: Identity, jail: Jail | None, provider: KernelProvider | None, note: str
) -> SandboxInfo:
    if provider is not None:
        return SandboxInfo("gateway", "the gateway's kernel user", True, "remote kernels")
    user = f"uid {identity.uid}"
    if jail is not None:
        return SandboxInfo("bwrap", user, jail.network)
    kind = ("setpriv" if identity.prefix else "popen-user") if identity.dropped else "none"
    return SandboxInfo(kind, user, True, note)


def name_memory_cap(result: ExecutionResult, megabytes: int) -> None:
    """A run that failed with a ``MemoryError`` under a memory cap says which cap it hit."""
    if result.ok or "MemoryError" not in result.error:
        return
    result.error += (
        f" (this kernel's memory cap is {megabytes} MB of address space, set by --memory-limit / "
        "RunConfig.memory_limit_mb / Executor(memory_limit_mb=...): raise the cap or use less "
        "memory, e.g. subsample or smaller dtypes)"
    )


def _lend(workdir: Path, slot: Path | None) -> Path | None:
    """Move ``workdir`` into a warm jailed kernel's ``slot`` (the only folder it can write),
    leaving a link behind; the moved folder's path, or None when the kernel has no slot."""
    if slot is None:
        return None
    lent = slot / "w"
    os.rename(workdir, lent)
    workdir.symlink_to(lent, target_is_directory=True)
    return lent


def _take_back(workdir: Path, lent: Path) -> None:
    """Undo ``_lend`` once the kernel is dead."""
    if workdir.is_symlink():
        workdir.unlink()
    os.rename(lent, workdir)


def _remove_tree(root: Path) -> None:
    unseal(root)
    shutil.rmtree(root, ignore_errors=True)


def _safe_callback(cb: OnCellComplete | None) -> Callable[[CellOutcome], Any] | None:
    if cb is None:
        return None

    async def call(outcome: CellOutcome) -> None:
        try:
            out = cb(outcome)
            if inspect.isawaitable(out):
                await out
        except Exception as e:  # a broken observer must not fail the run
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
