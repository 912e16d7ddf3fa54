"""Hunt, session 24: several visits per patient (``patient_id``), the test rows new patients.
The run validated on shuffled rows (k-folded), so every patient's other visits were in the
training folds: validation RMSE 26, held-out 61 (a Ridge: 56).  Such a key now holds whole
groups out, the rows are never k-folded, and the key is no feature."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from mlestar_jupyter.agent.config import RunConfig
from mlestar_jupyter.agent.scoring import make_split
from mlestar_jupyter.offline import OfflinePolicy
from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.layout import inspect_task
from mlestar_jupyter.task.layout.checks import data_notes


def _visits(root: Path, new_patients: bool = True) -> Path:
    rng = np.random.default_rng(0)
    rows = []
    for patient in range(150):
        base = rng.normal(0, 1, 3)
        for visit in range(int(rng.integers(2, 6))):
            x = base + rng.normal(0, 0.05, 3)
            rows.append((f"P{patient:03d}", visit, *x, base.sum() * 10 + rng.normal(0, 1)))
    frame = pd.DataFrame(rows, columns=["patient_id", "visit", "a", "b", "c", "Y"])
    frame.insert(0, "id", range(len(frame)))
    test_ids = frame["patient_id"].isin([f"P{p:03d}" for p in range(120, 150)])
    if not new_patients:
        test_ids = pd.Series(rng.random(len(frame)) < 0.2)
    inp = root / "input"
    inp.mkdir(parents=True)
    frame[~test_ids].to_csv(inp / "train.csv", index=False)
    frame[test_ids].drop(columns="Y").to_csv(inp / "test.csv", index=False)
    (root / "task.json").write_text(
        json.dumps({"goal": "Y", "metric": "rmse", "target_col": "Y", "id_col": "id"})
    )
    return root


def test_new_patients_are_validated_on_whole_patients_held_out(tmp_path: Path) -> None:
    task = load_task(_visits(tmp_path / "g"))
    layout = inspect_task(task)
    assert layout.group_col == "patient_id"
    assert any("'patient_id' is no feature" in n for n in data_notes(task, layout))
    split = make_split(task, layout, seed=0, max_rows=30_000, kfold_rows=2_000)
    assert split is not None and split.every_row is None  # never k-folded
    train = pd.read_csv(task.input_dir / "train.csv")
    held = set(train["patient_id"].iloc[list(split.rows)])
    rest = set(train["patient_id"].drop(index=list(split.rows)))
    assert held and not held & rest  # whole patients
    assert 0.15 <= len(split.rows) / len(train) <= 0.3
    policy = OfflinePolicy(task, RunConfig())
    nb = policy.init_solution(policy.retrieve(1)[0])
    code = "\n".join(b.source for b in nb.code_blocks)
    assert '"patient_id"' in code.split("X = train_df.drop(columns=")[1].splitlines()[0]


def test_visits_of_the_same_patients_in_test_are_no_groups(tmp_path: Path) -> None:
    task = load_task(_visits(tmp_path / "s", new_patients=False))
    assert inspect_task(task).group_col is None
