"""Submission values against the task: training classes, probabilities, non-negative numbers.

Each wrong file is rejected by both checks (the grader's and the agent's final step) with a
message that names the column, an offending value and what was expected.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mlestar_jupyter.agent.submission import submission_problems, value_spec
from mlestar_jupyter.evaluator import grade_submission
from mlestar_jupyter.evaluator.values import ValueSpec, check_values
from mlestar_jupyter.task import load_task

CLASSES = "'alluvial soil', 'black soil', 'clay soil', 'laterite soil', 'red soil', 'sandy soil'"


def _answers(root: Path) -> pd.DataFrame:
    return pd.read_csv(root / "private" / "answers.csv", dtype=str)


def _both(root: Path, sub: pd.DataFrame, path: Path) -> tuple[str | None, list[str]]:
    """(the grader's reason, the agent's problems) for one submission frame."""
    sub.to_csv(path, index=False)
    return grade_submission(root, path).invalid_reason, submission_problems(load_task(root), path)


def test_class_names_pass_and_are_scored(soil_task, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = soil_task()
    ans = _answers(root)
    reason, problems = _both(root, ans, tmp_path / "s.csv")
    assert reason is None and problems == []
    assert grade_submission(root, tmp_path / "s.csv").score == pytest.approx(1.0)


def test_probabilities_in_a_label_column(soil_task, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = soil_task()
    ans = _answers(root)
    probs = np.linspace(1.49e-11, 0.98, len(ans))
    sub = ans.assign(soil_type=[f"{p:.3g}" for p in probs])
    reason, problems = _both(root, sub, tmp_path / "s.csv")
    want = (
        f"column 'soil_type' has {len(ans)} values that are not classes of the training target, "
        f"first: '1.49e-11' at id {ans.id[0]}; expected one of {CLASSES} "
        "(these look like probabilities: write the predicted class, e.g. classes_[argmax])"
    )
    assert reason == want and problems == [want]


def test_unknown_class_names(soil_task, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = soil_task()
    ans = _answers(root)
    sub = ans.copy()
    sub.loc[7, "soil_type"] = "purple soil"
    reason, problems = _both(root, sub, tmp_path / "s.csv")
    want = (
        "column 'soil_type' has 1 values that are not classes of the training target, "
        f"first: 'purple soil' at id {ans.id[7]}; expected one of {CLASSES}"
    )
    assert reason == want and problems == [want]
    sub.loc[7, "soil_type"] = "Red Soil"
    reason, _ = _both(root, sub, tmp_path / "s.csv")
    assert reason is not None and reason.endswith("(the case differs: write 'red soil')")


def test_encoded_class_indices_are_not_class_names(soil_task, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = soil_task()
    ans = _answers(root)
    sub = ans.assign(soil_type=[str(i % 6) for i in range(len(ans))])
    reason, problems = _both(root, sub, tmp_path / "s.csv")
    assert reason is not None and reason == problems[0]
    assert f"first: '0' at id {ans.id[0]}" in reason
    assert reason.endswith("map them back to the class names, e.g. LabelEncoder.inverse_transform)")


def test_a_training_class_absent_from_the_answers_is_still_a_class(
    soil_task, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    root = soil_task()
    ans = _answers(root)
    rare = "clay soil"
    ans.loc[ans.soil_type == rare, "soil_type"] = (
        "black soil" if rare != "black soil" else "red soil"
    )
    ans.to_csv(root / "private" / "answers.csv", index=False)  # the answers lack `rare` now
    reason, problems = _both(root, ans.assign(soil_type=rare), tmp_path / "s.csv")
    assert reason is None and problems == []


def test_per_class_probabilities_must_sum_to_one(soil_task, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = soil_task("log_loss", per_class=True)
    sample = pd.read_csv(root / "input" / "sample_submission.csv", dtype=str)
    assert _both(root, sample, tmp_path / "s.csv") == (None, [])
    bad = sample.copy()
    bad.loc[3, "red soil"] = "0.9"  # 5 x 1/6 + 0.9
    reason, problems = _both(root, bad, tmp_path / "s.csv")
    cols = ", ".join(pd.read_csv(root / "input" / "sample_submission.csv", nrows=0).columns[1:])
    want = (
        f"columns {cols} hold one probability per class, so each row must sum to 1, but 1 rows "
        f"do not, first: id {sample.id[3]} sums to 1.73333; divide each row by its sum"
    )
    assert reason == want and problems == [want]
    bad.loc[3, "red soil"] = "1.5"
    reason, _ = _both(root, bad, tmp_path / "s.csv")
    assert reason == (
        "column 'red soil' holds probabilities (log_loss) but has 1 values outside [0, 1], "
        f"first: '1.5' at id {sample.id[3]}; expected a probability from predict_proba"
    )


def _rmsle_task(root: Path) -> Path:
    rng = np.random.RandomState(0)
    df = pd.DataFrame({"id": range(200), "x": rng.rand(200)})
    df["sales"] = (df.x * 100).round(2)
    (root / "input").mkdir(parents=True)
    (root / "private").mkdir()
    df.iloc[:150].to_csv(root / "input" / "train.csv", index=False)
    df.iloc[150:, :2].to_csv(root / "input" / "test.csv", index=False)
    df.iloc[150:][["id"]].assign(sales=0).to_csv(
        root / "input" / "sample_submission.csv", index=False
    )
    df.iloc[150:][["id", "sales"]].to_csv(root / "private" / "answers.csv", index=False)
    (root / "task.json").write_text(
        json.dumps(
            {
                "task_type": "regression",
                "goal_description": "Predict sales.",
                "metric": {"metric_name": "Root Mean Squared Logarithmic Error"},
                "target_col": "sales",
                "data_information": {"train": {"data_location": "train.csv"}},
            }
        )
    )
    return root


def test_negative_values_for_rmsle(tmp_path: Path) -> None:
    root = _rmsle_task(tmp_path / "sales")
    ans = _answers(root)
    assert _both(root, ans, tmp_path / "s.csv") == (None, [])
    sub = ans.copy()
    sub.loc[2, "sales"] = "-3.5"
    reason, problems = _both(root, sub, tmp_path / "s.csv")
    want = (
        "column 'sales' must be >= 0 for rmsle (it takes logs), but has 1 negative values, "
        f"first: '-3.5' at id {ans.id[2]}; clip predictions at 0"
    )
    assert reason == want and problems == [want]
    sub.loc[2, "sales"] = "inf"
    assert _both(root, sub, tmp_path / "s.csv")[0] == (
        f"column 'sales' has 1 infinite values, first at id {ans.id[2]}"
    )


def test_numeric_classes_accept_integral_floats_and_reject_probabilities() -> None:
    spec = ValueSpec("accuracy", "label", ("y",), {"y": ("1", "2", "3")})
    assert check_values(pd.DataFrame({"y": ["3.0", "1", "2"]}), spec) is None
    reason = check_values(pd.DataFrame({"y": ["3", "0.25", "2"]}), spec)
    assert reason == (
        "column 'y' has 1 values that are not classes of the training target, first: '0.25' at "
        "id 1; expected one of 1, 2, 3 (these look like probabilities: write the predicted class, "
        "e.g. classes_[argmax])"
    )


def test_roc_auc_wants_probabilities_in_the_unit_interval(tabular_task: Path) -> None:
    spec = value_spec(load_task(tabular_task))
    assert spec is not None and spec.mode == "proba_single"
    assert check_values(pd.DataFrame({"target": ["0.2", "1"]}), spec) is None
    assert check_values(pd.DataFrame({"target": ["0.2", "3.7"]}), spec) == (
        "column 'target' holds probabilities (roc_auc) but has 1 values outside [0, 1], first: "
        "'3.7' at id 1; expected a probability from predict_proba"
    )


def test_the_prompt_sentence_names_the_classes(soil_task) -> None:  # type: ignore[no-untyped-def]
    spec = value_spec(load_task(soil_task()))
    assert spec is not None
    text = spec.describe()
    assert "'red soil'" in text and "written as text" in text and "inverse_transform" in text


def test_without_a_sample_submission_the_agent_still_checks_values(
    soil_task, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    root = soil_task()
    (root / "input" / "sample_submission.csv").unlink()
    task = load_task(root)
    ans = _answers(root)
    ans.to_csv(tmp_path / "s.csv", index=False)
    assert submission_problems(task, tmp_path / "s.csv") == []
    ans.assign(soil_type="0.5").to_csv(tmp_path / "s.csv", index=False)
    (problem,) = submission_problems(task, tmp_path / "s.csv")
    assert problem.startswith(f"column 'soil_type' has {len(ans)} values that are not classes")
