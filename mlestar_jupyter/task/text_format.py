"""The format of a text table, told from its bytes: its encoding (UTF-8, a byte-order mark,
UTF-16, the Windows code page of an Excel export), its separator and its decimal mark.

Only the file is read: nothing here knows tasks, so the task readers (``infer``) and the data
layout (``layout.tables``) both use it without importing each other.
"""

from __future__ import annotations

import codecs
import csv
import functools
import gzip
import io
import json
import re
import zipfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO

# a number as text with a decimal comma / point (``0,25``, ``-1,5e-05``; ``0.25``)
_COMMA_NUMBER = re.compile(r"[+-]?\d*,\d+(?:[eE][+-]?\d+)?")
_POINT_NUMBER = re.compile(r"[+-]?\d*\.\d+(?:[eE][+-]?\d+)?")
# a whole number with one thousands group (``1,500``, ``-12.000``): either mark may be meant
_GROUPED = re.compile(r"[+-]?[1-9]\d{0,2}[,.]\d{3}")
_SEPARATORS = (",", ";", "\t", "|")
# text tables as files are named: plain, gzipped, or zipped as Kaggle serves them (train.csv.zip)
TEXT_TABLE_EXT = (".csv", ".tsv", ".csv.gz", ".tsv.gz", ".csv.zip", ".tsv.zip")
# Apache Arrow files: pandas' ``to_feather`` (``.feather``) and Arrow's IPC file (``.arrow``:
# hunt U, "input/ missing"), both read by ``pd.read_feather`` with pyarrow
FEATHER_EXT = (".feather", ".arrow")
# how much of a table (its first bytes, unzipped) ``text_encoding`` reads, in chunks of
# ``_CHUNK``, to tell whether it is UTF-8: up to the first chunk holding other than ASCII
_SCAN, _CHUNK = 64 * 2**20, 2**20


def read_args(path: Path) -> dict[str, str | bool]:
    """The ``pd.read_csv`` arguments a text table needs beyond the defaults: its separator (a
    tab for ``.tsv``; sniffed among ``,`` ``;`` ``|`` and tab otherwise), for a table not
    separated by commas whose numbers have decimal commas (``1,5``: a European export, whether
    ``;``-, tab- or ``|``-separated), ``decimal=","``, ``index_col=False`` when its data rows
    end in a separator its header does not (``id,a,y`` over ``1,2,0,``: pandas would make the
    first column the index and shift the names onto the wrong columns, ``_trailing_separator``),
    and its ``encoding`` when it is not plain UTF-8 (``text_encoding``: an Excel export in the
    Windows code page, UTF-16, a byte-order mark), in that order.  The values are strings but
    for that one ``False``: ``call_args`` writes them into a notebook's code."""
    encoding = text_encoding(path)
    every = _first_lines(path, encoding, n=10**6)  # (of the first 64 Ki characters)
    # an instrument's or a lab tool's export opens with "# ..." lines: comments, when no later
    # line of the whole file holds a "#" (a value such as "Apt #5" would be cut there)
    lead = next((i for i, ln in enumerate(every) if not ln.lstrip().startswith("#")), len(every))
    table = path.name.lower().endswith((*TEXT_TABLE_EXT, ".txt"))  # (not a markdown file)
    commented = {"comment": "#"} if table and 0 < lead < len(every) else {}
    every = every[lead:]
    if commented and _hash_after(path, encoding, lead):
        commented = {}
    lines = every[:50]
    sep = "\t" if path.name.lower().endswith((".tsv", ".tsv.gz", ".tsv.zip")) else _separator(lines)
    coded = {} if encoding == "utf-8" else {"encoding": encoding}
    # UCI's tables mark a missing value with "?": read as missing, a column of numbers stays one
    unknown = {"na_values": "?"} if _question_marks(every[1:], sep or ",") else {}
    unknown |= commented
    trailing: dict[str, str | bool] = (
        {"index_col": False} if _trailing_separator(lines, sep or ",") else {}
    )
    if sep is None:
        return {**trailing, **unknown, **coded}
    rows = csv.reader(lines[1:], delimiter=sep)
    cells = [c.strip().strip('"') for row in rows for c in row]
    return {
        "sep": sep,
        **({"decimal": ","} if _decimal_comma(cells, sep) else {}),
        **trailing,
        **unknown,
        **coded,
    }


