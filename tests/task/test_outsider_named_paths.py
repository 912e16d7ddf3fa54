"""A task.json from another author whose file paths name a folder of its own choosing
(``"train_file": "raw/train.csv"``, ``"files": {"train": "datasets/v2/train.csv"}``) rather
than ``input/`` or ``data/``.  Before: "input/: missing: put the task's data files in an input/
folder", though the file said where they were."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from sklearn.datasets import load_diabetes

from mlestar_jupyter.task import TaskFormatError, load_task
from mlestar_jupyter.task.layout import inspect_task


def _task(root: Path, folder: str, spec: dict[str, object]) -> Path:
    """Diabetes progression as ``price`` in ``root/folder``, and the author's task.json."""
    d = load_diabetes(as_frame=True).frame.rename(columns={"target": "price"})
    d.insert(0, "id", range(len(d)))
    (root / folder).mkdir(parents=True)
    d.iloc[:350].to_csv(root / folder / "train.csv", index=False)
    d.iloc[350:].drop(columns="price").to_csv(root / folder / "test.csv", index=False)
    (root / "task.json").write_text(json.dumps({"metric": "rmse", "target": "price", **spec}))
    return root


@pytest.mark.parametrize(
    ("folder", "spec"),
    [
        ("raw", {"train_file": "raw/train.csv", "test_file": "raw/test.csv"}),
        ("datasets/v2", {"files": {"train": "datasets/v2/train.csv", "test": "./datasets/v2/test.csv"}}),
    ],
)  # fmt: skip
def test_the_folder_the_paths_name_is_the_data_folder(
    tmp_path: Path, folder: str, spec: dict[str, object]
) -> None:
    task = load_task(_task(tmp_path / "t", folder, spec))
    assert task.input_dir == (tmp_path / "t" / folder).resolve()
    layout = inspect_task(task)
    assert (layout.train_table, layout.test_table, layout.label_col) == (
        "train.csv",
        "test.csv",
        "price",
    )
    assert any(f"data read from {folder}/" in n for n in task.notices), task.notices


def test_answers_in_that_folder_are_refused(tmp_path: Path) -> None:
    """The grading answers (``private/answers.csv``) in the folder the paths name: a run's code
    would read them, so the task is refused with what to move."""
    paths = {"train_file": "private/train.csv", "test_file": "private/test.csv"}
    root = _task(tmp_path / "t", "private", paths)
    pd.DataFrame({"id": [1], "price": [1.0]}).to_csv(root / "private" / "answers.csv", index=False)
    with pytest.raises(TaskFormatError, match="move the answers out"):
        load_task(root)


def test_a_run_reads_the_named_folder(tmp_path: Path, short_run: Callable[..., Any]) -> None:
    root = _task(
        tmp_path / "t", "raw", {"train_file": "raw/train.csv", "test_file": "raw/test.csv"}
    )
    out = short_run(root, time_limit=45)
    assert out.final.ok and out.final.rung not in ("baseline", "catalog"), out.final
    sub = pd.read_csv(out.final.submission)
    assert list(sub.columns) == ["id", "price"] and sub["id"].tolist() == list(range(350, 442))
