"""Run a notebook's cells on a ready kernel under one wall-clock limit (nbclient does the messaging).

Cells run in order and stop at the first error, as a script would.  On timeout the kernel tree
is killed; a dead kernel ends the run; both come back as a failed ``ExecutionResult``.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import DeadKernelError
from nbformat import NotebookNode

from .kernels import Kernel
from .result import (
    CELL_STDOUT_LIMIT,
    STDOUT_LIMIT,
    CellOutcome,
    ExecutionResult,
    bounded,
    parse_score,
    strip_ansi,
    without_native_frames,
)
from .sandbox import tree_rss_mb

# nbclient logs "Kernel died while waiting for execute reply" each time a time limit kills a
# kernel; the result already says so (which candidate, why).  Its messages go here and no
# further: the CLI's stderr handler printed them bare, naming no candidate.
_NBCLIENT_LOG = logging.getLogger("mlestar_jupyter.execution.nbclient")
_NBCLIENT_LOG.addHandler(logging.NullHandler())
_NBCLIENT_LOG.propagate = False

MEMORY_SAMPLE_SECONDS = 0.25


@dataclass
class _State:
    current: tuple[int, str | None] | None = None
    started: float = 0.0
    outcomes: list[CellOutcome] = field(default_factory=list)
    stdout: list[str] = field(default_factory=list)
    died: bool = False
    peak_mb: float | None = None


def _streams(cell: NotebookNode, name: str) -> str:
    return "".join(
        o.get("text", "")
        for o in cell.get("outputs", [])
        if o.get("output_type") == "stream" and o.get("name") == name
    )


def _outcome(cell: NotebookNode, index: int, seconds: float) -> CellOutcome:
    block_id = cell.metadata.get("mlestar", {}).get("block_id")
    err = next((o for o in cell.get("outputs", []) if o.get("output_type") == "error"), None)
    out = CellOutcome(
        block_id=block_id,
        index=index,
        ok=err is None,
        stdout=bounded(_streams(cell, "stdout"), CELL_STDOUT_LIMIT),
        stderr=bounded(_streams(cell, "stderr"), CELL_STDOUT_LIMIT),
        duration=seconds,
    )
    if err is not None:
        out.error_name = err.get("ename")
        out.error_value = without_native_frames(str(err.get("evalue") or "")) or err.get("evalue")
        out.traceback = without_native_frames(strip_ansi("\n".join(err.get("traceback", []))))
    return out


async def _sample_memory(kernel: Kernel, state: _State) -> None:
    while True:
        mb = await asyncio.to_thread(tree_rss_mb, kernel.pid)
        if mb is not None:
            state.peak_mb = max(state.peak_mb or 0.0, mb)
        await asyncio.sleep(MEMORY_SAMPLE_SECONDS)


async def _cells(
    client: NotebookClient,
    nb: NotebookNode,
    state: _State,
    on_cell_complete: Callable[[CellOutcome], Awaitable[None]] | None,
) -> None:
    count = 0
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        count += 1
        state.current = (index, cell.metadata.get("mlestar", {}).get("block_id"))
        state.started = time.monotonic()
        try:
            await client.async_execute_cell(cell, index, execution_count=count)
        except DeadKernelError:
            state.died = True
            return
        outcome = _outcome(cell, index, time.monotonic() - state.started)
        state.current = None
        state.outcomes.append(outcome)
        state.stdout.append(_streams(cell, "stdout"))
        if on_cell_complete is not None:
            await on_cell_complete(outcome)
        if not outcome.ok:
            return


async def run_cells(
    kernel: Kernel,
    nb: NotebookNode,
    *,
    limit: float,
    kernel_name: str = "python3",
    on_cell_complete: Callable[[CellOutcome], Awaitable[None]] | None = None,
) -> ExecutionResult:
    """Execute the code cells of (a copy of) ``nb`` on ``kernel`` within ``limit`` seconds."""
    nb = nbformat.from_dict(copy.deepcopy(nb))
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    client = NotebookClient(
        nb, km=kernel.km, kernel_name=kernel_name, timeout=None, allow_errors=True,
        record_timing=True, iopub_timeout=5, raise_on_iopub_timeout=False, log=_NBCLIENT_LOG,
    )  # fmt: skip
    client.kc = kernel.kc
    state = _State()
    sampler = asyncio.ensure_future(_sample_memory(kernel, state))
    task = asyncio.ensure_future(_cells(client, nb, state, on_cell_complete))
    timed_out = False
    try:
        done, _ = await asyncio.wait({task}, timeout=max(0.0, limit))
        if not done:
            timed_out = True
            await asyncio.to_thread(kernel.kill)
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError, DeadKernelError):
            await task
    finally:
        sampler.cancel()
        task.cancel()
        await asyncio.gather(sampler, task, return_exceptions=True)
    return _result(nb, state, limit, timed_out)


def _result(nb: NotebookNode, state: _State, limit: float, timed_out: bool) -> ExecutionResult:
    if state.current is not None:  # the cell that was running when time ran out or the kernel died
        index, _bid = state.current
        out = _outcome(nb.cells[index], index, time.monotonic() - state.started)
        out.ok = False
        if out.error_name is None:
            out.error_name = "Timeout" if timed_out else "KernelDied"
            out.error_value = f"exceeded {limit:g}s" if timed_out else "the kernel process exited"
        state.outcomes.append(out)
        state.stdout.append(_streams(nb.cells[index], "stdout"))
    stdout = "".join(state.stdout)
    for cell in nb.cells:  # keep the stored notebook small: streams are bounded like stdout
        for o in cell.get("outputs", []):
            if o.get("output_type") == "stream":
                o["text"] = bounded(o.get("text", ""), CELL_STDOUT_LIMIT)
    failed = next((c for c in state.outcomes if not c.ok), None)
    ok = failed is None and not timed_out and not state.died
    if timed_out:
        error = f"timed out after {limit:g}s; the kernel and its child processes were killed"
    elif state.died:
        error = "the kernel died (out of memory, a native crash or os._exit)"
    elif failed is not None:
        error = f"{failed.error_name}: {failed.error_value}"
    else:
        error = ""
    return ExecutionResult(
        ok=ok,
        score=parse_score(stdout),
        cells=state.outcomes,
        stdout=bounded(stdout, STDOUT_LIMIT),
        error=error,
        failed_block=failed.block_id if failed else None,
        timed_out=timed_out,
        kernel_died=state.died and not timed_out,
        peak_memory_mb=state.peak_mb,
        notebook=dict(nb),
    )
