"""What a kernel may see and do: its environment, its identity, its limits, and how it dies.

* ``kernel_env`` builds the environment from an allow-list; anything that looks like a secret
  (API keys, tokens, cloud credentials) is dropped even when allowed or passed in ``extra_env``.
* ``plan_identity`` decides which user the kernel runs as.  As root the kernel drops to an
  unprivileged user (``nobody``) through ``setpriv``, keeping only ``CAP_DAC_READ_SEARCH`` so it
  can read the Python installation and traverse private parent folders (``/root``) but can write
  nothing it does not own; a ``PermissionError`` meets any write into ``./input``.  It also
  cannot read other users' ``/proc/<pid>/environ``.  Without ``setpriv`` the ``subprocess``
  ``user=`` switch is used when the interpreter is reachable; otherwise the kernel keeps our
  identity and a warning says so.
* ``memory_limit_prefix`` caps the kernel's address space (``RLIMIT_AS``) from its launch.
* ``kill_tree`` kills a kernel, its process group and every descendant.

Where bubblewrap works, ``jail.py`` wraps the kernel in namespaces as well, and the kernel drops
to the sandbox user inside the jail with no capability at all (``CAP_DAC_READ_SEARCH`` is only
for the fall-back, which has no mount namespace).
"""

from __future__ import annotations

import os
import pwd
import re
import shutil
import signal
import stat
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil

ALLOWED_ENV = frozenset(
    {
        "PATH", "LANG", "LANGUAGE", "TZ", "TERM", "SHELL", "TMPDIR",
        "PYTHONPATH", "PYTHONHASHSEED", "PYTHONIOENCODING", "PYTHONUNBUFFERED",
        "PYTHONDONTWRITEBYTECODE", "PYTHONWARNINGS",
        "VIRTUAL_ENV", "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "LD_LIBRARY_PATH",
        "CUDA_VISIBLE_DEVICES", "CUDA_HOME", "CUDA_PATH", "NVIDIA_VISIBLE_DEVICES",
        "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE",
    }
)  # fmt: skip
ALLOWED_PREFIXES = ("LC_",)
SECRET_RE = re.compile(
    r"(API_?KEY|TOKEN|SECRET|PASSW|PASSWD|CREDENTIAL|PRIVATE_KEY|AUTH|COOKIE|SESSION"
    r"|^AWS_|^GOOGLE_|^GCLOUD|^GCP_|^GEMINI_|^OPENAI_|^ANTHROPIC_|^HF_|^HUGGING|^AZURE_"
    r"|^JPY_|^JUPYTER_|^GITHUB_|^GH_|^GITLAB_|^WANDB_|^KAGGLE_|^MISTRAL_|^COHERE_|^GROQ_"
    r"|^DEEPSEEK_|^TOGETHER_|^REPLICATE_|^VERTEX|^MLESTAR_)",
    re.IGNORECASE,
)
THREAD_VARS = (
    "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS",
    "NUMEXPR_MAX_THREADS", "VECLIB_MAXIMUM_THREADS", "BLIS_NUM_THREADS", "LOKY_MAX_CPU_COUNT",
    "RAYON_NUM_THREADS", "POLARS_MAX_THREADS", "TF_NUM_INTRAOP_THREADS",
)  # fmt: skip
SANDBOX_CAP = "dac_read_search"


def is_secret(name: str) -> bool:
    """True for environment variable names that may carry credentials."""
    return bool(SECRET_RE.search(name))


def kernel_env(
    base: Mapping[str, str],
    *,
    threads: int,
    home: Path,
    extra: Mapping[str, str] | None = None,
) -> tuple[dict[str, str], list[str]]:
    """The kernel's environment and the names of ``extra`` entries dropped as secrets.

    Only allow-listed, non-secret variables of ``base`` pass; thread caps and a private HOME
    are added; ``extra`` (the caller's additions) wins except for secret-looking names.
    """
    env = {
        k: v
        for k, v in base.items()
        if (k in ALLOWED_ENV or k.startswith(ALLOWED_PREFIXES)) and not is_secret(k)
    }
    env.setdefault("PATH", os.defpath)
    env.setdefault("LANG", "C.UTF-8")
    n = str(max(1, int(threads)))
    env.update({v: n for v in THREAD_VARS})
    env["OMP_WAIT_POLICY"] = "PASSIVE"
    env["HOME"] = str(home)
    env["IPYTHONDIR"] = str(home / ".ipython")
    env["MPLCONFIGDIR"] = str(home / ".matplotlib")
    env["XDG_CACHE_HOME"] = str(home / ".cache")
    env["PYTHONUNBUFFERED"] = "1"
    env["MPLBACKEND"] = "Agg"
    dropped = []
    for k, v in (extra or {}).items():
        if is_secret(k):
            dropped.append(k)
        else:
            env[k] = str(v)
    return env, dropped


# -- identity -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Identity:
    """Who the kernel runs as, and how to get there."""

    uid: int
    gid: int
    dropped: bool = False
    prefix: tuple[str, ...] = ()
    popen_kw: dict[str, Any] = field(default_factory=dict)
    how: str = "same user as the executor"


