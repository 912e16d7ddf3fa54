"""Kernels on this machine for an ``Executor``.

``LocalKernels`` plans the sandbox (an unprivileged user when run as root, a bubblewrap jail
where ``bwrap`` works), owns the scratch folder (kernel folders and read-only input views) and
the warm pool, and does the chores of one run: lay out the work folder, lend it to a warm
jailed kernel, run the cells, then check the input and find the submission.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import shutil
import tempfile
import weakref
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from ..notebook import SolutionNotebook
from .inputs import InputView, InputViews, make_workdir, unseal
from .jail import Jail, SandboxInfo, plan_jail
from .kernels import Kernel, KernelLauncher
from .pool import KernelPool
from .result import CellOutcome, ExecutionResult
from .runner import run_cells
from .sandbox import Identity, chown_tree, plan_identity
from .scratch import claim

log = logging.getLogger(__name__)
CellCallback = Callable[[CellOutcome], Any]
Background = Callable[[Coroutine[Any, Any, Any]], None]


@dataclasses.dataclass(frozen=True)
class LocalSettings:
    """How local kernels are started (the ``Executor`` arguments of the same names)."""

    kernel_name: str = "python3"
    sandbox_user: str | None = "nobody"
    jail: bool = True
    network: bool = False
    scratch_dir: str | Path | None = None
    threads: int = 1
    memory_limit_mb: int | None = None
    extra_env: dict[str, str] | None = None
    preimport: tuple[str, ...] = ()
    startup_timeout: float = 60
    pool_size: int = 0


class LocalKernels:
    """The sandbox, scratch folder and warm pool of local kernels (see the module docstring).

    With ``remote`` (a provider runs the kernels elsewhere) no jail is planned and no kernel
    is kept warm; the scratch folder still exists, as ``mlestar clean`` expects one per run.
    """

    def __init__(self, settings: LocalSettings, *, remote: bool = False) -> None:
        self.settings = settings
        self.identity, warning = plan_identity(settings.sandbox_user)
        self.warnings: list[str] = [warning] if warning else []
        if warning:
            log.warning(warning)
        self.jail, note = self._plan_jail(remote)
        self.sandbox = _sandbox_info(self.identity, self.jail, note)
        self.root = _make_root(settings.scratch_dir)
        self._remove_root = weakref.finalize(self, _remove_tree, self.root)  # also at exit
        # a jailed kernel keeps no capability: its input view must be readable by plain rights
        viewer = dataclasses.replace(self.identity, prefix=()) if self.jail else self.identity
        self.views = InputViews(self.root / "inputs", viewer, mounted=self.jail is not None)
        (self.root / "inputs").mkdir(mode=0o711)
        self.launcher = self._make_launcher()
        self.pool = KernelPool(self.launcher, 0 if remote else settings.pool_size)

    def _plan_jail(self, remote: bool) -> tuple[Jail | None, str]:
        """The jail (None without one) and why there is none; a missing jail is warned once."""
        if not self.settings.jail:
            return None, "the jail is turned off (jail=False)"
        if remote:
            return None, ""
        jail, why = plan_jail(network=self.settings.network, identity=self.identity)
        if why:
            self.warnings.append(why)
            log.warning(why)
        return jail, why

    def _make_launcher(self) -> KernelLauncher:
        s = self.settings
        launcher = KernelLauncher(
            kernel_name=s.kernel_name, root=self.root / "kernels", identity=self.identity,
            threads=s.threads, memory_limit_mb=s.memory_limit_mb, extra_env=s.extra_env,
            preimport=s.preimport, startup_timeout=s.startup_timeout, jail=self.jail,
        )  # fmt: skip
        launcher.views_root = self.root / "inputs"
        return launcher

    # -- one run ------------------------------------------------------------------------------
    def prepare(self, input_dir: Path, workdir: Path) -> tuple[InputView, Path]:
        """Lay out ``workdir`` with ``./input`` → a read-only view of ``input_dir``; returns the
        view (for ``finish``) and the absolute work folder."""
        view = self.views.view(input_dir)
        link = make_workdir(workdir)
        workdir = link.parent
        link.symlink_to(view.path, target_is_directory=True)
        if self.identity.dropped:
            chown_tree(workdir, self.identity.uid, self.identity.gid, skip=("input",))
        return view, workdir

    def finish(
        self, view: InputView, workdir: Path, result: ExecutionResult, started: float
    ) -> None:
        """Give the work folder back, fail a run that changed its input, record the submission."""
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

    async def execute(
        self,
        notebook: SolutionNotebook,
        workdir: Path,
        *,
        limit: float,
        gpu: str | None,
        on_cell_complete: CellCallback | None,
        background: Background,
    ) -> ExecutionResult:
        """Run ``notebook`` in ``workdir`` on a single-use kernel; its shutdown goes to
        ``background`` once the kernel tree is dead."""
        kernel = await self._acquire(workdir)
        lent = await asyncio.to_thread(_lend, workdir, kernel.slot)
        try:
            env = {"CUDA_VISIBLE_DEVICES": gpu} if gpu is not None else {}
            await kernel.enter(lent or workdir, env)
            return await run_cells(
                kernel, notebook.nb, limit=limit, kernel_name=self.settings.kernel_name,
                on_cell_complete=on_cell_complete,
            )  # fmt: skip
        finally:
            kernel.kill()  # the tree is dead before the result is reported...
            if lent is not None:
                await asyncio.to_thread(_take_back, workdir, lent)
            background(kernel.shutdown())  # ...the bookkeeping finishes in the background

    async def _acquire(self, workdir: Path) -> Kernel:
        """A kernel for ``workdir``: from the pool, or (jailed, with the work folder on another
        filesystem than the warm kernels' folders) a fresh one with the folder mounted."""
        view = workdir / "input"
        readonly = (Path(os.readlink(view)),) if view.is_symlink() else ()
        if self.jail is not None and self.pool.size:
            if os.stat(workdir).st_dev != os.stat(self.root).st_dev:  # cannot lend by rename
                return await self.launcher.start(cwd=workdir, readonly=readonly)
        return await self.pool.acquire(workdir, readonly)

    def remove(self) -> None:
        """Delete the scratch folder (kernel folders and input views)."""
        self._remove_root()


def _make_root(scratch_dir: str | Path | None) -> Path:
    """A fresh private scratch folder (with ``kernels/``) under ``scratch_dir`` or the temp dir."""
    base = Path(scratch_dir) if scratch_dir else Path(tempfile.gettempdir())
    base.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix="mlestar-exec-", dir=base))
    claim(root)  # after a kill -9, 'mlestar clean' knows whose it was
    os.chmod(root, 0o711)
    (root / "kernels").mkdir(mode=0o711)
    return root


def _sandbox_info(identity: Identity, jail: Jail | None, note: str) -> SandboxInfo:
    user = f"uid {identity.uid}"
    if jail is not None:
        return SandboxInfo("bwrap", user, jail.network)
    kind = ("setpriv" if identity.prefix else "popen-user") if identity.dropped else "none"
    return SandboxInfo(kind, user, True, note)


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
