"""Data paths of a user's notebook pointed at the task's ``./input`` folder, installs muted.

In a run every candidate notebook executes in a fresh working folder whose ``./input`` is the
task's data; a notebook written elsewhere reads its files from where its author kept them:
``/kaggle/input/<competition>/train.csv``, ``../input/train.csv``, ``data/train.csv``,
``C:\\Users\\me\\train.csv``, or ``pd.read_csv("train.csv")``.  :func:`point_to_input` rewrites each
string literal that names a file or folder of the task's ``input/`` (by its last path
components) to ``input/<that entry>``, and a folder literal that ends in ``input`` or
``input/<competition>`` (the Kaggle layout) to ``input``, and a glob pattern whose folder part
is one of those to the same pattern under ``input`` (``/kaggle/input/*/*.csv`` →
``input/*.csv``); it returns what it changed, for the note the run shows.  A bare file name is
rewritten only as a call's first argument: in ``os.path.join(DATA, "train.csv")`` or
``DATA + "train.csv"`` it belongs to its folder.

Package installs run from a cell (``!pip install ...``, ``%conda install ...``) become ``pass``
with the line as a comment: a run's kernels have no network, where pip would retry and fail.
Lines only Colab runs become ``pass`` the same way (``colab_lines``).

Kaggle's working folder (``/kaggle/working``, where a Kaggle notebook writes its outputs) is the
candidate's own work folder: ``/kaggle/working/submission.csv`` → ``./submission.csv``,
``/kaggle/working`` → ``./``, also in a call that writes, so
``sub.to_csv("/kaggle/working/submission.csv")`` writes where the run finds it.

A bare file name is also rewritten inside a list, tuple-in-brackets or dict literal
(``files = ["train.csv", "test.csv"]``, ``{"train": "train.csv"}``).  A folder of another name
assigned to a variable (``DATA = "data/"``, ``ROOT = Path("~/datasets/wine")``) is pointed at
``input`` when the notebook joins that variable to a name of ``input/`` (``DATA + "train.csv"``,
``os.path.join(DATA, "train.csv")``, ``Path(DATA) / "train.csv"``, ``DATA / "train.csv"``,
``f"{DATA}/train.csv"``).

Left alone (but Kaggle's working folder): the first argument of a call that writes
(``df.to_csv("train.csv")``, ``plt.savefig(...)``, ``np.save(...)``: an output, even named like
an input), literals already
readable from the working folder (``input/...``, ``./input/...``),
URLs, f-strings, text on several lines, names that match nothing in ``input/`` (the notebook's
own outputs, ``submission.csv``), and a folder that nothing of ``input/`` is joined to.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Literal

from ..notebook import SolutionNotebook

INPUT = "input"
# a quoted string on one line, not an f-string (a letter before the quote: r, b, u are kept)
_LITERAL = re.compile(
    r"""(?<![\w])(?P<prefix>[rRuUbB]{0,2})(?P<q>['"])(?P<text>[^'"\n]{1,400})(?P=q)"""
)
# a call that writes a file, its first argument next: df.to_csv(, plt.savefig(, np.save(, ...
_WRITE_CALL = re.compile(r"\b(?:to_\w+|save\w*|dump|imwrite|write\w*|copy\w*|move|rename)\s*\(\s*$")
_WILDCARD = re.compile(r"[*?\[]")
_FILE_SUFFIX = re.compile(r"\.[A-Za-z0-9]{1,8}$")
# a package install run from a cell: !pip, %pip, !conda, %conda, !apt(-get), !python -m pip
_INSTALL = re.compile(
    r"^(?P<indent>[ \t]*)(?P<line>[!%]\s*(?:pip3?|conda|mamba|apt(?:-get)?|python3? -m pip)\s+install\b.*)$",
    re.MULTILINE,
)
NO_INSTALL = "  # MLE-STAR: not run (a run has no network; install it where Jupyter runs)"
# Kaggle's working folder: the candidate's own work folder
_KAGGLE_WORKING = re.compile(r"^/kaggle/working(?=/|$)/?")


@dataclass(frozen=True)
class PathChange:
    """One change to one code block: a data path (``kind`` "path", ``old``/``new`` the literal's
    text), or a whole line (``kind`` "install": an install commented out; "module": an import of
    a package the kernel lacks, guarded; "fold": a line MLE-STAR added, ``old`` empty, which
    keeps the values of each pass of a loop that scores folds; ``old``/``new`` the lines)."""

    block_id: str
    old: str
    new: str
    kind: Literal["path", "install", "colab", "module", "fold"] = "path"

    @property
    def line(self) -> bool:
        """Whether whole lines changed (not a literal's text)."""
        return self.kind != "path"


def point_to_input(
    nb: SolutionNotebook, input_dir: Path, *, network: bool = False
) -> tuple[SolutionNotebook, tuple[PathChange, ...]]:
    """``nb`` with its data paths rewritten to ``input/...`` and, without ``network``, its
    package installs muted (see the module docstring); the changes made; the notebook itself
    when there is nothing to change."""
    changes: list[PathChange] = []
    out = nb
    folders, loose = _joined_folders(nb, input_dir)
    lists = True  # bare names in lists and dicts are data paths ...
    if loose and _names_in_lists(nb, input_dir):
        folders, lists = folders | loose, False  # ... unless joined to a folder variable later
    for block in nb.code_blocks:
        found: list[PathChange] = []
        source = _rewrite_literals(block.source, block.id, input_dir, folders, found, lists)

        def mute(
            m: re.Match[str], block_id: str = block.id, found: list[PathChange] = found
        ) -> str:
            new = f"{m.group('indent')}pass  # {m.group('line')}{NO_INSTALL}"
            found.append(PathChange(block_id, m.group(0), new, kind="install"))
            return new

        if not network:
            source = _INSTALL.sub(mute, source)
        if found:
            out = out.replace_block(block.id, source)  # still the user's cell: refinable
            changes.extend(found)
    return out, tuple(changes)


def _working_path(text: str) -> str | None:
    """``text`` under Kaggle's working folder made relative to the work folder
    (``/kaggle/working/sub.csv`` → ``./sub.csv``), else ``None``."""
    if not _KAGGLE_WORKING.match(text):
        return None
    return "./" + _KAGGLE_WORKING.sub("", text, count=1)


def _rewrite_literals(
    source: str,
    block_id: str,
    input_dir: Path,
    folders: set[str],
    found: list[PathChange],
    lists: bool = True,
) -> str:
    """``source`` with its path literals pointed at ``input/`` (appended to ``found``).  One pass
    over the literals; the brackets between them say where each one stands."""
    pieces: list[str] = []
    opened: list[str] = []  # brackets open at this point of the code (outside the literals)
    last = 0
    for m in _LITERAL.finditer(source):
        between = source[last : m.start()]
        for ch in between:
            if ch in "([{":
                opened.append(ch)
            elif ch in ")]}" and opened:
                opened.pop()
        pieces.append(between)
        last = m.end()
        # Kaggle's working folder is the work folder (in a write too); another file
        # a call writes is an output, even named like an input (df.to_csv("train.csv"))
        new = _working_path(m.group("text"))
        if new is None and not _WRITE_CALL.search(between):
            new = _literal_for(
                m, between.rstrip()[-1:], opened[-1:], source, input_dir, folders, lists
            )
        if new is None:
            pieces.append(m.group(0))
            continue
        found.append(PathChange(block_id, m.group("text"), new))
        pieces.append(f"{m.group('prefix')}{m.group('q')}{new}{m.group('q')}")
    pieces.append(source[last:])
    return "".join(pieces)


def _literal_for(
    m: re.Match[str],
    before: str,
    inside: list[str],
    source: str,
    input_dir: Path,
    folders: set[str],
    lists: bool = True,
) -> str | None:
    """The new text of the literal ``m`` (``before``: the character before it; ``inside``: the
    innermost open bracket, ``[]`` at the top level), or ``None`` to keep it."""
    if "f" in m.group("prefix").lower():
        return None
    text = m.group("text")
    if text in folders and _assigned(source, m):
        return INPUT + ("/" if text.endswith(("/", "\\")) else "")
    if before in ("+", "/"):
        return None  # the tail of a path joined to something: DIR + "/train.csv"
    if not re.search(r"[\\/]", text) and before != "(" and not (lists and inside in (["["], ["{"])):
        return None  # a bare name joined to a folder (os.path.join(DIR, "x.csv"), DIR + "x")
    return _input_path(text, input_dir)


def _assigned(source: str, m: re.Match[str]) -> bool:
    """Whether the literal ``m`` is the value of an assignment ``NAME = "..."`` (or
    ``NAME = Path("...")``) on its line."""
    head = source[source.rfind("\n", 0, m.start()) + 1 : m.start()]
    return bool(_FOLDER_HEAD.search(head))


# NAME = "..." / NAME = Path("...") / NAME: str = "..." at the start of a line, or a keyword's
# default or argument: def load(folder="data"), load(folder="data")
_FOLDER_HEAD = re.compile(
    r"(?:^\s*|[(,]\s*)(?P<name>[A-Za-z_]\w*)\s*(?::\s*\w+\s*)?=\s*(?:\w+(?:\.\w+)*\(\s*)?$"
)


_FOLDER_NAME = re.compile(r"dir|path|root|folder|data|base|input|loc", re.IGNORECASE)


def _joined_folders(nb: SolutionNotebook, input_dir: Path) -> tuple[set[str], set[str]]:
    """Folder literals assigned to a name that match nothing in ``input/``: those the notebook
    joins to a name in ``input/`` (``DATA = "data/"`` with ``DATA + "train.csv"``), and those it
    joins to anything (``os.path.join(DATA, files["train"])``)."""
    code = "\n".join(b.source for b in nb.code_blocks)
    found: set[str] = set()
    loose: set[str] = set()
    for line in code.splitlines():
        lit = _LITERAL.search(line)
        head = _FOLDER_HEAD.search(line[: lit.start()]) if lit else None
        if head is None or lit is None or "f" in lit.group("prefix").lower():
            continue
        text = lit.group("text")
        if (
            "://" in text
            or _FILE_SUFFIX.search(text)
            or _input_path(text, input_dir)
            or _working_path(text)
        ):
            continue  # not a folder, or one the literal rules handle
        as_written = re.sub(r"^(\./)+", "", text.replace("\\", "/")).rstrip("/")
        if as_written == INPUT:
            continue
        joined = _joined_to(code, head.group("name"))
        if any(_in_input(name, input_dir) for name in joined if name):
            found.add(text)
        elif joined and (re.search(r"[\\/]", text) or _FOLDER_NAME.search(head.group("name"))):
            loose.add(text)
    return found, loose


def _names_in_lists(nb: SolutionNotebook, input_dir: Path) -> bool:
    """Whether a list or dict literal of the notebook holds a bare name of ``input/``."""
    for block in nb.code_blocks:
        with_lists: list[PathChange] = []
        without: list[PathChange] = []
        _rewrite_literals(block.source, block.id, input_dir, set(), with_lists, True)
        _rewrite_literals(block.source, block.id, input_dir, set(), without, False)
        if len(with_lists) != len(without):
            return True
    return False


def _joined_to(code: str, var: str) -> list[str]:
    """The names the code joins to the variable ``var``: ``var + "x"``, ``var / "x"``,
    ``os.path.join(var, "x")``, ``Path(var) / "x"``, ``f"{var}/x"``; ``""`` for each join to
    something other than a literal (``var + name``, ``f"{var}/{name}"``)."""
    v = re.escape(var)
    # a literal's first name, or "" for any other expression (a variable, a subscript)
    name = r"""(?:[rRbBuU]?['"][\\/]?(?P<x>[^'"\\/{}\n]+)|[\w{])"""
    patterns = (
        rf"\b{v}\s*\)?\s*[+/]\s*{name}",
        rf"join\(\s*{v}\s*,\s*{name}",
        rf"""\{{{v}\}}[\\/]?(?:(?P<x>[^'"\\/{{}}\n]+)|\{{)""",
    )
    return [m.group("x") or "" for p in patterns for m in re.finditer(p, code)]


def _in_input(name: str, input_dir: Path) -> bool:
    name = name.strip()
    return bool(name) and name not in (".", "..") and (input_dir / name).exists()


def _input_path(text: str, input_dir: Path) -> str | None:
    """What ``text`` becomes (``input/...``), or ``None`` when it is left as it is."""
    if "://" in text or not (("/" in text) or ("\\" in text) or _FILE_SUFFIX.search(text)):
        return None
    trailing = "/" if text.endswith(("/", "\\")) else ""
    comps = [c for c in re.split(r"[\\/]+", text) if c not in ("", ".", "..")]
    if comps and re.fullmatch(r"[A-Za-z]:", comps[0]):  # a Windows drive
        comps = comps[1:]
    if not comps:
        return None
    as_written = re.sub(r"^(\./)+", "", text.replace("\\", "/"))
    if as_written == INPUT or as_written.startswith(INPUT + "/"):
        return None  # already read from ./input
    wild = next((i for i, c in enumerate(comps) if _WILDCARD.search(c)), None)
    if wild is not None:
        return _pattern_path(comps, wild, input_dir, trailing)
    for i in range(len(comps)):  # the longest tail naming an entry of input/
        tail = comps[i:]
        if input_dir.joinpath(*tail).exists():
            return PurePosixPath(INPUT, *tail).as_posix() + trailing
    # a folder in the Kaggle layout: .../input or .../input/<competition>
    if comps[-1] == INPUT or (len(comps) >= 2 and comps[-2] == INPUT and "." not in comps[-1]):
        return INPUT + trailing
    return None


def _pattern_path(comps: list[str], wild: int, input_dir: Path, trailing: str) -> str | None:
    """A glob pattern (``comps[wild]`` is the first part with a wildcard) whose folder part
    names ``input/`` or a folder of it: ``/kaggle/input/*/*.csv`` → ``input/*.csv`` (the
    competition's folder is the wildcard after ``input``), ``../input/train/*.jpg`` →
    ``input/train/*.jpg``, ``data/images/*.png`` → ``input/images/*.png``."""
    head, rest = comps[:wild], comps[wild:]
    if not head and any(input_dir.glob(PurePosixPath(*rest).as_posix())):
        return PurePosixPath(INPUT, *rest).as_posix() + trailing  # glob("*.csv") beside the data
    if head and head[-1] == INPUT:
        if len(rest) > 1 and rest[0] == "*":
            rest = rest[1:]  # /kaggle/input/*/...: the competition's folder
        return PurePosixPath(INPUT, *rest).as_posix() + trailing
    if len(head) >= 2 and head[-2] == INPUT and not (input_dir / head[-1]).is_dir():
        return PurePosixPath(INPUT, *rest).as_posix() + trailing  # input/<competition>/*.csv
    for i in range(len(head)):  # the longest folder tail naming a folder of input/
        if input_dir.joinpath(*head[i:]).is_dir():
            return PurePosixPath(INPUT, *head[i:], *rest).as_posix() + trailing
    return None


def restore_paths(source: str, block_id: str, changes: tuple[PathChange, ...]) -> str:
    """``source`` (a refined version of block ``block_id``) with the literals ``point_to_input``
    rewrote in that block put back as the user wrote them, in order: what a proposal offers to
    the user's own notebook, whose cells keep their paths.  Whole lines first, the last change
    first: they were changed after the literals (a muted line may hold a rewritten path)."""
    mine = [c for c in changes if c.block_id == block_id]
    for c in [*reversed([c for c in mine if c.line]), *(c for c in mine if not c.line)]:
        if c.kind == "fold":  # a line added for the run: the user's cell never had it
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
        "module",
        "The run's kernels lack what these lines import, which only draws: {}; the imported "
        "names stand for an object that does nothing, so the plots are skipped and the rest "
        "runs (install the package to see them).",
    ),
)


def note_for(changes: tuple[PathChange, ...]) -> str:
    """The markdown note shown above the first changed cell (paths, installs, guarded imports)."""
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
        parts.append(
            f"Kaggle's working folder is the run's own work folder, where the run finds what "
            f"your cells write: {shown}."
        )
    for kind, say in _LINE_NOTES:
        # a call over several lines: its first line
        lines = [c.old.strip().split("\n")[0] for c in changes if c.kind == kind]
        if lines:
            parts.append(say.format(", ".join(f"`{line}`" for line in lines[:4])))
    return "**Changed by MLE-STAR.** " + " ".join(parts) + " Your own notebook keeps its lines."


__all__ = ["PathChange", "note_for", "point_to_input", "restore_paths"]
