"""A final notebook that wrote its submission under a name of its own.

A user's notebook writes ``my_submission.csv`` (the Kaggle Titanic tutorial's name),
``output/preds.csv`` or ``submission_rf.csv``; the run picks up ``./final/submission.csv`` only,
so it found no file, walked down its ladder and handed in the prior-only baseline: a constant,
while the user's own valid file sat beside it.  :func:`adopt_own_submission` looks among the CSV
files the run wrote for one that passes the task's submission check and copies it to
``./final/submission.csv``.  A file written compressed (``submission.csv.gz``, as
``to_csv(..., compression="gzip")`` writes it, or ``.zip``, ``.bz2``, ``.xz``) is unpacked
first: the run hands in plain CSV.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path

from .scoring import VAL_INDEX_FILE, VAL_PREDICTIONS_FILE

# written by the harness or the catalog code, never a submission
_NOT_SUBMISSIONS = frozenset({VAL_INDEX_FILE, VAL_PREDICTIONS_FILE})
_MAX_FILES = 50  # a notebook that writes many CSVs: only the likeliest are read


_UNPACKED = ".unpacked"  # where compressed files are unpacked, in the work folder
_OPENERS: dict[str, Callable[[Path], object]] = {
    ".gz": gzip.open,
    ".bz2": bz2.open,
    ".xz": lzma.open,
}


def _is_csv(name: str) -> bool:
    """A CSV file's name, plain or compressed (``submission.csv.gz``)."""
    name = name.lower()
    return name.endswith(".csv") or any(name.endswith(f".csv{z}") for z in (*_OPENERS, ".zip"))


def written_csvs(workdir: Path) -> list[Path]:
    """The CSV files a run wrote in ``workdir`` (not its ``input`` view), plain or compressed,
    those named like a submission first, then the most recently written."""
    found = [
        p
        for p in workdir.rglob("*")
        if p.is_file()
        and _is_csv(p.name)
        and p.relative_to(workdir).parts[0] not in ("input", _UNPACKED)
        and p.name not in _NOT_SUBMISSIONS
    ]

    def likely(p: Path) -> tuple[bool, float]:
        name = p.name.lower()
        return ("sub" not in name and "pred" not in name, -p.stat().st_mtime)

    return sorted(found, key=likely)[:_MAX_FILES]


def adopt_own_submission(
    workdir: Path,
    problems_of: Callable[[Path], list[str]],
    mend: Callable[[Path, Path], object] | None = None,
) -> tuple[Path, Path] | None:
    """(the file the run wrote, ``workdir/final/submission.csv``) when ``workdir`` holds no
    ``final/submission.csv`` but another CSV the run wrote passes ``problems_of`` (the task's
    submission check: no problems), copied there; ``None`` when none does.  A file that does not
    pass is given to ``mend(file, target)`` (when given), which may write a mended copy to
    ``target`` (returning something true): that copy is taken when it passes."""
    target = workdir / "final" / "submission.csv"
    if target.is_file():
        return None
    for path in written_csvs(workdir):
        plain = _unpacked(path, workdir)
        if plain is None:
            continue
        if not problems_of(plain):
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(plain, target)
            return path, target
        if mend is None:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if mend(plain, target) and not problems_of(target):
            return path, target
        target.unlink(missing_ok=True)
    return None


def _unpacked(path: Path, workdir: Path) -> Path | None:
    """``path`` itself when it is plain CSV, else its CSV unpacked into ``workdir/.unpacked``
    (a zip file's one CSV member); ``None`` when it cannot be read so."""
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return path
    out = workdir / _UNPACKED / path.name[: -len(suffix)]
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        if suffix == ".zip":
            with zipfile.ZipFile(path) as archive:
                members = [n for n in archive.namelist() if n.lower().endswith(".csv")]
                if len(members) != 1:
                    return None
                with archive.open(members[0]) as src, out.open("wb") as dst:
                    shutil.copyfileobj(src, dst)
        else:
            with _OPENERS[suffix](path) as src, out.open("wb") as dst:  # type: ignore[attr-defined]
                shutil.copyfileobj(src, dst)
    except (OSError, EOFError, zipfile.BadZipFile, lzma.LZMAError, KeyError):
        return None
    return out


__all__ = ["adopt_own_submission", "written_csvs"]
