"""A project's notebook importing its code from a folder it adds to ``sys.path`` (hunt M's
``src_syspath``: ``notebooks/01_baseline.ipynb`` with ``sys.path.append('../src')`` and ``from
features import build_features``, the data in ``data/``).  A run's kernels see only the task's
data, so the notebook stopped with ``ModuleNotFoundError: features`` and was set aside; now a
first cell writes a copy of the module in the work folder and the notebook imports it, and its
``to_csv('../submissions/submission.csv')`` writes in the work folder."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from mlestar_jupyter.agent.path_modules import ORIGIN, copy_path_modules
from mlestar_jupyter.agent.user_notebook import prepare_user_notebook
from mlestar_jupyter.task import load_task

from .notebooks import BREAST_CANCER
from .notebooks import code_notebook as _nb

FEATURES = """import pandas as pd

TARGET = 'target'
RAW = '../data/train.csv'


def build_features(df):
    return df.drop(columns=[c for c in ('id', TARGET) if c in df.columns])


def raw():
    return pd.read_csv(RAW)
"""
SETUP = "import sys\nsys.path.append('../src')\nimport pandas as pd\nfrom features import build_features, TARGET, raw"
LOAD = (
    "train = pd.read_csv('../data/train.csv')\ntest = pd.read_csv('../data/test.csv')\n"
    "X, y = build_features(train), train[TARGET]\nassert len(raw()) == len(train)"
)
FIT = (
    "from sklearn.linear_model import LogisticRegression\n"
    "from sklearn.model_selection import train_test_split\n"
    "X_tr, X_va, y_tr, y_va = train_test_split(X, y, random_state=0)\n"
    "model = LogisticRegression(max_iter=5000).fit(X_tr, y_tr)\n"
    "pd.DataFrame({'id': test['id'], 'target': model.predict(build_features(test))})"
    ".to_csv('../submissions/submission.csv', index=False)"
)


def _project(tmp_path: Path) -> Path:
    """The cookiecutter layout: description.md, data/, src/features.py, notebooks/."""
    root = tmp_path / "project"
    shutil.copytree(BREAST_CANCER / "input", root / "data")
    (root / "description.md").write_text(
        "Predict the diagnosis `target`. Metric: accuracy.\n", encoding="utf-8"
    )
    (root / "src").mkdir()
    (root / "src" / "features.py").write_text(FEATURES, encoding="utf-8")
    (root / "notebooks").mkdir()
    (root / "submissions").mkdir()
    return root


def test_a_module_of_a_folder_put_on_sys_path_is_copied_and_the_notebook_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _project(tmp_path)
    task = load_task(root)
    prepared = prepare_user_notebook(_nb(SETUP, LOAD, FIT), task, notebook_dir=root / "notebooks")
    assert prepared.understood
    blocks = prepared.notebook.code_blocks
    assert any(b.origin == ORIGIN for b in blocks)
    fit = next(b.source for b in blocks if "to_csv" in b.source)
    assert "to_csv('./submission.csv'" in fit  # not above the run's work folder
    # run the cells as a kernel would: in a work folder with ./input the task's data
    work = tmp_path / "work"
    work.mkdir()
    (work / "input").symlink_to(task.input_dir)
    monkeypatch.chdir(work)
    saved = list(sys.path)
    namespace: dict[str, object] = {}
    try:
        for b in blocks:
            if b.origin != "mlestar:validation":
                exec(compile(b.source, b.id, "exec"), namespace)
    finally:
        sys.path[:] = saved
        sys.modules.pop("features", None)
    assert (work / "submission.csv").is_file()
    assert (root / "src" / "features.py").read_text(encoding="utf-8") == FEATURES  # only read


@pytest.mark.parametrize(
    "line",
    [
        "sys.path.insert(0, os.path.abspath('../src'))",
        "sys.path.append(os.path.join('..', 'src'))",
        "sys.path.append(str(Path('..') / 'src'))",
        "sys.path.insert(0, str(Path('../src').resolve()))",
    ],
)
def test_the_ways_a_folder_is_put_on_sys_path(tmp_path: Path, line: str) -> None:
    root = _project(tmp_path)
    nb = _nb(f"import os, sys\nfrom pathlib import Path\n{line}\nfrom features import raw")
    out, copied = copy_path_modules(
        nb, root / "notebooks", root / "data", installed=lambda m: False
    )
    assert copied == ("../src/features.py",)
    cell = out.code_blocks[0].source
    assert "RAW = 'input/train.csv'" in cell  # its data path pointed at ./input


def test_left_alone(tmp_path: Path) -> None:
    """No notebook folder known, a folder that does not exist, an installed package's name."""
    root = _project(tmp_path)
    nb = _nb(SETUP)
    assert copy_path_modules(nb, None, root / "data")[1] == ()
    missing = _nb("import sys\nsys.path.append('../lib')\nfrom features import raw")
    assert copy_path_modules(missing, root / "notebooks", root / "data")[1] == ()
    assert (
        copy_path_modules(nb, root / "notebooks", root / "data", installed=lambda m: True)[1] == ()
    )


