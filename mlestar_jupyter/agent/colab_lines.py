"""Lines only Colab runs, made ``pass`` with the line as a comment, as installs are.

A notebook written in Colab mounts its Drive first (``from google.colab import drive``,
``drive.mount('/content/drive')``); outside Colab there is no ``google.colab``, so the notebook
stopped at its first line and the run told the user to install ``google``.  :func:`mute_colab`
comments out ``from google.colab import ...`` and ``import google.colab``, each call on a name
such an import binds (``drive.mount(...)``, over several lines too; ``auth.authenticate_user()``;
``uploaded = files.upload()`` becomes ``uploaded = {}``, no upload, and another assignment
``None``) and ``%tensorflow_version`` (a Colab magic), with a comment saying why.  Its data paths
(``/content/drive/MyDrive/...``) are pointed at ``./input`` by ``data_paths``, and its shell lines
that copy or unpack from Drive (``!cp``, ``!unzip``) by ``shell_lines``.

Left alone: an import directly under ``try:`` (the notebook's ``except ImportError`` handles it)
and the calls of a name the notebook assigns itself (``files = [...]``).
"""

from __future__ import annotations

import re

from ..notebook import SolutionNotebook
from .data_paths import PathChange

# Colab's own module: its import, and %tensorflow_version (a Colab magic)
_COLAB_IMPORT = re.compile(
    r"^(?P<indent>[ \t]*)(?P<line>(?:from[ \t]+google\.colab(?:\.\w+)*[ \t]+import[ \t]+"
    r"(?P<names>[\w \t,]+?)|import[ \t]+google\.colab\b.*?|%tensorflow_version\b.*?))[ \t]*(?:#.*)?$",
    re.MULTILINE,
)
NO_COLAB = "  # MLE-STAR: not run (only Colab has google.colab; the data is in ./input)"


def mute_colab(nb: SolutionNotebook) -> tuple[SolutionNotebook, tuple[PathChange, ...]]:
    """``nb`` with its Colab-only lines commented out (see the module docstring); the changes
    (``kind`` "colab"; ``old``/``new`` the lines), which a proposal gives back."""
    names = _colab_names(nb)
    out = nb
    changes: list[PathChange] = []
    for block in nb.code_blocks:
        found: list[PathChange] = []
        source = _mute_colab(block.source, block.id, names, found)
        if found:
            out = out.replace_block(block.id, source)  # still the user's cell: refinable
            changes.extend(found)
    return out, tuple(changes)


def _colab_names(nb: SolutionNotebook) -> list[str]:
    """The names the notebook's Colab imports bind (``drive`` for ``from google.colab import
    drive``; imports under ``try:`` left out), but those it assigns itself."""
    code = "\n".join(b.source for b in nb.code_blocks)
    lines = code.split("\n")
    names = []
    for i, ln in enumerate(lines):
        m = _COLAB_IMPORT.match(ln)
        if m is not None and m.group("names") and not _under_try(lines, i):
            names += [re.split(r"\s+as\s+", n.strip())[-1] for n in m.group("names").split(",")]
    return [n for n in names if n and not re.search(rf"^[ \t]*{n}[ \t]*=", code, re.MULTILINE)]


def _mute_colab(source: str, block_id: str, names: list[str], found: list[PathChange]) -> str:
    """``source`` with its Colab-only lines made ``pass`` (see the module docstring; ``names``:
    those its Colab imports bind), each appended to ``found`` (``kind`` "colab")."""
    lines = source.split("\n")
    call = re.compile(
        rf"^(?P<indent>[ \t]*)(?:(?P<var>[A-Za-z_]\w*)[ \t]*=[ \t]*)?"
        rf"(?:{'|'.join(map(re.escape, names)) or '(?!)'})\.(?P<attr>\w+)\("
    )
    i = 0
    while i < len(lines):
        ln, end = lines[i], i + 1
        m = _COLAB_IMPORT.match(ln)
        if m is not None and not _under_try(lines, i):
            new = [f"{m.group('indent')}pass  # {m.group('line')}{NO_COLAB}"]
        elif (c := call.match(ln)) is not None:
            depth = ln.count("(") - ln.count(")")
            while depth > 0 and end < len(lines):  # a call over several lines
                depth += lines[end].count("(") - lines[end].count(")")
                end += 1
            stand_in = "{}" if c.group("attr") == "upload" else "None"
            body = f"{c.group('var')} = {stand_in}" if c.group("var") else "pass"
            ind = c.group("indent")
            new = [f"{ind}{body}  # {ln.strip()}{NO_COLAB}"]
            new += [f"{ind}# {rest.strip()}" for rest in lines[i + 1 : end]]
        else:
            i += 1
            continue
        found.append(PathChange(block_id, "\n".join(lines[i:end]), "\n".join(new), "colab"))
        lines[i:end] = new
        i += len(new)
    return "\n".join(lines)


def _under_try(lines: list[str], i: int) -> bool:
    """Whether line ``i`` is directly in a ``try:`` body (the nearest line above it that is
    indented less is ``try:``)."""
    indent = len(lines[i]) - len(lines[i].lstrip())
    for ln in reversed(lines[:i]):
        if ln.strip() and len(ln) - len(ln.lstrip()) < indent:
            return ln.strip().startswith("try:")
    return False


__all__ = ["NO_COLAB", "mute_colab"]
