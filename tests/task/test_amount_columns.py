"""Numbers written as text: an export's money column (``$5,662.50``), counts with thousands
separators (``1,234``), shares with a percent sign (``12.5%``), an accountant's ``(300.00)``.
An outsider's insurance table (hunt, session 22) had its target ``Claim Amount`` read as 214
classes graded by accuracy; as a feature such a column was a category with a level per row."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_diabetes

from mlestar_jupyter.importer.dataset_task import Dataset, holdout_task
from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.layout import inspect_task
from mlestar_jupyter.task.layout.columns import amount_columns, amounts

from .first_notebook import features_scope


def test_amount_columns_are_numbers_with_signs_or_separators_and_nothing_else() -> None:
    frame = pd.DataFrame(
        {
            "money": ["$5,662.50", "$2,812.50", "(300.00)", "n/a", "$1"],
            "share": ["12.5%", "3%", "100%", "0%", None],
            "euros": ["€ 1,200", "€ 950", "-€ 20", "€ 0", "€ 3,000,000"],
            "plain": ["1", "2", "3", "4", "5"],  # read as text, but nothing marks it
            "decimal_comma": ["1,2", "3,5", "4", "5", "6"],  # not thousands
            "bands": ["5-9", "10-14", "65+", "1", "2"],
            "words": ["a", "b", "c", "d", "e"],
        }
    )
    assert amount_columns(frame, exclude={"euros"}) == ("money", "share")
    assert amounts(frame["money"]).tolist()[:3] == [5662.5, 2812.5, -300.0]
    assert np.isnan(amounts(frame["money"]).iloc[3])
    assert amounts(frame["euros"]).tolist() == [1200.0, 950.0, -20.0, 0.0, 3_000_000.0]


def _claims(root: Path) -> Path:
    """Diabetes as an insurer's competition folder: the income a money column, the id last."""
    frame = load_diabetes(as_frame=True, scaled=False).frame
    frame["income"] = [f"${v:,.2f}" for v in 20_000 + 300 * frame["bmi"] ** 1.5]
    frame["claim_id"] = range(len(frame))
    inp = root / "input"
    inp.mkdir(parents=True)
    frame.iloc[:350].to_csv(inp / "train.csv", index=False)
    frame.iloc[350:].drop(columns="target").to_csv(inp / "test.csv", index=False)
    frame.iloc[350:][["claim_id", "target"]].to_csv(inp / "sample_submission.csv", index=False)
    (root / "description.md").write_text("# Claims\nPredict the target.\n\nMetric: RMSE\n")
    return root


def test_a_money_feature_becomes_its_numbers_in_the_notebook(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    task = load_task(_claims(tmp_path / "claims"))
    layout = inspect_task(task)
    assert layout.amount_cols == ("income",) and "income" not in layout.high_card_cols
    scope = features_scope(task, monkeypatch)
    assert not pd.api.types.is_numeric_dtype(scope["X"]["income"])  # as read: text
    features = scope["add_features"](scope["X"].copy())
    want = pd.read_csv(task.input_dir / "train.csv")["income"].str.replace(r"[$,]", "", regex=True)
    assert features["income"].dtype == float
    assert np.allclose(features["income"], want.astype(float))


def test_a_dataset_target_of_amounts_is_a_regression_of_their_numbers(tmp_path: Path) -> None:
    frame = load_diabetes(as_frame=True, scaled=False).frame
    frame["Claim Amount"] = [f"${v * 37.5:,.2f}" for v in frame.pop("target")]
    table = tmp_path / "claims.csv"
    frame.to_csv(table, index=False)
    held = holdout_task(Dataset(table, None, "claims"), tmp_path / "task", target="Claim Amount")
    task = load_task(held.root)
    assert task.task_type == "regression" and task.metric_name == "rmse"
    assert any("numbers written as text ($" in n for n in held.notices)
    train = pd.read_csv(held.root / "input" / "train.csv")
    assert train["Claim Amount"].dtype == float and train["Claim Amount"].min() > 0
