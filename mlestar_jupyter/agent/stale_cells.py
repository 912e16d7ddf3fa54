"""A cell of the user's notebook that raised in a run and that nothing after it needs.

Notebooks are saved with a cell left from an earlier version: a plot of a column since renamed
(``train['radius'].plot()``: ``KeyError``), a print of a variable of a deleted cell
(``confusion_matrix(y_val, ...)``: ``NameError``).  Saved with its outputs, such a cell shows its
error and ``error_cells`` mutes it; saved without them (cleared, or through nbstripout) nothing
says its author skipped it, and run from the top it stopped the notebook: the run set the whole
notebook aside ("your notebook gave no validation score (KeyError: 'radius')").

:func:`without_stale_cell` comments such a cell out (``kind`` "error", its first line
``STALE_CELL``, given back in proposals) when nothing the cell makes is used after it: no later
cell (MLE-STAR's validation cell included) reads a name it assigns, defines, imports, deletes or
changes in place (``df["x"] = ...``, ``model.fit(...)``, ``df.fillna(0, inplace=True)``, a call of
one of the notebook's own functions on it), and it writes no file.  A cell that may feed the
model or the submission is left as it is, and the notebook is set aside as before.
:func:`retry_without_stale_cells` runs the user's notebook again without it (node ``user-s1``,
``user-s2``, ...), for at most ``MAX_STALE`` such cells.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from typing import TYPE_CHECKING

from ..notebook import SolutionNotebook
from ..notebook.code_vocabulary import receiver
from ..notebook.roles import strip_magics
from .changes import STALE_CELL, PathChange, note_for

if TYPE_CHECKING:
    from .candidates import Candidate, CandidateRunner, Outcome
    from .policy import Policy

MAX_STALE = 3  # cells muted one after another before the notebook is set aside
# methods that change their object (or, for a module function, their first argument) in place
_MUTATORS = frozenset(
    {
        "fit",
        "fit_transform",
        "fit_predict",
        "partial_fit",
        "append",
        "extend",
        "insert",
        "update",
        "pop",
        "popitem",
        "remove",
        "clear",
        "setdefault",
        "add",
        "discard",
        "sort",
        "reverse",
        "shuffle",
        "seed",
        "set_params",
        "load_state_dict",
        "register_buffer",
    }
)
# calls that write a file: the cell may write the submission, or a file a later cell reads
# (a table's ``.copy()`` or ``.rename(columns=...)`` writes nothing: only shutil's and os's do)
_WRITES = re.compile(
    r"\b(?:to_(?:csv|parquet|pickle|feather|excel|json|hdf|sql)|save(?:_model|txt|z)?|dump|"
    r"write(?:lines)?|shutil\.(?:copy\w*|move)|os\.(?:rename|replace))\s*\("
)


def without_stale_cell(
    nb: SolutionNotebook, block_id: str | None, error: str
) -> tuple[SolutionNotebook, tuple[PathChange, ...]] | None:
    """``nb`` with block ``block_id``, which raised ``error``, commented out, and the changed
    lines; ``None`` when a later cell may need what it makes, it writes a file, or its code does
    not parse (see the module docstring)."""
    ids = nb.block_ids
    if block_id is None or block_id not in ids:
        return None
    source = nb.block(block_id).source
    if not source.strip() or _WRITES.search(source):
        return None
    try:
        tree = ast.parse(strip_magics(source))
    except SyntaxError:
        return None
    later = [nb.block(b).source for b in ids[ids.index(block_id) + 1 :]]
    if _made(tree, _own_functions(nb)) & _used(later):
        return None
    name = error.split(":", 1)[0].strip() or "an error"
    head = STALE_CELL.format(error=name)
    changes = [PathChange(block_id, "", head, kind="error")]
    muted = [head]
    for line in source.split("\n"):
        new = f"# {line}" if line.strip() else line
        if new != line:
            changes.append(PathChange(block_id, line, new, kind="error"))
        muted.append(new)
    return nb.replace_block(block_id, "\n".join(muted)), tuple(changes)


def retry_without_stale_cells(
    runner: CandidateRunner,
    policy: Policy,
    cand: Candidate,
    out: Outcome,
    users: list[str],
) -> tuple[Candidate, Outcome, tuple[PathChange, ...]]:
    """The user's candidate run again, each time without the cell of ``users`` (the user's own
    block ids) that stopped it, while that cell feeds nothing after it
    (:func:`without_stale_cell`); the last candidate, its outcome and the cells commented out
    (none: ``cand`` and ``out`` as given)."""
    changes: tuple[PathChange, ...] = ()
    for k in range(1, MAX_STALE + 1):
        if out.has_score or out.status != "failed" or out.failed_block not in users:
            break
        muted = without_stale_cell(cand.notebook, out.failed_block, out.error or "")
        if muted is None:
            break
        nb, new = muted
        nb = nb.insert_markdown_before(new[0].block_id, note_for(new))
        cand = replace(
            cand,
            notebook=nb,
            node_id=f"user-s{k}",
            label=f"your notebook, {k} cell(s) that raised not run",
            min_timeout=runner.clock.remaining() - 2 * runner.submission_reserve(),
        )
        changes += new
        out = runner.evaluate(cand, policy)
    return cand, out, changes


def stale_warning(changes: tuple[PathChange, ...]) -> str:
    """What the run tells the user of the cells :func:`retry_without_stale_cells` commented out:
    each cell's first line and its error."""
    heads = [c for c in changes if c.kind == "error" and not c.old]
    said = []
    for head in heads:
        first = next((c.old.strip() for c in changes if c.block_id == head.block_id and c.old), "")
        error = head.new.split("raised ", 1)[-1].split(" in the run", 1)[0]
        said.append(f"the cell `{first[:80]}` ({error})")
    return (
        f"{'; '.join(said)} raised an error in the run, and no cell after it uses what it "
        "makes: it is not run, and the rest of your notebook is; delete or fix it in your "
        "notebook"
    )


