"""Reading a task's tables: the first rows of a file, which file is the train or test table,
the sample submission's columns, a column's distinct values; the format a submission is written
in (the sample's separator, decimal mark and encoding) and reading one back."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from ..class_submission import class_header
from ..errors import LayoutError
from ..model import Task
from ..numbers import is_number
from ..text_format import _COMMA_NUMBER, _POINT_NUMBER, TEXT_TABLE_EXT, _encoding, read_args
from .model import EXCEL_TABLE_EXT, FEATHER_EXT, JSON_LINES_EXT, TABLE_EXT

_TEXT_SUFFIXES = (*TEXT_TABLE_EXT, ".txt")


def read_table(
    path: Path,
    columns: list[str] | None = None,
    nrows: int | None = None,
    *,
    as_text: bool = False,
) -> pd.DataFrame:
    """A CSV, TSV (also gzipped), parquet or feather table, or some of its ``columns`` / first ``nrows``
    rows, every value as text with ``as_text`` (empty cells stay missing); a ``LayoutError``
    when it cannot be read, saying what to do."""
    if path.is_dir():  # a table written in parts (train/part-00000.csv, ...)
        return _read_shards(path, columns, nrows, as_text=as_text)
    try:
        name = path.name.lower()
        if name.endswith((".parquet", *FEATHER_EXT, *JSON_LINES_EXT)):
            if name.endswith(".parquet"):
                frame = pd.read_parquet(path, columns=columns)
            elif name.endswith(FEATHER_EXT):
                frame = pd.read_feather(path, columns=columns)
            else:  # one JSON object per line
                frame = pd.read_json(path, lines=True, nrows=nrows, dtype=False)
                frame.columns = [str(c) for c in frame.columns]
                frame = frame[columns] if columns is not None else frame
            frame = frame.head(nrows) if nrows is not None else frame
            return frame.astype("string").astype(object).where(frame.notna()) if as_text else frame
        if name.endswith(EXCEL_TABLE_EXT):  # the first sheet
            return pd.read_excel(  # type: ignore[no-any-return]
                path, usecols=columns, nrows=nrows, dtype=str if as_text else None
            )
        return pd.read_csv(  # type: ignore[call-overload, no-any-return]
            path, usecols=columns, nrows=nrows, dtype=str if as_text else None, **read_args(path)
        )
    except ImportError as e:
        raise LayoutError(
            f"{path}: a parquet or feather table needs pyarrow ({e}); install it (pip install "
            "pyarrow) "
            "in the environment the run uses, or save the table as CSV"
        ) from None


def shard_files(folder: Path) -> list[Path]:
    """The parts of a table written as a folder of CSV files (``train/part-00000.csv`` ...,
    as Spark and Dask write one), in order; empty when ``folder`` holds anything else (images,
    other files: no such table) or no CSV."""
    if not folder.is_dir():
        return []
    parts = []
    for p in sorted(folder.iterdir()):
        if p.name.startswith((".", "_")):  # .crc files, _SUCCESS: what the writers leave
            continue
        if not (p.is_file() and p.name.lower().endswith((".csv", ".csv.gz"))):
            return []
        parts.append(p)
    return parts


def _read_shards(
    folder: Path, columns: list[str] | None, nrows: int | None, *, as_text: bool
) -> pd.DataFrame:
    """The parts of ``folder`` (``shard_files``) read one after the other as one table."""
    parts = shard_files(folder)
    if not parts:
        raise LayoutError(f"{folder}: a folder, not a table; pass the table's file")
    frames, rows = [], 0
    for part in parts:
        frame = read_table(part, columns, None if nrows is None else nrows - rows, as_text=as_text)
        frames.append(frame)
        rows += len(frame)
        if nrows is not None and rows >= nrows:
            break
    return pd.concat(frames, ignore_index=True)


def read_head(path: Path, n: int = 500) -> pd.DataFrame:
    """The first ``n`` rows of a CSV, TSV or parquet file (a ``LayoutError`` when unreadable)."""
    try:
        return read_table(path, nrows=n)
    except (OSError, ValueError) as e:
        raise LayoutError(
            f"{path}: cannot be read as a table ({e}); fix the file or remove it from input/"
        ) from None


def table_for(task: Task, role: str) -> str | None:
    """The task's table for ``role`` ("train" or "test"): a file of that role, else ``role*.csv``."""
    files = [f.path for f in task.files if f.role == role and f.path.lower().endswith(TABLE_EXT)]
    if files:
        return files[0]
    for p in sorted(task.input_dir.glob(f"{role}*")):
        if p.is_file() and p.name.lower().endswith(TABLE_EXT):
            return p.name
    if shard_files(task.input_dir / role):  # train/part-00000.csv, train/part-00001.csv ...
        return role
    return None


