"""Series stored long in ``train.csv`` / ``test.csv`` themselves (``machine_id,step,vibration``:
100 rows per machine) with one number per series in ``train_targets.csv`` (``machine_id,rpm``)
and no sample submission (hunt K s_reg_long, RMSE).  ``train.csv`` was taken for the training
table, which lacks ``rpm``, so the folder was refused: "sample_submission.csv missing and the
description names no 'Target: <column>' line"."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.layout import inspect_task

README = (
    "# Machine speed from vibration\n\n`train.csv` and `test.csv` are long tables "
    "`machine_id,step,vibration` (24 steps per machine).\n`train_targets.csv` gives each "
    "training machine's `rpm`. Predict `rpm` for every machine in `test.csv`.\n\nMetric: RMSE. "
    "Submit `machine_id,rpm`.\n"
)


def _long(ids: list[str], freqs: np.ndarray, rs: np.random.RandomState) -> pd.DataFrame:
    rows = []
    for s, f in zip(ids, freqs, strict=True):
        rows += [(s, t, float(np.sin(2 * np.pi * f * t) + 0.2 * rs.randn())) for t in range(24)]
    return pd.DataFrame(rows, columns=["machine_id", "step", "vibration"])


def _folder(root: Path) -> Path:
    rs = np.random.RandomState(0)
    root.mkdir(parents=True)
    (root / "README.md").write_text(README)
    ids = [f"m{k:03d}" for k in range(30)]
    f = rs.uniform(0.02, 0.2, 30)
    _long(ids[:24], f[:24], rs).to_csv(root / "train.csv", index=False)
    _long(ids[24:], f[24:], rs).to_csv(root / "test.csv", index=False)
    pd.DataFrame({"machine_id": ids[:24], "rpm": f[:24] * 6000}).to_csv(
        root / "train_targets.csv", index=False
    )
    return root


def test_the_table_of_targets_is_the_training_table(tmp_path: Path) -> None:
    task = load_task(_folder(tmp_path / "machines"))
    assert (task.id_col, task.target_cols, task.metric_name) == ("machine_id", ("rpm",), "rmse")
    layout = inspect_task(task)
    assert (layout.modality, layout.task_type, layout.label_col) == (
        "time_series",
        "regression",
        "rpm",
    )
    assert layout.train_table == "train_targets.csv"
    assert layout.long_series == ("train.csv", "test.csv")


def test_a_long_table_beside_a_table_of_its_own_rows_stays_the_training_table(
    tmp_path: Path,
) -> None:
    # train_meta.csv keyed by another column than the training table's first is left alone
    root = tmp_path / "shop"
    root.mkdir()
    (root / "README.md").write_text("# Sales\n\nPredict `sales`.\n\nMetric: RMSE\n")
    pd.DataFrame({"store": [1, 1, 2, 2], "day": [1, 2, 1, 2], "sales": [3, 4, 5, 6]}).to_csv(
        root / "train.csv", index=False
    )
    pd.DataFrame({"store": [1, 2], "day": [3, 3]}).to_csv(root / "test.csv", index=False)
    pd.DataFrame({"shop": [1, 2], "size": [10, 20]}).to_csv(root / "train_meta.csv", index=False)
    task = load_task(root)
    assert task.target_cols == ("sales",)
    assert next(f.path for f in task.files if f.role == "train") == "train.csv"
