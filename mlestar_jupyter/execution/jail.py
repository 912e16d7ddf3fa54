"""A bubblewrap (``bwrap``) jail around each kernel: what a candidate can see, reach and outlive.

``plan_jail`` looks for ``bwrap`` and proves it works here (user namespaces allowed, or root);
``Jail.argv`` builds the command that wraps a kernel's launch::

    bwrap --unshare-pid --unshare-ipc --unshare-uts --unshare-cgroup-try [--unshare-net]
          --die-with-parent --new-session --cap-drop ALL
          --ro-bind /usr /usr ... (system folders, a few /etc files, the Python prefix)
          --bind <kernel folder> (connection file, ipc sockets, HOME, /tmp)
          --bind <work folder>  --ro-bind <input view>
          [setpriv --reuid nobody ...]  python -m ipykernel_launcher -f <kernel folder>/kernel.json

Each kernel gets its own PID namespace (the kernel's whole tree, double-forked daemons included,
dies with it), no network (loopback only, unless ``network=True``), no capabilities, and a
filesystem holding only the system folders, the Python installation, its own folders and a
read-only ``./input``.  Kernels talk to the executor over ``ipc`` socket files in the kernel
folder, so no network namespace is shared.  As root, ``bwrap`` keeps only the capabilities
``setpriv`` needs to drop to the sandbox user; everything ends with no capability at all.
"""

from __future__ import annotations

import glob
import os
import shutil
import site
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .sandbox import Identity

SYSTEM_DIRS = ("/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/opt/conda")
ETC_FILES = (
    "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "ssl", "ca-certificates",
    "ca-certificates.conf", "pki", "crypto-policies", "passwd", "group", "nsswitch.conf",
    "localtime", "timezone", "hosts", "host.conf", "resolv.conf", "gai.conf", "mime.types",
    "fonts", "matplotlibrc", "os-release", "login.defs",
)  # fmt: skip
"""``/etc`` entries a Python kernel uses; the rest of ``/etc`` (``shadow``, keys) is not mounted."""
DEVICE_GLOBS = ("/dev/nvidia*", "/dev/dri", "/dev/kfd")  # GPUs, when present


@dataclass(frozen=True)
class Jail:
    """How to wrap a kernel's command in ``bwrap`` (see the module docstring)."""

    bwrap: str  # path of the bwrap executable
    network: bool = False  # True: share the host's network (tasks that download)
    readonly: tuple[str, ...] = ()  # host paths mounted read-only at the same path
    drop: tuple[str, ...] = ()  # command run inside the jail to become the sandbox user (root)
    as_root: bool = False  # bwrap runs as root: keep the capabilities ``drop`` needs

    def argv(
        self,
        *,
        private: Path,
        writable: Iterable[Path] = (),
        readonly: Iterable[Path] = (),
    ) -> list[str]:
        """The ``bwrap`` prefix for a kernel whose folder is ``private`` (HOME, connection file,
        sockets; its ``tmp`` is ``$TMPDIR``; ``/tmp`` is an empty tmpfs), with ``writable``
        folders (the work folder) and ``readonly`` ones (the input view) at their own paths."""
        args = [
            self.bwrap, "--unshare-pid", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
        ]  # fmt: skip
        if not self.network:
            args.append("--unshare-net")
        if self.as_root:
            for cap in ("CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP"):
                args += ["--cap-add", cap]
        tree = _Tree()
        for d in SYSTEM_DIRS:
            if os.path.islink(d):
                args += tree.add(d, ["--symlink", os.readlink(d), d])
            elif os.path.isdir(d):
                args += tree.bind("--ro-bind", d)
        for name in ETC_FILES:
            if os.path.exists(f"/etc/{name}"):
                args += tree.bind("--ro-bind", f"/etc/{name}")
        args += tree.add("/proc", ["--proc", "/proc"]) + tree.add("/dev", ["--dev", "/dev"])
        args += tree.add("/dev/shm", ["--perms", "1777", "--tmpfs", "/dev/shm"])
        args += tree.add("/tmp", ["--perms", "1777", "--tmpfs", "/tmp"])
        if os.path.isdir("/sys"):
            args += tree.bind("--ro-bind", "/sys")
        for pattern in DEVICE_GLOBS:
            for dev in sorted(glob.glob(pattern)):
                args += tree.bind("--dev-bind", dev)
        # after the /tmp tmpfs, which would hide a virtual environment made under /tmp
        for p in self.readonly:
            args += tree.bind("--ro-bind", p)
        args += tree.bind("--bind", str(private))
        for w in writable:
            args += tree.bind("--bind", str(w))
        for r in readonly:
            args += tree.bind("--ro-bind", str(r))
        args += ["--setenv", "TMPDIR", str(private / "tmp")]  # the kernel enters its folder
        # ipykernel exits when its parent pid is not JPY_PARENT_PID; in the PID namespace it
        # never is (``--die-with-parent`` ends the jail with the executor instead)
        args += ["--setenv", "JPY_PARENT_PID", "1"]  # 1: no parent poller, no banner
        return [*args, *self.drop]


