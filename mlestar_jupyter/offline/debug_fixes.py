"""The offline debugger's deterministic fixes, each for one kind of error.

Each returns the fixed notebook, or ``None`` when the error is not its kind or nothing changes;
the policy tries them in turn (undoing a failed strategy is the policy's own, as it needs what
the block replaced).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable

from ..agent.missing_modules import guard_imports, missing_module
from ..codecheck import static_checks
from ..notebook import SolutionNotebook
from ..notebook.cell_head import with_head
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
        first, with_head(solution.block(first).source, "\n".join(head)), origin="offline:debug"
    )


# the folder a write found missing: pandas' to_csv/to_parquet, torch.save
_NO_FOLDER = (
    re.compile(r"Cannot save file into a non-existent directory: '([^'\n]+)'"),
    re.compile(r"Parent directory (\S+) does not exist"),
)
_NO_SUCH_FILE = re.compile(r"No such file or directory: '([^'\n]+)'")
# a call that writes a file (in the traceback's lines): a read of a missing file is no such case
_WRITES = re.compile(
    r"\.(?:to_(?:csv|parquet|excel|json|pickle|feather)|savefig|save_model|save|dump)\("
    r"|\bopen\([^)\n]*['\"][wax]b?\+?['\"]|\b(?:np|numpy|joblib|pickle|torch)\.(?:save\w*|dump)\("
)


def missing_folder(
    solution: SolutionNotebook, error: str, bid: str | None
) -> SolutionNotebook | None:
    """A file written into a folder of the author's project that the run's work folder lacks
    (``to_csv('outputs/submission.csv')``, ``plt.savefig('figures/roc.png')``): the folder made
    at the top of the failed block, inside the work folder (not the data); a folder above the
    notebook's (``'../outputs/submission.csv'``) is written as one inside the work folder."""
    folder = next((m.group(1) for p in _NO_FOLDER for m in [p.search(error)] if m), None)
    if folder is None:
        m = _NO_SUCH_FILE.search(error)
        if m is None or not _WRITES.search(error) or not re.search(r"[\\/]", m.group(1)):
            return None
        folder = re.split(r"[\\/]+(?=[^\\/]*$)", m.group(1))[0]
    parts = [p for p in re.split(r"[\\/]+", folder) if p not in ("", ".")]
    up = len(parts) - len(list(itertools.dropwhile(lambda p: p == "..", parts)))
    parts = parts[up:]
    if not parts or folder.startswith(("/", "~")) or ".." in parts or parts[0] == "input":
        return None
    inner = "/".join(parts)
    line = f"os.makedirs({inner!r}, exist_ok=True)"
    first = solution.block_ids[0] if bid is None else bid
    source = solution.block(first).source
    if up:  # '../outputs/sub.csv': the project's folder above the notebook's, made a work folder
        written = re.compile(rf"""(?<=['"])(?:\.\.[\\/]+){{{up}}}(?={re.escape(parts[0])}\b)""")
        if not written.search(source):
            return None  # a path made by code: no literal to move into the work folder
        source = written.sub("", source)
    if line in source:
        return None
    head = (
        "import os\n"
        + line
        + "  # the folder this cell writes into (the run's work folder starts without it)\n"
    )
    return solution.replace_block(first, with_head(source, head), origin="offline:debug")


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