def _trailing_separator(lines: list[str], sep: str) -> bool:
    """Whether a table's data rows (below its header, of its first ``lines``) each end in an
    empty field its header has no name for (``id,a,y`` over ``1,2,0,``), as some exporters write
    them.  The last line read may be cut short, so it only counts when it is the only row."""
    rows = list(csv.reader(lines, delimiter=sep))
    if len(rows) < 2 or not rows[0] or not rows[0][-1].strip():
        return False
    width, data = len(rows[0]), rows[1:]
    data = data[:-1] if len(data) > 1 else data
    return all(len(row) == width + 1 and not row[-1].strip() for row in data)


def call_args(args: Mapping[str, str | bool]) -> str:
    """``args`` (``read_args``, ``to_csv`` keywords) as a call's keyword arguments in Python
    code (``, sep=";", index_col=False``; empty for none), for the notebooks' code."""
    return "".join(
        f", {k}={v!r}" if isinstance(v, bool) else f", {k}={json.dumps(v)}" for k, v in args.items()
    )


def header_row(
    path: Path, args: Mapping[str, str | bool] | None = None, errors: str = "strict"
) -> list[str]:
    """The column names of a text table (``open_table_text``) read with its ``read_args``
    (``args``, computed when ``None``): its separator and encoding, comment lines skipped."""
    args = read_args(path) if args is None else args
    comment = str(args.get("comment", ""))
    with open_table_text(path, str(args.get("encoding", "utf-8-sig")), errors, newline="") as fh:
        for row in csv.reader(fh, delimiter=str(args.get("sep", ","))):
            if comment and row and row[0].lstrip().startswith(comment):
                continue
            return row
    return []


def _hash_after(path: Path, encoding: str, lead: int) -> bool:
    """Whether a line of the table after its first ``lead`` non-blank lines holds a ``#``
    (read to the end: only tables that open with comment lines are)."""
    try:
        with open_table_text(path, encoding, errors="replace") as f:
            seen = 0
            for line in f:
                if not line.strip():
                    continue
                seen += 1
                if seen > lead and "#" in line:
                    return True
    except (OSError, EOFError, zipfile.BadZipFile):
        return True  # unread: no comment argument
    return False


def _question_marks(lines: list[str], sep: str) -> bool:
    """Whether some cell of ``lines`` is a lone ``?`` (a missing value, as UCI writes it)."""
    return any(
        c.strip() == "?"
        for row in csv.reader((ln for ln in lines if "?" in ln), delimiter=sep)
        for c in row
    )


def text_encoding(path: Path) -> str:
    """The encoding a text table (also gzipped) is written in, as Python and pandas name it:
    ``utf-8-sig`` with a UTF-8 byte-order mark (Excel's "CSV UTF-8": read so, the mark is not
    part of the first column's name), ``utf-16`` (``utf-32``) by its byte-order mark (Excel's
    "Unicode Text"), ``utf-8`` when its bytes are UTF-8 (pure ASCII too), else ``cp1252``, the
    Windows code page Excel's "CSV" and "Text (Tab delimited)" save in (``latin-1``, which reads
    any bytes, when some byte is no cp1252 character).

    The bytes are read up to the first 1 MiB chunk that holds other than ASCII, at most the
    first 64 MiB: a table whose first 64 MiB are ASCII is taken as UTF-8.  The answer is kept
    while the file's size and time stamp stay as they are (the readers ask for each table
    many times); ``utf-8`` for a file that cannot be read (its reader says why)."""
    found = _encoding(path)
    return "utf-8" if found == "ascii" else found


def _encoding(path: Path) -> str:
    """``text_encoding``, or ``ascii`` when the bytes read are all ASCII (that any encoding
    but UTF-16 and UTF-32 reads alike)."""
    try:
        stat = path.stat()
    except OSError:
        return "utf-8"
    return _sniff_encoding(str(path), stat.st_size, stat.st_mtime_ns)


