"""Data a notebook reads from something other than table files a task read from it can hold.

A task made from a notebook (``notebook_task``) finds the tables the notebook names
(``pd.read_csv('train.csv')``).  Some notebooks read their rows otherwise, and were refused with
a message that named the wrong file ("it names 'submission.csv'") or said the notebook reads no
training table when it does:

- NumPy arrays (``np.load('X_train.npy')``);
- a SQLite database (``sqlite3.connect('wine.db')``, ``create_engine('sqlite:///wine.db')``);
- files matched by a pattern (``glob.glob('data/train_part*.csv')``, then ``pd.concat``).

:func:`unreadable_sources` says which of these the notebook does, naming its files, and what to
change; ``None`` when it does none of them.
"""

from __future__ import annotations

import fnmatch
import os
import re
from pathlib import Path

_ARRAY = re.compile(r"""(["'])([^"'\n]+\.np[yz])\1""")
_SQLITE = re.compile(r"""sqlite3\.connect\(\s*(["'])([^"'\n]+)\1|sqlite:///([^"'\n]+)""")
_PATTERN = re.compile(r"""(["'])([^"'\n]*[*?][^"'\n]*)\1""")


def unreadable_sources(root: Path, sources: list[str], data_ext: tuple[str, ...]) -> str | None:
    """What the notebook (cells ``sources``) reads its data from that is no table file of
    ``data_ext`` under ``root``, with what to do, as the end of a sentence starting with the
    notebook's name; ``None`` when it reads none of those."""
    code = "\n".join(sources)
    here = _files(root)
    arrays = _present([m.group(2) for m in _ARRAY.finditer(code)], here)
    if arrays:
        return (
            f"loads NumPy arrays ({', '.join(arrays[:4])}), not a table a task made from a "
            "notebook can hold: save the training rows as one table with the target as a column "
            "(pd.DataFrame(X_train).assign(target=y_train).to_csv('train.csv', index=False)) "
            "and read that, or make a task folder: input/ holding the arrays (X_train.npy, "
            "y_train.npy, X_test.npy) and a sample_submission.csv (id,label), beside "
            "description.md with a line 'Metric: <name>'"
        )
    bases = [m.group(2) or m.group(3) for m in _SQLITE.finditer(code)]
    bases = _present([b for b in bases if b and b != ":memory:"], here)
    if bases:
        return (
            f"reads a SQLite database ({', '.join(bases[:3])}), which a run does not read: "
            "write the tables it queries out as files (pd.read_sql('SELECT * FROM train', "
            "con).to_csv('train.csv', index=False), the same for test) and read those"
        )
    for m in _PATTERN.finditer(code):
        pattern = m.group(2).replace("\\", "/")
        if not pattern.lower().endswith(data_ext):
            continue
        matched = [p for p in here if fnmatch.fnmatch(p, pattern.lstrip("./"))]
        matched = matched or [p for p in here if fnmatch.fnmatch(Path(p).name, Path(pattern).name)]
        if matched:
            return (
                f"reads its rows through the pattern {pattern!r} ({len(matched)} files: "
                f"{', '.join(matched[:3])}{', ...' if len(matched) > 3 else ''}), and a run "
                "needs one training table: join them into one file (pd.concat([pd.read_csv(f) "
                "for f in files]).to_csv('train.csv', index=False)) and read that"
            )
    return None


def _files(root: Path) -> list[str]:
    """The files under ``root``, as paths relative to it (hidden folders left out)."""
    out: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        rel = Path(dirpath).relative_to(root)
        out += [(rel / f).as_posix() for f in sorted(filenames)]
        if len(out) > 5000:
            break
    return out


def _present(named: list[str], here: list[str]) -> list[str]:
    """The names in ``named`` (in order, once each) of files under the folder, by file name."""
    names = {Path(p).name for p in here}
    return [n for n in dict.fromkeys(named) if Path(n.replace("\\", "/")).name in names]


__all__ = ["unreadable_sources"]
