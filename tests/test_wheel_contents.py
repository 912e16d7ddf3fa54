"""The wheel that `pip install .` builds holds everything a user's fresh machine needs.

CI installs the package editable (`pip install -e ".[test]"`), which reads every file from the
checkout, so a file left out of the wheel (a catalog template, a model card, a role's prompt, the
built labextension, the server-extension config) would pass CI and break the README's
`pip install . && mlestar run ...`. Here the wheel is built as pip builds it, its contents are
checked against the files git tracks, and it is installed into a new virtual environment whose
copy of the package (not the checkout's) is imported, rendered from and listed by Jupyter.
"""

from __future__ import annotations

import configparser
import json
import os
import re
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NAME = "mlestar_jupyter"
LABEXT = "mlestar-jupyter"  # the labextension's name (its package.json)
# Tracked files under mlestar_jupyter/ that are meant to stay out of the wheel (none today).
NOT_SHIPPED: frozenset[str] = frozenset()
TASK = ROOT / "example_notebooks" / "tasks" / "breast-cancer"  # the README's task

pytestmark = pytest.mark.timeout(300)

_ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel `pip install .` builds, built once (no network: hatchling is a test extra)."""
    try:
        import hatchling  # noqa: F401
    except ImportError:
        pytest.fail('hatchling is missing: install the test extras, pip install -e ".[test]"')
    out = tmp_path_factory.mktemp("wheel")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "--no-index"]
        + ["--no-build-isolation", "-q", "-w", str(out)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (built,) = out.glob(f"{NAME}-*.whl")
    return built


@pytest.fixture(scope="module")
def names(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as zf:
        return set(zf.namelist())


def _data_dir(wheel: Path) -> str:
    """The wheel's ``<name>-<version>.data/data/`` prefix (installed under sys.prefix)."""
    return "-".join(wheel.name.split("-")[:2]) + ".data/data/"


def _tracked(folder: str) -> list[str]:
    done = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z", folder], capture_output=True, text=True
    )
    if done.returncode != 0:
        pytest.skip(f"not a git checkout: {done.stderr.strip()}")
    return [p for p in done.stdout.split("\0") if p and (ROOT / p).is_file()]


def test_every_tracked_package_file_is_in_the_wheel(names: set[str]) -> None:
    tracked = _tracked(NAME)
    data = [p for p in tracked if not p.endswith(".py")]
    assert any(p.endswith(".j2") for p in data) and any(p.endswith(".json") for p in data)
    missing = sorted(p for p in tracked if p not in names and p not in NOT_SHIPPED)
    assert not missing, f"tracked files the wheel leaves out: {missing}"


def test_wheel_ships_the_labextension_and_server_config(wheel: Path, names: set[str]) -> None:
    data = _data_dir(wheel)
    ext = f"{data}share/jupyter/labextensions/{LABEXT}/"
    with zipfile.ZipFile(wheel) as zf:
        package = json.loads(zf.read(ext + "package.json"))
        config = json.loads(zf.read(f"{data}etc/jupyter/jupyter_server_config.d/{NAME}.json"))
    assert package["name"] == LABEXT
    load = package["jupyterlab"]["_build"]["load"]  # static/remoteEntry.<hash>.js
    assert re.fullmatch(r"static/remoteEntry\.\w+\.js", load), load
    assert ext + load in names and ext + "install.json" in names
    assert ext + "static/style.js" in names
    # every file of the committed build, as tracked, lies in the wheel's data folder
    built = [p.removeprefix(f"{NAME}/labextension/") for p in _tracked(f"{NAME}/labextension")]
    assert sorted(p for p in built if ext + p not in names) == []
    assert config["ServerApp"]["jpserver_extensions"][NAME] is True


