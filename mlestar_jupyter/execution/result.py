"""What one execution produced: ``ExecutionResult`` (JSON- and pickle-safe) and its parts."""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from .errors import CellError, CellTimeout, ExecutionError, InputModified, KernelDied

SCORE_RE = re.compile(
    r"Final Validation Performance:\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?nan|[-+]?inf)",
    re.IGNORECASE,
)
ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07")
STDOUT_LIMIT = 200_000  # characters kept of the whole run's stdout
CELL_STDOUT_LIMIT = 50_000  # characters kept per cell


def parse_score(text: str) -> float | None:
    """The float on the LAST line matching ``Final Validation Performance: <float>``, else None."""
    found = None
    for line in text.splitlines():
        m = SCORE_RE.search(line)
        if m:
            found = m.group(1)
    if found is None:
        return None
    try:
        return float(found)
    except ValueError:
        return None


def strip_ansi(text: str) -> str:
    """Remove terminal colour codes (IPython tracebacks are full of them)."""
    return ANSI_RE.sub("", text)


# a native library's stack frames in its error (XGBoost: "Stack trace:" then "  [bt] (0) ...")
_NATIVE_FRAMES = re.compile(r"^[ \t]*(?:Stack trace:|\[bt\] \(\d+\) .*)[ \t]*\r?$\n?", re.MULTILINE)


def without_native_frames(text: str) -> str:
    """``text`` without the native stack frames a library's error carries (XGBoost's
    ``[bt] (0) .../libxgboost.so(+0x11031e)`` lines, after ``Stack trace:``): addresses say
    nothing to a user or a debugger; the error's own line stays."""
    return _NATIVE_FRAMES.sub("", text).rstrip() if "[bt] (" in text else text


def bounded(text: str, limit: int) -> str:
    """``text`` cut to about ``limit`` characters, keeping the head and (mostly) the tail."""
    if len(text) <= limit:
        return text
    head = limit // 10
    tail = limit - head
    cut = len(text) - head - tail
    return f"{text[:head]}\n... [{cut} characters cut] ...\n{text[-tail:]}"


@dataclass
class CellOutcome:
    """How one code cell went."""

    block_id: str | None
    index: int
    ok: bool
    stdout: str = ""
    stderr: str = ""
    error_name: str | None = None
    error_value: str | None = None
    traceback: str | None = None
    duration: float = 0.0


@dataclass
class ExecutionResult:
    """The outcome of running one solution notebook.

    ``ok`` is True when every cell ran without error, within the time limit, with the kernel
    alive and the input untouched.  ``score`` is parsed from the stdout even for failed runs;
    use ``valid_score`` for "the score, if the run can be trusted".
    """

    ok: bool
    score: float | None = None
    cells: list[CellOutcome] = field(default_factory=list)
    stdout: str = ""
    error: str = ""
    failed_block: str | None = None
    timed_out: bool = False
    kernel_died: bool = False
    duration: float = 0.0
    peak_memory_mb: float | None = None
    submission_path: str | None = None
    notebook: dict[str, Any] | None = None
    workdir: str | None = None
    input_modified: bool = False
    sandboxed: bool = False
    gpu: str | None = None
    warnings: list[str] = field(default_factory=list)

    # -- views ------------------------------------------------------------------------------
    @property
    def valid_score(self) -> float | None:
        """The score when the run succeeded, else None."""
        return self.score if self.ok else None

    @property
    def submission(self) -> Path | None:
        """``./final/submission.csv`` as a Path, when the run wrote it."""
        return Path(self.submission_path) if self.submission_path else None

    @property
    def failed_cell(self) -> CellOutcome | None:
        """The outcome of the cell that failed, if any."""
        return next((c for c in self.cells if not c.ok), None)

    @property
    def traceback(self) -> str | None:
        """The failing cell's ANSI-free traceback (what the debug role needs)."""
        cell = self.failed_cell
        return cell.traceback if cell else None

    def solution(self):  # type: ignore[no-untyped-def]
        """The executed notebook (with outputs) as a ``SolutionNotebook``."""
        import nbformat

        from ..notebook import SolutionNotebook

        if self.notebook is None:
            return None
        return SolutionNotebook(nbformat.from_dict(self.notebook))

    def to_error(self) -> ExecutionError | None:
        """The matching exception for a failed run, or None when ``ok``."""
        if self.ok:
            return None
        if self.timed_out:
            return CellTimeout(self.duration, self.failed_block)
        if self.kernel_died:
            return KernelDied(self.failed_block, self.error)
        cell = self.failed_cell
        if cell is not None and cell.error_name:
            return CellError(cell.block_id, cell.error_name, cell.error_value or "")
        if self.input_modified:
            return InputModified(self.workdir or "?")
        return ExecutionError(self.error or "execution failed")

    def raise_for_error(self) -> ExecutionResult:
        """Raise the matching ``ExecutionError`` when the run failed; return self otherwise."""
        err = self.to_error()
        if err is not None:
            raise err
        return self

    # -- (de)serialisation --------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """A JSON-safe dict (``json.dumps`` works on it); ``from_json`` reverses it."""
        d = asdict(self)
        if self.notebook is not None:
            d["notebook"] = json.loads(json.dumps(self.notebook))
        return d

    @classmethod
    def from_json(cls, data: dict[str, Any] | str) -> ExecutionResult:
        """Rebuild from ``to_json()`` output (a dict, or its JSON text)."""
        d = json.loads(data) if isinstance(data, str) else dict(data)
        known = {f.name for f in fields(cls)}
        d = {k: v for k, v in d.items() if k in known}
        d["cells"] = [CellOutcome(**c) for c in d.get("cells", [])]
        return cls(**d)

    def summary(self) -> str:
        """One line for logs: ``ok score=0.93 in 4.2s`` or ``failed b3: ValueError: …``."""
        if self.ok:
            return f"ok score={self.score} in {self.duration:.1f}s"
        where = f" {self.failed_block}" if self.failed_block else ""
        return f"failed{where}: {self.error} ({self.duration:.1f}s)"
