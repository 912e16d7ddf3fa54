"""Warm kernels and run slots.

``KernelPool`` keeps ``size`` kernels started (and ``preimport`` done) ahead of need.  Each
kernel serves exactly one candidate; taking one starts its replacement in the background.
``Slots`` bounds how many runs go at once and pins runs to GPUs round-robin, one per GPU.
Both live on the executor's single background event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .errors import KernelStartError
from .kernels import Kernel, KernelLauncher


class KernelPool:
    """Pre-started kernels, each handed out once."""

    def __init__(self, launcher: KernelLauncher, size: int) -> None:
        self.launcher = launcher
        self.size = max(0, int(size))  # kernels kept ready
        self._ready: asyncio.Queue[Kernel | BaseException] | None = None
        self._starting: set[asyncio.Task[None]] = set()
        self._closed = False
        self.handed_out = 0  # kernels given to candidates
        self.started = 0  # kernels started by the pool

    @property
    def ready_count(self) -> int:
        """Kernels waiting to be used."""
        return self._ready.qsize() if self._ready else 0

    def _queue(self) -> asyncio.Queue[Kernel | BaseException]:
        if self._ready is None:
            self._ready = asyncio.Queue()
        return self._ready

    def fill(self) -> None:
        """Start kernels until ``size`` are ready or starting."""
        queue = self._queue()
        while not self._closed and queue.qsize() + len(self._starting) < self.size:
            task = asyncio.get_running_loop().create_task(self._start_one())
            self._starting.add(task)
            task.add_done_callback(self._starting.discard)

    async def _start_one(self) -> None:
        try:
            kernel = await self.launcher.start(warm=True)
        except BaseException as e:  # also cancellation: the waiter must learn of it
            self._queue().put_nowait(
                e if isinstance(e, Exception) else KernelStartError("cancelled")
            )
            if not isinstance(e, Exception):
                raise
            return
        self.started += 1
        if self._closed:
            await kernel.shutdown()
        else:
            self._queue().put_nowait(kernel)

    async def wait_ready(self, timeout: float = 120) -> None:
        """Block until the pool holds ``size`` ready kernels (a warm-up for benchmarks)."""
        self.fill()
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while self.ready_count < self.size and loop.time() < end:
            if not self._starting:
                self.fill()
            await asyncio.sleep(0.05)

    async def acquire(self, cwd: Path, readonly: tuple[Path, ...] = ()) -> Kernel:
        """A ready kernel: a warm one from the pool, else a fresh one started in ``cwd`` (in a
        jail, with ``cwd`` writable and ``readonly`` mounted)."""
        if self.size == 0:
            if readonly:  # only the local launcher mounts (a jail)
                return await self.launcher.start(cwd=cwd, readonly=readonly)
            return await self.launcher.start(cwd=cwd)
        queue = self._queue()
        while True:
            if queue.empty() and not self._starting:
                self.fill()
            got = await asyncio.wait_for(queue.get(), self.launcher.startup_timeout + 30)
            self.fill()
            if isinstance(got, BaseException):
                raise got if isinstance(got, KernelStartError) else KernelStartError(str(got))
            if await got.is_alive():
                self.handed_out += 1
                return got
            await got.shutdown()

    async def close(self) -> None:
        """Stop starting kernels and shut down the ready ones."""
        self._closed = True
        for task in list(self._starting):
            task.cancel()
        for task in list(self._starting):
            with contextlib.suppress(BaseException):
                await task
        queue = self._queue()
        while not queue.empty():
            got = queue.get_nowait()
            if not isinstance(got, BaseException):  # a Kernel, or a remote provider's kernel
                await got.shutdown()


@dataclass(frozen=True)
class Slot:
    """Permission to run one candidate (on ``gpu`` when GPUs are pinned)."""

    number: int
    gpu: str | None = None


class Slots:
    """At most ``max_parallel`` runs at once; with ``gpu_ids`` one run per GPU, round-robin."""

    def __init__(self, max_parallel: int, gpu_ids: Sequence[str] | None = None) -> None:
        self.gpu_ids = [str(g) for g in gpu_ids] if gpu_ids else None
        cap = max(1, int(max_parallel))
        self.capacity = min(cap, len(self.gpu_ids)) if self.gpu_ids else cap
        self._busy_gpus: set[str] = set()
        self._in_use = 0
        self._next_gpu = 0
        self._serial = 0
        self._changed: asyncio.Condition | None = None

    @property
    def in_use(self) -> int:
        """Slots currently taken."""
        return self._in_use

    def try_acquire(self) -> Slot | None:
        """A slot if one is free now, else None."""
        if self._in_use >= self.capacity:
            return None
        gpu = None
        if self.gpu_ids:
            n = len(self.gpu_ids)
            for k in range(n):
                cand = self.gpu_ids[(self._next_gpu + k) % n]
                if cand not in self._busy_gpus:
                    gpu = cand
                    self._next_gpu = (self._next_gpu + k + 1) % n
                    break
            if gpu is None:
                return None
            self._busy_gpus.add(gpu)
        self._in_use += 1
        self._serial += 1
        return Slot(self._serial, gpu)

    async def acquire(self) -> Slot:
        """Wait for a free slot."""
        if self._changed is None:
            self._changed = asyncio.Condition()
        async with self._changed:
            while (slot := self.try_acquire()) is None:
                await self._changed.wait()
            return slot

    def release(self, slot: Slot) -> None:
        """Give ``slot`` back (call on the loop that acquires)."""
        self._in_use -= 1
        if slot.gpu is not None:
            self._busy_gpus.discard(slot.gpu)
        if self._changed is not None:
            cond = self._changed

            async def _notify() -> None:
                async with cond:
                    cond.notify_all()

            with contextlib.suppress(RuntimeError):
                asyncio.get_running_loop().create_task(_notify())
