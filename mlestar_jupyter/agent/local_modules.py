"""The user's own modules a notebook imports, copied with their paths pointed at the run's folders.

A notebook often keeps its helpers beside it: ``from utils import load_data`` with ``utils.py``
among the task's data (a notebook task's data folder is the notebook's own folder).  A run's
kernels import it from ``./input``, last on ``sys.path`` (``execution.inputs``), but its code
was written on Kaggle or Colab: ``pd.read_csv('/kaggle/input/titanic/train.csv')``,
``df.to_csv('/kaggle/working/features.csv')``.  The notebook's cells are pointed at the run's
folders (``data_paths``), the module was not, and every candidate stopped with
``FileNotFoundError``.

:func:`copy_local_modules` finds the modules of the task's data that the notebook imports (and
those they import in turn), applies to each the rules the notebook's cells get
(``data_paths``, ``shell_lines``, ``colab_lines``) and, when that changes any, puts one cell
first (``ORIGIN``; role ``setup``, never refined) that writes a copy of each changed module into
the work folder's ``mlestar_modules/`` (a package as a whole) and puts that folder first on
``sys.path``: the kernel imports the copy.  The user's file is read, never written (the task's
data is read-only in a run), and no copy is written beside it.  The changes (``kind`` "local",
each with its ``file``) go into the note the run puts above the cell; proposals never carry
them, since the cell is MLE-STAR's and the user's cells are not changed.

Why a cell and not a hook of the executor: the notebook stays whole.  Every execution of it
(cached, in a jail, through a gateway) and the final notebook a user reruns import the same
copies, and the execution layer knows nothing of path rules.  The cell reads the module from
``./input`` and replaces its changed lines by number (the rules change a line in place, or mute
it as one line), so it reads as the list of what changed.

Left alone: a module that an installed package of the same name shadows (the kernel imports the
installed one) or that the notebook writes itself (``%%writefile utils.py``: the kernel imports
that one, from the work folder), a module that is not UTF-8 text, and a module whose code reads its data beside
itself (``os.path.dirname(__file__)``; the copy lies elsewhere).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path, PurePosixPath

from ..codecheck.static_checks import imported_modules, modules_in
from ..notebook import SolutionNotebook
from ..notebook.roles import strip_magics
from .changes import PathChange
from .colab_lines import mute_colab
from .data_paths import module_context, point_to_input
from .missing_modules import importable
from .path_rules import INPUT, TEMP

ORIGIN = "mlestar:modules"
FOLDER = "mlestar_modules"  # in the work folder: where the copies are written and imported from
_EDGE = "#"  # a line put around a module's code, so that no rewrite strips its blank edges

# (line number, the module's line, the copy's line)
_Lines = list[tuple[int, str, str]]


def copy_local_modules(
    nb: SolutionNotebook,
    input_dir: Path,
    *,
    network: bool = False,
    installed: Callable[[str], bool] = importable,
) -> tuple[SolutionNotebook, tuple[PathChange, ...]]:
    """``nb`` with a first cell writing copies of the user's modules it imports from
    ``input_dir`` whose paths the run's rules change (``installed``: whether a package of that
    name is installed, which the kernel would import instead); the changes (``kind``
    "local").  ``nb`` itself when no module changes, or the cell is there already."""
    if any(b.origin == ORIGIN for b in nb.code_blocks):
        return nb, ()
    changed: dict[str, _Lines] = {}
    temp = False
    code = "\n".join(strip_magics(b.source) for b in nb.code_blocks)
    for rel, source in _imported_sources(nb, input_dir, installed).items():
        context = module_context(code, _module_name(rel))  # from utils import RAW: its uses
        lines, makes_temp = _changed_lines(source, input_dir, network, context)
        if lines:
            changed[rel] = lines
            temp = temp or makes_temp
    if not changed:
        return nb, ()
    out = nb.insert_block_after(None, _copy_cell(changed, temp), role="setup", origin=ORIGIN)
    cell = next(b.id for b in out.code_blocks if b.origin == ORIGIN)
    changes = tuple(
        PathChange(cell, old, new, "local", rel)
        for rel, lines in changed.items()
        for _, old, new in lines
    )
    return out, changes


def _imported_sources(
    nb: SolutionNotebook, input_dir: Path, installed: Callable[[str], bool]
) -> dict[str, str]:
    """The source of every ``.py`` file of the user's modules in ``input_dir`` that the
    notebook imports, directly or through another of them, by its path in ``input_dir``
    (``utils.py``, ``pkg/io.py``)."""
    own = _written_by(nb)
    local = {m for m in modules_in(input_dir) if m not in own and not installed(m)}
    todo = [m for b in nb.code_blocks for m in imported_modules(strip_magics(b.source))]
    seen: set[str] = set()
    out: dict[str, str] = {}
    while todo:
        module = todo.pop(0)
        if module in seen or module not in local:
            continue
        seen.add(module)
        for path in _files_of(input_dir, module):
            try:
                source = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            out[path.relative_to(input_dir).as_posix()] = source
            todo += imported_modules(source)
    return out


def _written_by(nb: SolutionNotebook) -> set[str]:
    """The modules the notebook writes itself (``%%writefile utils.py``): the kernel imports
    those from the work folder, first on its path, not the ones of the task's data."""
    heads = (b.source.split("\n", 1)[0].split() for b in nb.code_blocks)
    return {
        PurePosixPath(head[-1]).stem
        for head in heads
        if len(head) > 1 and head[0] == "%%writefile" and head[-1].endswith(".py")
    }


