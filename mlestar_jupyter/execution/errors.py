"""Errors of the execution layer.

::

    ExecutionError
     ├── CellError          a cell raised (the candidate's bug)
     ├── CellTimeout        the run passed its wall-clock limit; the kernel tree was killed
     ├── KernelDied         the kernel exited mid-run (segfault, out of memory, os._exit)
     │   └── KernelLost     a remote kernel's connection closed (or it was reported dead)
     ├── KernelStartError   no kernel could be started (infrastructure)
     ├── WorkdirError       the work folder or the input folder is unusable (caller's mistake)
     ├── InputModified      the original input changed during a run
     ├── ExecutorConfigError (ValueError) an Executor setting is invalid (unknown provider)
     ├── ExecutorMisuse     (RuntimeError) a call the executor cannot serve (``run`` on its loop)
     └── ExecutionCancelled the caller cancelled its runs (``Executor.cancel_all``: Ctrl-C)

The executor turns what happens *during* a run into a failed ``ExecutionResult``; these classes
exist for callers that prefer exceptions (``ExecutionResult.raise_for_error()``) and for the
caller mistakes raised before a run starts.  Every class pickles (``__reduce__``) so results can
cross process boundaries.
"""

from __future__ import annotations

from typing import Any


class ExecutionError(Exception):
    """Base of every execution-layer error."""

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), self.args)


class CellError(ExecutionError):
    """A cell raised an exception."""

    def __init__(self, block_id: str | None, ename: str, evalue: str) -> None:
        self.block_id, self.ename, self.evalue = block_id, ename, evalue
        super().__init__(block_id, ename, evalue)

    def __str__(self) -> str:
        return (
            f"block {self.block_id or '?'} raised {self.ename}: {self.evalue}; "
            "fix that cell (its traceback is in the result's cell outcome)"
        )


class CellTimeout(ExecutionError):
    """The run exceeded its wall-clock limit; the kernel and its children were killed."""

    def __init__(self, seconds: float, block_id: str | None = None) -> None:
        self.seconds, self.block_id = seconds, block_id
        super().__init__(seconds, block_id)

    def __str__(self) -> str:
        where = f" in block {self.block_id}" if self.block_id else ""
        return (
            f"timed out after {self.seconds:g}s{where}; the kernel was killed. Make the code faster "
            "(subsample, fewer epochs/estimators) or raise the timeout"
        )


class KernelDied(ExecutionError):
    """The kernel process exited during the run."""

    def __init__(self, block_id: str | None = None, detail: str = "") -> None:
        self.block_id, self.detail = block_id, detail
        super().__init__(block_id, detail)

    def __str__(self) -> str:
        where = f" while running block {self.block_id}" if self.block_id else ""
        extra = f" ({self.detail})" if self.detail else ""
        return (
            f"the kernel died{where}{extra}: likely out of memory, a crash in native code or "
            "os._exit; use less memory (smaller batches, subsample) or avoid exiting the process"
        )


class KernelLost(KernelDied):
    """A remote kernel stopped answering: its websocket closed or the gateway reported it dead."""

    def __str__(self) -> str:
        return (
            f"the remote kernel stopped answering ({self.detail or 'no reason given'}); "
            "check the gateway's logs and that the kernel's host has memory to spare"
        )


class KernelStartError(ExecutionError):
    """A kernel could not be started or did not become ready."""

    def __init__(self, detail: str) -> None:
        self.detail = detail
        super().__init__(detail)

    def __str__(self) -> str:
        return (
            f"could not start a kernel: {self.detail}; check that ipykernel is installed for the "
            "kernel name you chose (`jupyter kernelspec list`)"
        )


class WorkdirError(ExecutionError):
    """The work folder or input folder cannot be used."""

    def __init__(self, path: str, problem: str) -> None:
        self.path, self.problem = str(path), problem
        super().__init__(str(path), problem)

    def __str__(self) -> str:
        return f"{self.path}: {self.problem}"


class InputModified(ExecutionError):
    """The original input folder changed while a run was going on."""

    def __init__(self, path: str) -> None:
        self.path = str(path)
        super().__init__(str(path))

    def __str__(self) -> str:
        return (
            f"the input folder {self.path} changed during the run; restore it from a backup and "
            "check what else writes there (the kernel only ever sees a read-only view)"
        )


class ExecutionCancelled(ExecutionError):
    """The run was cancelled by ``Executor.cancel_all`` (the search is stopping); its kernel was
    killed and its result means nothing."""


class ExecutorConfigError(ExecutionError, ValueError):
    """An ``Executor`` setting is invalid (e.g. an unknown kernel provider)."""


class ExecutorMisuse(ExecutionError, RuntimeError):
    """The executor was called in a way it cannot serve (``run`` from its own event loop)."""
