"""A task folder whose description.md states Kaggle House Prices' metric as the competition page
does, with no "Evaluation" heading: "Root-Mean-Squared-Error (RMSE) between the logarithm of the
predicted value and the logarithm of the observed sales price" is RMSLE (hunt H).  The name the
registry finds first ("RMSE") was taken, so the run optimised and graded the RMSE of prices."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.infer import metric_from_text

HOUSE_PRICES = (
    "# House Prices\n\nSubmissions are evaluated on Root-Mean-Squared-Error (RMSE) between the "
    "logarithm of the predicted value and the logarithm of the observed sales price.\n"
)


def test_the_house_prices_sentence_is_rmsle(tmp_path: Path) -> None:
    (tmp_path / "description.md").write_text(HOUSE_PRICES)
    rows = pd.DataFrame({"Id": range(1, 41), "LotArea": range(40), "SalePrice": range(100, 140)})
    rows.iloc[:30].to_csv(tmp_path / "train.csv", index=False)
    rows.iloc[30:].drop(columns="SalePrice").to_csv(tmp_path / "test.csv", index=False)
    task = load_task(tmp_path)
    assert (task.metric_name, task.direction) == ("rmsle", "minimize")


@pytest.mark.parametrize(
    ("text", "metric"),
    [
        ("Submissions are scored by the root mean squared error (RMSE).", "rmse"),
        ("We use RMSE. Lower is better.", "rmse"),
        ("Submissions are evaluated on the Root Mean Squared Logarithmic Error (RMSLE).", "rmsle"),
        ("The metric is accuracy, the percentage of passengers you correctly predict.", "accuracy"),
    ],
)
def test_plain_names_are_read_as_before(tmp_path: Path, text: str, metric: str) -> None:
    assert metric_from_text(tmp_path, text)[0] == metric
