"""The public names each layer exports exist, and the core never imports Jupyter UI code."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

LAYERS = [
    "mlestar_jupyter",
    "mlestar_jupyter.task",
    "mlestar_jupyter.notebook",
    "mlestar_jupyter.journal",
    "mlestar_jupyter.agent",
    "mlestar_jupyter.llm",
    "mlestar_jupyter.execution",
    "mlestar_jupyter.offline",
    "mlestar_jupyter.evaluator",
    "mlestar_jupyter.widgets",
    "mlestar_jupyter.metrics",
]


@pytest.mark.parametrize("name", LAYERS)
def test_all_names_resolve(name: str) -> None:
    mod = importlib.import_module(name)
    assert mod.__all__, f"{name} declares no __all__"
    missing = [n for n in mod.__all__ if not hasattr(mod, n)]
    assert not missing, f"{name}.__all__ names missing attributes: {missing}"


def test_core_never_imports_jupyter_ui() -> None:
    code = (
        "import sys, mlestar_jupyter.agent.run, mlestar_jupyter.api, mlestar_jupyter.execution, mlestar_jupyter.offline;"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('ipywidgets', 'jupyterlab', 'jupyter_server', 'tornado.web')];"
        "print(','.join(bad))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "", f"the core imported Jupyter UI modules: {out}"
