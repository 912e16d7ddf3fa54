"""A folder made to show another's files by links, without copying them (the data a run reads
stays where the user keeps it)."""

from __future__ import annotations

from collections.abc import Container
from pathlib import Path

# kept out of every linked folder: notebook checkpoints, run folders, version control
SKIPPED = frozenset({".ipynb_checkpoints", ".mlestar", ".git", "__pycache__"})


def link_entries(source: Path, folder: Path, *, leave_out: Container[str] = ()) -> None:
    """``folder`` (made when missing) given a link to each entry of ``source`` but hidden ones,
    :data:`SKIPPED` and ``leave_out``; an entry ``folder`` already holds is kept."""
    folder.mkdir(parents=True, exist_ok=True)
    for entry in sorted(source.iterdir()):
        if entry.name in SKIPPED or entry.name.startswith(".") or entry.name in leave_out:
            continue
        link = folder / entry.name
        if not link.is_symlink() and not link.exists():
            link.symlink_to(entry.absolute(), target_is_directory=entry.is_dir())


__all__ = ["SKIPPED", "link_entries"]
