"""Sandboxed kernels: how one is launched, readied, pointed at a work folder and destroyed.

A ``Kernel`` is used for exactly one candidate.  ``KernelLauncher.start`` gives it a private
home folder (its connection file lives there, owned by the kernel's user, since ipykernel
rewrites it), the scrubbed environment, the chosen identity and the memory cap; with a ``Jail``
the launch is wrapped in ``bwrap`` (see ``jail.py``) and only the work folder and the input
view given to ``start`` are mounted besides the kernel's own folder.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import queue
import shutil
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jupyter_client.asynchronous.client import AsyncKernelClient
from jupyter_client.manager import AsyncKernelManager

from .errors import KernelDied, KernelStartError, WorkdirError
from .inputs import INPUT_ON_PATH
from .jail import Jail, python_paths
from .sandbox import Identity, kernel_env, kill_tree, memory_limit_prefix


class SandboxedKernelManager(AsyncKernelManager):
    """An ``AsyncKernelManager`` that prefixes the launch command (memory cap, ``setpriv …``)
    and hands the connection file to the kernel's user (ipykernel rewrites it)."""

    def sandbox(self, prefix: tuple[str, ...], owner: tuple[int, int] | None) -> None:
        """Set the launch prefix and the connection file's owner."""
        self._mlestar = (prefix, owner)

    def format_kernel_cmd(self, extra_arguments: list[str] | None = None) -> list[str]:
        """The kernel's launch command with the sandbox prefix set by ``sandbox`` in front."""
        cmd = super().format_kernel_cmd(extra_arguments)
        prefix = getattr(self, "_mlestar", ((), None))[0]
        return [*prefix, *cmd]

    async def _async_launch_kernel(self, kernel_cmd: list[str], **kw: Any) -> None:
        owner = getattr(self, "_mlestar", ((), None))[1]
        if owner is not None:
            os.chown(self.connection_file, *owner)
        await super()._async_launch_kernel(kernel_cmd, **kw)


@dataclass
class Kernel:
    """A started, ready kernel and its client; used once, then ``shutdown``."""

    km: SandboxedKernelManager
    kc: AsyncKernelClient
    root: Path
    pid: int | None
    started_at: float = field(default_factory=time.monotonic)
    warm: bool = False
    # a warm jailed kernel's writable folder: the run's work folder is lent to it (moved here)
    slot: Path | None = None

    async def is_alive(self) -> bool:
        """Whether the kernel process still runs."""
        try:
            return bool(await self.km.is_alive())
        except Exception:  # noqa: BLE001 - a manager that cannot even be polled counts as dead
            return False

    async def run_silent(self, code: str, timeout: float) -> dict[str, Any]:
        """Run ``code`` without output or history; returns the execute reply's content."""
        msg_id = self.kc.execute(code, silent=True, store_history=False, allow_stdin=False)
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"no reply within {timeout:g}s")
            try:
                msg = await self.kc.get_shell_msg(timeout=min(remaining, 1.0))
            except queue.Empty:  # poll liveness, then keep waiting
                if not await self.is_alive():
                    raise KernelDied(detail="while it ran the executor's own setup code") from None
                continue
            if msg["parent_header"].get("msg_id") == msg_id:
                return dict(msg["content"])

    async def enter(self, workdir: Path, env: dict[str, str], timeout: float = 30) -> None:
        """Make ``workdir`` the kernel's cwd and apply per-run environment updates."""
        code = (
            "import os as _mlestar_os, sys as _mlestar_sys\n"
            f"_mlestar_os.chdir({str(workdir)!r})\n"
            f"_mlestar_os.environ.update({json.dumps(env)})\n"
            "_mlestar_sys.path[:] = [p for p in _mlestar_sys.path if p != '']\n"
            "_mlestar_sys.path.insert(0, '')\n"
            f"{INPUT_ON_PATH}"
            "del _mlestar_os, _mlestar_sys\n"
        )
        try:
            reply = await self.run_silent(code, timeout)
        except (TimeoutError, KernelDied) as e:
            raise WorkdirError(str(workdir), f"the kernel could not enter it: {e}") from None
        if reply.get("status") != "ok":
            raise WorkdirError(
                str(workdir),
                f"the kernel could not enter it: {reply.get('ename')}: {reply.get('evalue')}",
            )

    def kill(self) -> list[int]:
        """SIGKILL the kernel and every process it started."""
        return kill_tree(self.pid)

    async def shutdown(self) -> None:
        """Kill the kernel tree, close the channels and delete the private folder."""
        self.kill()
        try:
            self.kc.stop_channels()
        except Exception:  # noqa: BLE001 - cleanup of a killed kernel: its channels may be gone
            pass
        try:
            await asyncio.wait_for(self.km.shutdown_kernel(now=True), 10)
        except Exception:  # noqa: BLE001 - cleanup: the tree is dead already, only bookkeeping is lost
            pass
        await asyncio.to_thread(shutil.rmtree, self.root, True)


