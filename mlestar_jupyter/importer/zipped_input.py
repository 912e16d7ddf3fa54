"""A task folder whose tables come zipped: the run reads a copy of its input folder with them
unpacked.

Found by task folders written by other people (hunt D, session 27): ``input/`` held
``train.zip`` (of ``train.csv``), ``test.zip`` and the sample submission, as a competition's
page serves them.  ``mlestar task import`` unpacks such files, but ``mlestar run`` stopped at
"no training table (train.csv) found" and said which ``unzip`` to type.  :func:`unpacked_input`
does it for the run without touching the user's data: a folder in the run's own folder links
every entry of ``input/`` and holds what the archives unpack to (a download wrapped in one
top-level folder flattened, names ``input/`` already has left out).  A table zipped on its own
(``train.csv.zip``) is read as it is and not unpacked.  A resumed run keeps its copy.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

from ..task import Task
from ..task.layout.links import link_entries
from ..task.text_format import TEXT_TABLE_EXT
from .data import ARCHIVE_SUFFIXES, flatten_single_folder, unpack_archive
from .errors import TaskImportError

MAX_UNPACKED_BYTES = 4 * 1024**3  # more than this unpacked: the user unpacks it where it can stay


def unpacked_input(task: Task, folder: Path) -> Task | None:
    """``task`` reading its data from ``folder``, a copy of its input folder with the archives
    there unpacked (a notice says which), or ``None``: no archive, nothing in them that
    ``input/`` lacks, or one cannot be unpacked (the layout's error then says what to do)."""
    archives = archives_of(task.input_dir)
    if not archives:
        return None
    stamp = folder.with_name(f"{folder.name}.json")
    signature = {a.name: [a.stat().st_size, a.stat().st_mtime_ns] for a in archives}
    unpacked = _kept(stamp, folder, signature)
    if unpacked is None:
        unpacked = _unpack_all(task.input_dir, archives, folder)
        if not unpacked:
            return None
        stamp.write_text(json.dumps({"archives": signature, "unpacked": unpacked}) + "\n")
    shown = ", ".join(unpacked[:6]) + (
        f" and {len(unpacked) - 6} more" if len(unpacked) > 6 else ""
    )
    note = (
        f"input/ holds {', '.join(a.name for a in archives)}: the run reads a copy of input/ "
        f"with {'it' if len(archives) == 1 else 'them'} unpacked ({shown}; in {folder}); your "
        "files are unchanged"
    )
    return replace(task, input_dir=folder, notices=(*task.notices, note))


def archives_of(input_dir: Path) -> list[Path]:
    """The archives directly in ``input_dir`` (``train.zip``, ``data.tar.gz``), but tables
    zipped on their own (``train.csv.zip``), which are read as they are."""
    if not input_dir.is_dir():
        return []
    return [
        p
        for p in sorted(input_dir.iterdir())
        if p.is_file()
        and p.name.lower().endswith(ARCHIVE_SUFFIXES)
        and not p.name.lower().endswith(TEXT_TABLE_EXT)
        and not p.name.startswith(".")
    ]


def _kept(stamp: Path, folder: Path, signature: dict[str, list[int]]) -> list[str] | None:
    """What an earlier start of this run unpacked into ``folder``, when it was made from
    these very archives (``None``: make it anew)."""
    try:
        kept = json.loads(stamp.read_text())
    except (OSError, ValueError):
        return None
    if kept.get("archives") != signature or not folder.is_dir():
        return None
    return [str(n) for n in kept.get("unpacked", [])]


def _unpack_all(input_dir: Path, archives: list[Path], folder: Path) -> list[str]:
    """Make ``folder``: what each archive holds that ``input_dir`` lacks, and a link to every
    entry of ``input_dir``; the names unpacked (none: ``folder`` is not made)."""
    if _unpacked_size(archives) > MAX_UNPACKED_BYTES:
        return []
    staged = folder.with_name(f".{folder.name}.partial")
    shutil.rmtree(staged, ignore_errors=True)
    shutil.rmtree(folder, ignore_errors=True)
    names: list[str] = []
    try:
        for archive in archives:
            tmp = staged / f".unpack-{archive.name}"
            unpack_archive(archive, tmp)
            flatten_single_folder(tmp)
            for child in sorted(tmp.iterdir()):
                if child.name.startswith(".") or (input_dir / child.name).exists():
                    continue
                if not (staged / child.name).exists():
                    shutil.move(str(child), str(staged / child.name))
                    names.append(child.name)
            shutil.rmtree(tmp)
    except (TaskImportError, OSError):
        shutil.rmtree(staged, ignore_errors=True)
        return []
    if not names:
        shutil.rmtree(staged, ignore_errors=True)
        return []
    link_entries(input_dir, staged)
    staged.rename(folder)
    return names


def _unpacked_size(archives: list[Path]) -> int:
    """The bytes the zip archives among ``archives`` hold unpacked (others count as their own
    size: tar and 7z say it only when read through)."""
    import zipfile

    total = 0
    for a in archives:
        try:
            with zipfile.ZipFile(a) as z:
                total += sum(i.file_size for i in z.infolist())
        except (OSError, zipfile.BadZipFile):
            total += a.stat().st_size
    return total


__all__ = ["MAX_UNPACKED_BYTES", "archives_of", "unpacked_input"]
