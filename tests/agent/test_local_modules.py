"""The user's own modules a Kaggle notebook imports (``from utils import load_data`` with
``utils.py`` among the task's data), whose code reads ``/kaggle/input/...`` and writes
``/kaggle/working/...``: a copy with its paths pointed at the run's folders is what the kernel
imports; the user's file is never changed, the note says it, and proposals never carry it."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pandas as pd
import pytest

from mlestar_jupyter.agent.changes import note_for, restore_paths
from mlestar_jupyter.agent.data_paths import TEMP_LINE
from mlestar_jupyter.agent.local_modules import FOLDER, ORIGIN, copy_local_modules
from mlestar_jupyter.agent.seeding import ORIGIN as SEED
from mlestar_jupyter.agent.user_notebook import prepare_user_notebook
from mlestar_jupyter.execution import Executor
from mlestar_jupyter.task import load_task

from .notebooks import code_notebook as _nb
from .notebooks import task_with

UTILS = """import os

import pandas as pd

DATA_DIR = "/kaggle/input/breast-cancer"
OUT_DIR = "/kaggle/working"


def load_data():
    train = pd.read_csv(os.path.join(DATA_DIR, "train.csv"))
    test = pd.read_csv('/kaggle/input/breast-cancer/test.csv')
    return train, test


def save_features(df):
    df.to_csv(f"{OUT_DIR}/features.csv", index=False)
"""
LOAD = "from utils import load_data, save_features\ntrain, test = load_data()\nsave_features(train)"
FIT = (
    "from sklearn.ensemble import RandomForestClassifier\n"
    "from sklearn.model_selection import train_test_split\n"
    "X, y = train.drop(columns=['id', 'target']), train['target']\n"
    "X_tr, X_va, y_tr, y_va = train_test_split(X, y, random_state=0)\n"
    "model = RandomForestClassifier(n_estimators=20, random_state=0).fit(X_tr, y_tr)"
)


def _digest(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _run_copy_cell(source: str, input_dir: Path, workdir: Path, mp: pytest.MonkeyPatch) -> None:
    """Run the copy cell as a kernel would, in ``workdir`` with ``./input`` linked."""
    workdir.mkdir()
    (workdir / "input").symlink_to(input_dir, target_is_directory=True)
    mp.chdir(workdir)
    mp.setattr(sys, "path", list(sys.path))
    exec(compile(source, "copy-cell", "exec"), {})


def test_a_users_module_reading_kaggle_paths_is_imported_from_a_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every candidate stopped with ``FileNotFoundError: '/kaggle/input/breast-cancer/...'``
    raised in ``utils.py``: its cells were pointed at ./input, the module was not."""
    task = load_task(task_with(tmp_path, {"utils.py": UTILS}))
    before = _digest(task.input_dir)
    prepared = prepare_user_notebook(_nb(LOAD, FIT), task)
    assert prepared.understood
    seed, copy, load, _fit = prepared.notebook.code_blocks[:4]
    assert seed.origin == SEED and copy.origin == ORIGIN and copy.role == "setup"
    assert (load.source, load.id) == (LOAD, "b1")  # the user's cell is not changed
    local = [c for c in prepared.data_paths if c.kind == "local"]
    assert [(c.file, c.block_id) for c in local] == [("utils.py", copy.id)] * 3
    assert [c.new for c in local] == [
        'DATA_DIR = "input"',
        'OUT_DIR = "./"',
        "    test = pd.read_csv('input/test.csv')",
    ]  # f"{OUT_DIR}/features.csv" follows OUT_DIR
    # the note says it, above the cell that writes the copy
    note = prepared.notebook.nb.cells[copy.index - 1]
    assert note.cell_type == "markdown" and note.source == note_for(prepared.data_paths)
    assert "Your own code in utils.py" in note.source and "are not changed" in note.source
    assert '`OUT_DIR = "/kaggle/working"` → `OUT_DIR = "./"`' in note.source
    # proposals: the user's cells come back as written, the copy is no change of theirs
    for b in prepared.notebook.code_blocks:
        assert restore_paths(b.source, b.id, prepared.data_paths) == b.source
    # run as a kernel would: the copy is written in the work folder and imported first
    _run_copy_cell(copy.source, task.input_dir, tmp_path / "work", monkeypatch)
    written = (tmp_path / "work" / FOLDER / "utils.py").read_text(encoding="utf-8")
    assert written == UTILS.replace('"/kaggle/input/breast-cancer"', '"input"').replace(
        '"/kaggle/working"', '"./"'
    ).replace("'/kaggle/input/breast-cancer/test.csv'", "'input/test.csv'")
    assert sys.path[0] == str(tmp_path / "work" / FOLDER)
    assert _digest(task.input_dir) == before  # the user's file is never written
    assert not (tmp_path / "work" / "utils.py").exists()


READER = """import pandas as pd

DATA = "/kaggle/input/breast-cancer"


def read_table(name):
    return pd.read_csv(f"{DATA}/{name}")
"""


