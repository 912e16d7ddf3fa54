"""Scratch folders of executors (``<tmp>/mlestar-exec-*``): who owns each, and removing the ones
whose owner is gone.

An ``Executor`` removes its scratch folder when it closes; a process killed with SIGKILL cannot,
so every folder holds ``owner.json`` (the owning process's pid and start time, and the run
folder it worked for).  ``clean_scratch`` removes the folders whose process no longer runs:
``mlestar resume`` does it for the run it continues, ``mlestar clean`` for any run.  Folders
without ``owner.json`` (made by an older version) are left alone and reported.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from .inputs import unseal

PREFIX = "mlestar-exec-"
OWNER_FILE = "owner.json"


@dataclass(frozen=True)
class ScratchDir:
    """One scratch folder and what its ``owner.json`` says."""

    path: Path
    pid: int | None = None
    create_time: float | None = None
    run_dir: str | None = None

    @property
    def known(self) -> bool:
        """Whether the folder names its owner (older versions wrote no ``owner.json``)."""
        return self.pid is not None

    def owner_alive(self) -> bool:
        """Whether the owning process still runs (a recycled pid does not count)."""
        if self.pid is None:
            return True  # unknown: assume in use
        return process_alive(self.pid, self.create_time)


def process_alive(pid: int, create_time: float | None) -> bool:
    """Whether process ``pid`` runs and is the one started at ``create_time`` (a recycled pid or
    a zombie does not count)."""
    try:
        p = psutil.Process(pid)
        if create_time is not None and abs(p.create_time() - create_time) > 1.0:
            return False
        return p.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


@dataclass
class CleanReport:
    """What ``clean_scratch`` did."""

    removed: list[Path] = field(default_factory=list)
    in_use: list[Path] = field(default_factory=list)  # the owner still runs
    unknown: list[Path] = field(default_factory=list)  # no owner.json
    failed: list[tuple[Path, str]] = field(default_factory=list)


def default_base() -> Path:
    """Where executors put their scratch folders unless told otherwise."""
    return Path(tempfile.gettempdir())


def claim(root: Path, run_dir: str | Path | None = None) -> None:
    """Write ``root/owner.json`` naming this process (and the run folder it works for)."""
    me = psutil.Process(os.getpid())
    owner = {
        "pid": me.pid,
        "create_time": me.create_time(),
        "run_dir": str(Path(run_dir).resolve()) if run_dir is not None else None,
    }
    (root / OWNER_FILE).write_text(json.dumps(owner), encoding="utf-8")


def find_scratch(base: Path | None = None) -> list[ScratchDir]:
    """Every scratch folder under ``base`` (default: the system's temp folder), oldest first."""
    base = base or default_base()
    try:
        paths = [p for p in base.iterdir() if p.name.startswith(PREFIX) and p.is_dir()]
    except OSError:
        return []
    out = []
    for p in sorted(paths, key=_mtime):
        try:
            d = json.loads((p / OWNER_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            out.append(ScratchDir(p))
            continue
        pid = d.get("pid") if isinstance(d, dict) else None
        out.append(
            ScratchDir(
                p,
                pid=pid if isinstance(pid, int) else None,
                create_time=d.get("create_time"),
                run_dir=d.get("run_dir"),
            )
        )
    return out


def clean_scratch(
    base: Path | None = None, run_dirs: list[str | Path] | None = None
) -> CleanReport:
    """Remove the scratch folders whose owning process is gone; with ``run_dirs``, only those
    made for one of these run folders."""
    wanted = {str(Path(r).resolve()) for r in run_dirs} if run_dirs else None
    report = CleanReport()
    for s in find_scratch(base):
        if wanted is not None and s.run_dir not in wanted:
            continue
        if not s.known:
            report.unknown.append(s.path)
        elif s.owner_alive():
            report.in_use.append(s.path)
        else:
            try:
                unseal(s.path)
                shutil.rmtree(s.path)
                report.removed.append(s.path)
            except OSError as e:
                report.failed.append((s.path, str(e)))
    return report


def _mtime(p: Path) -> float:
    try:
        return p.stat().st_mtime
    except OSError:
        return 0.0