def test_wheel_declares_the_mlestar_command(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as zf:
        (entry,) = [n for n in zf.namelist() if n.endswith(".dist-info/entry_points.txt")]
        points = configparser.ConfigParser()
        points.read_string(zf.read(entry).decode())
    assert points["console_scripts"]["mlestar"].strip() == f"{NAME}.cli:main"


# -- the wheel installed into a new environment -------------------------------------------------


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new virtual environment holding only the wheel; the running one lends the dependencies."""
    home = tmp_path_factory.mktemp("installed")
    env = home / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(env)],
        check=True,
    )
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(env / "bin" / "python"), "install", "-q"]
        + ["--no-deps", "--no-index", str(wheel)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    # --system-site-packages reaches the base interpreter's packages, not those of the virtual
    # environment running the tests (where the dependencies are); a .pth file appends those after
    # the new environment's own site-packages, so the wheel's copy of the package is found first.
    purelib = Path(_venv_python(env, "import sysconfig; print(sysconfig.get_paths()['purelib'])"))
    lend = {sysconfig.get_paths()[k] for k in ("purelib", "platlib")}
    lines = [f"import site; site.addsitedir({p!r})" for p in sorted(lend)]
    (purelib / "zz_test_dependencies.pth").write_text("\n".join(lines) + "\n")
    return env


def _env(venv: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "JUPYTER"))}
    home = venv.parent
    env.update(HOME=str(home), JUPYTER_CONFIG_DIR=str(home / "cfg"))
    env.update(JUPYTER_DATA_DIR=str(home / "data"), JUPYTER_PLATFORM_DIRS="0")
    env.update(PYTHONNOUSERSITE="1", NO_COLOR="1")
    return env


def _run(venv: Path, *argv: str) -> str:
    done = subprocess.run(
        argv, cwd=venv.parent, env=_env(venv), capture_output=True, text=True, timeout=240
    )
    out = _ANSI.sub("", done.stdout + done.stderr)
    assert done.returncode == 0, out
    return out


def _venv_python(venv: Path, code: str, *args: str) -> str:
    return _run(venv, str(venv / "bin" / "python"), "-c", code, *args).strip()


SMOKE = """
import json, sys
from pathlib import Path
import jinja2
import mlestar_jupyter
from mlestar_jupyter.agent.config import RunConfig
from mlestar_jupyter.offline import OfflinePolicy
from mlestar_jupyter.offline.catalog import CATALOG_DIR
from mlestar_jupyter.task import load_task

pkg = Path(mlestar_jupyter.__file__).resolve().parent
templates = sorted(p.relative_to(pkg).as_posix() for p in pkg.rglob("*.j2"))
for name in templates:
    jinja2.Environment().parse((pkg / name).read_text())  # each parses where it was installed
policy = OfflinePolicy(load_task(sys.argv[1]), RunConfig())
card = policy.retrieve(1)[0]
nb = policy.init_solution(card)
print(json.dumps({"package": str(pkg), "catalog": str(CATALOG_DIR), "templates": templates,
                  "card": card.name, "code": [b.source for b in nb.code_blocks]}))
"""


def test_installed_wheel_imports_and_renders_a_catalog_notebook(
    venv: Path, names: set[str]
) -> None:
    got = json.loads(_venv_python(venv, SMOKE, str(TASK)).splitlines()[-1])
    package = Path(got["package"])
    assert package.is_relative_to(venv.resolve()), package  # the wheel's copy, not the checkout
    assert Path(got["catalog"]).is_relative_to(package)
    shipped = sorted(n.removeprefix(f"{NAME}/") for n in names if n.endswith(".j2"))
    assert got["templates"] == shipped
    assert got["code"] and "sample_submission" in "\n".join(got["code"]), got["card"]


def test_installed_mlestar_command_runs(venv: Path) -> None:
    out = _run(venv, str(venv / "bin" / "mlestar"), "--help")
    assert out.startswith("usage: mlestar") and " run" in out


def _version(venv: Path) -> str:
    (dist,) = venv.glob(f"lib/python*/site-packages/{NAME}-*.dist-info")
    return dist.name.removesuffix(".dist-info").split("-")[1]


def _section(out: str, header: str) -> list[str]:
    """The lines Jupyter prints under ``header`` (a folder), up to the next folder."""
    lines = out.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.strip() == header)
    rest = lines[start + 1 :]
    end = next((i for i, ln in enumerate(rest) if ln and not ln[0].isspace()), len(rest))
    return [ln.strip() for ln in rest[:end]]


def test_installed_labextension_is_listed_enabled(venv: Path) -> None:
    out = _run(venv, str(venv / "bin" / "python"), "-m", "jupyterlab.labextensions", "list")
    version = _version(venv)
    folder = venv / "share" / "jupyter" / "labextensions"
    lines = _section(out, str(folder)) if str(folder) in out else []
    assert f"{LABEXT} v{version} enabled OK (python, {LABEXT})" in lines, out


def test_installed_server_extension_is_enabled_and_imports(venv: Path) -> None:
    argv = ("-m", "jupyter_server.extension.serverextension", "list")
    out = _run(venv, str(venv / "bin" / "python"), *argv)
    header = f"Config dir: {venv / 'etc' / 'jupyter'}"
    lines = _section(out, header) if header in out else []
    assert f"{NAME} enabled" in lines and f"{NAME} {_version(venv)} OK" in lines, out
