"""Imports of plotting and reporting packages the run's kernels lack, made harmless.

A notebook written elsewhere often draws with ``seaborn`` or ``plotly``; where the run's kernel
lacks the package, the notebook stops at its first line with ``ModuleNotFoundError`` and nothing
of it is measured.  Such packages only draw: :func:`guard_imports` wraps each import of one that
is missing in ``try/except ImportError`` that binds the imported names to a stand-in whose every
attribute and call gives the stand-in back (so ``sns.heatmap(...)``, ``fig = px.bar(...)``,
``fig.show()`` and ``with sns.axes_style(...):`` do nothing), with a comment saying why.  Where the
package is installed later the import simply works.  Packages the model needs (``catboost``,
``xgboost``, ...) are never stood in for: their absence is an error the user has to fix.

Guarded are ``import seaborn as sns``, ``import plotly.express as px``, ``from wordcloud
import WordCloud, STOPWORDS`` and a from-import whose parenthesised names run over several
lines (``from plotly.subplots import (\n    make_subplots,\n)``).
"""

from __future__ import annotations

import importlib.util
import re
import sys
from collections.abc import Callable
from pathlib import Path

from ..notebook import SolutionNotebook
from .changes import PathChange, lines_changed

# packages that only draw or report: nothing a model reads comes from them
DISPLAY_ONLY = frozenset(
    {
        "altair",
        "bokeh",
        "folium",
        "missingno",
        "pandas_profiling",
        "plotly",
        "pyvis",
        "seaborn",
        "squarify",
        "sweetviz",
        "wordcloud",
        "ydata_profiling",
        "yellowbrick",
    }
)
# one statement each: on one line, or a from-import whose parenthesised names run over several
# lines (only names, commas and blanks inside: a comment in the parentheses leaves it alone)
_IMPORT = re.compile(
    r"^(?P<indent>[ \t]*)(?P<stmt>import[ \t]+(?P<mods>[\w.]+(?:[ \t]+as[ \t]+\w+)?)"
    r"|from[ \t]+(?P<pkg>[\w.]+)[ \t]+import[ \t]+"
    r"(?P<names>\([\w\s,]+\)|[\w \t,]+?))[ \t]*(?:#.*)?$",
    re.MULTILINE,
)
_MISSING = re.compile(r"No module named '(?P<mod>[\w.]+)'")
STAND_IN = (
    "class _NotInstalled:  # MLE-STAR: stands in for a drawing package this kernel lacks\n"
    "    def __init__(self, name):\n"
    "        self._name = name\n\n"
    "    def __getattr__(self, attr):\n"
    "        return self\n\n"
    "    def __call__(self, *args, **kwargs):\n"
    "        return self\n\n"
    "    def __iter__(self):\n"
    "        return iter(())\n\n"
    "    def __enter__(self):\n"
    "        return self\n\n"
    "    def __exit__(self, *exc):\n"
    "        return False\n\n"
    "    def __repr__(self):\n"
    '        return f"<{self._name}: not installed>"\n'
)
WHY = "  # MLE-STAR: not installed where the run's kernels run; its calls do nothing"


def importable(module: str) -> bool:
    """Whether ``module``'s top-level package is installed in this Python."""
    try:
        return importlib.util.find_spec(module.split(".")[0]) is not None
    except (ImportError, ValueError):
        return False


_IMPORTED = re.compile(r"^[ \t]*(?:import[ \t]+([\w.]+)|from[ \t]+([\w.]+)[ \t]+import\b)", re.M)


def lacking_imports(
    nb: SolutionNotebook, installed: Callable[[str], bool], folder: Path | None = None
) -> list[str]:
    """The packages ``nb`` imports that ``installed`` says are missing (not Python's own, nor a
    module of the user's in ``folder``), in the order imported."""
    found: list[str] = []
    for b in nb.code_blocks:
        for m in _IMPORTED.finditer(b.source):
            top = (m.group(1) or m.group(2)).split(".")[0]
            if not top or top in found or top in sys.stdlib_module_names or top == "__future__":
                continue
            if folder is not None and ((folder / f"{top}.py").is_file() or (folder / top).is_dir()):
                continue
            if not installed(top):
                found.append(top)
    return found


def missing_module(error: str) -> str | None:
    """The drawing package a ``ModuleNotFoundError`` in ``error`` names, or ``None`` (another
    package, or another error)."""
    m = _MISSING.search(error)
    if m is None:
        return None
    top = m.group("mod").split(".")[0]
    return top if top in DISPLAY_ONLY else None


def guard_imports(
    nb: SolutionNotebook, installed: Callable[[str], bool] = importable
) -> tuple[SolutionNotebook, tuple[PathChange, ...]]:
    """``nb`` with each one-line import of a drawing package that ``installed`` says is missing
    guarded (see the module docstring); the changes (``kind`` "module"; ``old`` the import line,
    ``new`` what replaced it, the stand-in's class with the block's first guard)."""

    def guard(m: re.Match[str], before: int) -> str | None:
        top = re.split(r"[.\s]", m.group("pkg") or m.group("mods"))[0]
        if top not in DISPLAY_ONLY or installed(top):
            return None
        if re.match(r"\s*except ImportError:", m.string[m.end() : m.end() + 80]):
            return None  # guarded already
        names = _bound_names(m)
        if not names:
            return None
        ind = m.group("indent")
        body = "\n".join(f'{ind}    {n} = _NotInstalled("{top}")' for n in names)
        new = f"{ind}try:\n{ind}    {m.group('stmt')}\n{ind}except ImportError:{WHY}\n{body}"
        if not before and "class _NotInstalled" not in m.string:  # the cell's first guard
            stand_in = "".join(f"{ind}{ln}" if ln else "" for ln in STAND_IN.splitlines(True))
            new = f"{stand_in}\n\n{new}"
        return new

    return lines_changed(nb, _IMPORT, "module", guard)


def _bound_names(m: re.Match[str]) -> list[str]:
    """The names an import statement binds: ``sns`` for ``import seaborn as sns``, ``plotly`` for
    ``import plotly.express``, ``WordCloud, STOPWORDS`` for a from-import (none for ``*``)."""
    if m.group("mods"):
        mod, *alias = re.split(r"\s+as\s+", m.group("mods").strip())
        return [alias[0] if alias else mod.split(".")[0]]
    names = []
    for part in m.group("names").strip("() \t").split(","):
        name, *alias = re.split(r"\s+as\s+", part.strip())
        if name:
            names.append(alias[0] if alias else name)
    return names


__all__ = ["DISPLAY_ONLY", "guard_imports", "importable", "missing_module"]