def _current() -> Identity:
    return Identity(os.geteuid(), os.getegid())


def _lookup(user: str) -> tuple[int, int]:
    try:
        pw = pwd.getpwnam(user)
        return pw.pw_uid, pw.pw_gid
    except KeyError:
        return 65534, 65534


def traversable_by(uid: int, gid: int, path: Path) -> bool:
    """Whether ``uid`` can reach ``path`` (execute bit on every ancestor folder)."""
    p = path.resolve()
    for d in [*reversed(p.parents), p] if p.is_dir() else reversed(p.parents):
        st = d.stat()
        if st.st_uid == uid:
            bit = stat.S_IXUSR
        elif st.st_gid == gid:
            bit = stat.S_IXGRP
        else:
            bit = stat.S_IXOTH
        if not st.st_mode & bit:
            return False
    return True


def _setpriv_prefix(uid: int, gid: int) -> tuple[str, ...] | None:
    exe = shutil.which("setpriv")
    if not exe:
        return None
    prefix = (
        exe, f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--no-new-privs",
        f"--inh-caps=-all,+{SANDBOX_CAP}", f"--ambient-caps=+{SANDBOX_CAP}",
        f"--bounding-set=-all,+{SANDBOX_CAP}", "--",
    )  # fmt: skip
    probe = [*prefix, sys.executable, "-c", f"import os,sys; sys.exit(os.getuid() != {uid})"]
    try:
        done = subprocess.run(probe, capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return prefix if done.returncode == 0 else None


def plan_identity(user: str | None) -> tuple[Identity, str | None]:
    """Decide the kernel's identity; the second item is a warning when no drop is possible."""
    if not user:
        return _current(), None
    if os.geteuid() != 0:
        return _current(), (
            f"not running as root, so kernels run as uid {os.geteuid()}; ./input is protected by "
            "read-only copies only"
        )
    uid, gid = _lookup(user)
    prefix = _setpriv_prefix(uid, gid)
    if prefix:
        return Identity(uid, gid, True, prefix, {}, f"{user} via setpriv (+{SANDBOX_CAP})"), None
    if traversable_by(uid, gid, Path(sys.executable)):
        kw = {"user": uid, "group": gid, "extra_groups": []}
        return Identity(uid, gid, True, (), kw, f"{user} via Popen(user=)"), None
    return _current(), (
        f"cannot run kernels as {user!r}: setpriv is missing and {sys.executable} is not "
        f"reachable by uid {uid}; kernels run as root and CAN write into ./input "
        "(install util-linux's setpriv to fix)"
    )


def chown_tree(root: Path, uid: int, gid: int, *, skip: tuple[str, ...] = ()) -> None:
    """``chown -R`` without following links; top-level names in ``skip`` are left alone."""
    os.lchown(root, uid, gid)
    for dirpath, dirnames, filenames in os.walk(root):
        if Path(dirpath) == root:
            dirnames[:] = [d for d in dirnames if d not in skip]
            filenames = [f for f in filenames if f not in skip]
        for name in dirnames + filenames:
            try:
                os.lchown(os.path.join(dirpath, name), uid, gid)
            except FileNotFoundError:
                pass


# -- limits and killing -------------------------------------------------------------------------
_LIMIT_CODE = (
    "import os, resource, sys; n = int(sys.argv[1]); "
    "resource.setrlimit(resource.RLIMIT_AS, (n, n)); os.execvp(sys.argv[2], sys.argv[2:])"
)


def memory_limit_prefix(megabytes: int | None) -> tuple[str, ...]:
    """A command prefix that caps the address space (``RLIMIT_AS``) of what it executes.

    The limit is set by the launched process on itself before ``exec`` (changing another
    process's limits needs ``CAP_SYS_RESOURCE``, which containers often lack); children
    inherit it.
    """
    if not megabytes:
        return ()
    limit = int(megabytes) * 1024 * 1024
    return (sys.executable, "-I", "-S", "-c", _LIMIT_CODE, str(limit))


def _tree(pid: int) -> list[psutil.Process]:
    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except psutil.Error:
        return []


def kill_tree(pid: int | None) -> list[int]:
    """SIGKILL ``pid``, its process group and all its descendants; returns the pids signalled."""
    if not pid:
        return []
    procs = _tree(pid)
    groups = {pid}
    for p in procs:
        try:
            groups.add(os.getpgid(p.pid))
        except OSError:
            pass
    own = os.getpgid(0)
    for g in groups - {own}:
        try:
            os.killpg(g, signal.SIGKILL)
        except OSError:
            pass
    for p in procs:
        try:
            p.send_signal(signal.SIGKILL)
        except psutil.Error:
            pass
    return [p.pid for p in procs]


def tree_rss_mb(pid: int | None) -> float | None:
    """Resident memory of ``pid`` and its descendants in MB (None when it is gone)."""
    if not pid:
        return None
    total = 0
    procs = _tree(pid)
    if not procs:
        return None
    for p in procs:
        try:
            total += p.memory_info().rss
        except psutil.Error:
            pass
    return total / (1024 * 1024)
