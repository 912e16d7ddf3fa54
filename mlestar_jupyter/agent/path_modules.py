"""The user's own modules a notebook imports from a folder it puts on ``sys.path``.

A project keeps its notebooks and its code apart (the cookiecutter layout): ``notebooks/
01_baseline.ipynb`` starts with ``sys.path.append('../src')`` and imports ``from features import
build_features`` from ``src/features.py``; the data lies in ``data/``.  A run's kernels see only
the task's data (``./input``) and run in a work folder of their own, so the folder the notebook
names does not exist there: the notebook stopped with ``ModuleNotFoundError: features`` and was
set aside.  So did a notebook importing ``utils.py`` beside itself when its data lies in a
``data/`` folder (the task's data, ``./input``, is that folder, not the notebook's).

:func:`copy_path_modules` reads the folders the notebook adds to ``sys.path`` (a literal, or
``os.path.abspath``/``os.path.join``/``Path(...)``/``/`` of literals, ``.resolve()``, ``str()``),
relative to the notebook's own folder, and that folder itself (Jupyter imports from it first),
and the modules it imports from them (and those they
import from there in turn) that no installed package and no module of ``input/`` provides; it
puts one cell first (``ORIGIN``; role ``setup``, never refined) that writes a copy of each into
the work folder's ``mlestar_modules/``, the data paths in it pointed at ``./input`` by the
rules the notebook's cells get (``data_paths``, ``colab_lines``), and puts that folder first on
``sys.path``.  The module's text is in the cell: the notebook runs wherever its cells run, and
the user's files are only read.  Left alone: a folder that does not exist, ``input/`` itself
(``local_modules`` copies its modules), and modules over ``_MAX_BYTES`` in all.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

from ..codecheck.static_checks import imported_modules
from ..notebook import SolutionNotebook
from ..notebook.roles import strip_magics
from .colab_lines import mute_colab
from .data_paths import module_context, point_to_input
from .local_modules import FOLDER
from .missing_modules import importable

ORIGIN = "mlestar:path-modules"
_MAX_BYTES = 1_000_000  # the copies' text in all: a cell is no place for a library
_EDGE = "#"  # a line put around a module's code, so that no rewrite strips its blank edges


def copy_path_modules(
    nb: SolutionNotebook,
    notebook_dir: Path | None,
    input_dir: Path,
    *,
    network: bool = False,
    installed: Callable[[str], bool] = importable,
) -> tuple[SolutionNotebook, tuple[str, ...]]:
    """``nb`` with a first cell writing copies of the user's modules it imports from the
    folders it adds to ``sys.path`` (relative to ``notebook_dir``, the notebook's folder), and
    the copied files' paths as the notebook names them (``../src/features.py``); ``nb`` itself
    and none when there is nothing to copy, or the cell is there already."""
    if notebook_dir is None or any(b.origin == ORIGIN for b in nb.code_blocks):
        return nb, ()
    folders = [f for f in module_folders(nb, notebook_dir) if _outside(f, input_dir)]
    if not folders:
        return nb, ()
    files = _module_files(nb, folders, input_dir, installed)
    if not files or sum(len(t) for t in files.values()) > _MAX_BYTES:
        return nb, ()
    copies: dict[str, str] = {}
    code = "\n".join(strip_magics(b.source) for b in nb.code_blocks)
    for (_, rel), text in files.items():  # a path in two folders: the first one's, as imported
        context = module_context(code, module_name(rel))  # from utils import RAW: its uses
        copies.setdefault(rel, _pointed(text, input_dir, network, context))
    shown = tuple(_shown(folders, key, notebook_dir) for key in files)
    out = nb.insert_block_after(None, _copy_cell(copies, shown), role="setup", origin=ORIGIN)
    return out, shown


def module_folders(nb: SolutionNotebook, notebook_dir: Path | None) -> list[Path]:
    """The folders the notebook imports its own modules from in Jupyter: its own folder (the
    kernel's first ``sys.path`` entry), then those it adds to ``sys.path``; none when its folder
    is not known."""
    if notebook_dir is None:
        return []
    return list(dict.fromkeys([notebook_dir, *_path_folders(nb, notebook_dir)]))


def _outside(folder: Path, input_dir: Path) -> bool:
    """Whether ``folder`` is another folder than the task's data folder itself."""
    try:
        return folder.resolve() != input_dir.resolve()
    except OSError:
        return False


def _path_folders(nb: SolutionNotebook, notebook_dir: Path) -> list[Path]:
    """The existing folders the notebook adds to ``sys.path``, resolved against its folder."""
    out: list[Path] = []
    for block in nb.code_blocks:
        try:
            tree = ast.parse(strip_magics(block.source))
        except (SyntaxError, ValueError):
            continue
        for call in ast.walk(tree):
            if not (isinstance(call, ast.Call) and _adds_to_path(call.func) and call.args):
                continue
            text = _text(call.args[-1])
            if text is None:
                continue
            folder = Path(text).expanduser()
            folder = folder if folder.is_absolute() else notebook_dir / folder
            if folder.is_dir() and folder not in out:
                out.append(folder)
    return out


def _adds_to_path(func: ast.expr) -> bool:
    """``sys.path.append`` / ``sys.path.insert``."""
    return (
        isinstance(func, ast.Attribute)
        and func.attr in ("append", "insert")
        and isinstance(func.value, ast.Attribute)
        and func.value.attr == "path"
        and isinstance(func.value.value, ast.Name)
        and func.value.value.id == "sys"
    )


def _text(node: ast.expr) -> str | None:
    """The path an expression of literals makes (``'../src'``, ``os.path.join('..', 'src')``,
    ``str(Path('..') / 'src')``, ``os.path.abspath('../src')``), or ``None``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        left, right = _text(node.left), _text(node.right)
        return None if left is None or right is None else f"{left}/{right}"
    if isinstance(node, ast.Call):
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
        if name in ("resolve", "absolute", "expanduser") and isinstance(f, ast.Attribute):
            return _text(f.value)
        parts = [_text(a) for a in node.args]
        if not parts or any(p is None for p in parts) or node.keywords:
            return None
        if name in ("join", "Path", "PurePath", "PosixPath") or (
            name in ("abspath", "realpath", "normpath", "str", "fspath", "expanduser")
            and len(parts) == 1
        ):
            return "/".join(p for p in parts if p is not None)
    return None


def _module_files(
    nb: SolutionNotebook,
    folders: list[Path],
    input_dir: Path,
    installed: Callable[[str], bool],
) -> dict[tuple[int, str], str]:
    """(folder index, path in it) → text of each ``.py`` file of the modules the notebook
    imports from ``folders`` (and those they import from there), the first folder holding a
    module winning, as Python's import does; not those an installed package or ``input/``
    provides."""
    todo = [m for b in nb.code_blocks for m in imported_modules(strip_magics(b.source))]
    seen: set[str] = set()
    out: dict[tuple[int, str], str] = {}
    while todo:
        module = todo.pop(0)
        if module in seen or installed(module) or _found_in(input_dir, module):
            continue
        seen.add(module)
        for i, folder in enumerate(folders):
            paths = _found_in(folder, module)
            for path in paths:
                try:
                    text = path.read_text(encoding="utf-8")
                except (OSError, UnicodeDecodeError):
                    continue
                out[(i, path.relative_to(folder).as_posix())] = text
                todo += imported_modules(text)
            if paths:
                break
    return out


def _found_in(folder: Path, module: str) -> list[Path]:
    """The ``.py`` files of module ``module`` at the top of ``folder`` (``module.py``, or a
    package ``module/``'s files: with an ``__init__.py`` or without, a namespace package such as
    a project's ``src/`` imported as ``from src.features import ...``)."""
    single = folder / f"{module}.py"
    if single.is_file():
        return [single]
    package = folder / module
    if not package.is_dir():
        return []
    return sorted(p for p in package.rglob("*.py") if "__pycache__" not in p.parts)


def module_name(rel: str) -> str:
    """The name a module's file imports as (``src/features.py`` → ``src.features``,
    ``pkg/__init__.py`` → ``pkg``)."""
    parts = rel.removesuffix(".py").split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" and len(parts) > 1 else parts)


def _pointed(text: str, input_dir: Path, network: bool, context: str = "") -> str:
    """The module's text with the run's path rules applied (its data paths at ``./input``),
    read with the notebook's code that uses its names (``context``: a folder the notebook joins
    a file of ``input/`` to is a data folder)."""
    padded = f"{_EDGE}\n{text}\n{_EDGE}"
    one = SolutionNotebook.new([("other", padded)])
    moved, _ = point_to_input(one, input_dir, network=network, context=context)
    moved, _ = mute_colab(moved)
    lines = moved.code_blocks[0].source.split("\n")
    return "\n".join(lines[1:-1]) if len(lines) >= 2 else text


def _shown(folders: list[Path], key: tuple[int, str], notebook_dir: Path) -> str:
    """A copied file's path as the user knows it: relative to the notebook's folder."""
    path = folders[key[0]] / key[1]
    try:
        return Path(*_relative_parts(path, notebook_dir)).as_posix()
    except ValueError:
        return path.as_posix()


def _relative_parts(path: Path, start: Path) -> list[str]:
    """``path`` relative to ``start``, with ``..`` where it lies above it."""
    a, b = path.resolve().parts, start.resolve().parts
    common = 0
    while common < min(len(a), len(b)) and a[common] == b[common]:
        common += 1
    if common == 0:
        raise ValueError("no common root")
    return [".."] * (len(b) - common) + list(a[common:])


def _copy_cell(copies: dict[str, str], shown: tuple[str, ...]) -> str:
    """The cell writing the copies into ``./mlestar_modules`` and putting that folder first on
    ``sys.path``."""
    code = [
        f"# Added by MLE-STAR: your own code in {', '.join(shown)} lies outside the task's data",
        "# (./input), where a run's kernels cannot see it, so this cell writes a copy of it in",
        f"# ./{FOLDER} (data paths pointed at ./input) and the notebook imports that copy.",
        "# Your files are not changed.",
        "import os as _os",
        "import sys as _sys",
        "",
        "_MLESTAR_COPIES = {",
        *(f"    {rel!r}: {text!r}," for rel, text in copies.items()),
        "}",
        "for _name, _text in _MLESTAR_COPIES.items():",
        f'    _to = _os.path.join("{FOLDER}", _name)',
        "    _os.makedirs(_os.path.dirname(_to), exist_ok=True)",
        '    with open(_to, "w", encoding="utf-8") as _f:',
        "        _f.write(_text)",
        f'_sys.path.insert(0, _os.path.abspath("{FOLDER}"))',
    ]
    return "\n".join(code)


__all__ = ["ORIGIN", "copy_path_modules", "module_folders", "module_name"]
