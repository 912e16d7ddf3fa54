"""The last rung of the final ladder on an outsider's folder whose sample submission has one
column (``id,cultivar``) while its metric is log loss of three cultivars: the prior-only baseline
copied the sample's shape and wrote one number per row, which the run's own check (one column
per class, ``class_submission``) refuses, so the run ended with no valid file.  It now writes the
sample's ids with one probability column per class, the training prior, and the grader scores it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_wine
from sklearn.metrics import log_loss

from mlestar_jupyter.agent.config import Budget, RunConfig
from mlestar_jupyter.agent.run import run_mlestar
from mlestar_jupyter.evaluator import grade_submission
from mlestar_jupyter.execution import Executor
from mlestar_jupyter.journal import RunJournal
from mlestar_jupyter.notebook import SolutionNotebook
from mlestar_jupyter.task import load_task

from .scripted_policy import ScriptedPolicy

pytestmark = pytest.mark.slow

LOAD = """import pandas as pd
from sklearn.model_selection import train_test_split
df = pd.read_csv("input/train.csv")
X = df.drop(columns=["id", "cultivar"])
y = df["cultivar"]
X_tr, X_val, y_tr, y_val = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)"""

MODEL = """from sklearn.dummy import DummyClassifier
model = DummyClassifier(strategy="prior").fit(X_tr, y_tr)"""

EVAL = """from sklearn.metrics import log_loss
print(f"Final Validation Performance: {log_loss(y_val, model.predict_proba(X_val)):.6f}")"""


class NoFilePolicy(ScriptedPolicy):
    """One model whose final notebook writes no submission: the ladder ends on the baseline."""

    def retrieve(self, m):  # type: ignore[no-untyped-def]
        return super().retrieve(1)

    def init_solution(self, card):  # type: ignore[no-untyped-def]
        return SolutionNotebook.new(
            [("load", LOAD), ("model", MODEL), ("evaluate", EVAL)], origin=card.name
        )

    def make_submission(self, solution):  # type: ignore[no-untyped-def]
        return solution

    def debug(self, solution, error, failed_block):  # type: ignore[no-untyped-def]
        return solution


def _wine(root: Path) -> pd.DataFrame:
    df = load_wine(as_frame=True).frame.rename(columns={"target": "cultivar"})
    df.insert(0, "id", range(len(df)))
    df = df.sample(frac=1.0, random_state=0)
    train, test = df.iloc[:130], df.iloc[130:]
    root.mkdir(parents=True)
    train.to_csv(root / "train.csv", index=False)
    test.drop(columns="cultivar").to_csv(root / "test.csv", index=False)
    pd.DataFrame({"id": test.id, "cultivar": 0}).to_csv(root / "sample_submission.csv", index=False)
    (root / "README.md").write_text(
        "# Wine\n\nPredict the cultivar of each wine.\n\nMetric: log loss\n"
    )
    (root.parent / "answers" / root.name).mkdir(parents=True)
    test[["id", "cultivar"]].to_csv(
        root.parent / "answers" / root.name / "answers.csv", index=False
    )
    return train


def test_the_baseline_writes_a_column_per_class(tmp_path: Path) -> None:
    train = _wine(tmp_path / "wine")
    task = load_task(tmp_path / "wine")
    config = RunConfig(
        num_models=1,
        inner_steps=1,
        outer_steps=0,
        parallel_solutions=1,
        ensemble_rounds=0,
        debug_rounds=1,
        budget=Budget(wall_seconds=600, exec_timeout=60),
    )
    journal = RunJournal.create(tmp_path / "run", {})
    with Executor(timeout=60, max_parallel=1, pool_size=1) as ex:
        out = run_mlestar(task, config, journal, ex, lambda i: NoFilePolicy())
    assert out.final.ok and out.final.rung == "baseline", out.final.reason
    written = pd.read_csv(out.final.submission)
    assert list(written.columns) == ["id", "0", "1", "2"]
    prior = train.cultivar.value_counts(normalize=True).sort_index().to_numpy()
    assert np.allclose(written[["0", "1", "2"]].to_numpy(), prior)
    report = grade_submission(task, out.final.submission)
    assert report.valid_submission, report.invalid_reason
    answers = pd.read_csv(tmp_path / "answers" / "wine" / "answers.csv")
    expected = log_loss(answers.cultivar, np.tile(prior, (len(answers), 1)), labels=[0, 1, 2])
    assert report.score == pytest.approx(expected)
