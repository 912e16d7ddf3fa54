"""A_test's first half as the paper has it: find the subsampling, remove it, verify it is gone.

During the search a solution may train on at most ``max_train_rows`` rows (the init prompt asks
for a ``# %% subsample`` cell).  Before the final run:

1. :func:`find_subsampling` lists where the code subsamples: every line of a ``subsample`` cell
   that shrinks a table, and anywhere a table is shrunk into itself (``df = df.sample(n=...)``,
   ``df = df.head(30000)``, ``df = df.iloc[:30000]``) or read short (``read_csv(..., nrows=...)``);
2. :func:`remove_subsampling` rewrites those expressions away (``df = df.sample(n=N)`` becomes
   ``df = df``; ``nrows=`` is dropped), keeping every name later cells use;
3. :func:`prepare_final` checks the rewritten code again and journals a ``subsampling`` event;
   after the final run, :func:`check_training_rows` compares the ``Training rows: <n>`` line the
   run printed with the task's number of training rows.

A shuffle (``.sample(frac=1)``) and a split (``val = df.sample(frac=0.2)``, a new name outside a
``subsample`` cell) are not subsampling and are left alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..notebook import SolutionNotebook

TRAIN_ROWS_LINE = re.compile(r"Training rows:\s*([0-9][0-9,_]*)", re.IGNORECASE)
FULL_DATA_SHARE = 0.75  # a final run reporting fewer rows than this share did not use all rows
ASSIGN = re.compile(r"^(\s*)([A-Za-z_]\w*)\s*=\s*([A-Za-z_]\w*)(.*)$")
# rows cut short: ``.sample(``, ``.head(``, ``.iloc[:n]``, ``[:n]``; not a column selection
# (``df.iloc[:, 1:-1]``, ``arr[:, -1]``), which keeps every row
SHRINK = re.compile(r"\.(sample|head)\(|(\.iloc)?\[\s*:\s*[\w.]+\s*\]")
NROWS = re.compile(r",?\s*\bnrows\s*=\s*[\w.]+")
SHUFFLE = re.compile(r"\.sample\(\s*frac\s*=\s*1(\.0*)?\s*[,)]")


@dataclass(frozen=True)
class SubsampleSite:
    """One place where the code subsamples the training data."""

    block_id: str
    line: str


def _close(text: str, start: int, open_: str, close: str) -> int:
    """Index just past the bracket that closes the one opened at ``start``."""
    depth = 0
    for i in range(start, len(text)):
        depth += text[i] == open_
        depth -= text[i] == close
        if depth == 0:
            return i + 1
    return len(text)


def _strip_shrinks(expr: str) -> str:
    """``expr`` without its ``.sample(...)``, ``.head(...)``, ``.iloc[:n]`` and ``[:n]`` calls."""
    out = expr
    while True:
        m = SHRINK.search(out)
        if m is None or SHUFFLE.match(out, m.start()):
            return out
        bracket = m.group(0).rstrip()[-1] if m.group(0).rstrip()[-1] in "([" else "["
        open_at = out.index(bracket, m.start())
        end = _close(out, open_at, bracket, ")" if bracket == "(" else "]")
        out = out[: m.start()] + out[end:]


def _shrinks(line: str, in_subsample_cell: bool) -> bool:
    if NROWS.search(line) and "read_" in line:
        return True
    m = ASSIGN.match(line)
    if m is None or not SHRINK.search(m.group(4)) or SHUFFLE.search(m.group(4)):
        return False
    return in_subsample_cell or m.group(2) == m.group(3)


def find_subsampling(nb: SolutionNotebook) -> list[SubsampleSite]:
    """Where ``nb`` subsamples its training data (see the module docstring)."""
    return [
        SubsampleSite(b.id, line.strip())
        for b in nb.code_blocks
        for line in b.source.splitlines()
        if _shrinks(line, b.role == "subsample")
    ]


def remove_subsampling(nb: SolutionNotebook) -> SolutionNotebook:
    """``nb`` with every subsampling expression rewritten away (names kept)."""
    for b in nb.code_blocks:
        lines = b.source.splitlines()
        new = []
        for line in lines:
            if _shrinks(line, b.role == "subsample"):
                line = NROWS.sub("", line)
                m = ASSIGN.match(line)
                if m is not None:
                    line = f"{m.group(1)}{m.group(2)} = {m.group(3)}{_strip_shrinks(m.group(4))}"
            new.append(line)
        if new != lines:
            nb = nb.replace_block(b.id, "\n".join(new), origin="subsampling_removed")
    return nb


def prepare_final(journal: Any, nb: SolutionNotebook, node_id: str) -> SolutionNotebook:
    """Find, remove and verify the subsampling of the solution the final run starts from;
    journals a ``subsampling`` event with what was found and what is left."""
    found = find_subsampling(nb)
    out = remove_subsampling(nb) if found else nb
    left = find_subsampling(out)
    journal.emit(
        "subsampling",
        key=f"subsampling/{node_id}",
        node_id=node_id,
        found=[f"{s.block_id}: {s.line}" for s in found],
        removed=bool(found) and not left,
        remaining=[f"{s.block_id}: {s.line}" for s in left],
    )
    return out


def reported_training_rows(stdout: str) -> int | None:
    """The last ``Training rows: <n>`` a run printed, or ``None``."""
    hits = TRAIN_ROWS_LINE.findall(stdout or "")
    return int(re.sub(r"[,_]", "", hits[-1])) if hits else None


def check_training_rows(
    journal: Any, node_id: str, stdout: str, expected: int | None
) -> str | None:
    """A problem when the final run reports training on clearly fewer rows than the task has
    (subsampling still at work); journals the comparison.  ``None`` when fine or unknown."""
    reported = reported_training_rows(stdout)
    problem = None
    if reported is not None and expected and reported < FULL_DATA_SHARE * expected:
        problem = (
            f"the final run trained on {reported} of the task's {expected} training rows: remove "
            "the subsampling so the final model is trained on all rows"
        )
    journal.emit(
        "subsampling",
        key=f"subsampling/{node_id}/rows",
        node_id=node_id,
        rows_reported=reported,
        rows_expected=expected,
        problem=problem,
    )
    return problem


def expected_training_rows(policy: Any) -> int | None:
    """The task's number of training rows, as the policy (or its offline helper) counts them."""
    for owner in (policy, getattr(policy, "static", None)):
        count = getattr(owner, "train_rows", None)
        if callable(count):
            try:
                n = count()
            except Exception:  # noqa: BLE001 - unknown: no row check
                n = None
            if isinstance(n, int) and n > 0:
                return n
    return None