UTILS = """import os

import pandas as pd


def load_data(folder):
    return pd.read_csv(os.path.join(folder, 'train.csv')), pd.read_csv(os.path.join(folder, 'test.csv'))
"""


def test_a_module_beside_the_notebook_whose_data_is_in_data_is_copied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``project/nb.ipynb`` with ``project/utils.py`` and the tables in ``project/data/``:
    the task's data (``./input``) is ``data/``, so ``from utils import load_data`` failed in a
    run, and ``load_data('data')`` named a folder the run lacks."""
    root = _project(tmp_path)
    (root / "utils.py").write_text(UTILS, encoding="utf-8")
    task = load_task(root)
    cell = "from utils import load_data\ntrain, test = load_data('data')"
    prepared = prepare_user_notebook(_nb(cell, FIT), task, notebook_dir=root)
    blocks = prepared.notebook.code_blocks
    copy = next(b for b in blocks if b.origin == ORIGIN)
    load = next(b for b in blocks if "load_data(" in b.source and b.origin != ORIGIN)
    assert "train, test = load_data('input')" in load.source
    work = tmp_path / "work"
    work.mkdir()
    (work / "input").symlink_to(task.input_dir)
    monkeypatch.chdir(work)
    saved = list(sys.path)
    namespace: dict[str, object] = {}
    try:
        for b in (copy, load):
            exec(compile(b.source, b.id, "exec"), namespace)
    finally:
        sys.path[:] = saved
        sys.modules.pop("utils", None)
    assert len(namespace["train"]) > 100  # type: ignore[arg-type]


def test_a_projects_src_folder_imported_as_a_namespace_package_is_copied(tmp_path: Path) -> None:
    """``sys.path.insert(0, os.path.abspath('..'))`` then ``from src.features import ...``, with
    no ``__init__.py`` in ``src/`` (Python imports it as a namespace package)."""
    root = _project(tmp_path)
    nb = _nb(
        "import os, sys\nsys.path.insert(0, os.path.abspath('..'))\n"
        "from src.features import build_features"
    )
    out, copied = copy_path_modules(
        nb, root / "notebooks", root / "data", installed=lambda m: False
    )
    assert copied == ("../src/features.py",)
    assert "'src/features.py':" in out.code_blocks[0].source


@pytest.mark.parametrize(
    ("utils", "cell"),
    [
        (  # the folder a constant of the module, joined in the notebook
            "import os\n\nRAW = 'data/raw'\nSEED = 42\n",
            "import os\nimport pandas as pd\nfrom utils import RAW, SEED\n"
            "train = pd.read_csv(os.path.join(RAW, 'train.csv'))",
        ),
        (  # read as the module's attribute
            "from pathlib import Path\n\nRAW = Path('data/raw')\n",
            "import pandas as pd\nimport utils as U\ntrain = pd.read_csv(U.RAW / 'train.csv')",
        ),
        (  # imported under another name, written in parts
            "import os\n\nRAW_DIR = os.path.join('data', 'raw')\n",
            "import os\nimport pandas as pd\nfrom utils import RAW_DIR as DATA\n"
            "train = pd.read_csv(os.path.join(DATA, 'train.csv'))",
        ),
        (  # the module's reader joins the folder to the name the notebook gives it
            "import os\n\nimport pandas as pd\n\nRAW = 'data/raw'\n\n\ndef load(name):\n"
            "    return pd.read_csv(os.path.join(RAW, name))\n",
            "from utils import load\ntrain = load('train.csv')",
        ),
    ],
)
def test_a_data_folder_kept_in_the_users_module_beside_the_notebook_points_at_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, utils: str, cell: str
) -> None:
    """Hunt (session 32): ``utils.py`` beside the notebook holds ``RAW = 'data/raw'``, the
    notebook joins it to ``train.csv``: the module's copy kept ``data/raw`` (nothing in the
    module joins it to a file), and the run stopped with ``FileNotFoundError``; when the module
    joined it to a name the notebook gives, that name became ``input/train.csv`` as well."""
    root = tmp_path / "project"
    shutil.copytree(BREAST_CANCER / "input", root / "data" / "raw")
    (root / "description.md").write_text(
        "Predict the diagnosis `target`. Metric: accuracy.\n", encoding="utf-8"
    )
    (root / "utils.py").write_text(utils, encoding="utf-8")
    task = load_task(root)
    prepared = prepare_user_notebook(_nb(cell), task, notebook_dir=root)
    blocks = [b for b in prepared.notebook.code_blocks if b.origin != "mlestar:validation"]
    assert any(b.origin == ORIGIN for b in blocks)
    work = tmp_path / "work"
    work.mkdir()
    (work / "input").symlink_to(task.input_dir)
    monkeypatch.chdir(work)
    saved = list(sys.path)
    namespace: dict[str, object] = {}
    try:
        for b in blocks:
            exec(compile(b.source, b.id, "exec"), namespace)
    finally:
        sys.path[:] = saved
        sys.modules.pop("utils", None)
    assert len(namespace["train"]) > 100  # type: ignore[arg-type]
    assert (root / "utils.py").read_text(encoding="utf-8") == utils  # only read
