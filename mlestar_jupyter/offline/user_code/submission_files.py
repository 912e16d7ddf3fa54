"""Where a user's notebook writes its submission: under ``./final/``, where the run picks it up.

The folder is made just before the statement that writes into it, not at the cell's top: a cell
that moves into its data folder and back (``%cd data`` ... ``%cd ..``, ``os.chdir``) before its
``to_csv`` made ``final/`` in one folder and wrote from another ("Cannot save file into a
non-existent directory: 'final'"), and the run handed in the prior-only baseline.
"""

from __future__ import annotations

import ast
import re

from ...notebook import SolutionNotebook
from ...notebook.cell_head import with_head
from ...notebook.roles import strip_magics

# a CSV file written in the work folder: "x.csv" or "./x.csv" (Kaggle's working folder, pointed
# there by ``agent.data_paths``)
_CSV_WRITE = re.compile(r"""\.to_csv\(\s*(["'])(?:\./)?([^"'/]*\.csv)\1""")
_MAKE = 'os.makedirs("final", exist_ok=True)'
_COMPOUND = (
    ast.If,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.With,
    ast.AsyncWith,
    ast.Try,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
)


def final_outputs(nb: SolutionNotebook) -> SolutionNotebook:
    """``nb`` with the CSV files its cells write (``df.to_csv("submission.csv")``) written
    under ``./final/`` instead, where the run picks the submission up."""
    out = nb
    for b in nb.code_blocks:
        new = _CSV_WRITE.sub(
            lambda m: f".to_csv({m.group(1)}final/{m.group(2)}{m.group(1)}", b.source
        )
        if new != b.source:
            out = out.replace_block(b.id, _with_final_folder(new), origin="offline:submission")
    return out


def _with_final_folder(source: str) -> str:
    """``source`` with ``os.makedirs("final")`` before each statement that writes into it (at
    the cell's top when a statement cannot be told apart: a cell that does not parse, a write
    on one line with its ``if``)."""
    lines = source.split("\n")
    starts = _writing_statements(source, lines)
    if starts is None:
        return with_head(source, f"import os\n\n{_MAKE}")
    for line, col in sorted(starts, reverse=True):
        lines.insert(line, lines[line][:col] + _MAKE)  # the statement's own indentation
    return with_head("\n".join(lines), "import os\n\n")


def _writing_statements(source: str, lines: list[str]) -> set[tuple[int, int]] | None:
    """Where each simple statement of ``source`` that writes into ``final/`` starts (line from
    0, column); ``None`` when one cannot be told apart from the lines around it."""
    writes = {
        source.count("\n", 0, m.start()) for m in re.finditer(r"\.to_csv\(\s*[\"']final/", source)
    }
    try:
        tree = ast.parse(strip_magics(source))
    except SyntaxError:
        return None
    starts: set[tuple[int, int]] = set()
    for line in writes:
        inner = [
            s
            for s in ast.walk(tree)
            if isinstance(s, ast.stmt)
            and not isinstance(s, _COMPOUND)
            and s.lineno - 1 <= line <= (s.end_lineno or s.lineno) - 1
        ]
        if not inner:
            return None
        stmt = max(inner, key=lambda s: (s.lineno, s.col_offset))
        if lines[stmt.lineno - 1][: stmt.col_offset].strip():  # `if ok: df.to_csv(...)`
            return None
        starts.add((stmt.lineno - 1, stmt.col_offset))
    return starts
