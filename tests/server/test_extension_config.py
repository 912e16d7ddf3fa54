"""How jupyter_server finds the extension: the config file and the package entry points."""

from __future__ import annotations

import json
from pathlib import Path

import mlestar_jupyter
import mlestar_jupyter.server as server

CONFIG = Path(__file__).parents[2] / "jupyter-config" / "server-config" / "mlestar_jupyter.json"


def test_config_file_enables_the_package() -> None:
    assert json.loads(CONFIG.read_text()) == {
        "ServerApp": {"jpserver_extensions": {"mlestar_jupyter": True}}
    }


def test_extension_points_name_a_module_with_the_loader() -> None:
    import importlib

    (point,) = server._jupyter_server_extension_points()
    assert callable(importlib.import_module(point["module"])._load_jupyter_server_extension)


def test_package_re_exports_the_extension_points() -> None:
    """jupyter_server imports ``mlestar_jupyter`` (the name in the config file) and asks it."""
    assert (
        mlestar_jupyter._jupyter_server_extension_points is server._jupyter_server_extension_points
    )