class _Tree:
    """The folders that exist in the jail being built, to create missing parents (mode 0755:
    bwrap makes its own parents 0700, which an unprivileged kernel could not traverse)."""

    def __init__(self) -> None:
        self.made: set[str] = {"/"}  # folders made in the jail's tmpfs (or mounted there)
        self.hosts: set[str] = set()  # host folders bound at their own path

    def _exists(self, path: str) -> bool:
        return path in self.made or any(path.startswith(h + "/") for h in self.hosts)

    def add(self, dest: str, op: list[str]) -> list[str]:
        """``op`` creating ``dest``, after the parents it lacks."""
        out: list[str] = []
        for parent in (str(p) for p in reversed(Path(dest).parents)):
            if not self._exists(parent):
                out += ["--perms", "0755", "--dir", parent]
                self.made.add(parent)
        self.made.add(dest)
        return [*out, *op]

    def bind(self, flag: str, path: str) -> list[str]:
        """``flag path path``: a host path at its own place."""
        out = self.add(path, [flag, path, path])
        self.hosts.add(path)
        return out


def python_paths(executables: Iterable[str] = ()) -> tuple[str, ...]:
    """Folders holding the Python installation: prefixes, site-packages, and the prefix of each
    of ``executables`` (a kernel spec's interpreter); nested ones are dropped."""
    found = {
        sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
        *site.getsitepackages(), site.getusersitepackages(),
    }  # fmt: skip
    for exe in executables:
        path = shutil.which(exe)
        if path:
            found.add(str(Path(os.path.realpath(path)).parent.parent))
    real = {os.path.realpath(p) for p in found} | found
    keep = sorted(p for p in real if os.path.isdir(p) and p not in SYSTEM_DIRS)
    keep = [p for p in keep if not any(p.startswith(s + "/") for s in SYSTEM_DIRS)]
    return tuple(p for p in keep if not any(p.startswith(q + "/") for q in keep))


def setpriv_drop(uid: int, gid: int) -> tuple[str, ...] | None:
    """The ``setpriv`` command that becomes ``uid``/``gid`` with no capability left (None when
    ``setpriv`` is missing)."""
    exe = shutil.which("setpriv")
    if not exe:
        return None
    return (
        exe, f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--no-new-privs",
        "--inh-caps=-all", "--bounding-set=-all", "--",
    )  # fmt: skip


def plan_jail(
    *, network: bool, identity: Identity, bwrap: str | None = None
) -> tuple[Jail | None, str]:
    """A working jail for kernels run as ``identity``, or None and why not (``bwrap`` missing,
    user namespaces refused, ``setpriv`` missing as root).  The probe runs Python in a full
    jail once (about 0.1 s)."""
    exe = bwrap or shutil.which("bwrap")
    if not exe:
        return None, (
            "bubblewrap (bwrap) is not installed, so kernels run without a namespace jail: they "
            "can read what their user can read and reach the network (install it: "
            "apt-get install bubblewrap)"
        )
    root = os.geteuid() == 0
    drop: tuple[str, ...] = ()
    if root and identity.dropped:
        found = setpriv_drop(identity.uid, identity.gid)
        if found is None:
            return None, "setpriv (util-linux) is missing, so kernels cannot be jailed as root"
        drop = found
    jail = Jail(exe, network, python_paths(), drop, root)
    with tempfile.TemporaryDirectory(prefix="mlestar-jail-probe-") as tmp:
        private = Path(tmp)
        for p in (private, private / "home", private / "tmp"):
            p.mkdir(exist_ok=True)
            if drop:
                os.chown(p, identity.uid, identity.gid)
        cmd = [*jail.argv(private=private), sys.executable, "-c", "import os; os.getcwd()"]
        try:
            done = subprocess.run(cmd, capture_output=True, timeout=60, check=False)
        except (OSError, subprocess.SubprocessError) as e:
            return None, f"bwrap could not start ({e}); kernels run without a namespace jail"
    if done.returncode != 0:
        err = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no message"]
        return None, (
            f"bwrap is installed but cannot build a jail here ({err[0]}); kernels run without a "
            "namespace jail (allow unprivileged user namespaces, e.g. sysctl "
            "kernel.unprivileged_userns_clone=1, or run as root)"
        )
    return jail, ""


@dataclass(frozen=True)
class SandboxInfo:
    """Which sandbox a run's kernels get (journaled as the run's ``sandbox`` event)."""

    kind: str  # "bwrap" (namespace jail), "setpriv"/"popen-user" (user switch), "none", "gateway"
    user: str  # who the kernel runs as
    network: bool  # whether candidate code can reach the network
    note: str = ""  # why there is no jail, when there is none

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"kind": self.kind, "user": self.user, "network": self.network, "note": self.note}
