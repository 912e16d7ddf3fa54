"""Kernel providers: where an ``Executor`` gets the kernel each candidate runs on.

* ``"local"`` (the default): sandboxed kernels on this machine from the warm pool
  (``kernels.py``/``pool.py``); the executor handles it itself, so it has no object here.
* ``"gateway"``: remote kernels from a Jupyter Kernel Gateway / Enterprise Gateway
  (``gateway.py``), configured by ``gateway_url``/``gateway_token``/``path_map``/… or by the
  ``MLESTAR_GATEWAY_*`` environment variables; or pass a ``GatewayProvider`` object.

``KernelProvider`` is the seam a remote provider fills: lay out the work folder, hand out a
ready kernel, review the result, discard the kernel.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Mapping
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from ..notebook import SolutionNotebook
from .errors import ExecutorConfigError
from .result import CellOutcome, ExecutionResult
from .runner import run_cells

PROVIDERS = ("local", "gateway")


@runtime_checkable
class KernelProvider(Protocol):
    """What the executor needs from a non-local kernel provider."""

    name: str
    kernel_name: str
    sandboxed: bool
    warnings: list[str]

    def bind(self, *, max_parallel: int, preimport: tuple[str, ...], threads: int | None) -> None:
        """Take the executor's settings (called once, by the executor)."""

    def describe(self) -> str:
        """One line for logs, without secrets."""

    def prepare(self, input_dir: Path, workdir: Path) -> tuple[Any, Path]:
        """Lay out ``workdir``; returns a token for ``finish`` and the absolute workdir."""

    def finish(self, prepared: Any, workdir: Path, result: ExecutionResult, started: float) -> None:
        """Check the input and record the submission after a run."""

    async def acquire(self, workdir: Path, gpu: str | None) -> Any:
        """A ready kernel (``enter``, ``kc``, ``km``, ``pid``, ``kill``) for one candidate."""

    def run_env(self, gpu: str | None) -> dict[str, str]:
        """Environment updates applied in the kernel before the first cell."""

    async def review(self, kernel: Any, result: ExecutionResult) -> None:
        """Adjust a failed result whose cause lies with the provider, not the candidate."""

    async def discard(self, kernel: Any) -> None:
        """Destroy a used kernel."""

    def start(self) -> None:
        """Begin warming kernels (on the executor's loop)."""

    async def warm_up(self, timeout: float) -> None:
        """Block until warm kernels are ready."""

    async def close(self) -> None:
        """Release every kernel and connection."""


def resolve_provider(
    provider: str | KernelProvider,
    *,
    gateway_url: str | None = None,
    gateway_token: str | None = None,
    path_map: Mapping[str, str] | None = None,
    kernel_spec: str | None = None,
    gpu_kernel_spec: str | None = None,
    pool_size: int = 0,
) -> KernelProvider | None:
    """The provider object for ``provider`` (None for ``"local"``, which the executor runs itself)."""
    if isinstance(provider, KernelProvider):
        return provider
    if provider == "local":
        return None
    if provider == "gateway":
        from .gateway import make_gateway_provider

        return make_gateway_provider(
            url=gateway_url, token=gateway_token,
            path_map=dict(path_map) if path_map is not None else None,
            kernel_spec=kernel_spec, gpu_kernel_spec=gpu_kernel_spec, pool_size=pool_size,
        )  # fmt: skip
    raise ExecutorConfigError(
        f"unknown kernel provider {provider!r}; use one of {', '.join(PROVIDERS)} "
        "or pass a provider object (e.g. GatewayProvider)"
    )


async def execute_remote(
    provider: KernelProvider,
    notebook: SolutionNotebook,
    workdir: Path,
    *,
    limit: float,
    gpu: str | None,
    on_cell_complete: Callable[[CellOutcome], Any] | None,
    background: Callable[[Coroutine[Any, Any, Any]], None],
) -> ExecutionResult:
    """Run ``notebook`` in ``workdir`` on one of ``provider``'s kernels, let the provider review
    the result, and hand the kernel's disposal to ``background``."""
    kernel = await provider.acquire(workdir, gpu)
    try:
        await kernel.enter(workdir, provider.run_env(gpu))
        result = await run_cells(
            kernel, notebook.nb, limit=limit, kernel_name=provider.kernel_name,
            on_cell_complete=on_cell_complete,
        )  # fmt: skip
        await provider.review(kernel, result)
        return result
    finally:
        background(provider.discard(kernel))
