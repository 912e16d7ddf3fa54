"""Percent scripts from a model → solution notebooks.

Models answer with a script whose cells are marked ``# %% <block id> (<role>)`` (the ids they were
shown) or ``# %% <role>``; a script without markers is split at top-level comment headers.  A block
id in a marker keeps that block's identity when the script replaces a notebook (``base``).
"""

from __future__ import annotations

import re

from ..notebook import BLOCK_ROLES, SolutionNotebook

_MARKER = re.compile(r"^#\s*%%\s*(.*)$")
_BLOCK_TITLE = re.compile(r"\[?(b\d+)\]?\s*(?:\((\w+)\))?")
_STEP_HEADER = re.compile(
    r"^#\s*(\d+[.)]|step\b|load|read|preprocess|feature|model|train|evaluat|predict|valid)", re.I
)


def script_to_notebook(
    code: str, *, base: SolutionNotebook | None = None, origin: str = ""
) -> SolutionNotebook:
    """A percent script from a model → notebook.  ``# %% b3 (model)`` keeps block b3's identity;
    ``# %% model`` sets a role; a script without markers is split at top-level comment headers.
    Raises ``NoCodeCellsError`` when the script has no code cells."""
    if "# %%" not in code:
        code = split_unmarked(code)
    lines = [_normalised_marker(line) or line for line in code.splitlines()]
    nb = SolutionNotebook.from_script("\n".join(lines), base=base)
    for c in nb.nb.cells:
        if c.cell_type == "code":
            c.metadata["mlestar"].setdefault("origin", origin)
            if not c.metadata["mlestar"].get("role"):
                c.metadata["mlestar"]["role"] = "other"
    return nb.require_code()


def _normalised_marker(line: str) -> str | None:
    """A code-cell marker line as ``SolutionNotebook.from_script`` reads it (None: not one)."""
    m = _MARKER.match(line)
    if not m or m.group(1).strip().startswith("[markdown]"):
        return None
    title = m.group(1).strip()
    bm = _BLOCK_TITLE.match(title)
    if bm:
        return f"# %% {bm.group(1)} ({bm.group(2) or 'other'})"
    word = next((w for w in BLOCK_ROLES if title.lower().startswith(w)), "other")
    return f"# %% ({word})"


def split_unmarked(code: str) -> str:
    """Insert cell markers before top-level comment lines that start a new step."""
    out, first = [], True
    for line in code.splitlines():
        if _STEP_HEADER.match(line) and not first:
            out.append("# %%")
        out.append(line)
        first = False
    return "# %%\n" + "\n".join(out)


def without_markers(code: str) -> str:
    """A quoted fragment without ``# %%`` cell-marker lines (models copy them from the prompt)."""
    kept = (ln for ln in code.splitlines() if not ln.lstrip().startswith("# %%"))
    return "\n".join(kept).strip("\n")
