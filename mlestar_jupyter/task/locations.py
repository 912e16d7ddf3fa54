"""Names in a TAM-Bench ``task.json`` matched to what ``input/`` holds: data locations, columns.

Task files written by others name their data in several ways; each resolves to files or folders
directly under (or inside) ``input/``:

============================== ============================================================
``train.csv``                  relative to ``input/`` (the schema's own form)
``input/train.csv``            relative to the task folder
``train_images/*.png``         a glob: its fixed folder (``train_images``), or each top entry
``train.csv + train_images/*`` several parts joined by ``+``, ``,`` or ``;``
``train.7z``, ``train.csv.zip`` an archive from the competition page: its unpacked file or
                               folder of the same stem (``train/``, ``train.csv``)
``Train.CSV``                  a name that differs only in case
``/kaggle/input/x/train.csv``  a longer path whose tail names an entry of ``input/``
============================== ============================================================

A match that is not the literal name comes back with a notice saying what it matched; nothing
matching raises ``TaskFormatError`` naming the field, the value and what was looked for.
Column names (``target_col``, ``id_col``) are matched to the files' headers ignoring case.
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import islice
from pathlib import Path, PurePosixPath

from .column_names import find_column
from .errors import TaskFormatError
from .fields import DataFile
from .text_format import TEXT_TABLE_EXT, header_row, read_args

ARCHIVE_SUFFIXES = (
    ".tar.gz",
    ".tar.bz2",
    ".tar.xz",
    ".tgz",
    ".tar",
    ".zip",
    ".7z",
    ".rar",
    ".gz",
    ".bz2",
    ".xz",
)
GLOB_CHARS = re.compile(r"[*?\[]")
PART_SEPARATORS = re.compile(r"\s*[+,;\n]\s*")
GLOB_COUNT_LIMIT = 10_000  # a glob's matches are counted up to this many for its notice


@dataclass(frozen=True)
class Location:
    """What one part of a ``data_location`` names: entries relative to ``input/``."""

    part: str  # the part as written (one of the ``+``-joined pieces)
    entries: tuple[str, ...]  # files or folders, relative to input/, POSIX separators
    notice: str | None = None  # set when the match is not the literal name


def resolve_data_location(
    input_dir: Path, field: str, value: object, where: Path
) -> list[Location]:
    """Every part of ``value`` (the ``data_location`` at ``field``) resolved under ``input_dir``.

    ``where`` is the file errors name (the task.json).  An empty value resolves to nothing.
    """
    parts = _split(input_dir, value, field, where)
    return [_resolve_part(input_dir, field, part, where) for part in parts]


# --------------------------------------------------------------------------- parts
def _split(input_dir: Path, value: object, field: str, where: Path) -> list[str]:
    if value is None:
        return []
    if isinstance(value, list | tuple):
        return [p for v in value for p in _split(input_dir, v, field, where)]
    if not isinstance(value, str):
        raise TaskFormatError(
            where, f"{field} must be a file name or a list of them, got {type(value).__name__}"
        )
    text = _clean(value)
    if not text:
        return []
    if _literal(input_dir, text) is not None:  # a real name holding '+' or ',' stays whole
        return [text]
    return [p for p in (_clean(x) for x in PART_SEPARATORS.split(text)) if p]


def _clean(text: str) -> str:
    t = text.strip().strip("`'\"").strip().replace("\\", "/")
    while t.startswith("./"):
        t = t[2:]
    return t


# --------------------------------------------------------------------------- one part
def _resolve_part(input_dir: Path, field: str, part: str, where: Path) -> Location:
    for rel, guess in _readings(input_dir, part):
        said = f"{field} '{part}'" + (f" (read as '{rel}' in input/)" if guess else "")
        literal = _literal(input_dir, rel)
        if literal is not None:
            notice = f"{said} matched {_names(input_dir, (literal,))}" if guess else None
            return Location(part, (literal,), notice)
        if GLOB_CHARS.search(rel):
            found = _glob(input_dir, rel)
            if found is not None:
                entries, count = found
                notice = f"{said} matched {count}; using {_names(input_dir, entries)}"
                return Location(part, entries, notice)
            continue
        unpacked = _unpacked(input_dir, rel)
        if unpacked:
            shown = _names(input_dir, unpacked)
            notice = f"{said} names an archive; using what it unpacked to: {shown}"
            return Location(part, unpacked, notice)
        folded = _case_folded(input_dir, rel)
        if folded:
            notice = f"{said} matched {_names(input_dir, (folded,))} (the case differs)"
            return Location(part, (folded,), notice)
    raise TaskFormatError(
        where,
        f"{field} names '{part}', which is not in {input_dir} (looked for: {_looked_for(part)}); "
        "fix the name or add the file",
    )


def _readings(input_dir: Path, part: str) -> list[tuple[str, bool]]:
    """(path relative to input/, whether it is a guess) for each way to read ``part``."""
    path = PurePosixPath(part)
    out: list[tuple[str, bool]] = []
    if not path.is_absolute():
        out.append((part, False))
        if path.parts[:1] == ("input",) and len(path.parts) > 1:  # relative to the task folder
            out.append((PurePosixPath(*path.parts[1:]).as_posix(), False))
    elif path.is_relative_to(input_dir.as_posix()):
        out.append((path.relative_to(input_dir.as_posix()).as_posix(), False))
    comps = [c for c in path.parts if c not in ("/", "..", ".")]
    for i in range(len(comps)):  # a longer path (/kaggle/input/x/train.csv): its tails
        tail = PurePosixPath(*comps[i:]).as_posix()
        if all(tail != r for r, _ in out):
            out.append((tail, True))
    return out


def _literal(input_dir: Path, rel: str) -> str | None:
    if not rel or PurePosixPath(rel).is_absolute() or ".." in PurePosixPath(rel).parts:
        return None
    return PurePosixPath(rel).as_posix() if (input_dir / rel).exists() else None


def _glob(input_dir: Path, pattern: str) -> tuple[tuple[str, ...], str] | None:
    """(entries, how many matched) for a glob: its fixed folder, else each top-level entry matched."""
    try:
        matches = list(islice(input_dir.glob(pattern), GLOB_COUNT_LIMIT + 1))
    except (ValueError, NotImplementedError):  # a pattern pathlib refuses (absolute, bad '**')
        return None
    if not matches:
        return None
    fixed = []
    for comp in PurePosixPath(pattern).parts:
        if GLOB_CHARS.search(comp):
            break
        fixed.append(comp)
    if fixed:
        entries: tuple[str, ...] = (PurePosixPath(*fixed).as_posix(),)
    else:
        entries = tuple(sorted({m.relative_to(input_dir).parts[0] for m in matches}))
    n = len(matches)
    count = f"{GLOB_COUNT_LIMIT}+" if n > GLOB_COUNT_LIMIT else str(n)
    return entries, f"{count} path{'' if n == 1 else 's'}"


def _archive_stem(name: str) -> str | None:
    low = name.lower()
    for suffix in ARCHIVE_SUFFIXES:
        if low.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return None


def _unpacked(input_dir: Path, rel: str) -> tuple[str, ...]:
    """The entries an archive named ``rel`` unpacked to: same stem, beside where it would be."""
    path = PurePosixPath(rel)
    stem = _archive_stem(path.name)
    if stem is None:
        return ()
    parent = _case_folded(input_dir, path.parent.as_posix()) if path.parent.parts else ""
    if parent is None or not (input_dir / parent).is_dir():
        return ()
    children = [p for p in sorted((input_dir / parent).iterdir()) if not p.name.startswith(".")]
    same = [p for p in children if p.name.lower() == stem.lower()]
    if not same and "." not in stem:  # train.zip -> train.csv, train.7z -> train.json
        same = [
            p
            for p in children
            if p.name.split(".", 1)[0].lower() == stem.lower() and _archive_stem(p.name) is None
        ]
    return tuple(p.relative_to(input_dir).as_posix() for p in same)


def _case_folded(input_dir: Path, rel: str) -> str | None:
    """``rel`` with each part matched to an existing entry regardless of case."""
    here = input_dir
    for comp in PurePosixPath(rel).parts:
        if comp in ("/", "..") or not here.is_dir():
            return None
        if comp == ".":
            continue
        hit = next((p for p in sorted(here.iterdir()) if p.name.lower() == comp.lower()), None)
        if hit is None:
            return None
        here = hit
    return here.relative_to(input_dir).as_posix() if here != input_dir else ""


def _names(input_dir: Path, entries: tuple[str, ...]) -> str:
    """Entries as a notice lists them: folders end in '/'."""
    return ", ".join(e + "/" if (input_dir / e).is_dir() else e for e in entries)


def _looked_for(part: str) -> str:
    path = PurePosixPath(part)
    if path.parts[:1] == ("input",) and len(path.parts) > 1:
        what = [f"{part} in the task folder", f"input/{part}"]
    else:
        what = [f"input/{part}"]
    if GLOB_CHARS.search(part):
        what.append("files matching the glob")
    stem = _archive_stem(path.name)
    if stem is not None:
        what.append(f"the unpacked archive: a file or folder named '{stem}' or '{stem}.*'")
    what.append("the same name in another case")
    if len(path.parts) > 1:
        what.append("the path's tail under input/")
    return ", ".join(what)


# --------------------------------------------------------------------------- column names
def reconcile_columns(
    field: str,
    names: list[str],
    sample_cols: list[str],
    train_cols: list[str],
    *,
    table: str = "the training table",
) -> tuple[list[str], list[str]]:
    """(``names`` spelled as the files spell them, notices) for column names from task.json.

    A name that is no column of the sample submission or of the other table (``train_cols``,
    called ``table``: the training table, or the test table for the id), but is one when case is
    ignored (``Label`` vs ``label``), takes the sample's spelling, else that table's.  Other
    names are kept as written.
    """
    out: list[str] = []
    notices: list[str] = []
    for name in names:
        if name in sample_cols or name in train_cols:
            out.append(name)
            continue
        for cols, where in (
            (sample_cols, "the sample submission"),
            (train_cols, table),
        ):
            hit = find_column(name, cols)
            if hit is not None:
                out.append(hit)
                notices.append(f"{field} '{name}' is spelled '{hit}' in {where}; using '{hit}'")
                break
        else:
            out.append(name)
    return out, notices


def train_header(input_dir: Path, files: Iterable[DataFile]) -> list[str]:
    """The header of the first training table among ``files`` (CSV or TSV; another table's
    columns: ``table_columns``), or [] without one, a CSV or TSV's read in its separator and encoding (``text_format.read_args``: a ``;`` or tab, the
    Windows code page, UTF-16; a UTF-8 byte-order mark is no part of the first name)."""
    for f in files:
        path = input_dir / f.path
        if f.role == "train" and path.is_file() and path.name.lower().endswith(TEXT_TABLE_EXT):
            try:
                return header_row(path, read_args(path), errors="replace")
            except (OSError, zipfile.BadZipFile):
                return []
        if f.role == "train" and path.is_file():  # a workbook, JSON lines, train.txt by tabs
            from .table_columns import table_columns

            return table_columns(path)
    return []
