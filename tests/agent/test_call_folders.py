"""A data folder handed to a function as an argument (hunt M's ``helper_utils``):
``train, test = load_data('.')`` with ``utils.py`` beside the notebook joining its ``folder``
parameter to ``train.csv``.  In a run the data is in ``./input``, so the notebook stopped with
``FileNotFoundError: './train.csv'`` and was set aside (``not_understood``); the literal is now
pointed at ``input``, the user's own text given back in proposals."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pandas as pd
import pytest

from mlestar_jupyter.agent.call_folders import point_call_folders
from mlestar_jupyter.agent.changes import restore_paths
from mlestar_jupyter.agent.user_notebook import prepare_user_notebook
from mlestar_jupyter.task import load_task

from .notebooks import BREAST_CANCER, task_with
from .notebooks import code_notebook as _nb

UTILS = """import os

import pandas as pd


def load_data(folder, sep=','):
    train = pd.read_csv(os.path.join(folder, 'train.csv'), sep=sep)
    test = pd.read_csv(os.path.join(folder, 'test.csv'), sep=sep)
    return train, test


def save(df, out_dir):
    df.to_csv(os.path.join(out_dir, 'submission.csv'), index=False)
"""
FIT = (
    "from sklearn.linear_model import LogisticRegression\n"
    "from sklearn.model_selection import train_test_split\n"
    "X, y = train.drop(columns=['id', 'target']), train['target']\n"
    "X_tr, X_va, y_tr, y_va = train_test_split(X, y, random_state=0)\n"
    "model = LogisticRegression(max_iter=200).fit(X_tr, y_tr)"
)


def test_a_folder_given_to_the_users_module_is_pointed_at_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hunt's notebook: ``load_data('.')`` reads ``./input/train.csv`` in a run."""
    task = load_task(task_with(tmp_path, {"utils.py": UTILS}))
    cell = "from utils import load_data, save\ntrain, test = load_data('.')\nsave(test, '.')"
    prepared = prepare_user_notebook(_nb(cell, FIT), task)
    load = next(b for b in prepared.notebook.code_blocks if "load_data(" in b.source)
    # the folder it reads is pointed; the one it writes to is left where the run finds it
    assert "load_data('input')" in load.source and "save(test, '.')" in load.source
    assert restore_paths(load.source, load.id, prepared.data_paths) == cell
    work = tmp_path / "work"
    work.mkdir()
    (work / "input").symlink_to(task.input_dir)
    monkeypatch.chdir(work)
    monkeypatch.syspath_prepend(str(task.input_dir))
    namespace: dict[str, object] = {}
    try:
        exec(compile(load.source.replace("save(test, '.')", ""), "load", "exec"), namespace)
    finally:
        sys.modules.pop("utils", None)
    assert len(namespace["train"]) == len(pd.read_csv(task.input_dir / "train.csv"))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("cells", "now"),
    [
        (  # the notebook's own function, by keyword, an f-string join
            (
                "def read_all(data_dir, n=None):\n    return pd.read_csv(f'{data_dir}/train.csv', nrows=n)",
                "train = read_all(data_dir='../data/')",
            ),
            (
                "def read_all(data_dir, n=None):\n    return pd.read_csv(f'{data_dir}/train.csv', nrows=n)",
                "train = read_all(data_dir='input/')",
            ),
        ),
        (  # a function called from main(), a Path join, a folder that is no name of input/
            (
                "def load(root):\n    return pd.read_csv(Path(root) / 'test.csv')\n\n"
                "def main():\n    test = load(r'C:/Users/me/Kaggle/bc')\n    return test",
            ),
            (
                "def load(root):\n    return pd.read_csv(Path(root) / 'test.csv')\n\n"
                "def main():\n    test = load(r'input')\n    return test",
            ),
        ),
    ],
)
def test_a_folder_given_to_the_notebooks_own_function_is_pointed_at_input(
    cells: tuple[str, ...], now: tuple[str, ...]
) -> None:
    out, changes = point_call_folders(_nb(*cells), BREAST_CANCER / "input")
    assert tuple(b.source for b in out.code_blocks) == now
    for b, written in zip(out.code_blocks, cells, strict=True):
        assert restore_paths(b.source, b.id, changes) == written


@pytest.mark.parametrize(
    "cells",
    [
        # the parameter is joined to no file of input/ (an output folder)
        ("def save(df, out):\n    df.to_csv(os.path.join(out, 'sub.csv'))", "save(sub, 'outputs')"),
        # another parameter than the joined one; a file, not a folder
        (
            "def load(folder, sep=','):\n    return pd.read_csv(os.path.join(folder, 'train.csv'), sep=sep)",
            "a = load(DATA, '.')\nb = load('train.csv')\nc = load('input')",
        ),
        # a cell that does not parse is left as it is
        ("def load(d):\n    return pd.read_csv(d + '/train.csv')", "x = load('.'"),
    ],
)
def test_other_arguments_are_left_alone(cells: tuple[str, ...]) -> None:
    out, changes = point_call_folders(_nb(*cells), BREAST_CANCER / "input")
    assert tuple(b.source for b in out.code_blocks) == cells and not changes


def test_a_module_imported_whole_is_read_too(tmp_path: Path) -> None:
    """``import utils as u`` then ``u.load_data("./")``."""
    root = task_with(tmp_path, {"utils.py": UTILS})
    cells = ("import utils as u", 'train, test = u.load_data("./")')
    out, _ = point_call_folders(_nb(*cells), root / "input")
    assert out.code_blocks[1].source == 'train, test = u.load_data("input/")'
    assert os.fspath(root)  # the user's file is only read
    assert (root / "input" / "utils.py").read_text() == UTILS