@pytest.mark.parametrize("call", ["read_table('train.csv')", "rt('train.csv')"])
def test_bare_names_given_to_a_modules_reader_stay_bare(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, call: str
) -> None:
    """``read_table('train.csv')`` of a module joining its folder to the name: the name was
    pointed at ``input/train.csv`` while the module's folder became ``input``, so the notebook
    read ``input/input/train.csv``."""
    task = load_task(task_with(tmp_path, {"bc_utils.py": READER}))
    cell = f"from bc_utils import read_table, read_table as rt\ntrain = {call}"
    prepared = prepare_user_notebook(_nb(cell, FIT), task)
    copy, load = prepared.notebook.code_blocks[1:3]
    assert load.source == cell  # the bare name stays: the module's copy reads it from input/
    _run_copy_cell(copy.source, task.input_dir, tmp_path / "work", monkeypatch)
    namespace: dict[str, object] = {}
    try:
        exec(compile(load.source, "load", "exec"), namespace)
    finally:  # the next test's module of that name is another one
        sys.modules.pop("bc_utils", None)
    assert len(namespace["train"]) == len(pd.read_csv(task.input_dir / "train.csv"))  # type: ignore[arg-type]


def test_modules_imported_through_another_and_packages_are_copied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {
        "utils.py": "from config import TRAIN\n\ndef rows():\n    return TRAIN\n",
        "config.py": "TRAIN = '../input/breast-cancer/train.csv'\n",
        "kutils/__init__.py": "",
        "kutils/io.py": "import pandas as pd\n\n\ndef read():\n"
        "    return pd.read_csv('/kaggle/input/breast-cancer/test.csv')\n",
        "kutils/plots.py": "COLOR = 'red'\n",
    }
    task = load_task(task_with(tmp_path, files))
    nb = _nb("import utils\nfrom kutils.io import read\n%matplotlib inline", FIT)
    out, changes = copy_local_modules(nb, task.input_dir)
    assert sorted({c.file for c in changes}) == ["config.py", "kutils/io.py"]
    copy = out.code_blocks[0]
    assert '_shutil.copytree("input/kutils", "mlestar_modules/kutils"' in copy.source
    _run_copy_cell(copy.source, task.input_dir, tmp_path / "work", monkeypatch)
    made = tmp_path / "work" / FOLDER
    assert (made / "config.py").read_text() == "TRAIN = 'input/train.csv'\n"
    assert (made / "kutils" / "plots.py").read_text() == "COLOR = 'red'\n"  # the package whole
    assert "pd.read_csv('input/test.csv')" in (made / "kutils" / "io.py").read_text()
    assert not (made / "utils.py").exists()  # unchanged: imported from ./input as before
    assert copy_local_modules(out, task.input_dir) == (out, ())  # prepared twice: one cell


def test_kaggles_scratch_folder_in_a_module_is_made_and_its_lines_keep_their_numbers(
    tmp_path: Path,
) -> None:
    module = (
        "import pickle\n\n\ndef cache(x):\n    pickle.dump(x, open('/kaggle/temp/x.pkl', 'wb'))\n"
    )
    task = load_task(task_with(tmp_path, {"helpers.py": module}))
    out, changes = copy_local_modules(_nb("from helpers import cache", FIT), task.input_dir)
    copy = out.code_blocks[0].source
    assert "    5: \"    pickle.dump(x, open('./kaggle_temp/x.pkl', 'wb'))\"," in copy
    assert '_os.makedirs("kaggle_temp", exist_ok=True)' in copy and TEMP_LINE not in copy
    assert [c.kind for c in changes] == ["local"]


def test_modules_left_alone(tmp_path: Path) -> None:
    """No copy for a module without such paths, one the notebook does not import, one an
    installed package of its name shadows or the notebook writes itself (the kernel imports
    that one), one not UTF-8."""
    files = {
        "clean.py": "def f():\n    return 'input/train.csv'\n",
        "unused.py": "X = '/kaggle/input/breast-cancer/train.csv'\n",
        "utils.py": "X = '/kaggle/input/breast-cancer/train.csv'\n",
    }
    root = task_with(tmp_path, files)
    (root / "input" / "latin.py").write_bytes(b"X = '/kaggle/input/\xe9/train.csv'\n")
    task = load_task(root)
    nb = _nb("import clean, utils, latin", FIT)
    out, changes = copy_local_modules(nb, task.input_dir, installed=lambda m: m == "utils")
    assert out is nb and changes == ()
    # a module the notebook writes itself is the one its kernel imports
    nb = _nb("%%writefile /kaggle/working/utils.py\nX = 1", "import utils", FIT)
    out, changes = copy_local_modules(nb, task.input_dir)
    assert out is nb and changes == ()


@pytest.mark.slow
def test_a_kaggle_notebook_with_its_own_module_runs_in_a_kernel(tmp_path: Path) -> None:
    """The whole Kaggle notebook in a real kernel: its ``%%bash`` cell fetching the data with
    the Kaggle API, its ``utils.py`` reading ``/kaggle/input`` and writing ``/kaggle/working``:
    it stopped at the download, then at the module; now it scores, writes where the run finds
    it, and the task's data is untouched."""
    task = load_task(task_with(tmp_path, {"utils.py": UTILS}))
    before = _digest(task.input_dir)
    fetch = (
        "%%bash\npip install -q kaggle\nkaggle competitions download -c breast-cancer\n"
        "unzip -o breast-cancer.zip -d /kaggle/input/breast-cancer"
    )
    prepared = prepare_user_notebook(_nb(fetch, LOAD, FIT), task)
    with Executor(timeout=120, pool_size=1, max_parallel=1, threads_per_kernel=1) as ex:
        r = ex.run(prepared.notebook, input_dir=task.input_dir, workdir=tmp_path / "work")
    assert r.ok, r.error
    assert r.score is not None and 0.5 < r.score <= 1.0
    assert (tmp_path / "work" / "features.csv").is_file()  # /kaggle/working is the work folder
    assert (tmp_path / "work" / FOLDER / "utils.py").is_file()
    assert _digest(task.input_dir) == before and not r.input_modified
