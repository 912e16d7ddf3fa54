"""A short look at a task's input files for prompts: table shapes, columns with types, a row or
two, and for folders the number of files with a few names.

Models that are told the real column names stop guessing them (a 1.5B coder model otherwise splits
"mean radius, mean texture, ..." from a file description into the words ``mean``, ``error``).
Reading is cheap: only the first rows of a table are parsed; rows are counted by lines.  Each
table is read in its own format (``text_format.read_args``: a ``;``, tab or ``|`` separator,
decimal commas, the Windows code page or UTF-16 of Excel's exports).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .layout.tables import read_table
from .model import Task
from .text_format import text_encoding

TABLE_SUFFIXES = (".csv", ".tsv", ".txt")
MAX_COUNT_BYTES = 200 * 1024 * 1024  # larger files are not line-counted


@dataclass(frozen=True)
class PreviewLimits:
    """How much of each file a preview shows."""

    columns: int = 40  # wider tables show the first and last columns
    rows: int = 2
    cell_chars: int = 40
    files: int = 3


def preview_data(task: Task, limits: PreviewLimits | None = None) -> str:
    """The task's input files as a few lines each (Markdown list); missing files are said so."""
    lim = limits or PreviewLimits()
    out: list[str] = []
    seen: set[Path] = set()
    for f in task.files:  # the loaders already split "train.csv, train" into two files
        path = task.input_dir / f.path
        if path not in seen:
            seen.add(path)
            out.append(_preview_path(path, f.path, lim))
    return "\n".join(out)


def _preview_path(path: Path, name: str, lim: PreviewLimits) -> str:
    if not path.exists():
        return f"- `{name}`: missing"
    if path.is_dir():
        return _preview_folder(path, name, lim)
    if path.suffix.lower() in TABLE_SUFFIXES:
        try:
            return _preview_table(path, name, lim)
        except (OSError, ValueError) as e:  # pandas' parse errors are ValueErrors
            # a file pandas cannot read is still worth naming
            return f"- `{name}`: {_size(path)}, not readable as a table ({type(e).__name__})"
    return f"- `{name}`: {_size(path)}"


def _preview_table(path: Path, name: str, lim: PreviewLimits) -> str:
    head = read_table(path, nrows=max(lim.rows, 5))  # in its separator, decimal mark, encoding
    rows = _count_rows(path)
    cols = [f"{c} ({head[c].dtype})" for c in head.columns]
    if len(cols) > lim.columns:
        keep = lim.columns - 5
        cols = cols[:keep] + [f"... {len(cols) - keep - 5} more ..."] + cols[-5:]
    shape = (
        f"{rows} rows × {head.shape[1]} columns" if rows is not None else f"{head.shape[1]} columns"
    )
    lines = [f"- `{name}`: {shape}", f"  columns: {', '.join(cols)}"]
    wide = head.shape[1] > lim.columns // 2
    for i in range(min(1 if wide else lim.rows, len(head))):
        values = [_short(v, lim.cell_chars) for v in head.astype(object).iloc[i].tolist()]
        if len(values) > lim.columns:
            values = values[: lim.columns - 5] + ["..."] + values[-5:]
        lines.append(f"  row: {', '.join(values)}")
    return "\n".join(lines)


def _preview_folder(path: Path, name: str, lim: PreviewLimits) -> str:
    files = sorted(p for p in path.rglob("*") if p.is_file())
    kinds = sorted({p.suffix.lower() or "(no suffix)" for p in files})
    examples = ", ".join(f"`{name}/{p.relative_to(path).as_posix()}`" for p in files[: lim.files])
    return f"- `{name}/`: folder of {len(files)} files ({', '.join(kinds[:5])}), e.g. {examples}"


def _count_rows(path: Path) -> int | None:
    """Data rows (lines after the header); ``None`` for very large files."""
    if path.stat().st_size > MAX_COUNT_BYTES:
        return None
    encoding = text_encoding(path)
    if encoding.startswith(("utf-16", "utf-32")):  # (a byte 10 is no line end there)
        with path.open(encoding=encoding, errors="replace", newline="") as text:
            return max(0, sum(1 for _ in text) - 1)
    n, last = 0, b"\n"
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            n, last = n + chunk.count(b"\n"), chunk[-1:]
    if last != b"\n":
        n += 1  # last line without a newline
    return max(0, n - 1)


def _short(value: object, n: int) -> str:
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= n else text[: n - 3] + "..."


def _size(path: Path) -> str:
    size = float(path.stat().st_size)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GB"
