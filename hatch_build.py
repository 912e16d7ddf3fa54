"""Build hook: ship the committed JupyterLab extension, rebuilding it only when its sources changed.

The built extension lives in ``mlestar_jupyter/labextension/`` (committed), stamped with a hash of
its sources by ``jlpm build:prod`` (see ``scripts/labextension_hash.py``).  A plain ``pip install .``
therefore needs no Node.js.  When the stamp does not match the TypeScript sources (a developer
changed them and did not rebuild) the hook rebuilds with ``jlpm`` if it is on PATH, and otherwise
stops with a message saying what to run.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


def _hash_module(root: Path) -> Any:
    spec = importlib.util.spec_from_file_location(
        "labextension_hash", root / "scripts" / "labextension_hash.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class LabextensionHook(BuildHookInterface):  # type: ignore[type-arg]
    """Rebuild the labextension only when the committed build is stale."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        """Check the stamp; rebuild with jlpm when stale."""
        root = Path(self.root)
        if not (root / "labextension" / "src").exists():  # building a wheel from an sdist
            return
        hashes = _hash_module(root)
        stamp = hashes.STAMP
        if stamp.exists() and stamp.read_text().strip() == hashes.source_hash():
            return
        jlpm = shutil.which("jlpm")
        if jlpm is None:
            raise RuntimeError(
                "mlestar_jupyter/labextension is missing or older than labextension/src, and "
                "jlpm (from jupyterlab, needs Node.js >= 20) is not on PATH: install jupyterlab "
                "and Node.js, then run `jlpm install && jlpm build:prod`, or check out the "
                "committed build with `git checkout mlestar_jupyter/labextension`."
            )
        subprocess.run([jlpm, "install"], cwd=root, check=True)
        subprocess.run([jlpm, "build:prod"], cwd=root, check=True)
