"""An old ``submission.csv`` lying beside the tables (hunt of session 32): one written for
another task (``PassengerId,Survived``) beside wine tables and a README saying "Target:
quality" was taken as the sample submission, so the task's target became ``Survived`` and its
id ``PassengerId``.  A file named as a sample whose columns fit neither the test table's id nor
the target is left an extra file, and a notice says so."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.layout import inspect_task


def _wine(root: Path) -> None:
    rs = np.random.RandomState(0)
    df = pd.DataFrame({"wine_id": range(40), "alcohol": rs.rand(40) + 11, "ash": rs.rand(40)})
    df["quality"] = rs.randint(3, 9, 40)
    df.iloc[:30].to_csv(root / "train.csv", index=False)
    df.iloc[30:].drop(columns="quality").to_csv(root / "test.csv", index=False)
    titanic = pd.DataFrame({"PassengerId": range(892, 892 + 418), "Survived": 0})
    titanic.to_csv(root / "submission.csv", index=False)  # last week's Kaggle homework


def test_old_submission_beside_a_readme(tmp_path: Path) -> None:
    _wine(tmp_path)
    (tmp_path / "README.md").write_text("# Wine quality\n\nTarget: quality\n\nMetric: RMSE\n")
    task = load_task(tmp_path)
    assert (task.target_cols, task.id_col, task.sample_submission) == (
        ("quality",),
        "wine_id",
        None,
    )
    assert any("submission.csv ('PassengerId,Survived') is not read" in n for n in task.notices)
    assert inspect_task(task).label_col == "quality"


def test_old_submission_beside_a_task_json(tmp_path: Path) -> None:
    _wine(tmp_path)
    (tmp_path / "task.json").write_text(
        json.dumps(
            {
                "task_id": 187,
                "target_feature": "quality",
                "evaluation_measure": "root_mean_squared_error",
            }
        )
    )
    task = load_task(tmp_path)
    assert task.target_cols == ("quality",)
    assert task.sample_submission is None
    assert any("is not read as the sample submission" in n for n in task.notices)


def test_a_sample_of_class_columns_for_rows_in_order_is_kept(tmp_path: Path) -> None:
    """One column per class, the test rows anonymous: no column fits by name, but the sample
    has a row per test row, so it is the sample."""
    rs = np.random.RandomState(1)
    df = pd.DataFrame({"alcohol": rs.rand(40) + 11, "ash": rs.rand(40)})
    df["cultivar"] = rs.choice(["barolo", "grignolino", "barbera"], 40)
    df.iloc[:30].to_csv(tmp_path / "train.csv", index=False)
    df.iloc[30:].drop(columns="cultivar").to_csv(tmp_path / "test.csv", index=False)
    sample = pd.DataFrame(
        {"row": range(10), "barbera": 1 / 3, "barolo": 1 / 3, "grignolino": 1 / 3}
    )
    sample.to_csv(tmp_path / "sample_submission.csv", index=False)
    (tmp_path / "README.md").write_text("# Wine\n\nTarget: cultivar\n\nMetric: log loss\n")
    task = load_task(tmp_path)
    assert task.sample_submission is not None
    assert task.target_cols == ("barbera", "barolo", "grignolino")
