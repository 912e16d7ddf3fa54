"""The final ladder on a 6-class task with text classes ('red soil'), on real kernels.

The best notebook writes probabilities into the label column (as a small model did in issue 25):
the file has the right columns and ids, so only the value check catches it; the ladder must then
end on a lower rung whose file holds class names and passes the grader.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from mlestar_jupyter.agent.config import Budget, RunConfig
from mlestar_jupyter.agent.run import run_mlestar
from mlestar_jupyter.evaluator import grade_submission
from mlestar_jupyter.execution import Executor
from mlestar_jupyter.journal import RunJournal, read_events
from mlestar_jupyter.notebook import SolutionNotebook
from mlestar_jupyter.task import load_task

from .scripted_policy import ScriptedPolicy

pytestmark = pytest.mark.slow

SOIL_CLASSES = {
    "alluvial soil",
    "black soil",
    "clay soil",
    "laterite soil",
    "red soil",
    "sandy soil",
}

LOAD = """import pandas as pd
from sklearn.model_selection import train_test_split
df = pd.read_csv("input/train.csv")
X = df.drop(columns=["id", "soil_type"])
y = df["soil_type"]
X_tr, X_val, y_tr, y_val = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)"""

MODEL = """from sklearn.linear_model import LogisticRegression
model = LogisticRegression(max_iter=500)
model.fit(X_tr, y_tr)"""

EVAL = """from sklearn.metrics import accuracy_score
print(f"Final Validation Performance: {accuracy_score(y_val, model.predict(X_val)):.6f}")"""

# The bug of issue 25: the highest class probability written where the class name belongs.
PREDICT_PROBA = """import os
test = pd.read_csv("input/test.csv")
model.fit(X, y)
os.makedirs("final", exist_ok=True)
proba = model.predict_proba(test[X.columns])
pd.DataFrame({"id": test["id"], "soil_type": proba.max(axis=1)}).to_csv("final/submission.csv", index=False)"""


class SoilPolicy(ScriptedPolicy):
    """One logistic model; its submission cell writes probabilities; ``fixes`` the debugger's skill."""

    def __init__(self, fixes: bool = False) -> None:
        super().__init__()
        self.fixes = fixes
        self.debug_errors: list[str] = []

    def retrieve(self, m):  # type: ignore[no-untyped-def]
        return super().retrieve(1)

    def init_solution(self, card):  # type: ignore[no-untyped-def]
        return SolutionNotebook.new(
            [("load", LOAD), ("model", MODEL), ("evaluate", EVAL)], origin=card.name
        )

    def make_submission(self, solution):  # type: ignore[no-untyped-def]
        return solution.append_block("predict", PREDICT_PROBA, origin="submission")

    def debug(self, solution, error, failed_block):  # type: ignore[no-untyped-def]
        self.debug_errors.append(error)
        if self.fixes and "look like probabilities" in error:
            b = next(b for b in solution.code_blocks if "proba.max(axis=1)" in b.source)
            fixed = b.source.replace("proba.max(axis=1)", "model.classes_[proba.argmax(axis=1)]")
            return solution.replace_block(b.id, fixed)
        return solution


def _config() -> RunConfig:
    return RunConfig(
        num_models=1,
        inner_steps=1,
        outer_steps=0,
        parallel_solutions=1,
        ensemble_rounds=0,
        debug_rounds=1,
        budget=Budget(wall_seconds=600, exec_timeout=60),
    )


@pytest.fixture(scope="module")
def executor():  # type: ignore[no-untyped-def]
    with Executor(timeout=60, max_parallel=1, pool_size=1) as ex:
        yield ex


def _graded_class_names(root: Path, submission: Path) -> pd.Series:
    report = grade_submission(root, submission)
    assert report.valid_submission, report.invalid_reason
    values = pd.read_csv(submission, dtype=str)["soil_type"]
    assert set(values) <= SOIL_CLASSES
    return values


def test_probabilities_in_the_label_column_walk_down_to_the_baseline(
    soil_task, tmp_path: Path, executor
) -> None:  # type: ignore[no-untyped-def]
    root = soil_task()
    policy = SoilPolicy(fixes=False)
    journal = RunJournal.create(tmp_path / "run", {})
    out = run_mlestar(load_task(root), _config(), journal, executor, lambda i: policy)
    assert out.final.ok and out.final.rung == "baseline"
    values = _graded_class_names(root, out.final.submission)
    assert values.nunique() == 1  # the most frequent training class
    # the best rung's file was refused, and the debugger was told why
    warnings = [e.data["message"] for e in read_events(journal.events_path) if e.type == "warning"]
    assert any("look like probabilities" in w and "'red soil'" in w for w in warnings)
    assert any("not classes of the training target" in e for e in policy.debug_errors)
    final = next(e.data for e in read_events(journal.events_path) if e.type == "final")
    assert final["valid"] is True and final["rung"] == "baseline"
    # a constant is handed in: the final event and the run's end say so, and why
    assert "no searched solution wrote a valid file" in final["reason"]
    assert "look like probabilities" in final["reason"]
    finished = next(e.data for e in read_events(journal.events_path) if e.type == "run_finished")
    assert finished["reason"].startswith("the submission is the prior-only baseline, not the best")
    assert not any("the same prediction" in w for w in warnings)  # the baseline says it itself


