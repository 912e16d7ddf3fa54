"""Read-only views of a task's input folder, and the cheap digest that proves it unchanged.

When the kernel runs as another user who can neither write, create, delete nor chmod anything
in the input folder (the usual case as root: data owned by root, no world-write bits), the view
is the folder itself: the operating system refuses every write, and nothing is copied.
Otherwise a view is built once per input folder (and rebuilt when the folder changes): folders
``0555``, files ``0444``, owned by the executor's user.  A file is hard-linked when the kernel's
user cannot write (or chmod) the shared inode anyway; otherwise it is copied, so nothing a
kernel does can reach the original bytes.  Each run's ``workdir/input`` is a symlink to the view.

The digest hashes ``(path, size, mtime, ctime, inode, mode)`` of every entry: ``ctime`` moves on
any write or metadata change and cannot be set back from user space, so it is cheap and sound.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import threading
import uuid
from dataclasses import dataclass
from pathlib import Path

from .errors import WorkdirError
from .sandbox import Identity, traversable_by

# Run by a kernel entering its work folder (``os``, ``sys`` under these names): the data's
# ``.py`` files and packages import, as a notebook's neighbours do in Jupyter (a notebook task's
# input is the notebook's own folder); last on the path, so no installed package is shadowed
INPUT_ON_PATH = (
    "if _mlestar_os.path.isdir('input'):\n"
    "    _mlestar_sys.path.append(_mlestar_os.path.abspath('input'))\n"
)


def make_workdir(workdir: Path) -> Path:
    """Create ``workdir/final`` and ``workdir/working`` and free ``workdir/input`` for the data
    link (an old link is removed); returns the absolute path of the link to create."""
    workdir = workdir.absolute()
    if workdir.is_symlink():  # lent to a jailed kernel by a process that was killed
        workdir.unlink()
    try:
        for sub in ("final", "working"):
            (workdir / sub).mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise WorkdirError(str(workdir), f"cannot create it ({e}); pass a writable folder") from e
    link = workdir / "input"
    if link.is_symlink():
        link.unlink()
    elif link.exists():
        raise WorkdirError(
            str(link),
            "exists as a real folder; pass a fresh workdir (./input becomes a read-only view)",
        )
    return link


# What a folder holds beside its data, that a run or the user changes while a run goes on: a
# notebook task's input folder is the notebook's own folder, which may also hold the run's folder
# (``runs/``, JupyterLab's ``.mlestar/runs``), Jupyter's checkpoints and the notebook itself
# (saved, or changed by accepting a proposal).  Neither the digest nor a view reads them.
_NOT_DATA_DIRS = frozenset({".ipynb_checkpoints", ".mlestar", ".git", "__pycache__"})
_RUN_MARKER = "run.json"  # a run folder (``journal``): its files are the run's, not data


def _data_dirs(dirpath: str, dirnames: list[str]) -> list[str]:
    """The sub-folders of ``dirpath`` that may hold data, sorted (run folders and tool folders
    left out)."""
    return sorted(
        d
        for d in dirnames
        if d not in _NOT_DATA_DIRS and not os.path.isfile(os.path.join(dirpath, d, _RUN_MARKER))
    )


def _data_files(filenames: list[str]) -> list[str]:
    """The files that may be data, sorted (notebooks left out: the user edits and saves them)."""
    return sorted(f for f in filenames if not f.endswith(".ipynb"))


def stat_digest(root: Path) -> str:
    """A digest of every data entry's metadata under ``root``: size, modification time, inode
    and mode (run folders, tool folders and notebooks are not data: ``_data_dirs``,
    ``_data_files``).  Not ``ctime``: another run's view hard-links the same files, which moves
    their ``ctime`` (link count), and two runs on one task made each other fail."""
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root, followlinks=True):
        dirnames[:] = _data_dirs(dirpath, dirnames)
        # files only: a folder's own entry changes when a run folder is made inside it, and a
        # file added or removed changes the names hashed here anyway
        for name in _data_files(filenames):
            p = os.path.join(dirpath, name)
            try:
                st = os.stat(p)
            except FileNotFoundError:
                continue
            rel = os.path.relpath(p, root)
            h.update(f"{rel}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ino}\0{st.st_mode}\n".encode())
    return h.hexdigest()


@dataclass(frozen=True)
class InputView:
    """A read-only view of ``source`` at ``path``."""

    source: Path
    path: Path
    source_digest: str
    digest: str
    copied: int
    linked: int


def _locked_for(st: os.stat_result, ident: Identity) -> bool:
    """Whether the kernel's user can neither modify nor chmod this inode, yet can read it."""
    if not ident.dropped or st.st_uid == ident.uid or st.st_mode & stat.S_IWOTH:
        return False
    if st.st_gid == ident.gid and st.st_mode & stat.S_IWGRP:
        return False
    if ident.prefix:  # setpriv keeps CAP_DAC_READ_SEARCH: it reads and traverses anything
        return True
    need = stat.S_IROTH | (stat.S_IXOTH if stat.S_ISDIR(st.st_mode) else 0)
    return st.st_mode & need == need


