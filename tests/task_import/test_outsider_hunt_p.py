"""Users' notebooks of hunt P (session 34), as the task reader and the path pointer see them:
a notebook that finds its tables with a pattern (``glob.glob(str(DATA_DIR / 'train*.csv'))``,
inside a helper function of its own) that matches one file."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer

from mlestar_jupyter.agent.data_paths import point_to_input
from mlestar_jupyter.importer.notebook_task import NotebookTaskError, task_from_notebook
from mlestar_jupyter.notebook import SolutionNotebook

HELPERS = (
    "from pathlib import Path\nimport glob\nimport pandas as pd\n"
    "ROOT = Path.cwd()\nDATA_DIR = ROOT / 'data'",
    "def find_csv(pattern):\n"
    "    hits = sorted(glob.glob(str(DATA_DIR / pattern)))\n"
    "    assert hits, f'no file for {pattern}'\n"
    "    return hits[0]\n\n"
    "def load_data():\n"
    "    return pd.read_csv(find_csv('train*.csv')), pd.read_csv(find_csv('test*.csv'))",
    "train_df, test_df = load_data()\n"
    "from sklearn.linear_model import LogisticRegression\n"
    "from sklearn.model_selection import train_test_split\n"
    "from sklearn.metrics import roc_auc_score\n"
    "X = train_df.drop(columns=['id', 'target'])\ny = train_df['target']\n"
    "X_tr, X_va, y_tr, y_va = train_test_split(X, y, random_state=0)\n"
    "model = LogisticRegression(max_iter=3000).fit(X_tr, y_tr)\n"
    "print(roc_auc_score(y_va, model.predict_proba(X_va)[:, 1]))",
)


def _notebook(*cells: str) -> SolutionNotebook:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    return SolutionNotebook(nb)


def _data(folder: Path, parts: int = 1) -> Path:
    """breast cancer as ``data/train.csv`` (or ``parts`` files ``train_<i>.csv``), ``test.csv``."""
    df = load_breast_cancer(as_frame=True).frame
    df.insert(0, "id", range(len(df)))
    data = folder / "data"
    data.mkdir()
    train, test = df.iloc[:450], df.iloc[450:]
    if parts == 1:
        train.to_csv(data / "train.csv", index=False)
    else:
        for i in range(parts):
            train.iloc[i::parts].to_csv(data / f"train_{i}.csv", index=False)
    test.drop(columns="target").to_csv(data / "test.csv", index=False)
    return data


def test_a_pattern_that_matches_one_table_names_that_table(tmp_path: Path) -> None:
    """inputs/p3_pathlib: ``find_csv('train*.csv')`` matching only data/train.csv was refused,
    "reads its rows through the pattern 'train*.csv' (1 files: data/train.csv) ... join them
    into one file"."""
    _data(tmp_path)
    task = task_from_notebook(_notebook(*HELPERS), tmp_path, "nb.ipynb")
    assert task.target == "target"
    assert [f.path for f in task.train_files] == ["train.csv"]
    assert [f.path for f in task.test_files] == ["test.csv"]
    assert task.input_dir == (tmp_path / "data").resolve()


def test_a_pattern_that_matches_several_tables_still_asks_to_join_them(tmp_path: Path) -> None:
    _data(tmp_path, parts=3)
    with pytest.raises(NotebookTaskError, match=r"pattern 'train\*\.csv' \(3 files"):
        task_from_notebook(_notebook(*HELPERS), tmp_path, "nb.ipynb")


def test_a_folder_a_helper_joins_to_the_pattern_it_is_given_is_pointed_at_input(
    tmp_path: Path,
) -> None:
    """inputs/p3_pathlib: the pattern given to the notebook's own ``find_csv`` became
    ``input/train*.csv`` while ``DATA_DIR = ROOT / 'data'`` stayed, so the run globbed
    ``data/input/train*.csv`` and the notebook stopped: "AssertionError: no file for
    input/train*.csv".  The folder is pointed at ``input`` and the pattern stays as written."""
    data = _data(tmp_path)
    out, changes = point_to_input(_notebook(*HELPERS), data)
    first, helpers = out.code_blocks[0].source, out.code_blocks[1].source
    assert "DATA_DIR = ROOT / 'input'" in first
    assert "find_csv('train*.csv')" in helpers and "find_csv('test*.csv')" in helpers
    assert [(c.old, c.new) for c in changes] == [("data", "input")]
    # as a run reads it: the pattern under ./input finds the table
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "input").symlink_to(data)
    found = list((tmp_path / "run").glob("input/train*.csv"))
    assert [p.name for p in found] == ["train.csv"]
    assert len(pd.read_csv(found[0])) == 450