def test_a_debugger_told_what_the_values_should_be_fixes_the_file(
    soil_task, tmp_path: Path, executor
) -> None:  # type: ignore[no-untyped-def]
    root = soil_task()
    journal = RunJournal.create(tmp_path / "run", {})
    out = run_mlestar(
        load_task(root), _config(), journal, executor, lambda i: SoilPolicy(fixes=True)
    )
    assert out.final.ok and out.final.rung == "debugged"
    values = _graded_class_names(root, out.final.submission)
    assert values.nunique() > 1
    assert grade_submission(root, out.final.submission).score > 0.5  # 6 classes: chance is 1/6


def test_the_offline_catalog_rung_writes_class_names(soil_task, tmp_path: Path, executor) -> None:  # type: ignore[no-untyped-def]
    from mlestar_jupyter.offline import OfflinePolicy

    root = soil_task()
    task, config = load_task(root), _config()
    journal = RunJournal.create(tmp_path / "run", {})
    out = run_mlestar(
        task,
        config,
        journal,
        executor,
        lambda i: SoilPolicy(fixes=False),
        fallback=OfflinePolicy(task, config),
    )
    assert out.final.ok and out.final.rung == "catalog"
    values = _graded_class_names(root, out.final.submission)
    assert values.nunique() > 1


class NoSubmissionPolicy(SoilPolicy):
    """Its final notebook writes no file (a user's notebook that never predicts test rows)."""

    def make_submission(self, solution):  # type: ignore[no-untyped-def]
        return solution


def test_without_a_sample_the_baseline_takes_the_test_tables_ids(
    soil_task, tmp_path: Path, executor
) -> None:  # type: ignore[no-untyped-def]
    """Without a sample submission the baseline used to refuse ("no sample submission to copy
    the shape from") and the run ended with no file at all (hunt, session 25: a notebook that
    ran past the time limit); it now writes the test table's ids and the training prior."""
    root = soil_task()
    (root / "input" / "sample_submission.csv").unlink()
    task = load_task(root)
    journal = RunJournal.create(tmp_path / "run", {})
    out = run_mlestar(task, _config(), journal, executor, lambda i: NoSubmissionPolicy())
    assert out.final.ok and out.final.rung == "baseline"
    written = pd.read_csv(out.final.submission, dtype=str)
    test = pd.read_csv(root / "input" / "test.csv", dtype=str)
    assert list(written.columns) == [task.id_col, *task.target_cols]
    assert written[task.id_col].tolist() == test[task.id_col].tolist()
    assert written[task.target].nunique() == 1 and set(written[task.target]) <= SOIL_CLASSES
    final = next(e.data for e in read_events(journal.events_path) if e.type == "final")
    assert "no ./final/submission.csv was written" in final["reason"]


DUMMY = """from sklearn.dummy import DummyClassifier
model = DummyClassifier(strategy="most_frequent")
model.fit(X_tr, y_tr)"""

PREDICT_LABELS = PREDICT_PROBA.replace("proba.max(axis=1)", "model.classes_[proba.argmax(axis=1)]")


class ConstantPolicy(SoilPolicy):
    """A model that learns nothing from the features: one class for every test row."""

    def init_solution(self, card):  # type: ignore[no-untyped-def]
        return SolutionNotebook.new(
            [("load", LOAD), ("model", DUMMY), ("evaluate", EVAL)], origin=card.name
        )

    def make_submission(self, solution):  # type: ignore[no-untyped-def]
        return solution.append_block("predict", PREDICT_LABELS, origin="submission")


def test_a_submission_with_one_prediction_for_every_row_is_told(
    soil_task, tmp_path: Path, executor
) -> None:  # type: ignore[no-untyped-def]
    """A valid file of one class everywhere, from the best rung: the run says so (before, a run
    on sentences read as categories ended ``done`` with no word of it)."""
    root = soil_task()
    journal = RunJournal.create(tmp_path / "run", {})
    out = run_mlestar(load_task(root), _config(), journal, executor, lambda i: ConstantPolicy())
    assert out.final.ok and out.final.rung == "best"
    assert _graded_class_names(root, out.final.submission).nunique() == 1
    events = read_events(journal.events_path)
    told = [e.data["message"] for e in events if e.key == "warn/constant-submission"]
    assert len(told) == 1 and "gets the same prediction (soil_type = " in told[0]
    assert (
        next(e for e in events if e.key == "warn/constant-submission").data["what"] == "submission"
    )
