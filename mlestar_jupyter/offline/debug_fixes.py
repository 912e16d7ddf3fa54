"""The offline debugger's deterministic fixes, each for one kind of error.

Each returns the fixed notebook, or ``None`` when the error is not its kind or nothing changes;
the policy tries them in turn (undoing a failed strategy is the policy's own, as it needs what
the block replaced).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..agent.missing_modules import guard_imports, missing_module
from ..codecheck import static_checks
from ..notebook import SolutionNotebook
from . import split_repair

TIMEOUT_ERROR = r"Timeout|timed out"  # how a run past its time limit reads in an error


def is_timeout(error: str) -> bool:
    """Whether ``error`` says the run went past its time limit."""
    return bool(re.search(TIMEOUT_ERROR, error, re.IGNORECASE))


def plain_split(solution: SolutionNotebook, error: str, bid: str | None) -> SolutionNotebook | None:
    """A stratified split the data cannot fill (few rows, many classes) made a plain one."""
    if not split_repair.is_stratify_error(error):
        return None
    for b in sorted(solution.code_blocks, key=lambda b: b.id != bid):
        plain = split_repair.drop_stratify(b.source)
        if plain != b.source:
            return solution.replace_block(b.id, plain, origin="offline:debug")
    return None


def drawing_package(solution: SolutionNotebook, error: str) -> SolutionNotebook | None:
    """A drawing package the kernel lacks (``No module named 'seaborn'``): its imports guarded,
    the names standing for an object that does nothing (``agent.missing_modules``)."""
    top = missing_module(error)
    if top is None:
        return None
    fixed, changes = guard_imports(solution, installed=lambda m: m != top)
    return fixed if changes else None  # the cells keep their origin (a user cell stays one)


def missing_imports(
    solution: SolutionNotebook, error: str, bid: str | None
) -> SolutionNotebook | None:
    """The imports of undefined names added to the failed block (the first one when unknown)."""
    if not re.search(r"NameError: name '(\w+)' is not defined", error):
        return None
    everything = solution.source
    repaired = static_checks.repair_imports(everything)
    if repaired == everything:
        return None
    head = [ln for ln in repaired.splitlines() if ln not in everything.splitlines()]
    first = solution.block_ids[0] if bid is None else bid
    return solution.replace_block(
        first, "\n".join(head) + "\n" + solution.block(first).source, origin="offline:debug"
    )


def fewer_rows(
    solution: SolutionNotebook, error: str, train_rows: Callable[[], int | None]
) -> SolutionNotebook | None:
    """Out of memory or time: half the rows actually trained on (at least 200)."""
    if not re.search(rf"MemoryError|out of memory|Killed|{TIMEOUT_ERROR}", error, re.IGNORECASE):
        return None
    for b in solution.blocks_by_role("setup"):
        m = re.search(r"^MAX_TRAIN_ROWS = (\d+)", b.source, re.MULTILINE)
        if m:
            # Halve the rows actually trained on (a cap above the data's size changes nothing).
            rows = min(int(m.group(1)), train_rows() or int(m.group(1)))
            smaller = max(200, rows // 2)
            if smaller >= int(m.group(1)):
                continue
            return solution.replace_block(
                b.id,
                b.source.replace(m.group(0), f"MAX_TRAIN_ROWS = {smaller}"),
                origin="offline:debug",
            )
    return None