def _may_link(st: os.stat_result, ident: Identity, dev: int) -> bool:
    return st.st_dev == dev and stat.S_ISREG(st.st_mode) and _locked_for(st, ident)


def _usable_in_place(src: Path, ident: Identity) -> bool:
    """Whether the kernel's user is locked out of every entry (so no view needs building)."""
    if not ident.dropped or not (ident.prefix or traversable_by(ident.uid, ident.gid, src)):
        return False
    for dirpath, _dirnames, filenames in os.walk(src, followlinks=True):
        for name in ["", *filenames]:
            p = os.path.join(dirpath, name)
            if not _locked_for(os.stat(p), ident) or (name and os.path.islink(p)):
                return False
    return True


def _seal(root: Path) -> None:
    for dirpath, _dirnames, filenames in os.walk(root, topdown=False):
        for name in filenames:
            p = os.path.join(dirpath, name)
            if not os.path.islink(p) and os.stat(p).st_nlink == 1:
                os.chmod(p, 0o444)
        os.chmod(dirpath, 0o555)


def unseal(root: Path) -> None:
    """Make a view deletable again (folders ``0755``)."""
    for dirpath, _dirnames, _files in os.walk(root):
        try:
            os.chmod(dirpath, 0o755)
        except OSError:
            pass


class InputViews:
    """Builds, caches and checks read-only input views under ``base``."""

    def __init__(self, base: Path, identity: Identity, *, mounted: bool = False) -> None:
        self.base = base
        self.identity = identity
        # kernels see views through a read-only mount (a jail): views always live under
        # ``base`` (mounted in warm kernels) and hard links are safe whatever the file modes
        self.mounted = mounted
        self._lock = threading.Lock()
        self._views: dict[Path, InputView] = {}

    def view(self, input_dir: Path) -> InputView:
        """The current view of ``input_dir``, built or rebuilt when the folder changed."""
        src = Path(input_dir).resolve()
        if not src.is_dir():
            raise WorkdirError(
                str(input_dir), "input folder not found; pass the task's data folder"
            )
        with self._lock:
            digest = stat_digest(src)
            cur = self._views.get(src)
            if (
                cur is not None
                and cur.source_digest == digest
                and stat_digest(cur.path) == cur.digest
            ):
                return cur
            view = self._build(src)
            self._views[src] = view
            return view

    def _build(self, src: Path) -> InputView:
        if not self.mounted and _usable_in_place(src, self.identity):
            digest = stat_digest(src)
            return InputView(src, src, digest, digest, 0, 0)
        self.base.mkdir(parents=True, exist_ok=True)
        dest = self.base / f"{src.name or 'input'}-{uuid.uuid4().hex[:8]}"
        dev = self.base.stat().st_dev
        copied = linked = 0
        for dirpath, dirnames, filenames in os.walk(src, followlinks=True):
            dirnames[:] = _data_dirs(dirpath, dirnames)
            out = dest / os.path.relpath(dirpath, src)
            out.mkdir(parents=True, exist_ok=True)
            for name in filenames:
                s, d = os.path.join(dirpath, name), out / name
                st = os.stat(s)
                if _may_link(st, self.identity, dev) or (
                    self.mounted
                    and st.st_dev == dev
                    and stat.S_ISREG(st.st_mode)
                    and st.st_mode & stat.S_IROTH  # a jailed kernel has no capability to read
                ):
                    try:
                        os.link(os.path.realpath(s), d)  # (link() keeps a symlink)
                        linked += 1
                        continue
                    except OSError:
                        pass
                shutil.copy2(s, d)
                copied += 1
        _seal(dest)
        return InputView(src, dest, stat_digest(src), stat_digest(dest), copied, linked)

    def check(self, view: InputView) -> tuple[bool, bool]:
        """``(source_changed, view_changed)`` since ``view`` was built; a changed view is dropped."""
        source_changed = stat_digest(view.source) != view.source_digest
        in_place = view.path == view.source
        view_changed = not in_place and stat_digest(view.path) != view.digest
        if source_changed or view_changed:
            with self._lock:
                if self._views.get(view.source) is view:
                    del self._views[view.source]
        return source_changed, view_changed
