"""The committed JupyterLab extension was built from the TypeScript sources in this checkout."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_committed_labextension_matches_its_sources() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "labextension_hash.py"), "check"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr


def test_built_extension_has_its_entry_points() -> None:
    built = ROOT / "mlestar_jupyter" / "labextension"
    assert (built / "package.json").exists()
    assert (built / "static" / "style.js").exists()
    assert list((built / "static").glob("remoteEntry.*.js")), "run `jlpm build:prod`"
