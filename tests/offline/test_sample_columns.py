"""A sample submission whose columns are not as the test table names them (hunt, session 22):
its id last (``progression,id``: the id was taken by position, the targets became ``id``), or
its id under another name than the test table's (``id`` for ``pid``, ``ID`` for ``Id``: every
candidate wrote a file without ids, and the run handed in a constant).  The sample's id is now
the column the test table holds too, the notebooks read the ids from the test table's own
column, and the submission keeps the sample's column order."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from inprocess import exec_notebook
from sklearn.datasets import load_diabetes

from mlestar_jupyter.agent.config import RunConfig
from mlestar_jupyter.offline import OfflinePolicy
from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.layout import inspect_task


def _folder(root: Path, test_id: str, sample_cols: list[str]) -> Path:
    frame = load_diabetes(as_frame=True, scaled=False).frame.rename(
        columns={"target": "progression"}
    )
    frame.insert(0, test_id, range(460, 460 + len(frame)))
    inp = root / "input"
    inp.mkdir(parents=True)
    frame.iloc[:350].to_csv(inp / "train.csv", index=False)
    frame.iloc[350:].drop(columns="progression").to_csv(inp / "test.csv", index=False)
    sample_id = next(c for c in sample_cols if c != "progression")
    sample = pd.DataFrame({sample_id: frame[test_id].iloc[350:], "progression": 0.0})
    sample[sample_cols].to_csv(inp / "sample_submission.csv", index=False)
    (root / "description.md").write_text("# Progression\nPredict it. Metric: MAE\n")
    return root


@pytest.mark.parametrize(
    ("test_id", "sample_cols", "read_from"),
    [
        ("id", ["progression", "id"], None),  # the id last
        ("pid", ["id", "progression"], "pid"),  # another name
        ("Id", ["ID", "progression"], "Id"),  # another letter case
    ],
)
def test_the_sample_s_ids_are_found_in_the_test_table_and_its_order_kept(
    tmp_path: Path, test_id: str, sample_cols: list[str], read_from: str | None
) -> None:
    root = _folder(tmp_path / "t", test_id, sample_cols)
    task = load_task(root)
    sample_id = next(c for c in sample_cols if c != "progression")
    assert task.id_col == sample_id and task.target_cols == ("progression",)
    layout = inspect_task(task)
    assert layout.id_col == sample_id and layout.test_id_col == read_from
    policy = OfflinePolicy(task, RunConfig())
    nb = policy.make_submission(policy.init_solution(policy.retrieve(1)[0]))
    scope, _ = exec_notebook(nb, root, tmp_path / "run")
    assert test_id not in scope["X"].columns  # an id is no feature, under either name
    sub = pd.read_csv(tmp_path / "run" / "final" / "submission.csv")
    assert list(sub.columns) == sample_cols
    assert sub[sample_id].tolist() == list(range(810, 902))
    assert sub["progression"].nunique() > 50


@pytest.mark.parametrize(
    ("copy", "read_from"),
    [
        ("patient", "pid"),  # a copy of the ids under another name: the one named with "id"
        ("pid_copy", "pid"),  # two named with "id", the same values: the first
    ],
)
def test_two_test_columns_holding_the_sample_s_ids(
    tmp_path: Path, copy: str, read_from: str
) -> None:
    """Two columns of the test table hold the sample's ids (an id and a copy of it): none was
    taken, and every candidate's file lacked the ids."""
    root = _folder(tmp_path / "t", "pid", ["id", "progression"])
    for name in ("train.csv", "test.csv"):
        table = pd.read_csv(root / "input" / name)
        table.insert(1, copy, table["pid"])
        table.to_csv(root / "input" / name, index=False)
    layout = inspect_task(load_task(root))
    assert layout.test_id_col == read_from


def test_a_test_table_without_ids_takes_the_sample_s_in_row_order(tmp_path: Path) -> None:
    """Kaggle's Digit Recognizer shape (hunt, session 23): the test table holds no id, the
    sample numbers its rows ``ImageId`` 1, 2, ...; every candidate wrote ``Label`` alone, and a
    constant was handed in with status ``done`` (held-out accuracy 0.36, the best validation
    0.985)."""
    root = _folder(tmp_path / "t", "id", ["id", "progression"])
    inp = root / "input"
    test = pd.read_csv(inp / "test.csv").drop(columns="id")
    test.to_csv(inp / "test.csv", index=False)
    pd.DataFrame({"ImageId": range(1, len(test) + 1), "Label": 0.0}).to_csv(
        inp / "sample_submission.csv", index=False
    )
    train = (
        pd.read_csv(inp / "train.csv").drop(columns="id").rename(columns={"progression": "Label"})
    )
    train.to_csv(inp / "train.csv", index=False)
    task = load_task(root)
    layout = inspect_task(task)
    assert layout.id_col == "ImageId" and layout.ids_in_sample
    policy = OfflinePolicy(task, RunConfig())
    nb = policy.make_submission(policy.init_solution(policy.retrieve(1)[0]))
    exec_notebook(nb, root, tmp_path / "run")
    sub = pd.read_csv(tmp_path / "run" / "final" / "submission.csv")
    assert list(sub.columns) == ["ImageId", "Label"]
    assert sub["ImageId"].tolist() == list(range(1, len(test) + 1))
    assert sub["Label"].nunique() > 50
    # a sample of other rows than the test table's: its ids do not name them
    pd.DataFrame({"ImageId": range(1, 11), "Label": 0.0}).to_csv(
        inp / "sample_submission.csv", index=False
    )
    assert not inspect_task(load_task(root)).ids_in_sample
