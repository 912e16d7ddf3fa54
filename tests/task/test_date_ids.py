"""A table whose id is a date (a forecast's rows named by their month, Kaggle's bike rentals by
their hour): the date is a feature too.  Before, a ``date,value`` series with a ``date,value``
sample was read with ``date`` as its id and no feature at all (X of shape (216, 0)): every month
was predicted 48.88, test MAE 6.76 against 2.02 now (an outsider's Nottingham temperatures)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.layout import inspect_task

from .first_notebook import features_scope


def _monthly(root: Path) -> Path:
    months = pd.date_range("1920-01-01", periods=240, freq="MS")
    value = 50 + 10 * np.sin(2 * np.pi * (months.month - 4) / 12)
    frame = pd.DataFrame({"date": months.strftime("%Y-%m-%d"), "value": value.round(1)})
    inp = root / "input"
    inp.mkdir(parents=True)
    frame.iloc[:216].to_csv(inp / "train.csv", index=False)
    frame.iloc[216:][["date"]].to_csv(inp / "test.csv", index=False)
    frame.iloc[216:].assign(value=0.0).to_csv(inp / "sample_submission.csv", index=False)
    (root / "description.md").write_text(
        "# Temperatures\nForecast the monthly mean.\n\nMetric: MAE\n"
    )
    return root


def test_a_date_id_is_a_feature_too(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    task = load_task(_monthly(tmp_path / "t"))
    layout = inspect_task(task)
    assert layout.id_col == "date" and layout.date_cols == ("date",)
    scope = features_scope(task, monkeypatch)
    assert list(scope["X"].columns) == ["date"] and len(scope["test_ids"]) == 24
    features = scope["add_features"](scope["X"].copy())  # the features block's date parts
    assert {"date_month", "date_year", "date_days"} <= set(features.columns)