def is_users(node_id: str) -> bool:
    """Whether ``node_id`` is the user's notebook as prepared (``user``), or run again without a
    cell that raised (``user-s1``, ...)."""
    return node_id == "user" or re.fullmatch(r"user-s\d+", node_id) is not None


def _made(tree: ast.Module, own: frozenset[str]) -> set[str]:
    """The names a cell assigns, defines, imports, deletes or changes in place."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            out.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            out |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.Global | ast.Nonlocal):
            out |= set(node.names)
        elif isinstance(node, ast.Attribute | ast.Subscript) and not isinstance(node.ctx, ast.Load):
            out.add(receiver(node.value))
        elif isinstance(node, ast.Call):
            out |= _changed_by(node, own)
    return out - {""}


def _changed_by(call: ast.Call, own: frozenset[str]) -> set[str]:
    """The names a call may change in place: its object's and its arguments' for a method that
    changes (``_MUTATORS``, ``inplace=True``), its arguments' for a function of the notebook's."""
    func = call.func
    args = [receiver(a) for a in [*call.args, *(k.value for k in call.keywords)]]
    if isinstance(func, ast.Name):
        return set(args) if func.id in own else set()
    if not isinstance(func, ast.Attribute):
        return set()
    inplace = any(
        k.arg == "inplace" and not (isinstance(k.value, ast.Constant) and not k.value.value)
        for k in call.keywords
    )
    return {receiver(func.value), *args} if func.attr in _MUTATORS or inplace else set()


def _used(sources: list[str]) -> set[str]:
    """The names the later cells read: from the syntax tree, or, for a cell that does not
    parse, every word of it."""
    out: set[str] = set()
    for source in sources:
        try:
            tree = ast.parse(strip_magics(source))
        except SyntaxError:
            out |= set(re.findall(r"[A-Za-z_]\w*", source))
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Store):
                out.add(node.id)  # read, or deleted
            elif isinstance(node, ast.AugAssign):
                out.add(receiver(node.target))  # x += 1 reads x
            elif isinstance(node, ast.Global | ast.Nonlocal):
                out |= set(node.names)
        out |= set(re.findall(r"\{([A-Za-z_]\w*)", source))  # f"{name}" in a magic's line
    return out


def _own_functions(nb: SolutionNotebook) -> frozenset[str]:
    """The names of the functions the notebook defines."""
    code = "\n".join(b.source for b in nb.code_blocks)
    return frozenset(re.findall(r"^[ \t]*(?:async[ \t]+)?def[ \t]+(\w+)[ \t]*\(", code, re.M))


__all__ = [
    "MAX_STALE",
    "is_users",
    "retry_without_stale_cells",
    "stale_warning",
    "without_stale_cell",
]