def submission_columns(task: Task) -> tuple[str, ...]:
    """The sample submission's prediction columns (its header, id left out), else the task's targets
    (without a sample, one probability column per class for a probability metric of more than two
    classes: ``class_probability_columns``).

    The sample decides the submission's shape: a task.json may name the label column (``cultivar``)
    while the sample wants one probability column per class (``class_0, class_1, ...``).  Without
    a sample, a header the task file names (``"submission_format": {"columns": ["id",
    "prediction"]}``) decides it the same way.
    """
    path = task.sample_submission_path
    named = task.extra.get("submission_columns") or ()
    if task.class_columns:  # the sample's one column cannot hold them (``class_submission``)
        return task.class_columns
    if path is None and not named:
        return class_probability_columns(task) or task.target_cols
    if path is None:  # a header the task file names ("submission_format": {"columns": [...]})
        header = [str(c) for c in named]
    elif not path.is_file() or path.suffix.lower() not in (".csv", ".tsv"):
        return task.target_cols
    else:
        header = [str(c) for c in read_head(path, n=1).columns]
    cols = [c for c in header if c != task.id_col]
    if len(cols) == len(header) and len(header) > 1:  # the id has another name: it comes first
        cols = header[1:]
    return tuple(cols) or task.target_cols


def class_probability_columns(task: Task) -> tuple[str, ...] | None:
    """The classes, as the submission's columns, of a task without a sample submission whose
    metric grades probabilities of more than two classes (log loss of three wine cultivars): one
    column per class, as Kaggle asks, since one column cannot hold them.  ``None`` otherwise
    (two classes: one column, the second class's probability)."""
    from ...metrics import UnknownMetricError, get_metric

    if task.sample_submission is not None or task.task_type != "classification":
        return None
    try:
        if get_metric(task.metric_name).kind != "probability" or len(task.target_cols) != 1:
            return None
    except UnknownMetricError:
        return None
    train = table_for(task, "train")
    try:
        labels = label_values(task.input_dir / train, task.target) if train else []
    except (OSError, ValueError, KeyError):
        return None
    return class_order(labels) if len(labels) > 2 else None


def class_order(labels: list[str]) -> tuple[str, ...]:
    """Class labels in the order of their probability columns: by value when every label is a
    number (``2`` before ``10``), else as text."""
    numeric = all(is_number(v) for v in labels)
    return tuple(sorted(labels, key=lambda v: (float(v) if numeric else 0.0, v)))


def class_columns_renamed(task: Task, source: Path, target: Path) -> dict[str, str] | None:
    """Write to ``target`` the submission ``source`` whose one probability column per class is
    named with a word around each class (``class_0``, ``prob_setosa``, ``p_yes``), its columns
    renamed to the classes the task asks for (``class_probability_columns``: ``0``, ``1``,
    ``2``); returns the renaming, or ``None`` (nothing written) when the file has no such
    columns.  The values are copied as the file holds them."""
    classes = task.class_columns or class_probability_columns(task)
    if not classes:
        return None
    try:
        sub = read_submission(task, source, as_text=True)
    except (OSError, ValueError):
        return None
    cols = [str(c) for c in sub.columns if c != task.id_col]
    if len(cols) != len(classes) or set(cols) == set(classes):
        return None
    mapping = _named_around(cols, set(classes))
    if mapping is None:
        return None
    sub.rename(columns=mapping).to_csv(target, index=False, **submission_args(task))
    return mapping


