"""Check ``from package.module import Name`` statements against the installed packages' files.

Small models often import names that do not exist (``from lightgbm import LightGBMClassifier``)
or modules that do not (``from sklearn.ensembles import ...``).  This finds them *without
importing* the packages: it locates the module's source file and reads the names it defines.
It only reports what it is sure of; a module that builds its names at run time (``__getattr__``,
star imports, compiled modules) is given the benefit of the doubt.
"""

from __future__ import annotations

import ast
import difflib
import functools
import importlib.util
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class BadImport:
    """One ``from module import name`` that cannot succeed; ``name`` is None for a missing module."""

    module: str
    name: str | None
    suggestions: tuple[str, ...] = ()

    def describe(self) -> str:
        """The problem in words, with the close names to try instead, for an error fed back to the model."""
        hint = f" (did you mean {' or '.join(self.suggestions)}?)" if self.suggestions else ""
        if self.name is None:
            return f"there is no module {self.module!r}{hint}"
        return f"cannot import name {self.name!r} from {self.module!r}{hint}"


def bad_imports(source: str) -> list[BadImport]:
    """The ``from M import n`` statements of ``source`` that would raise ``ImportError``.

    Only modules whose top-level package is installed are looked at (missing packages are
    ``unavailable_imports``' job)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    out: list[BadImport] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.ImportFrom) and node.module and node.level == 0):
            continue
        module = node.module
        found = _module_source(module)
        if found is _MISSING:
            parent, _, last = module.rpartition(".")
            subs = _submodules(parent) if parent else []
            out.append(BadImport(module, None, _close(last, subs, prefix=f"{parent}.")))
            continue
        if not isinstance(found, Path):
            continue  # compiled, namespace or not installed: cannot tell
        names = _defined_names(found)
        if names is None:
            continue
        known = names | set(_submodules(module))
        for alias in node.names:
            if alias.name != "*" and alias.name not in known:
                out.append(BadImport(module, alias.name, _close(alias.name, known)))
    return out


def repair_import_names(source: str, bad: list[BadImport]) -> tuple[str, list[BadImport]]:
    """Rename each imported name (or module) whose closest match is clearly the one meant;
    returns the code and what is left to report."""
    left = []
    for b in bad:
        best = _clear_winner(b.module if b.name is None else b.name, b.suggestions)
        if best is None:
            left.append(b)
        elif b.name is None:  # a misspelt module: fix it where it is imported from
            pattern = rf"(from\s+){re.escape(b.module)}(\s+import)"
            source = re.sub(pattern, rf"\g<1>{best}\2", source)
        else:
            source = re.sub(rf"\b{re.escape(b.name)}\b", best, source)
    return source, left


def _clear_winner(wrong: str, suggestions: tuple[str, ...]) -> str | None:
    """The suggestion that is both close to ``wrong`` and clearly closer than the others."""
    scored = sorted(
        ((difflib.SequenceMatcher(None, wrong, s).ratio(), s) for s in suggestions), reverse=True
    )
    if not scored or scored[0][0] < 0.85:
        return None
    if len(scored) > 1 and scored[0][0] - scored[1][0] < 0.05:
        return None
    return scored[0][1]


# --------------------------------------------------------------------------- internals
_MISSING = object()


def _module_source(dotted: str) -> Path | object | None:
    """The ``.py`` file of module ``dotted``; ``_MISSING`` when it surely does not exist; None when
    it exists but has no readable source (or the package is not installed at all)."""
    top, *rest = dotted.split(".")
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if not rest:
        return _py(spec.origin)
    locations = list(spec.submodule_search_locations or [])
    if not locations:
        return _confirm_missing(dotted)  # a plain module with a "submodule" (os.path): ask Python
    path: Path | None = None
    for part in rest:
        hit = None
        for loc in locations:
            d = Path(loc) / part
            if (d / "__init__.py").is_file():
                hit, locations = d / "__init__.py", [str(d)]
                break
            if d.with_suffix(".py").is_file():
                hit, locations = d.with_suffix(".py"), []
                break
            if any(Path(loc).glob(f"{part}.*.so")) or any(Path(loc).glob(f"{part}.*.pyd")):
                return None  # compiled
            if d.is_dir():
                hit, locations = d, [str(d)]  # namespace package
                break
        if hit is None:
            return _confirm_missing(dotted)
        path = hit
    return path if path is not None and path.suffix == ".py" else None


def _confirm_missing(dotted: str) -> object | None:
    """Ask the import system (this imports the parent package) before calling a module missing."""
    try:
        return _MISSING if importlib.util.find_spec(dotted) is None else None
    except ImportError:
        return _MISSING
    except Exception:  # noqa: BLE001 - a parent package failing to import: cannot tell
        return None


def _py(origin: str | None) -> Path | None:
    return Path(origin) if origin and origin.endswith(".py") else None


@functools.lru_cache(maxsize=256)  # installed files do not change while the agent runs
def _defined_names(path: Path) -> frozenset[str] | None:
    """Names a module defines or imports anywhere at its top level; None when it builds names at
    run time (a star import, a module ``__getattr__``, lazy loaders)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
        tree = ast.parse(text)
    except (OSError, SyntaxError, ValueError):
        return None
    if "lazy_loader" in text or "__getattr__" in text or "globals()" in text:
        return None
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if any(a.name == "*" for a in node.names):
                return None
            names.update(a.asname or a.name for a in node.names)
        elif isinstance(node, ast.Import):
            names.update(a.asname or a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            names.add(node.value)  # entries of __all__ and the like
    return frozenset(names)


def _submodules(dotted: str) -> list[str]:
    """Names of the modules and packages inside package ``dotted`` (from the file system)."""
    found = _module_source(dotted)
    if not isinstance(found, Path) or found.name != "__init__.py":
        return []
    out = []
    for p in found.parent.iterdir():
        if p.name.startswith("_") and p.name != "__init__.py":
            continue
        if p.suffix == ".py" and p.name != "__init__.py":
            out.append(p.stem)
        elif p.is_dir() and (p / "__init__.py").is_file():
            out.append(p.name)
        elif p.suffix in (".so", ".pyd"):
            out.append(p.name.split(".")[0])
    return sorted(out)


def _close(name: str, candidates: Iterable[str], *, prefix: str = "") -> tuple[str, ...]:
    public = [c for c in candidates if c.isidentifier() and not c.startswith("_")]
    return tuple(prefix + c for c in difflib.get_close_matches(name, public, n=3, cutoff=0.75))