def _files_of(input_dir: Path, module: str) -> list[Path]:
    """The ``.py`` files of ``module``: ``module.py``, or every file of the package
    ``module/``."""
    single = input_dir / f"{module}.py"
    if single.is_file():
        return [single]
    package = input_dir / module
    return sorted(p for p in package.rglob("*.py") if "__pycache__" not in p.parts)


def _module_name(rel: str) -> str:
    """The name a module's file imports as (``pkg/io.py`` → ``pkg.io``, ``pkg/__init__.py``
    → ``pkg``)."""
    parts = rel.removesuffix(".py").split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" and len(parts) > 1 else parts)


def _changed_lines(
    source: str, input_dir: Path, network: bool, context: str = ""
) -> tuple[_Lines, bool]:
    """The lines of a module the run's rules change, numbered from 1, and whether one of them
    points at Kaggle's scratch folder (``./kaggle_temp``, which the copy cell makes); read with
    the notebook's code that uses its names (``context``)."""
    padded = f"{_EDGE}\n{source}\n{_EDGE}"
    one = SolutionNotebook.new([("other", padded)])
    moved, changes = point_to_input(one, input_dir, network=network, context=context)
    moved, colab = mute_colab(moved)
    made = [c.new for c in changes if c.kind == "temp"]  # a line added: the copy cell makes it
    new = moved.code_blocks[0].source.split("\n")
    for line in made:
        new.remove(line)
    old = padded.split("\n")
    if len(new) != len(old):  # not line for line: leave the module as it is
        return [], False
    lines = [(n, old[n], new[n]) for n in range(1, len(old) - 1) if old[n] != new[n]]
    return lines, bool(made)


def _copy_cell(changed: dict[str, _Lines], temp: bool) -> str:
    """The cell writing the copies of the ``changed`` modules (a package copied whole first),
    making ``./kaggle_temp`` where ``temp``, and putting the copies first on ``sys.path``."""
    files = ", ".join(changed)
    packages = sorted({PurePosixPath(rel).parts[0] for rel in changed if "/" in rel})
    code = [
        f"# Added by MLE-STAR: your own code in {files} (in the task's data, ./input) names",
        "# folders a run does not have, so the notebook imports a copy of each from",
        f"# ./{FOLDER} instead, with the lines changed below. Nothing in ./input is changed.",
        "import os as _os",
        *(["import shutil as _shutil"] if packages else []),
        "import sys as _sys",
        "",
        "",
        "def _mlestar_copy(_name, _changed):",
        f'    """{INPUT}/<_name> written to {FOLDER}/<_name>, the lines numbered in _changed',
        '    replaced."""',
        f'    with open(_os.path.join("{INPUT}", _name), encoding="utf-8") as _f:',
        '        _lines = _f.read().split("\\n")',
        "    for _n, _line in _changed.items():",
        "        _lines[_n - 1] = _line",
        f'    _to = _os.path.join("{FOLDER}", _name)',
        "    _os.makedirs(_os.path.dirname(_to), exist_ok=True)",
        '    with open(_to, "w", encoding="utf-8") as _f:',
        '        _f.write("\\n".join(_lines))',
        "",
        "",
    ]
    for package in packages:
        code.append(
            f'_shutil.copytree("{INPUT}/{package}", "{FOLDER}/{package}", '
            'ignore=_shutil.ignore_patterns("__pycache__"), dirs_exist_ok=True)'
        )
    for rel, lines in changed.items():
        code.append(f"_mlestar_copy({rel!r}, {{")
        code += [f"    {n}: {new!r}," for n, _, new in lines]
        code.append("})")
    if temp:
        code.append(f'_os.makedirs("{TEMP}", exist_ok=True)  # Kaggle\'s /kaggle/temp in a run')
    code.append(f'_sys.path.insert(0, _os.path.abspath("{FOLDER}"))')
    return "\n".join(code)


__all__ = ["FOLDER", "ORIGIN", "copy_local_modules"]
