"""A task.json from another author that names the submission's header instead of shipping a
sample submission: ``"submission_format": {"columns": ["id", "prediction"]}`` while the training
table's target is ``price``.  Before, the field was "not read": the searched solutions wrote
``price``, and the run handed in the prior-only baseline (a constant) because its own check
wanted ``price``; the author's grader wants ``prediction``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from sklearn.datasets import load_diabetes

from mlestar_jupyter.agent.submission import submission_problems
from mlestar_jupyter.task import TaskFormatError, load_task
from mlestar_jupyter.task.layout import inspect_task


def _diabetes_task(root: Path, submission_format: object) -> Path:
    """Diabetes progression as ``price``, an author's task.json naming the submission's header."""
    d = load_diabetes(as_frame=True).frame.rename(columns={"target": "price"})
    d.insert(0, "id", range(len(d)))
    (root / "input").mkdir(parents=True)
    d.iloc[:350].to_csv(root / "input" / "train.csv", index=False)
    d.iloc[350:].drop(columns="price").to_csv(root / "input" / "test.csv", index=False)
    spec = {"metric": "rmse", "target": "price", "submission_format": submission_format}
    (root / "task.json").write_text(json.dumps(spec, indent=2))
    return root


def test_a_named_header_decides_the_submission_columns(tmp_path: Path) -> None:
    task = load_task(_diabetes_task(tmp_path / "t", {"columns": ["id", "prediction"]}))
    layout = inspect_task(task)
    assert layout.label_col == "price" and layout.target_cols == ("prediction",)
    assert task.output_format == "id,prediction"  # the prompts' submission format
    assert not any("not read" in n for n in task.notices), task.notices

    wrong, right = tmp_path / "wrong.csv", tmp_path / "right.csv"
    pd.DataFrame({"id": range(350, 442), "price": 150.0}).to_csv(wrong, index=False)
    pd.DataFrame({"id": range(350, 442), "prediction": 150.0}).to_csv(right, index=False)
    assert submission_problems(task, wrong) == ["missing column(s) ['prediction']"]
    assert submission_problems(task, right) == []


def test_a_plain_list_and_prose_are_read_too(tmp_path: Path) -> None:
    listed = load_task(_diabetes_task(tmp_path / "a", ["id", "prediction"]))
    assert inspect_task(listed).target_cols == ("prediction",)
    prose = load_task(_diabetes_task(tmp_path / "b", "A CSV with columns id and price."))
    assert prose.output_format == "A CSV with columns id and price."
    assert inspect_task(prose).target_cols == ("price",)


def test_a_header_that_is_no_list_of_names_says_how_to_write_it(tmp_path: Path) -> None:
    with pytest.raises(TaskFormatError, match=r"\"columns\": \[\"id\", \"prediction\"\]"):
        load_task(_diabetes_task(tmp_path / "t", {"columns": [1, 2]}))


def test_a_run_hands_in_its_searched_solution_under_the_named_header(
    tmp_path: Path, short_run: Callable[..., Any]
) -> None:
    root = _diabetes_task(tmp_path / "t", {"columns": ["id", "prediction"]})
    out = short_run(root, time_limit=45)
    assert out.final.ok and out.final.rung not in ("baseline", "catalog"), out.final
    sub = pd.read_csv(out.final.submission)
    assert list(sub.columns) == ["id", "prediction"]
    assert sub["id"].tolist() == list(range(350, 442)) and sub["prediction"].nunique() > 10
