"""Jupyter server for the Galata UI tests (never use it elsewhere: it turns security off).

Enables the real ``mlestar_jupyter`` server extension. Runs go to ``<root>/.mlestar/runs`` and
use the real agent (``python -m mlestar_jupyter run ...``) with the backend the dialog picks
(the tests pick ``offline``). ``MLESTAR_UI_STUB=1`` swaps in ``dev_stub_runner.py`` — for
developing the UI only, never for the real test run.
"""

import os
import sys
import tempfile
from pathlib import Path

from jupyterlab.galata import configure_jupyter_server

configure_jupyter_server(c)  # noqa: F821
c.ServerApp.allow_root = True  # noqa: F821
c.LabApp.news_url = None  # noqa: F821
c.LabApp.check_for_updates_class = "jupyterlab.NeverCheckForUpdate"  # noqa: F821

# The same name the shipped jupyter-config/server-config/mlestar_jupyter.json enables.
c.ServerApp.jpserver_extensions = {"mlestar_jupyter": True}  # noqa: F821

# Serve the extension built in this checkout (mlestar_jupyter/labextension) under its npm name,
# without installing anything into the environment.
_built = Path(__file__).resolve().parents[1] / "mlestar_jupyter" / "labextension"
if (_built / "package.json").exists():
    _links = Path(tempfile.mkdtemp(prefix="mlestar-labext-"))
    (_links / "mlestar-jupyter").symlink_to(_built, target_is_directory=True)
    _galata = c.LabServerApp.extra_labextensions_path  # noqa: F821  (a str set by galata)
    _galata = [_galata] if isinstance(_galata, str) else list(_galata)
    c.LabServerApp.extra_labextensions_path = [*_galata, str(_links)]  # noqa: F821

if os.environ.get("MLESTAR_UI_STUB") == "1":
    c.RunService.command = [sys.executable, str(Path(__file__).with_name("dev_stub_runner.py"))]  # noqa: F821