def index_column_dropped(task: Task, source: Path, target: Path) -> bool:
    """Write to ``target`` the submission ``source`` without its first column when that column
    is the row numbers ``to_csv`` writes without ``index=False`` (no name, ``0 .. n-1``) and the
    other columns hold the id or the target; ``False`` (nothing written) otherwise."""
    try:
        sub = read_submission(task, source, as_text=True)
    except (OSError, ValueError):
        return False
    if sub.empty or not re.fullmatch(r"Unnamed: 0|", str(sub.columns[0])):
        return False
    if list(sub.iloc[:, 0]) != [str(i) for i in range(len(sub))]:
        return False
    rest = [str(c) for c in sub.columns[1:]]
    if not ({task.id_col, *task.target_cols} & set(rest)):
        return False
    sub.iloc[:, 1:].to_csv(target, index=False, **submission_args(task))
    return True


def _named_around(cols: list[str], classes: set[str]) -> dict[str, str] | None:
    """``{column: class}`` when cutting one prefix and one suffix off every column leaves the
    classes (``class_0`` → ``0``), else ``None``."""
    import os

    head = os.path.commonprefix(cols)
    tail = os.path.commonprefix([c[::-1] for c in cols])[::-1]
    for i in range(len(head), -1, -1):
        for j in range(len(tail), -1, -1):
            cut = [c[i : len(c) - j] for c in cols]
            if all(cut) and set(cut) == classes and i + j > 0:
                return dict(zip(cols, cut, strict=True))
    return None


def label_values(path: Path, col: str) -> list[str]:
    """Every distinct value (as text) of one column of a table (CSV, TSV or parquet)."""
    values = read_table(path, columns=[col])[col]
    return [str(v) for v in values.dropna().astype(str).unique()]


# --------------------------------------------------------------------------- the submission
def submission_args(task: Task) -> dict[str, str]:
    """The ``to_csv`` (and ``read_csv``) keywords of the task's submission beyond the defaults:
    its sample submission's separator, decimal mark and encoding (``read_args``), since a grader
    reads the submission the way it reads the sample.  A sample separated otherwise than by
    commas with no decimal number to tell by (ids and 0/1 labels) takes the decimal comma of the
    task's train or test table, the author's; one of ASCII only (ids and numbers) takes their
    Windows code page (``cp1252``: labels with accents are written as the author's files are).
    Empty (a plain UTF-8 CSV) without a text sample submission.

    Each call sniffs the files again (up to 64 KiB each; ``text_encoding`` keeps its answers): a
    caller that needs the format more than once in one operation computes it once and passes it
    on (``submission_reading``'s ``want``)."""
    path = task.sample_submission_path
    if path is None or not path.is_file() or not path.name.lower().endswith(_TEXT_SUFFIXES):
        return {}
    args = read_args(path)
    untold = {
        "decimal": "sep" in args and "decimal" not in args,
        "encoding": "encoding" not in args and _encoding(path) == "ascii",
    }
    for role in ("train", "test"):
        name = table_for(task, role)
        if not any(untold.values()) or not name or not name.lower().endswith(_TEXT_SUFFIXES):
            continue
        other = read_args(task.input_dir / name)
        if untold["decimal"] and "decimal" in other:
            args["decimal"], untold["decimal"] = other["decimal"], False
        if untold["encoding"] and other.get("encoding") in ("cp1252", "latin-1"):
            args["encoding"], untold["encoding"] = other["encoding"], False
    return {k: str(args[k]) for k in ("sep", "decimal", "encoding") if k in args}


def _coded(args: Mapping[str, str | bool]) -> dict[str, str]:
    """The ``encoding`` of ``args`` (``read_args``), empty for plain UTF-8."""
    return {"encoding": str(args["encoding"])} if "encoding" in args else {}


def read_text_table(path: Path, args: Mapping[str, str | bool] | None = None) -> pd.DataFrame:
    """A text table with every cell as text (empty cells missing), read with ``args`` (its own
    ``read_args`` when ``None``); with a decimal comma, numbers are given a decimal point
    (``0,25`` -> ``0.25``), so that they read as numbers wherever the text is parsed."""
    found = read_args(path) if args is None else dict(args)
    frame = pd.read_csv(path, dtype=str, keep_default_na=True, **found)
    if found.get("decimal") == ",":
        frame = frame.apply(lambda col: col.map(_point))
    return frame


