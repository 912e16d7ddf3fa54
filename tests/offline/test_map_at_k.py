"""MAP@k, as Kaggle competitions use it (the Playground fertilizer task's MAP@3): a task folder
written the way such a competition ships, with its task.json written by someone else (the metric
named "MAP@3", no task type), the submission holding the three most likely classes of each row
in one cell, separated by spaces."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from kernel import run_notebook

from mlestar_jupyter.agent.config import RunConfig
from mlestar_jupyter.evaluator.grading import grade_submission
from mlestar_jupyter.evaluator.submission import GradingSpec, check_submission, read_csv_str
from mlestar_jupyter.evaluator.values import ValueSpec, check_values
from mlestar_jupyter.metrics import get_metric
from mlestar_jupyter.offline import OfflinePolicy
from mlestar_jupyter.offline.metric_code import metric_source
from mlestar_jupyter.task import load_task

NAMES = np.array(["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"])


def _digits_task(root: Path, rows: int = 700) -> Path:
    """Handwritten digits as a table (64 pixel columns), the class spelled out, like a
    competition's ``Fertilizer Name``: a column name with a space, text classes."""
    from sklearn.datasets import load_digits

    d = load_digits(as_frame=True)
    df = d.frame.drop(columns="target").iloc[:rows].copy()
    df.insert(0, "id", np.arange(len(df)) + 750000)
    df["Digit Name"] = NAMES[d.target[:rows]]
    order = np.random.RandomState(0).permutation(len(df))
    tr, te = np.sort(order[: int(0.75 * len(df))]), np.sort(order[int(0.75 * len(df)) :])
    inp = root / "input"
    inp.mkdir(parents=True)
    df.iloc[tr].to_csv(inp / "train.csv", index=False)
    df.iloc[te].drop(columns=["Digit Name"]).to_csv(inp / "test.csv", index=False)
    ids = df["id"].iloc[te]
    pd.DataFrame({"id": ids, "Digit Name": "zero one two"}).to_csv(
        inp / "sample_submission.csv", index=False
    )
    (root / "private").mkdir()
    pd.DataFrame({"id": ids, "Digit Name": df["Digit Name"].iloc[te]}).to_csv(
        root / "private" / "answers.csv", index=False
    )
    spec = {
        "goal_description": "Predict which digit each 8x8 image shows; up to three guesses.",
        "metric": {"metric_name": "MAP@3", "direction": "maximize"},
        "target_col": "Digit Name",
        "data_information": {"data_type": "Tabular"},
    }
    (root / "task.json").write_text(json.dumps(spec, indent=2))
    return root


@pytest.fixture(scope="module")
def digits_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _digits_task(tmp_path_factory.mktemp("map3") / "digits")


def test_the_metric_ranks_the_true_class():
    m = get_metric("Mean Average Precision @ 3")
    assert (m.name, m.kind, m.k, m.direction) == ("map@3", "ranked", 3, "maximize")
    y = ["a", "b", "c", "d"]
    # 1, 1/2, 0 (not among the first three), 1/3; a repeated class counts at its first place
    assert m(y, ["a b c", "c b a", "a b d c", "a a b d"]) == pytest.approx(
        (1 + 0.5 + 0 + 1 / 3) / 4
    )
    assert get_metric("MAP@1")(y, ["a b", "a b", "c", "d"]) == pytest.approx(3 / 4)


def test_a_task_json_naming_map3_is_a_classification(digits_root: Path) -> None:
    task = load_task(digits_root)
    assert task.metric_name == "map@3" and task.task_type == "classification"


def test_the_grader_checks_each_listed_class(digits_root: Path, tmp_path: Path) -> None:
    task = load_task(digits_root)
    answers = pd.read_csv(digits_root / "private" / "answers.csv", dtype=str)
    sample = pd.read_csv(digits_root / "input" / "sample_submission.csv", dtype=str)
    spec = GradingSpec.build(task, sample, answers)
    assert spec.mode == "ranked"
    good = answers.assign(**{"Digit Name": answers["Digit Name"] + " zero one"})
    assert check_submission(good, spec, answers) is None
    bad = good.copy()
    bad.loc[3, "Digit Name"] = "seven 7 one"  # an encoded class among the names
    problem = check_submission(bad, spec, answers)
    assert problem is not None and "'7'" in problem and "not have" in problem
    empty = good.copy()
    empty.loc[0, "Digit Name"] = " "
    assert "empty predictions" in (check_submission(empty, spec, answers) or "")
    # graded: the true class first in every row
    path = tmp_path / "sub.csv"
    good.to_csv(path, index=False)
    assert grade_submission(task, path).score == pytest.approx(1.0)
    # the agent's own check, from the training data alone, says what to write
    values = ValueSpec.for_task(task, list(sample.columns))
    assert values.mode == "ranked" and values.k == 3
    assert "3 most likely classes" in values.describe()
    assert check_values(read_csv_str(path), values) is None


def test_the_notebook_code_agrees_with_the_registry() -> None:
    rng = np.random.RandomState(0)
    proba = rng.rand(80, 10)
    classes = NAMES
    y = classes[rng.randint(0, 10, 80)]
    ns: dict = {"np": np}
    exec(metric_source("MAP@3", "classification")[1], ns)
    top = classes[np.argsort(-proba, axis=1)[:, :3]]
    expected = get_metric("map@3")(y, [" ".join(r) for r in top])
    assert ns["score_predictions"](y, proba, classes) == pytest.approx(expected)
    assert 0 < expected < 1


def test_a_catalog_solution_writes_three_ranked_classes_per_row(
    digits_root: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    task = load_task(digits_root)
    p = OfflinePolicy(task, RunConfig())
    nb = p.make_submission(p.init_solution(p.retrieve(1)[0]))
    ran = run_notebook(nb, digits_root, tmp_path / "final", timeout=300)
    assert ran.score is not None and 0.8 < ran.score <= 1.0
    sub = pd.read_csv(ran.submission, dtype=str)
    cells = sub["Digit Name"].str.split()
    assert cells.map(len).eq(3).all() and cells.map(lambda c: set(c) <= set(NAMES)).all()
    assert cells.map(lambda c: len(set(c)) == 3).all()  # three different guesses
    graded = grade_submission(task, ran.submission)
    assert graded.valid_submission and graded.score is not None and graded.score > 0.8
