"""A data folder handed to a function as an argument, pointed at ``input``.

A notebook often keeps its reading code in a function, its own or one of a module beside it,
and hands it the folder: ``train, test = load_data('.')`` with ``utils.py`` holding ``def
load_data(folder): return pd.read_csv(os.path.join(folder, 'train.csv')), ...``, or
``read_all(data_dir='../data')``.  ``data_paths`` points folder literals assigned to a name the
notebook joins to a file of ``input/``; a literal given to a call was left as written, so in a
run (the data in ``./input``) the notebook stopped with ``FileNotFoundError: './train.csv'`` and
was set aside.

:func:`point_call_folders` finds the functions the notebook defines, and those it imports from
its own modules (in ``input/``, beside it, or in a folder it puts on ``sys.path``: ``from utils import load_data``, ``import utils`` then
``utils.load_data``), whose parameter the function joins to a file of ``input/``
(``os.path.join(folder, 'train.csv')``, ``f"{folder}/test.csv"``, ``Path(folder) /
'train.csv'``), and rewrites a folder literal given for that parameter (by position or by
keyword) to ``input``: ``load_data('.')`` → ``load_data('input')`` (kind "path", given back in
proposals as the other paths are).  A literal that names a file, a URL or ``input`` itself is
left to ``data_paths``; a cell that does not parse is left as it is.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from pathlib import Path

from ..notebook import SolutionNotebook
from ..notebook.roles import strip_magics
from .changes import PathChange
from .data_paths import folder_literal, in_input, joined_to
from .path_rules import INPUT

# (function name as the notebook calls it, parameter position or keyword) → joined to input/
_Params = dict[str, tuple[list[str], set[str]]]


def point_call_folders(
    nb: SolutionNotebook, input_dir: Path, module_dirs: Sequence[Path] = ()
) -> tuple[SolutionNotebook, tuple[PathChange, ...]]:
    """``nb`` with each folder literal given to a function for a parameter that the function
    joins to a file of ``input_dir`` made ``input``; the changes (``nb`` itself and none when
    there is nothing to change).  The notebook's modules are read from ``input_dir``, then
    ``module_dirs`` (its own folder and those it puts on ``sys.path``: ``path_modules``)."""
    trees = {b.id: _parsed(b.source) for b in nb.code_blocks}
    params = _own_params(trees, nb, input_dir)
    params.update(_imported_params(trees, input_dir, (input_dir, *module_dirs)))
    if not params:
        return nb, ()
    out, changes = nb, []
    for block in nb.code_blocks:
        tree = trees[block.id]
        if tree is None:
            continue
        spots = sorted(_folder_args(tree, block.source, params, input_dir), reverse=True)
        if not spots:
            continue
        lines = block.source.split("\n")
        for line, start, end, text in spots:  # the last first: earlier offsets stay right
            new = INPUT + ("/" if text.endswith(("/", "\\")) else "")
            row = lines[line]
            lines[line] = f"{row[:start]}{_quoted(row[start:end], text, new)}{row[end:]}"
            changes.append(PathChange(block.id, text, new))
        out = out.replace_block(block.id, "\n".join(lines))
    return out, tuple(reversed(changes))


def _quoted(literal: str, text: str, new: str) -> str:
    """The literal's source (``r'./data/'``) with its text replaced by ``new``, prefix and
    quotes kept."""
    if not text:
        return literal[:-1] + new + literal[-1]
    at = literal.rfind(text)
    return literal[:at] + new + literal[at + len(text) :]


def _parsed(source: str) -> ast.Module | None:
    """The cell's syntax tree (its IPython lines commented out, which keeps the lines where
    they are), or ``None`` when it does not parse."""
    try:
        return ast.parse(strip_magics(source))
    except (SyntaxError, ValueError):
        return None


def _joined_params(
    fn: ast.FunctionDef | ast.AsyncFunctionDef, src: str, input_dir: Path
) -> tuple[list[str], set[str]]:
    """The function's positional parameters, and those of its parameters its code joins to a
    file of ``input_dir``."""
    body = ast.get_source_segment(src, fn) or ""
    a = fn.args
    names = [p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
    joined = {n for n in names if any(in_input(j, input_dir) for j in joined_to(body, n) if j)}
    return [p.arg for p in (*a.posonlyargs, *a.args)], joined


def _own_params(
    trees: dict[str, ast.Module | None], nb: SolutionNotebook, input_dir: Path
) -> _Params:
    """The notebook's own functions that join a parameter to a file of ``input_dir``."""
    out: _Params = {}
    for block in nb.code_blocks:
        tree = trees[block.id]
        if tree is None:
            continue
        src = strip_magics(block.source)
        for fn in ast.walk(tree):
            if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                positional, joined = _joined_params(fn, src, input_dir)
                if joined:
                    out[fn.name] = (positional, joined)
    return out


