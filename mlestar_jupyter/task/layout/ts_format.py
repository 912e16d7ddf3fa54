"""The ``.ts`` files of the UEA/UCR series archive (sktime's format), read with numpy alone, so a
plain install reads them: :func:`read_ts` gives a file's series and labels, :func:`ts_header` its
``@`` lines.

The format as people write it: ``@`` header lines up to ``@data``, their keywords in any case
(``@problemName``, ``@univariate``, ``@dimensions 3``, ``@equalLength``, ``@seriesLength``,
``@missing``, ``@classLabel true a b c`` or ``@classLabel false``, ``@targetLabel true`` for a
regression target); ``#`` comment lines; then one case a line, its dimensions separated by ``:``
and its values by ``,``, ``?`` or ``NaN`` for a missing value, series of unequal lengths, the
class label (or target) as the last ``:`` field; CRLF line ends.  Timestamped series
(``@timeStamps true``, ``(t,v)`` tuples) are refused with what to write instead.

A solution notebook imports nothing of this package (it runs anywhere, as ``offline.metric_code``
says), so the series notebooks define the reader from this module's source
(:func:`notebook_code`): the functions it lists use numpy and each other only.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import numpy as np


def read_ts(path: str | Path) -> tuple[list[np.ndarray], np.ndarray | None]:
    """The cases of a ``.ts`` file, each a (dimensions, steps) float array (NaN where a value is
    missing, or where a dimension is shorter than the case's longest), and their labels: strings,
    floats for a regression target (``@targetLabel true``), ``None`` when no case has one
    (``@classLabel false``: a test file)."""
    with open(path, encoding="utf-8-sig", errors="replace") as fh:
        lines = enumerate(fh, 1)
        header = _ts_header(lines, path)
        flags = {k: v.lower().split()[:1] == ["true"] for k, v in header.items()}
        if flags.get("timestamps"):
            raise ValueError(_ts_timestamps(path))
        regression = flags.get("targetlabel", False)
        declared = flags.get("classlabel", False) or regression
        dims_text = header.get("dimensions", "").strip()
        dims = int(dims_text) if dims_text.isdigit() else 1 if flags.get("univariate") else None
        cases: list[np.ndarray] = []
        labels: list[str | float | None] = []
        for n, raw in lines:
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            if "(" in line:
                raise ValueError(_ts_timestamps(path))
            fields = line.split(":")
            # the label is the last field: one field more than the declared dimensions, else
            # (dimensions not declared, or not those of the line) when the header declares labels
            if dims is not None and len(fields) in (dims, dims + 1):
                labelled = len(fields) == dims + 1
            else:
                labelled = declared and len(fields) > 1
            label = fields.pop().strip() if labelled else None
            if cases and len(fields) != len(cases[0]):
                raise ValueError(
                    f"{path}, line {n}: {len(fields)} dimensions (':'-separated), the first case "
                    f"has {len(cases[0])}; write every case with the same dimensions"
                )
            series = [_ts_values(f, path, n) for f in fields]
            case = np.full((len(series), max(len(s) for s in series)), np.nan)
            for i, s in enumerate(series):
                case[i, : len(s)] = s
            cases.append(case)
            if regression and label is not None:
                try:
                    labels.append(float(label))
                except ValueError:
                    raise ValueError(
                        f"{path}, line {n}: the target {label!r} is not a number "
                        "(@targetLabel true); write a number, or @classLabel true <labels> "
                        "for classes"
                    ) from None
            else:
                labels.append(label)
    if not cases:
        raise ValueError(f"{path}: no series after @data; write one case a line after @data")
    if all(y is None for y in labels):
        return cases, None
    if any(y is None for y in labels):
        n = labels.index(None) + 1
        raise ValueError(
            f"{path}: case {n} has no label while others have; end every case with "
            ":<label>, or none of them"
        )
    return cases, np.asarray(labels)


def _ts_header(lines: enumerate[str], path: str | Path) -> dict[str, str]:
    """The ``@`` lines before ``@data`` of a ``.ts`` file (keyword in lower case: the rest of
    the line), read off ``lines``, which are left at the first line after ``@data``."""
    header: dict[str, str] = {}
    for n, raw in lines:
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if not line.startswith("@"):
            raise ValueError(
                f"{path}, line {n}: {line[:30]!r} comes before @data; a .ts file starts with "
                "@ lines (@problemName, @classLabel ...), then @data, then one series a line"
            )
        key, _, value = line[1:].replace("\t", " ").partition(" ")
        if key.lower() == "data":
            return header
        header[key.lower()] = value.strip()
    raise ValueError(f"{path}: no @data line; a .ts file lists its series after a line @data")


def _ts_values(field: str, path: str | Path, n: int) -> np.ndarray:
    """The numbers of one dimension of a case (``1.5,?,2``), ``?`` and ``NaN`` being missing;
    one missing value for an empty dimension."""
    text = field.strip().rstrip(",")
    if not text:
        return np.array([np.nan])
    values = [v.strip() for v in text.split(",")]
    try:
        return np.array([v if v not in ("?", "") else "nan" for v in values], dtype=float)
    except ValueError:
        bad = next(v for v in values if not _ts_number(v))
        raise ValueError(
            f"{path}, line {n}: {bad!r} is not a number; write the values as numbers separated "
            "by ',', '?' for a missing one, the dimensions separated by ':'"
        ) from None


def _ts_number(text: str) -> bool:
    """Whether ``text`` is a value of a ``.ts`` series: a number, ``?`` or empty (missing)."""
    if text in ("?", ""):
        return True
    try:
        float(text)
    except ValueError:
        return False
    return True


def _ts_timestamps(path: str | Path) -> str:
    """Why a timestamped ``.ts`` file (``@timeStamps true``, ``(t,v)`` tuples) is not read."""
    return (
        f"{path}: its series are timestamped ((t,v) tuples, @timeStamps true), which this reader "
        "does not read; write the values alone (1.0,2.5,...) at even steps with @timeStamps "
        "false, or the series long as CSV (id,t,value rows)"
    )


def ts_header(path: Path) -> dict[str, str]:
    """The ``@`` lines of a ``.ts`` file before ``@data`` (keyword in lower case: the rest of
    the line); ``ValueError`` saying what to fix when there is no ``@data`` line."""
    with open(path, encoding="utf-8-sig", errors="replace") as fh:
        return _ts_header(enumerate(fh, 1), path)


def ts_problem(path: Path, *, training: bool) -> str | None:
    """Why a run cannot read the ``.ts`` file ``path`` (``None``: it can), told by its header:
    timestamped series; a training file whose header says its cases have no labels."""
    try:
        header = ts_header(path)
    except (OSError, ValueError) as e:
        return str(e)
    flags = {k: v.lower().split()[:1] == ["true"] for k, v in header.items()}
    if flags.get("timestamps"):
        return _ts_timestamps(path)
    said_false = header.get("classlabel", "").lower().split()[:1] == ["false"]
    if training and said_false and not flags.get("targetlabel"):
        return (
            f"{path}: @classLabel false, but the training series need labels; end each case "
            "with :<label> and declare them (@classLabel true <label> <label> ...), or "
            "@targetLabel true for a number to predict"
        )
    return None


def notebook_code() -> str:
    """The source of :func:`read_ts` and the functions it calls, for a notebook to define them
    (a notebook imports nothing of this package)."""
    parts = (read_ts, _ts_header, _ts_values, _ts_number, _ts_timestamps)
    return "\n\n".join(inspect.getsource(f) for f in parts).rstrip("\n")
