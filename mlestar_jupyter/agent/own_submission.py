"""A final notebook that wrote its submission under a name of its own.

A user's notebook writes ``my_submission.csv`` (the Kaggle Titanic tutorial's name),
``output/preds.csv`` or ``submission_rf.csv``; the run picks up ``./final/submission.csv`` only,
so it found no file, walked down its ladder and handed in the prior-only baseline: a constant,
while the user's own valid file sat beside it.  :func:`adopt_own_submission` looks among the CSV
files the run wrote for one that passes the task's submission check and copies it to
``./final/submission.csv``.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from .scoring import VAL_INDEX_FILE, VAL_PREDICTIONS_FILE

# written by the harness or the catalog code, never a submission
_NOT_SUBMISSIONS = frozenset({VAL_INDEX_FILE, VAL_PREDICTIONS_FILE})
_MAX_FILES = 50  # a notebook that writes many CSVs: only the likeliest are read


def written_csvs(workdir: Path) -> list[Path]:
    """The CSV files a run wrote in ``workdir`` (not its ``input`` view), those named like a
    submission first, then the most recently written."""
    found = [
        p
        for p in workdir.rglob("*.csv")
        if p.is_file()
        and p.relative_to(workdir).parts[0] != "input"
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
        if not problems_of(path):
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
            return path, target
        if mend is None:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if mend(path, target) and not problems_of(target):
            return path, target
        target.unlink(missing_ok=True)
    return None


__all__ = ["adopt_own_submission", "written_csvs"]
