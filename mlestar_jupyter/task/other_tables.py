"""Tables in files no table reader here opens as they are, written as CSV for a run
(``importer.readable_input``) and read for their header by the task readers.

Found by task folders of other authors (hunt O): ``train.txt`` / ``test.txt`` separated by
tabs (a ``.tsv`` under a ``.txt`` name, as many course and UCI downloads are), and
``train.json`` holding ``{"data": [{...}, ...]}`` (records wrapped in an object, as APIs
return them); both folders were refused, "names no 'Target: <column>' line".
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd

from .text_format import read_args, text_encoding

DELIMITED_TEXT_EXT = (".txt", ".dat", ".data")  # (".data": UCI's)
# '{"data": [{' (or "records", "rows", "items", any one key): records wrapped in an object
_WRAPPED = re.compile(r'^\{"([^"]{1,40})":\[\{')


def is_delimited_text_table(path: Path) -> bool:
    """Whether the ``.txt`` / ``.dat`` file ``path`` is a table: its first lines split into the
    same two or more fields by one separator (tab, ``,``, ``;``, ``|``; or spaces, of numbers:
    ``_by_whitespace``)."""
    if not path.is_file() or not path.name.lower().endswith(DELIMITED_TEXT_EXT):
        return False
    try:
        with path.open(encoding=text_encoding(path), errors="replace") as f:
            lines = [ln.rstrip("\r\n") for _, ln in zip(range(20), f, strict=False)]
    except OSError:
        return False
    lines = [ln for ln in lines if ln.strip()]
    if len(lines) < 2 or len(lines[0]) > 20_000:
        return False
    for sep in ("\t", ",", ";", "|"):
        counts = {ln.count(sep) for ln in lines}
        if len(counts) == 1 and counts.pop() >= 1:
            return True
    return _by_whitespace(lines)


_NUMBER = re.compile(r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$|^(?:nan|NA|\?)$")


def _by_whitespace(lines: list[str]) -> bool:
    """Whether ``lines`` are a table whose fields are separated by spaces (``a b c target``
    over ``1.2 3 0.5 1``, aligned or not: R's ``write.table``, UCI's ``.data``): every line has
    the same two or more fields, none of its separators above (tabs were looked for first),
    and at least half of the fields below the first line are numbers (prose is not)."""
    if any(sep in ln for ln in lines for sep in ("\t", ",", ";", "|")) or len(lines) < 3:
        return False
    widths = {len(ln.split()) for ln in lines}
    if len(widths) != 1 or widths.pop() < 2:
        return False
    cells = [c.strip('"') for ln in lines[1:] for c in ln.split()]
    return sum(bool(_NUMBER.match(c)) for c in cells) * 2 >= len(cells)


def separated_by_whitespace(path: Path) -> bool:
    """Whether the delimited ``.txt`` table ``path`` has its fields separated by spaces."""
    try:
        with path.open(encoding=text_encoding(path), errors="replace") as f:
            lines = [ln.rstrip("\r\n") for _, ln in zip(range(20), f, strict=False)]
    except OSError:
        return False
    return _by_whitespace([ln for ln in lines if ln.strip()])


def text_table_frame(path: Path, nrows: int | None = None) -> pd.DataFrame:
    """The rows of a delimited ``.txt`` table (its separator sniffed as a CSV's is; runs of
    spaces where no other separator is: ``separated_by_whitespace``)."""
    if separated_by_whitespace(path):
        return pd.read_csv(path, nrows=nrows, sep=r"\s+", encoding=text_encoding(path))
    return pd.read_csv(path, nrows=nrows, **read_args(path))  # type: ignore[call-overload, no-any-return]


def holds_records(path: Path) -> bool:
    """Whether the JSON file ``path`` starts a list of objects (``[{...``) or an object whose
    one key holds such a list (``{"data": [{...``)."""
    try:
        with path.open(encoding="utf-8", errors="replace") as f:
            start = "".join(f.read(4096).split())
    except OSError:
        return False
    return start.startswith("[{") or _WRAPPED.match(start) is not None


def records_frame(path: Path) -> pd.DataFrame:
    """The records of a JSON file (see :func:`holds_records`) as a table; a ``ValueError``
    when it holds none."""
    with path.open(encoding="utf-8", errors="replace") as f:
        data = json.load(f)
    if isinstance(data, dict):
        lists = [v for v in data.values() if isinstance(v, list) and v and isinstance(v[0], dict)]
        if len(lists) != 1:
            raise ValueError("an object holding no one list of records")
        data = lists[0]
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        raise ValueError("not a list of records")
    return pd.DataFrame.from_records(data)


SVMLIGHT_EXT = (".svm", ".svmlight", ".libsvm")
# "1 3:0.5 7:1.25", "-1 qid:4 2:1 # comment": a label, then index:value pairs
_SVMLIGHT_ROW = re.compile(r"^[+-]?[\d.eE+-]+(?:\s+qid:\d+)?(?:\s+\d+:\S+)*\s*(?:#.*)?$")


_ARFF_ATTRIBUTE = re.compile(r"""@attribute\s+('(?:[^'\\]|\\.)*'|"[^"]*"|\S+)\s+(.+)""", re.I)
# a UCR / UEA series as an ARFF table: many numeric attributes numbered ("att0", "t12", "V7")
_NUMBERED = re.compile(r"^[A-Za-z_]*\d+$")
_SERIES_LENGTH = 30


def arff_attributes(path: Path) -> list[tuple[str, str]] | None:
    """(name, type) of each attribute of the dense ARFF table ``path`` (OpenML's and Weka's:
    the columns of the CSV a run reads, ``importer.readable_input``), or ``None`` for no such
    table: relational attributes (sktime's series), sparse rows, no ``@data``."""
    out: list[tuple[str, str]] = []
    try:
        with path.open(encoding="utf-8", errors="replace") as f:
            in_data = False
            for line in f:
                text = line.strip()
                if not text or text.startswith("%"):
                    continue
                if in_data:  # the first row: sparse ({index value, ...}) or dense
                    return None if text.startswith("{") else out
                if text.lower().startswith("@attribute"):
                    m = _ARFF_ATTRIBUTE.match(text)
                    kind = m.group(2).strip().lower() if m else "relational"
                    if kind.startswith("relational"):
                        return None
                    out.append((m.group(1).strip("'\""), kind) if m else ("", kind))
                elif text.lower().startswith("@data"):
                    in_data = True
    except OSError:
        return None
    return out if in_data and out else None


def arff_is_series(path: Path) -> bool:
    """Whether the ARFF file ``path`` holds time series: relational attributes (sktime's), or
    a dense table of many numbered numeric attributes, each a time step (the UCR archive's
    ``att0 ... att285``, then the class); an OpenML table of named columns is none."""
    attributes = arff_attributes(path)
    if attributes is None:
        return True
    steps = [
        n
        for n, kind in attributes
        if _NUMBERED.match(n) and kind.split()[0] in ("numeric", "real", "integer")
    ]
    return len(steps) >= _SERIES_LENGTH


def is_svmlight(path: Path) -> bool:
    """Whether ``path`` (``.svm``, ``.svmlight``, ``.libsvm``) holds LIBSVM rows: a label, then
    ``index:value`` pairs (hunt O: ``train.svm`` / ``test.svm`` were refused, "names no
    'Target:' line")."""
    if not path.is_file() or not path.name.lower().endswith(SVMLIGHT_EXT):
        return False
    try:
        with path.open(encoding="utf-8", errors="replace") as f:
            lines = [ln.strip() for _, ln in zip(range(5), f, strict=False) if ln.strip()]
    except OSError:
        return False
    return bool(lines) and all(_SVMLIGHT_ROW.match(ln) for ln in lines)


def svmlight_frames(train: Path, test: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The LIBSVM training and test files as tables of the same feature columns (``f0`` ...,
    from 0 whether the files number from 0 or 1), the training one with its ``label`` last;
    the test file's labels (placeholders, or answers) are left out."""
    from sklearn.datasets import load_svmlight_files

    x_train, y_train, x_test, _ = load_svmlight_files([str(train), str(test)], zero_based="auto")
    names = [f"f{i}" for i in range(x_train.shape[1])]
    frame = pd.DataFrame(x_train.toarray(), columns=names)
    frame["label"] = [int(v) if float(v).is_integer() else v for v in y_train]
    return frame, pd.DataFrame(x_test.toarray(), columns=names)


def npz_array_names(path: Path) -> list[str]:
    """The names of the arrays a NumPy ``.npz`` file holds (``X_train``, ``y_train``,
    ``X_test``), when some are named as training and some as test data (hunt O: ``data.npz``
    of the three was "not a task folder"); else none.  Arrays of Python objects (pickled) are
    not read."""
    import zipfile

    if not path.is_file() or not path.name.lower().endswith(".npz"):
        return []
    try:
        with zipfile.ZipFile(path) as z:
            names = [n[: -len(".npy")] for n in z.namelist() if n.endswith(".npy")]
    except (OSError, zipfile.BadZipFile):
        return []
    lower = [n.lower() for n in names]
    if any("train" in n for n in lower) and any("test" in n for n in lower):
        return names
    return []


__all__ = [
    "SVMLIGHT_EXT",
    "is_svmlight",
    "svmlight_frames",
    "npz_array_names",
    "DELIMITED_TEXT_EXT",
    "holds_records",
    "is_delimited_text_table",
    "records_frame",
    "text_table_frame",
]
