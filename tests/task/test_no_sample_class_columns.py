"""A task.json from another author: three-class log loss and no sample submission.  The
submission had one column, the catalog notebooks wrote the second class's probability in it, and
the run scored its candidates on that (validation log loss 0.50 where the same models score 0.05).
Without a sample, a probability metric of more than two classes now asks for one column per
class, everywhere: the data layout, the run's submission check and its value check."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from sklearn.datasets import load_wine

from mlestar_jupyter.agent.submission import submission_problems, value_spec
from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.layout import inspect_task
from mlestar_jupyter.task.layout.tables import class_probability_columns


def _wine(root: Path, metric: str, classes: int = 3, with_id: bool = True) -> Path:
    df = load_wine(as_frame=True).frame.sample(frac=1.0, random_state=0)
    df = df[df.target < classes]
    if with_id:
        df.insert(0, "ID", range(len(df)))
    (root / "input").mkdir(parents=True)
    df.iloc[:100].to_csv(root / "input" / "train.csv", index=False)
    df.iloc[100:].drop(columns="target").to_csv(root / "input" / "test.csv", index=False)
    spec = {"goal": "cultivar", "metric": metric, "target_col": "target"}
    if with_id:
        spec["id_col"] = "ID"
    (root / "task.json").write_text(json.dumps(spec))
    return root


def test_three_classes_and_log_loss_ask_for_a_column_per_class(tmp_path: Path) -> None:
    task = load_task(_wine(tmp_path / "w", "log loss"))
    assert class_probability_columns(task) == ("0", "1", "2")
    layout = inspect_task(task)
    assert layout.submission_kind == "proba_columns" and layout.target_cols == ("0", "1", "2")
    spec = value_spec(task)
    assert spec is not None and spec.mode == "proba_columns"
    test = pd.read_csv(task.input_dir / "test.csv")
    good = pd.DataFrame({"ID": test.ID, "0": 0.2, "1": 0.3, "2": 0.5})
    good.to_csv(tmp_path / "good.csv", index=False)
    assert submission_problems(task, tmp_path / "good.csv") == []
    one = pd.DataFrame({"ID": test.ID, "target": 0.5})  # what the notebooks wrote before
    one.to_csv(tmp_path / "one.csv", index=False)
    assert "missing column(s) ['0', '1', '2']" in submission_problems(task, tmp_path / "one.csv")[0]


@pytest.mark.parametrize(("metric", "classes"), [("accuracy", 3), ("log loss", 2)])
def test_labels_or_two_classes_keep_one_column(tmp_path: Path, metric: str, classes: int) -> None:
    task = load_task(_wine(tmp_path / "w", metric, classes))
    assert class_probability_columns(task) is None
    assert inspect_task(task).target_cols == ("target",)


def test_without_an_id_every_class_column_is_checked(tmp_path: Path) -> None:
    """No id column either: the first class column was taken for the id, and its values went
    unchecked (a label in it passed)."""
    task = load_task(_wine(tmp_path / "w", "log loss", with_id=False))
    assert task.id_col is None
    spec = value_spec(task)
    assert spec is not None and spec.pred_cols == ("0", "1", "2")
    rows = len(pd.read_csv(task.input_dir / "test.csv"))
    good = pd.DataFrame({"0": [0.2] * rows, "1": 0.3, "2": 0.5})
    good.to_csv(tmp_path / "good.csv", index=False)
    assert submission_problems(task, tmp_path / "good.csv", spec) == []
    bad = good.assign(**{"0": "class_0"})  # a label where a probability belongs
    bad.to_csv(tmp_path / "bad.csv", index=False)
    assert submission_problems(task, tmp_path / "bad.csv", spec) != []