class KernelLauncher:
    """Starts sandboxed kernels with fixed settings."""

    def __init__(
        self,
        *,
        kernel_name: str,
        root: Path,
        identity: Identity,
        threads: int,
        memory_limit_mb: int | None,
        extra_env: dict[str, str] | None,
        preimport: tuple[str, ...] = (),
        startup_timeout: float = 60,
        jail: Jail | None = None,
    ) -> None:
        self.kernel_name = kernel_name  # kernelspec name (a Python kernel)
        self.root = root  # parent of every kernel's private folder
        self.identity = identity  # who kernels run as
        self.threads = threads  # thread cap per kernel
        self.memory_limit_mb = memory_limit_mb  # RLIMIT_AS per kernel, None = no cap
        self.extra_env = extra_env or {}  # caller's env additions (secrets still dropped)
        self.preimport = preimport  # modules imported in warm kernels before use
        self.startup_timeout = startup_timeout  # seconds for a kernel to answer kernel_info
        self.dropped_env: list[str] = []  # extra_env names refused as secrets
        self.jail = jail  # bwrap jail per kernel (None: the user switch and caps only)
        self.views_root: Path | None = None  # mounted read-only in warm jailed kernels

    def _private_root(self) -> tuple[Path, Path]:
        root = self.root / f"k-{uuid.uuid4().hex[:12]}"
        home = root / "home"
        home.mkdir(parents=True)
        (root / "tmp").mkdir()
        (root / "work").mkdir()
        os.chmod(root, 0o700)
        if self.identity.dropped:
            for p in (root, home, root / "tmp", root / "work"):
                os.chown(p, self.identity.uid, self.identity.gid)
        return root, home

    async def start(
        self, *, cwd: Path | None = None, warm: bool = False, readonly: tuple[Path, ...] = ()
    ) -> Kernel:
        """Start a kernel (in ``cwd``, else its private folder) and wait until it answers.

        ``warm`` kernels also import ``preimport`` so a candidate does not pay for it.  In a
        jail, ``cwd`` is mounted writable and ``readonly`` (the input view) read-only.
        """
        root, home = await asyncio.to_thread(self._private_root)
        env, self.dropped_env = kernel_env(
            os.environ, threads=self.threads, home=home, extra=self.extra_env
        )
        if self.memory_limit_mb:  # glibc reserves 64 MB of address space per thread arena
            env.setdefault("MALLOC_ARENA_MAX", "2")
        km = SandboxedKernelManager(kernel_name=self.kernel_name)
        km.connection_file = str(root / "kernel.json")
        km.transport = "ipc"  # local socket files in the private folder, not TCP ports
        km.ip = str(root / "ipc")
        ident = self.identity
        popen_kw = ident.popen_kw
        if self.jail is not None:
            jail, spec_python = self.jail, km.kernel_spec.argv[:1] if km.kernel_spec else []
            extra = tuple(p for p in python_paths(spec_python) if p not in jail.readonly)
            jail = dataclasses.replace(jail, readonly=jail.readonly + extra)
            if cwd is None and self.views_root is not None:  # warm: no run known yet
                readonly = (*readonly, self.views_root)
            mounts = jail.argv(private=root, writable=[cwd] if cwd else [], readonly=readonly)
            prefix = (*memory_limit_prefix(self.memory_limit_mb), *mounts)
            popen_kw = {}
            if km.kernel_spec is not None:  # its own session: SIGINT cannot reach it
                km.kernel_spec.interrupt_mode = "message"
        else:
            prefix = (*memory_limit_prefix(self.memory_limit_mb), *ident.prefix)
        km.sandbox(prefix, (ident.uid, ident.gid) if ident.dropped else None)
        kc = None
        try:
            await km.start_kernel(env=env, cwd=str(cwd or home), **popen_kw)
            pid = getattr(km.provisioner, "pid", None)
            kc = km.client()
            kc.start_channels()
            await kc.wait_for_ready(timeout=self.startup_timeout)
            kc.allow_stdin = False
            slot = root / "work" if self.jail is not None and cwd is None else None
            kernel = Kernel(km, kc, root, pid, warm=warm, slot=slot)
            await kernel.run_silent(self._startup_code(warm), self.startup_timeout)
            return kernel
        except BaseException as e:  # cancellation too: never leak a half-started kernel
            kill_tree(getattr(km.provisioner, "pid", None))
            if kc is not None:
                kc.stop_channels()
            with contextlib.suppress(Exception):
                await asyncio.shield(km.shutdown_kernel(now=True))
            shutil.rmtree(root, ignore_errors=True)
            if not isinstance(e, Exception):
                raise
            raise KernelStartError(f"{type(e).__name__}: {e}") from e

    def _startup_code(self, warm: bool) -> str:
        mods = list(self.preimport) if warm else []
        return (
            "def _mlestar_startup(mods, threads):\n"
            "    import importlib, sys\n"
            "    for m in mods:\n"
            "        try:\n"
            "            importlib.import_module(m)\n"
            "        except Exception:  # noqa: BLE001 - in the kernel: the cell that needs it fails\n"
            "            pass\n"
            "    if 'torch' in sys.modules:\n"
            "        sys.modules['torch'].set_num_threads(threads)\n"
            f"_mlestar_startup({mods!r}, {int(self.threads)})\n"
            "del _mlestar_startup\n"
        )
