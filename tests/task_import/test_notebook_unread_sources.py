"""Notebooks that read their rows from something other than table files (hunt H): NumPy arrays,
a SQLite database, files matched by a glob pattern.  They were refused with a message naming the
wrong file ("it names 'submission.csv'") or saying the notebook reads no training table; now the
message names what the notebook reads and how to make it a table a run reads."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
import pytest

from mlestar_jupyter.importer.notebook_task import NotebookTaskError, task_from_notebook
from mlestar_jupyter.notebook import SolutionNotebook

ROWS = pd.DataFrame({"id": range(30), "a": np.arange(30) * 0.5, "label": [0, 1, 2] * 10})


def _refusal(folder: Path, cells: list[str]) -> str:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    nbformat.write(nb, folder / "nb.ipynb")
    with pytest.raises(NotebookTaskError) as e:
        task_from_notebook(SolutionNotebook.read(folder / "nb.ipynb"), folder, "nb.ipynb")
    return str(e.value)


def test_numpy_arrays_are_named(tmp_path: Path) -> None:
    np.save(tmp_path / "X_train.npy", ROWS[["a"]].values)
    np.save(tmp_path / "y_train.npy", ROWS["label"].values)
    np.save(tmp_path / "X_test.npy", ROWS[["a"]].values[:5])
    said = _refusal(
        tmp_path,
        [
            "import numpy as np\nX_train = np.load('X_train.npy')\ny_train = np.load('y_train.npy')"
            "\nX_test = np.load('X_test.npy')",
            "pred = X_test[:, 0] > 1\nnp.savetxt('submission.csv', pred, header='id,label')",
        ],
    )
    assert "loads NumPy arrays (X_train.npy, y_train.npy, X_test.npy)" in said
    assert "'submission.csv'" not in said


def test_a_sqlite_database_is_named(tmp_path: Path) -> None:
    con = sqlite3.connect(tmp_path / "wine.db")
    ROWS.to_sql("train", con, index=False)
    con.close()
    said = _refusal(
        tmp_path,
        [
            "import sqlite3, pandas as pd\ncon = sqlite3.connect('wine.db')\n"
            "train = pd.read_sql('SELECT * FROM train', con)",
            "train[['id']].to_csv('predictions.csv', index=False)",
        ],
    )
    assert "reads a SQLite database (wine.db)" in said and ".to_csv('train.csv'" in said


def test_parts_read_through_a_glob_pattern_are_named(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    for i in range(3):
        ROWS.iloc[i * 8 : (i + 1) * 8].to_csv(tmp_path / f"data/train_part{i}.csv", index=False)
    ROWS.iloc[24:].drop(columns="label").to_csv(tmp_path / "data/test.csv", index=False)
    said = _refusal(
        tmp_path,
        [
            "import glob, pandas as pd\nfiles = sorted(glob.glob('data/train_part*.csv'))\n"
            "train = pd.concat([pd.read_csv(f) for f in files])\ntest = pd.read_csv('data/test.csv')",
            "y = train['label']",
        ],
    )
    assert "through the pattern 'data/train_part*.csv' (3 files: data/train_part0.csv" in said
