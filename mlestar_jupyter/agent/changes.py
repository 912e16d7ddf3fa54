"""What a run changed in a user's notebook for its own machine, said in a note, given back.

``data_paths``, ``shell_lines``, ``colab_lines``, ``missing_modules``, ``fold_scores``,
``input_lines``, ``error_cells`` and ``local_modules`` each record what they change as a :class:`PathChange`.  :func:`note_for` says
all of it in the markdown note a run puts above the first changed cell; :func:`restore_paths`
puts the user's own text back into a refined cell, so a proposal offers the user's notebook its
own paths and lines, never the run's.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, get_args

from .path_rules import TEMP
from .shell_lines import MUTED

if TYPE_CHECKING:
    from ..notebook import SolutionNotebook

ChangeKind = Literal[
    "path",
    "install",
    "colab",
    "shell",
    "module",
    "fold",
    "temp",
    "local",
    "output",
    "stop",
    "keep",
    "old_api",
    "input",
    "error",
    "cwd",
    "debug",
    "gpu",
    "scoring",
    "argv",
]
CHANGE_KINDS: tuple[str, ...] = get_args(ChangeKind)  # every kind, for those who count them
# the first line of a cell of the user's that raised in a run and that nothing after it needs
# (``stale_cells``; kind "error")
STALE_CELL = (
    "# MLE-STAR: not run: it raised {error} in the run, and no cell after it uses what it makes"
)


@dataclass(frozen=True)
class PathChange:
    """One change to one code block: a data path (``kind`` "path", ``old``/``new`` the literal's
    text), or a whole line (``kind`` "install": an install commented out; "colab": a line only
    Colab runs, commented out; "shell": a shell line whose paths were pointed at the run's
    folders, or which was commented out (a download too); "module": an import of a package the
    kernel lacks, guarded; "fold": a line MLE-STAR added, ``old`` empty, which keeps the values
    of each pass of a loop that scores folds (or each model of a loop that compares them,
    ``cv_loop``); "temp": a line MLE-STAR added, ``old`` empty,
    which makes the folder Kaggle's ``/kaggle/temp`` became; "local": a line of ``file``, a
    module of the user's own among the task's data that the notebook imports, changed in the
    copy the kernel imports, which block ``block_id`` (MLE-STAR's) writes; ``old``/``new`` the
    lines; "input": a line whose ``input()`` calls were given the answers saved with the cell;
    "error": a line of a cell that failed when its author ran it, before running the cells below
    it, or that raised in a run when nothing after it needs it (``stale_cells``), commented out
    (``old`` empty: the line saying so); "cwd": a line naming the folder the
    notebook runs in (``ROOT = Path.cwd()``), made ``input/`` below it, since the notebook joins
    that name to the data's files; "debug": the notebook's debug switch (``DEBUG = True``, which
    its cells test) set to ``False``; "gpu": a setting only a GPU runs (``tree_method='gpu_hist'``,
    ``device='cuda'``) made the CPU's, where the run's kernels have no GPU;
    "output": a line that writes a file into the data folder, which a run keeps
    read-only, changed to write it in the work folder; "stop": the notebook's own exit, or a
    line after it, which Run All never reaches, commented out; "keep": a ``del`` of names the
    validation cell MLE-STAR adds below reads, which keeps them; "old_api": a call of an older
    library version the installed one refuses, rewritten: ``OneHotEncoder(sparse=False)``;
    "scoring": ``scoring="f1"`` made to score the task's positive class, not the class 1;
    "argv": ``parser.parse_args()`` made ``parser.parse_args(args=[])``, since a kernel's
    command line is its own)."""

    block_id: str
    old: str
    new: str
    kind: ChangeKind = "path"
    file: str = ""  # the user's module a "local" change is in (``utils.py``), else ""

    @property
    def line(self) -> bool:
        """Whether whole lines changed (not a literal's text)."""
        return self.kind != "path"


def lines_changed(
    nb: SolutionNotebook,
    pattern: re.Pattern[str],
    kind: ChangeKind,
    change: Callable[[re.Match[str], int], str | None],
) -> tuple[SolutionNotebook, tuple[PathChange, ...]]:
    """``nb`` with each match of ``pattern`` (a whole line) in its code cells replaced by what
    ``change`` makes of it, given the match and how many lines of its cell it changed before
    (``None``: left as it is), and each replacement as a change of ``kind``; ``nb`` itself and
    none when nothing changed."""
    out, changes = nb, []
    for block in nb.code_blocks:
        found: list[PathChange] = []

        def replace_line(
            m: re.Match[str], found: list[PathChange] = found, block_id: str = block.id
        ) -> str:
            new = change(m, len(found))
            if new is None:
                return m.group(0)
            found.append(PathChange(block_id, m.group(0), new, kind=kind))
            return new

        source = pattern.sub(replace_line, block.source)
        if found:
            out = out.replace_block(block.id, source)
            changes.extend(found)
    return out, tuple(changes)


def restore_paths(source: str, block_id: str, changes: tuple[PathChange, ...]) -> str:
    """``source`` (a refined version of block ``block_id``) with the literals ``point_to_input``
    rewrote in that block put back as the user wrote them, in order: what a proposal offers to
    the user's own notebook, whose cells keep their paths.  Whole lines first, the last change
    first: they were changed after the literals (a muted line may hold a rewritten path).
    Changes to the user's own modules are not the cell's: their copy is MLE-STAR's cell."""
    mine = [c for c in changes if c.block_id == block_id and c.kind != "local"]
    for c in [*reversed([c for c in mine if c.line]), *(c for c in mine if not c.line)]:
        if c.line and not c.old:  # a line added for the run: the user's cell never had it
            source = "\n".join(ln for ln in source.split("\n") if ln != c.new)
            continue
        if c.line:
            source = source.replace(c.new, c.old, 1)
            continue
        for q in ("'", '"'):
            if f"{q}{c.new}{q}" in source:
                source = source.replace(f"{q}{c.new}{q}", f"{q}{c.old}{q}", 1)
                break
    return source


_LINE_NOTES = (
    (
        "install",
        "A run has no network, so these lines are not run: {} (install the packages in the "
        "environment Jupyter runs in).",
    ),
    (
        "colab",
        "Only Colab runs these lines, which are not run: {} (the run reads the task's data "
        "from ./input).",
    ),
    (
        "old_api",
        "These calls were written for older library versions, which the installed ones refuse, "
        "so they are rewritten: {}.",
    ),
    (
        "scoring",
        "scikit-learn's scorers of one class score the class 1, which is not the task's positive "
        "class, so these scorings name it: {}.",
    ),
    (
        "argv",
        "A kernel's command line is the kernel's own, which argparse refuses, so these lines "
        "parse an empty one and every setting keeps its default: {}.",
    ),
    (
        "module",
        "The run's kernels lack what these lines import, which only draws: {}; the imported "
        "names stand for an object that does nothing, so the plots are skipped and the rest "
        "runs (install the package to see them).",
    ),
)


def note_for(changes: tuple[PathChange, ...]) -> str:
    """The markdown note shown above the first changed cell (paths, installs, shell lines,
    guarded imports, the user's own modules)."""
    parts = []
    paths = [c for c in changes if not c.line and not c.new.startswith("./")]
    outputs = [c for c in changes if not c.line and c.new.startswith("./")]
    if paths:
        shown = ", ".join(f"`{c.old}` → `{c.new}`" for c in paths[:6])
        more = f" and {len(paths) - 6} more" if len(paths) > 6 else ""
        parts.append(
            "In a run each notebook executes in its own folder with the task's data in "
            f"`./input`, so the data paths of your cells were pointed there: {shown}{more}."
        )
    if outputs:
        shown = ", ".join(f"`{c.old}` → `{c.new}`" for c in outputs[:4])
        temp = any(c.kind == "temp" for c in changes)
        parts.append(
            "Kaggle's working folder is the run's own work folder, where the run finds what "
            "your cells write"
            + (f", and its scratch folder `/kaggle/temp` is `./{TEMP}` there" if temp else "")
            + f": {shown}."
        )
    written = [c for c in changes if c.kind == "output"]
    if written:
        parts.append(
            "A run keeps `./input` read-only, so what your cells write into the data folder "
            f"goes to the run's own work folder, where the run finds it: {_pairs(written)}."
        )
    parts += _shell_notes(changes)
    for kind, say in _LINE_NOTES:
        # a call over several lines: its first line
        lines = [c.old.strip().split("\n")[0] for c in changes if c.kind == kind and c.old]
        if lines:
            parts.append(say.format(", ".join(f"`{line}`" for line in lines[:4])))
    answered = [c for c in changes if c.kind == "input"]
    if answered:
        shown = _before_after(answered, "  #")
        parts.append(
            "A run has nobody to answer your notebook's questions, so each `input()` is given "
            f"the answer saved with its cell: {shown}."
        )
    here = [c for c in changes if c.kind == "cwd"]
    if here:
        parts.append(
            "Your notebook reads its data from the folder it runs in; a run's data is in "
            f"`./input` there, so that folder's name points at it: {_pairs(here, 3)}."
        )
    if any(c.kind == "debug" for c in changes):
        parts.append(
            "Your notebook's debug switch is off for the run (`DEBUG = False`): a run trains on "
            "every row (on fewer only when its time asks for it) and writes the submission."
        )
    stale = STALE_CELL.split("}", 1)[1]  # " in the run, and no cell after it uses ..."
    failed = [c for c in changes if c.kind == "error" and not c.old and stale not in c.new]
    if len(failed) < len([c for c in changes if c.kind == "error" and not c.old]):
        parts.append(
            "A cell raised an error in the run and no cell after it uses what it makes (left "
            "from an earlier version of your notebook?), so it is not run and the rest is (its "
            "first line says which error); delete it, or fix it, in your own notebook."
        )
    if failed:
        parts.append(
            f"{len(failed)} cell(s) raised an error when you ran them and you went on with the "
            "cells below, so a run does not run them either (each says which error)."
        )
    stops = [c.old.strip() for c in changes if c.kind == "stop" and c.new.startswith("pass  # ")]
    if stops:
        parts.append(
            f"Your notebook ends itself at `{stops[0]}`, where Run All stops, so a run stops "
            "there too: that line and the lines and cells after it are not run."
        )
    gpu = [c for c in changes if c.kind == "gpu"]
    if gpu:
        shown = _before_after(gpu, "  # MLE-STAR")
        parts.append(
            "Your notebook asks for a GPU and the run's kernels have none, so its GPU settings "
            f"are their CPU equivalents: {shown} (a machine with a GPU keeps them)."
        )
    parts += _local_notes(changes)
    return "**Changed by MLE-STAR.** " + " ".join(parts) + " Your own notebook keeps its lines."


def _before_after(changes: list[PathChange], comment: str, n: int = 4) -> str:
    """The first ``n`` changed lines as "`old` → `new`", each new line without the ``comment``
    the change added to it."""
    return ", ".join(
        f"`{c.old.strip()}` → `{c.new.split(comment)[0].strip()}`" for c in changes[:n]
    )


def _pairs(changes: list[PathChange], n: int = 4) -> str:
    """The first ``n`` changed lines as the note shows them: `` `old` → `new` ``."""
    return ", ".join(f"`{c.old.strip()}` → `{c.new.strip()}`" for c in changes[:n])


def _shell_notes(changes: tuple[PathChange, ...]) -> list[str]:
    """What the note says of shell lines: those pointed at the run's folders, those muted."""
    shell = [c for c in changes if c.kind == "shell"]
    moved = [c for c in shell if MUTED not in c.new]
    muted = [c.old.strip().split("\n")[0] for c in shell if MUTED in c.new]
    parts = []
    if moved:
        parts.append(f"Shell lines name the run's folders: {_pairs(moved)}.")
    if muted:
        shown = ", ".join(f"`{line}`" for line in muted[:4])
        parts.append(
            f"These shell lines are not run, as each line's comment says why: {shown} (the run "
            "reads the task's data from ./input)."
        )
    return parts


def _local_notes(changes: tuple[PathChange, ...]) -> list[str]:
    """What the note says of the user's own modules: which lines their copies change."""
    local = [c for c in changes if c.kind == "local"]
    files = list(dict.fromkeys(c.file for c in local))
    if not files:
        return []
    shown = []
    for file in files:
        mine = [c for c in local if c.file == file]
        lines = ", ".join(f"`{c.old.strip()}` → `{c.new.strip()}`" for c in mine[:4])
        more = f" and {len(mine) - 4} more" if len(mine) > 4 else ""
        shown.append(f"{file}: {lines}{more}")
    return [
        f"Your own code in {', '.join(files)}, which the notebook imports from the task's data, "
        "names folders a run does not have, so a cell MLE-STAR adds writes a copy of it in the "
        f"run's work folder, which the kernel imports instead ({'; '.join(shown)}). The files "
        "in the task's data are not changed."
    ]


__all__ = ["CHANGE_KINDS", "ChangeKind", "PathChange", "note_for", "restore_paths"]
