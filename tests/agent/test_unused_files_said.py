"""A table no solution reads is said to the user (hunt F, session 28): a ``transactions.csv``
of many rows per customer held the signal, was left out, and only the journal's
``data_usage`` event said so (AUC 0.48 against 0.93 for per-customer aggregates)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from mlestar_jupyter.agent.run import RunOutcome
from mlestar_jupyter.journal import RunJournal


def test_a_table_of_many_rows_per_key_left_out_is_said(
    tmp_path: Path, short_run: Callable[..., RunOutcome]
) -> None:
    rng = np.random.default_rng(0)
    n = 300
    customers = pd.DataFrame({"customer_id": range(n), "age": rng.integers(18, 80, n)})
    spend = rng.gamma(2.0, 50.0, n)
    customers["churn"] = (spend < np.median(spend)).astype(int)
    tx = pd.DataFrame(
        {
            "customer_id": np.repeat(range(n), 5),
            "amount": np.repeat(spend, 5) * rng.uniform(0.8, 1.2, 5 * n),
        }
    )
    inp = tmp_path / "task" / "input"
    inp.mkdir(parents=True)
    customers.iloc[:240].to_csv(inp / "train.csv", index=False)
    customers.iloc[240:].drop(columns="churn").to_csv(inp / "test.csv", index=False)
    customers.iloc[240:][["customer_id"]].assign(churn=0.5).to_csv(
        inp / "sample_submission.csv", index=False
    )
    tx.to_csv(inp / "transactions.csv", index=False)
    (inp / "NOTES.txt").write_text("exported 2024-05-01\n")  # no data: not said
    (tmp_path / "task" / "description.md").write_text(
        "# Churn\n\nPredict whether a customer churns.\n\n## Evaluation\n\nArea under the ROC curve.\n"
    )
    out = short_run(tmp_path / "task")
    said = [
        e.data["message"]
        for e in RunJournal.open(out.run_dir).events
        if e.type == "warning" and e.key == "data/unused"
    ]
    assert len(said) == 1 and "transactions.csv" in said[0] and "aggregates" in said[0], said
    assert "NOTES.txt" not in said[0]
