"""A notebook predicting several columns, read as a task (no task.json): its targets are the
training table's columns the test table lacks, each named in its code.

Hunt J (session 31): a ``MultiOutputRegressor`` notebook on sklearn's Linnerud data
(``targets = ['Weight', 'Waist', 'Pulse']``, ``Y = train[targets]``) was refused before the run:
"which of its columns it predicts is not clear (columns: id, Chins, ..., Pulse)"."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pandas as pd
import pytest
from sklearn.datasets import load_linnerud

from mlestar_jupyter.importer.notebook_task import NotebookTaskError, task_from_notebook
from mlestar_jupyter.notebook import SolutionNotebook
from mlestar_jupyter.task.layout import inspect_task

CELLS = [
    "import pandas as pd\nfrom sklearn.multioutput import MultiOutputRegressor\n"
    "from sklearn.linear_model import Ridge\nfrom sklearn.model_selection import cross_val_score",
    "train = pd.read_csv('train.csv')\ntest = pd.read_csv('test.csv')\n"
    "targets = ['Weight', 'Waist', 'Pulse']\nX = train[['Chins', 'Situps', 'Jumps']]\n"
    "Y = train[targets]",
    "model = MultiOutputRegressor(Ridge(alpha=10.0))\n"
    "print(-cross_val_score(model, X, Y, cv=4, scoring='neg_mean_absolute_error').mean())",
    "model.fit(X, Y)\nsub = pd.DataFrame(model.predict(test[X.columns]), columns=targets)\n"
    "sub.insert(0, 'id', test['id'].values)\nsub.to_csv('submission.csv', index=False)",
]


def _folder(tmp_path: Path, cells: list[str]) -> SolutionNotebook:
    data = load_linnerud(as_frame=True)
    df = pd.concat([data.data, data.target], axis=1)
    df.insert(0, "id", range(100, 100 + len(df)))
    df.iloc[:15].to_csv(tmp_path / "train.csv", index=False)
    df.iloc[15:].drop(columns=list(data.target.columns)).to_csv(tmp_path / "test.csv", index=False)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    nbformat.write(nb, tmp_path / "nb.ipynb")
    return SolutionNotebook.read(tmp_path / "nb.ipynb")


def test_the_columns_a_notebook_predicts_together_are_its_targets(tmp_path: Path) -> None:
    task = task_from_notebook(_folder(tmp_path, CELLS), tmp_path, "nb.ipynb")
    assert task.target_cols == ("Weight", "Waist", "Pulse")
    assert (task.metric_name, task.task_type) == ("mae", "regression")
    assert "targets 'Weight', 'Waist', 'Pulse'" in task.notices[0]
    layout = inspect_task(task)
    assert layout.submission_kind == "multi_target" and layout.id_col == "id"


def test_columns_the_code_does_not_name_are_no_targets(tmp_path: Path) -> None:
    """Only ``Weight`` named (a plain ``train.iloc`` for the rest): which it predicts is not
    clear, as before."""
    cells = [
        c.replace("targets = ['Weight', 'Waist', 'Pulse']", "targets = train.columns[-3:]")
        for c in CELLS
    ]
    cells[1] += "\nprint(train['Weight'].mean())"
    with pytest.raises(NotebookTaskError, match="which of its columns it predicts is not clear"):
        task_from_notebook(_folder(tmp_path, cells), tmp_path, "nb.ipynb")
