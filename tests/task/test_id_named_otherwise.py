"""Row ids named neither ``id`` nor ``..._id`` (hunt of session 32): OpenML's row id ``rid``
beside a task.json of ``target_feature`` / ``evaluation_measure``, and a pandas index saved as
a column (``reset_index()`` writes ``index``) beside a README's ``Target:`` line, were read as
features and the submission was the target alone in row order; they are the submission's id."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.layout import inspect_task


def _cells(n: int = 40) -> pd.DataFrame:
    rs = np.random.RandomState(0)
    df = pd.DataFrame({"Clump_Thickness": rs.randint(1, 10, n), "Cell_Size": rs.randint(1, 10, n)})
    df["Class"] = np.where(df.Cell_Size > 5, "malignant", "benign")
    return df


def test_openml_rid_is_the_id(tmp_path: Path) -> None:
    df = _cells()
    df.insert(0, "rid", range(1, len(df) + 1))
    df.iloc[:30].to_csv(tmp_path / "train.csv", index=False)
    df.iloc[30:].drop(columns="Class").to_csv(tmp_path / "test.csv", index=False)
    (tmp_path / "task.json").write_text(
        json.dumps(
            {
                "task_id": 15,
                "task_type": "Supervised Classification",
                "target_feature": "Class",
                "evaluation_measure": "predictive_accuracy",
                "estimation_procedure": "holdout",
            }
        )
    )
    task = load_task(tmp_path)
    assert (task.id_col, task.target_cols) == ("rid", ("Class",))
    assert inspect_task(task).id_col == "rid"


def test_saved_pandas_index_beside_a_target_line_is_the_id(tmp_path: Path) -> None:
    df = _cells()
    df.iloc[:30].reset_index().to_csv(tmp_path / "train.csv", index=False)
    test = df.iloc[30:].drop(columns="Class").reset_index()
    test[["Clump_Thickness", "Cell_Size", "index"]].to_csv(tmp_path / "test.csv", index=False)
    (tmp_path / "README.md").write_text(
        "# Breast cancer (Wisconsin)\n\nTarget: Class\n\nMetric: accuracy\n"
    )
    task = load_task(tmp_path)
    assert task.id_col == "index"
    assert any("the submission is 'index,Class'" in n for n in task.notices)
    layout = inspect_task(task)
    assert layout.id_col == "index"