def _imported_params(
    trees: dict[str, ast.Module | None], input_dir: Path, folders: Sequence[Path]
) -> _Params:
    """The same for the functions the notebook imports from its own modules in ``folders``
    (the first holding one), by the name it calls them (``load_data``, ``utils.load_data``)."""
    out: _Params = {}
    for tree in trees.values():
        for node in ast.walk(tree) if tree is not None else ():
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found = _module_params(node.module, input_dir, folders)
                for alias in node.names:
                    if alias.name in found:
                        out[alias.asname or alias.name] = found[alias.name]
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    for name, params in _module_params(alias.name, input_dir, folders).items():
                        out[f"{alias.asname or alias.name}.{name}"] = params
    return out


def _module_params(module: str, input_dir: Path, folders: Sequence[Path]) -> _Params:
    """The top-level functions of the user's module ``module`` in the first of ``folders``
    holding it (``utils.py``, ``pkg/io.py``) that join a parameter to a file of ``input_dir``;
    none when there is no such file, or it does not read or parse."""
    rel = module.replace(".", "/") + ".py"
    path = next((f / rel for f in folders if (f / rel).is_file()), input_dir / rel)
    try:
        src = path.read_text(encoding="utf-8") if path.is_file() else ""
        tree = ast.parse(src)
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return {}
    out: _Params = {}
    for fn in tree.body:
        if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            positional, joined = _joined_params(fn, src, input_dir)
            if joined:
                out[fn.name] = (positional, joined)
    return out


def _callee(call: ast.Call) -> str:
    """The called name as written: ``load_data``, ``utils.load_data``; ``""`` for others."""
    f = call.func
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
        return f"{f.value.id}.{f.attr}"
    return ""


def _folder_args(
    tree: ast.Module, source: str, params: _Params, input_dir: Path
) -> list[tuple[int, int, int, str]]:
    """(line index, start, end, text) of each folder literal the cell (``source``) gives a
    function of ``params`` for a parameter it joins to a file of ``input_dir``; offsets in
    characters."""
    lines = source.split("\n")
    out = []
    for call in ast.walk(tree):
        if not isinstance(call, ast.Call) or _callee(call) not in params:
            continue
        positional, joined = params[_callee(call)]
        given = [
            arg
            for i, arg in enumerate(call.args)
            if i < len(positional) and positional[i] in joined
        ]
        given += [k.value for k in call.keywords if k.arg in joined]
        for arg in given:
            if (
                isinstance(arg, ast.Constant)
                and isinstance(arg.value, str)
                and arg.lineno == arg.end_lineno
                and _folder(arg.value, input_dir)
            ):
                row = lines[arg.lineno - 1].encode("utf-8")
                start = len(row[: arg.col_offset].decode("utf-8", "replace"))
                end = len(row[: arg.end_col_offset or 0].decode("utf-8", "replace"))
                if arg.value in lines[arg.lineno - 1][start:end]:  # no escapes to rewrite
                    out.append((arg.lineno - 1, start, end, arg.value))
    return out


def _folder(text: str, input_dir: Path) -> bool:
    """Whether ``text`` names a folder the notebook's data may lie in (``.``, ``./``,
    ``../data``) rather than a file, a URL or ``input`` itself."""
    return "\n" not in text and folder_literal(text, input_dir)


__all__ = ["point_call_folders"]