def _point(v: object) -> object:
    """``v`` with its decimal comma made a point when it is a number (``0,5`` -> ``0.5``)."""
    return v.replace(",", ".") if isinstance(v, str) and _COMMA_NUMBER.fullmatch(v) else v


def _comma(v: object) -> object:
    """``v`` with its decimal point made a comma when it is a number (``0.5`` -> ``0,5``)."""
    return v.replace(".", ",") if isinstance(v, str) and _POINT_NUMBER.fullmatch(v) else v


def submission_reading(
    task: Task, path: Path, want: Mapping[str, str] | None = None
) -> dict[str, str | bool]:
    """The ``read_csv`` keywords a submission file is read with: the task's submission format
    (``want``, else ``submission_args``), or the file's own (``read_args``) when only that gives
    the sample submission's columns (a comma-separated file for a semicolon-separated sample is
    judged by what it holds, and handed in rewritten: ``write_submission``), or when there is no
    sample.  The encoding is always the file's own: a UTF-8 file read as the sample's cp1252
    would give its ids and labels other letters (``MÃ¼ller``) and still read."""
    own = read_args(path)
    asked = submission_args(task) if want is None else dict(want)
    wanted: dict[str, str | bool] = {k: v for k, v in asked.items() if k != "encoding"}
    wanted |= _coded(own)
    sample = task.sample_submission_path
    if own == wanted:
        return wanted
    if sample is None or not sample.is_file():
        return own
    header = class_header(task, [str(c) for c in read_head(sample, n=1).columns])
    for args in (wanted, own):
        try:
            columns = pd.read_csv(path, nrows=0, **args).columns
        except ValueError:  # (a parser error)
            continue
        if [str(c) for c in columns] == header:
            return args
    return wanted


def read_submission(task: Task, path: Path, *, as_text: bool = False) -> pd.DataFrame:
    """A submission file, read as ``submission_reading`` says; ``as_text``: every cell as text,
    numbers with a decimal point (``read_text_table``)."""
    args = submission_reading(task, path)
    return read_text_table(path, args) if as_text else pd.read_csv(path, **args)


def write_submission(task: Task, source: Path, target: Path) -> dict[str, str] | None:
    """Copy the submission ``source`` to ``target`` in the task's submission format
    (``submission_args``): byte for byte when ``source`` is written so already (its separator,
    no number with another decimal mark, its encoding or ASCII the sample's encoding reads
    alike); otherwise rewritten cell by cell as text (ids and labels unchanged, numbers given
    the sample's decimal mark, in the sample's encoding), returning the format ``source`` was
    written in, for a warning."""
    want = submission_args(task)
    reading = submission_reading(task, source, want)
    sep, wanted = str(reading.get("sep", ",")), want.get("sep", ",")
    coded, encoding = str(reading.get("encoding", "utf-8")), want.get("encoding", "utf-8")
    raw = pd.read_csv(source, dtype=str, sep=sep, keep_default_na=False, encoding=coded)
    cells = pd.Series(raw.to_numpy().ravel(), dtype=object).astype(str)
    marks = {
        m
        for m, rx in ((".", _POINT_NUMBER), (",", _COMMA_NUMBER))
        if cells.str.fullmatch(rx.pattern).any()
    }
    alike = coded == encoding or (
        _encoding(source) == "ascii" and encoding not in ("utf-16", "utf-32")
    )
    if sep == wanted and marks <= {want.get("decimal", ".")} and alike:
        if source.resolve() != target.resolve():
            target.write_bytes(source.read_bytes())
        return None
    text = raw.apply(lambda col: col.map(_point))
    if want.get("decimal") == ",":
        text = text.apply(lambda col: col.map(_comma))
    text.to_csv(target, index=False, sep=wanted, encoding=encoding)
    return {
        "sep": sep,
        **({"decimal": ","} if "," in marks else {}),
        **({"encoding": coded} if not alike else {}),
    }


def format_name(args: Mapping[str, str | bool]) -> str:
    """A CSV format in words: ``separated by ';' with decimal commas``, ``..., in cp1252``."""
    sep = args.get("sep", ",")
    shown = "tabs" if sep == "\t" else repr(sep)
    return (
        f"separated by {shown}"
        + (" with decimal commas" if args.get("decimal") == "," else "")
        + (f", in {args['encoding']}" if "encoding" in args else "")
    )
