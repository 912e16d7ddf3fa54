"""The execution layer: run a solution notebook in a fresh, sandboxed kernel.

``Executor`` (``run``/``arun``/``run_script``) → ``ExecutionResult``.  Each run gets its own work
folder whose ``./input`` is a read-only view of the task data, a single-use kernel (optionally
from a warm pool) with a scrubbed environment, thread caps, an optional memory cap and, as
root, an unprivileged user; a wall-clock limit kills the kernel and all its children.  Where
bubblewrap works, each kernel also runs in a jail (``jail.py``: own PID and network namespaces,
only the Python installation, its work folder and the input view mounted; docs/security.md).
With ``provider="gateway"`` kernels run remotely through a Jupyter Kernel Gateway instead
(``GatewayConfig``/``GatewayProvider``; docs/gateway.md).
"""

from .errors import (
    CellError,
    CellTimeout,
    ExecutionError,
    InputModified,
    KernelDied,
    KernelStartError,
    WorkdirError,
)
from .executor import COMMON_PREIMPORTS, Executor, run_script, script_notebook
from .gateway import GatewayProvider
from .gateway_client import GatewayError
from .gateway_config import GatewayConfig, GatewayConfigError, PathMap
from .pool import Slot, Slots
from .result import CellOutcome, ExecutionResult, parse_score, strip_ansi
from .sandbox import is_secret, kernel_env

__all__ = [
    "COMMON_PREIMPORTS",
    "CellError",
    "CellOutcome",
    "CellTimeout",
    "ExecutionError",
    "ExecutionResult",
    "Executor",
    "GatewayConfig",
    "GatewayConfigError",
    "GatewayError",
    "GatewayProvider",
    "InputModified",
    "KernelDied",
    "KernelStartError",
    "PathMap",
    "Slot",
    "Slots",
    "WorkdirError",
    "is_secret",
    "kernel_env",
    "parse_score",
    "run_script",
    "script_notebook",
    "strip_ansi",
]