@functools.lru_cache(maxsize=256)
def _sniff_encoding(path: str, size: int, mtime_ns: int) -> str:
    """``_encoding`` of the file at ``path`` (``size`` and ``mtime_ns``: the cache's key)."""
    try:
        with open_table_bytes(Path(path)) as f:
            first = f.read(_CHUNK)
            if first.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
                return "utf-32"  # (before UTF-16: its little-endian mark begins the same)
            if first.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
                return "utf-16"
            if first.startswith(codecs.BOM_UTF8):
                return "utf-8-sig"
            utf8, read, chunk, plain = codecs.getincrementaldecoder("utf-8")(), 0, first, True
            while chunk:
                read += len(chunk)
                plain = plain and chunk.isascii()
                more = f.read(_CHUNK) if read < _SCAN else b""
                try:
                    utf8.decode(chunk, final=not more and read < _SCAN)  # (at the end)
                except UnicodeDecodeError:
                    return _single_byte(chunk + more, f.read, _SCAN - read - len(more))
                if not more:
                    return "ascii" if plain else "utf-8"
                if not plain and not utf8.getstate()[0]:  # (a character cut at the chunk's
                    return "utf-8"  # end: one more chunk)
                chunk = more
    except (OSError, EOFError, zipfile.BadZipFile):
        pass
    return "utf-8"


def open_table_bytes(path: Path) -> IO[bytes]:
    """A text table's bytes, unpacked: a gzipped one (``.gz``), the first file of a zip archive
    (``train.csv.zip``, as Kaggle serves tables), else the file itself."""
    name = path.name.lower()
    if name.endswith(".gz"):
        return gzip.open(path, "rb")  # type: ignore[return-value]
    if name.endswith(".zip"):
        archive = zipfile.ZipFile(path)
        members = [i for i in archive.infolist() if not i.is_dir()]
        if not members:
            archive.close()
            raise OSError(f"{path.name} holds no file")
        return archive.open(members[0])  # (the member keeps the archive's file open)
    return open(path, "rb")


def open_table_text(
    path: Path, encoding: str = "utf-8", errors: str = "strict", newline: str | None = None
) -> IO[str]:
    """A text table's text (``open_table_bytes``) read in ``encoding``."""
    return io.TextIOWrapper(
        open_table_bytes(path), encoding=encoding, errors=errors, newline=newline
    )


def _single_byte(chunk: bytes, read: Callable[[int], bytes], left: int) -> str:
    """``cp1252`` when ``chunk`` and what follows it (``read`` from the file, ``left`` bytes at
    most) are Windows code page text, else ``latin-1``."""
    while chunk:
        try:
            chunk.decode("cp1252")
        except UnicodeDecodeError:
            return "latin-1"
        chunk = read(min(_CHUNK, left)) if left > 0 else b""
        left -= len(chunk)
    return "cp1252"


def _first_lines(path: Path, encoding: str = "utf-8", n: int = 50) -> list[str]:
    """The first ``n`` non-blank lines of a text table, also gzipped, read in ``encoding`` (of
    its first 64 Ki characters: enough to tell its format by); none when it cannot be read."""
    try:
        with open_table_text(path, encoding, errors="replace") as f:
            sample = f.read(65536)
    except (OSError, EOFError, zipfile.BadZipFile):
        return []
    return [ln for ln in sample.splitlines()[:n] if ln.strip()]


def _separator(lines: list[str]) -> str | None:
    """The separator of a table's ``lines`` when not a comma: the one of ``;`` ``|`` and tab
    that every line holds more of than of commas; ``None`` for a comma-separated table (commas
    in quoted text, ``"Smith, J"``, leave it so) or one with a single column."""
    if not lines:
        return None
    counts = {sep: min(ln.count(sep) for ln in lines) for sep in _SEPARATORS}
    sep = max(counts, key=lambda k: (counts[k], k == ","))
    if sep == "," or counts[sep] == 0 or counts[sep] <= counts[","]:
        return None
    return sep


def _decimal_comma(cells: list[str], sep: str) -> bool:
    """Whether the numbers among ``cells`` (a table's, below its header) have decimal commas:
    some number is written with a decimal comma and none with a decimal point.  Free text
    (``Hello, world``) is no number, and a table that has decimal points too uses its commas
    for something else (thousands).

    A whole number with one thousands group (``1,500``, ``1.500``) could mean either, so it
    tells nothing (a tab export of US counts, ``12,345``, must not read as ``12.345``), except
    a comma one in a ``;``-separated table: that is the European format, whose ``;`` is there
    because the comma is its decimal mark."""
    comma = any(
        _COMMA_NUMBER.fullmatch(c) and (sep == ";" or not _GROUPED.fullmatch(c)) for c in cells
    )
    return comma and not any(
        _POINT_NUMBER.fullmatch(c) and not _GROUPED.fullmatch(c) for c in cells
    )


__all__ = [
    "TEXT_TABLE_EXT",
    "call_args",
    "header_row",
    "open_table_bytes",
    "open_table_text",
    "read_args",
    "text_encoding",
]
