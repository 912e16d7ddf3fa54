"""Hunt, session 24: tables written with pandas' default ``df.to_csv(path)`` carry the row index
under a blank header, read back as ``Unnamed: 0``.  The training table was sorted by class, so
the index alone scored a validation accuracy of 1.0; on the test rows (0..43) every row got one
class (accuracy 0.364, below the majority class).  Such a column is now left out of the
features, and the run says so at its start."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from sklearn.datasets import load_wine

from mlestar_jupyter.agent.config import RunConfig
from mlestar_jupyter.offline import OfflinePolicy
from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.layout import inspect_task
from mlestar_jupyter.task.layout.checks import data_notes


def _wine(root: Path) -> Path:
    frame = load_wine(as_frame=True).frame.rename(columns={"target": "cultivar"})
    frame.insert(0, "Id", range(1000, 1000 + len(frame)))
    test = frame.sample(44, random_state=0)
    train = frame.drop(test.index)  # sorted by class, as load_wine gives it
    inp = root / "input"
    inp.mkdir(parents=True)
    train.to_csv(inp / "train.csv")  # the index saved: "Unnamed: 0"
    test.drop(columns="cultivar").reset_index(drop=True).to_csv(inp / "test.csv")
    (root / "task.json").write_text(
        json.dumps({"goal": "cultivar", "metric": "accuracy", "target_col": "cultivar"})
    )
    return root


def test_a_saved_row_index_is_no_feature(tmp_path: Path) -> None:
    task = load_task(_wine(tmp_path / "w"))
    layout = inspect_task(task)
    assert layout.index_cols == ("Unnamed: 0",)
    assert any(
        "'Unnamed: 0' is a row index saved with the table" in n for n in data_notes(task, layout)
    )
    policy = OfflinePolicy(task, RunConfig())
    nb = policy.init_solution(policy.retrieve(1)[0])
    code = "\n".join(b.source for b in nb.code_blocks)
    assert '"Unnamed: 0"' in code.split("X = train_df.drop(columns=")[1].splitlines()[0]


def test_a_named_counter_stays_a_feature(tmp_path: Path) -> None:
    root = _wine(tmp_path / "n")
    for name in ("train.csv", "test.csv"):
        path = root / "input" / name
        pd.read_csv(path).rename(columns={"Unnamed: 0": "batch"}).to_csv(path, index=False)
    assert inspect_task(load_task(root)).index_cols == ()
