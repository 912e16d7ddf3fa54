"""Data paths of a user's notebook pointed at the task's ``./input`` folder, installs muted.

In a run every candidate notebook executes in a fresh working folder whose ``./input`` is the
task's data; a notebook written elsewhere reads its files from where its author kept them:
``/kaggle/input/<competition>/train.csv``, ``../input/train.csv``, ``data/train.csv``,
``C:\\Users\\me\\train.csv``, or ``pd.read_csv("train.csv")``.  :func:`point_to_input` rewrites each
string literal that names a file or folder of the task's ``input/`` (by its last path
components) to ``input/<that entry>``, and a folder literal that ends in ``input`` or
``input/<competition>`` (the Kaggle layout) to ``input``; it returns what it changed, for the
note the run shows.  A bare file name is rewritten only as a call's first argument: in
``os.path.join(DATA, "train.csv")`` or ``DATA + "train.csv"`` it belongs to its folder.

Package installs run from a cell (``!pip install ...``, ``%conda install ...``) become ``pass``
with the line as a comment: a run's kernels have no network, where pip would retry and fail.

Left alone: literals already readable from the working folder (``input/...``, ``./input/...``),
URLs, f-strings, text on several lines, names that match nothing in ``input/`` (the notebook's
own outputs, ``submission.csv``), and a folder of another name (``DATA = "data/"``: the files
joined to it are not rewritten either, and the run says the notebook could not read its data).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..notebook import SolutionNotebook

INPUT = "input"
# a quoted string on one line, not an f-string (a letter before the quote: r, b, u are kept)
_LITERAL = re.compile(
    r"""(?<![\w])(?P<prefix>[rRuUbB]{0,2})(?P<q>['"])(?P<text>[^'"\n]{1,400})(?P=q)"""
)
_FILE_SUFFIX = re.compile(r"\.[A-Za-z0-9]{1,8}$")
# a package install run from a cell: !pip, %pip, !conda, %conda, !apt(-get), !python -m pip
_INSTALL = re.compile(
    r"^(?P<indent>[ \t]*)(?P<line>[!%]\s*(?:pip3?|conda|mamba|apt(?:-get)?|python3? -m pip)\s+install\b.*)$",
    re.MULTILINE,
)
NO_INSTALL = "  # MLE-STAR: not run (a run has no network; install it where Jupyter runs)"


@dataclass(frozen=True)
class PathChange:
    """One literal rewritten in one code block (``line``: a whole install line commented out)."""

    block_id: str
    old: str
    new: str
    line: bool = False


def point_to_input(
    nb: SolutionNotebook, input_dir: Path, *, network: bool = False
) -> tuple[SolutionNotebook, tuple[PathChange, ...]]:
    """``nb`` with its data paths rewritten to ``input/...`` and, without ``network``, its
    package installs muted (see the module docstring); the changes made; the notebook itself
    when there is nothing to change."""
    changes: list[PathChange] = []
    out = nb
    for block in nb.code_blocks:
        found: list[PathChange] = []

        def swap(
            m: re.Match[str], block_id: str = block.id, found: list[PathChange] = found
        ) -> str:
            if "f" in m.group("prefix").lower():
                return m.group(0)
            text, before = m.group("text"), m.string[: m.start()].rstrip()[-1:]
            if not re.search(r"[\\/]", text) and before != "(":
                return m.group(0)  # a bare name joined to a folder (os.path.join(DIR, "x.csv"))
            new = _input_path(text, input_dir)
            if new is None:
                return m.group(0)
            found.append(PathChange(block_id, m.group("text"), new))
            return f"{m.group('prefix')}{m.group('q')}{new}{m.group('q')}"

        source = _LITERAL.sub(swap, block.source)

        def mute(
            m: re.Match[str], block_id: str = block.id, found: list[PathChange] = found
        ) -> str:
            new = f"{m.group('indent')}pass  # {m.group('line')}{NO_INSTALL}"
            found.append(PathChange(block_id, m.group(0), new, line=True))
            return new

        if not network:
            source = _INSTALL.sub(mute, source)
        if found:
            out = out.replace_block(block.id, source)  # still the user's cell: refinable
            changes.extend(found)
    return out, tuple(changes)


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
    for i in range(len(comps)):  # the longest tail naming an entry of input/
        tail = comps[i:]
        if input_dir.joinpath(*tail).exists():
            return PurePosixPath(INPUT, *tail).as_posix() + trailing
    # a folder in the Kaggle layout: .../input or .../input/<competition>
    if comps[-1] == INPUT or (len(comps) >= 2 and comps[-2] == INPUT and "." not in comps[-1]):
        return INPUT + trailing
    return None


def restore_paths(source: str, block_id: str, changes: tuple[PathChange, ...]) -> str:
    """``source`` (a refined version of block ``block_id``) with the literals ``point_to_input``
    rewrote in that block put back as the user wrote them, in order: what a proposal offers to
    the user's own notebook, whose cells keep their paths."""
    for c in changes:
        if c.block_id != block_id:
            continue
        if c.line:
            source = source.replace(c.new, c.old, 1)
            continue
        for q in ("'", '"'):
            if f"{q}{c.new}{q}" in source:
                source = source.replace(f"{q}{c.new}{q}", f"{q}{c.old}{q}", 1)
                break
    return source


def note_for(changes: tuple[PathChange, ...]) -> str:
    """The markdown note shown above the first changed cell."""
    parts = []
    paths = [c for c in changes if not c.line]
    if paths:
        shown = ", ".join(f"`{c.old}` → `{c.new}`" for c in paths[:6])
        more = f" and {len(paths) - 6} more" if len(paths) > 6 else ""
        parts.append(
            "In a run each notebook executes in its own folder with the task's data in "
            f"`./input`, so the data paths of your cells were pointed there: {shown}{more}."
        )
    installs = [c.old.strip() for c in changes if c.line]
    if installs:
        shown = ", ".join(f"`{line}`" for line in installs[:4])
        parts.append(
            f"A run has no network, so these lines are not run: {shown} (install the packages "
            "in the environment Jupyter runs in)."
        )
    return "**Changed by MLE-STAR.** " + " ".join(parts) + " Your own notebook keeps its lines."


__all__ = ["PathChange", "note_for", "point_to_input", "restore_paths"]
