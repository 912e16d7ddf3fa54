"""A task.json from another author naming its data by paths from the task folder that lie in
several folders of its own (``"train_file": "fit/fit.csv"``, ``"test_file": "score/score.csv"``;
``raw/fit.csv`` beside ``input/score.csv``), or outside the task folder (``../shared/fit.csv``).
Before: "input/: missing: put the task's data files in an input/ folder" (or, with an input/
folder, "names 'raw/fit.csv', which is not in input/"), and a path outside was read by its tail
from whatever file inside had that name; after: the task folder is the data folder (refused
when the grading answers lie in it), and a file outside is refused saying to copy it in."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from sklearn.datasets import load_wine

from mlestar_jupyter import api
from mlestar_jupyter.task import TaskFormatError, load_task
from mlestar_jupyter.task.layout import inspect_task


def _task(root: Path, train: str, test: str, **spec: object) -> Path:
    """Wine cultivars as ``cultivar``: the training rows at ``train``, the test rows at
    ``test`` (paths from ``root``), and the author's task.json naming them so."""
    df = load_wine(as_frame=True).frame.rename(columns={"target": "cultivar"})
    df.insert(0, "wine_id", range(500, 500 + len(df)))
    for rel, rows in ((train, df.iloc[::2]), (test, df.iloc[1::2].drop(columns="cultivar"))):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        rows.to_csv(root / rel, index=False)
    body = {"metric": "accuracy", "target": "cultivar", "id_col": "wine_id",
            "train_file": train, "test_file": test, **spec}  # fmt: skip
    (root / "task.json").write_text(json.dumps(body))
    return root


@pytest.mark.parametrize(
    ("train", "test"),
    [("fit/fit.csv", "score/score.csv"), ("raw/fit.csv", "input/score.csv")],
)
def test_paths_in_several_folders_read_from_the_task_folder(
    tmp_path: Path, train: str, test: str
) -> None:
    root = _task(tmp_path / "t", train, test)
    task = load_task(root)
    assert task.input_dir == root.resolve()
    layout = inspect_task(task)
    assert (layout.train_table, layout.test_table) == (train, test)
    assert (layout.label_col, layout.id_col) == ("cultivar", "wine_id")
    assert "task.json" not in [f.path for f in task.files]  # no input a solution should read
    assert any("data read from the task folder" in n for n in task.notices), task.notices


def test_a_data_dir_with_paths_from_the_task_folder(tmp_path: Path) -> None:
    """``"data_dir": "raw"`` and file paths written from the task folder (``raw/fit.csv``)."""
    task = load_task(_task(tmp_path / "t", "raw/fit.csv", "raw/score.csv", data_dir="raw"))
    assert task.input_dir == (tmp_path / "t" / "raw").resolve()
    assert (inspect_task(task).train_table, inspect_task(task).test_table) == (
        "fit.csv",
        "score.csv",
    )


def test_answers_in_the_task_folder_are_refused(tmp_path: Path) -> None:
    root = _task(tmp_path / "t", "fit/fit.csv", "score/score.csv")
    (root / "private").mkdir()
    pd.DataFrame({"wine_id": [501], "cultivar": [0]}).to_csv(
        root / "private" / "answers.csv", index=False
    )
    with pytest.raises(TaskFormatError, match=r"put the data files in one folder \(input/\)"):
        load_task(root)


def test_a_file_outside_the_task_folder_is_refused(tmp_path: Path) -> None:
    """``../shared/fit.csv`` exists beside the task folder: a run mounts only the task folder,
    so reading ``raw/fit.csv`` (the same name inside) in its stead would train on other rows."""
    root = _task(tmp_path / "t", "raw/fit.csv", "raw/score.csv")
    (tmp_path / "shared").mkdir()
    pd.read_csv(root / "raw" / "fit.csv").iloc[:40].to_csv(tmp_path / "shared" / "fit.csv")
    spec = json.loads((root / "task.json").read_text()) | {"train_file": "../shared/fit.csv"}
    (root / "task.json").write_text(json.dumps(spec))
    with pytest.raises(TaskFormatError, match="lies outside the task folder.*copy the file into"):
        load_task(root)


def test_a_run_reads_both_folders(tmp_path: Path) -> None:
    root = _task(tmp_path / "t", "fit/fit.csv", "score/score.csv")
    out = api.run(root, out=tmp_path / "run", time_limit=45, models=1, inner=1, outer=1,
                  parallel=1, ensemble_rounds=0)  # fmt: skip
    assert out.final.ok and out.final.rung not in ("baseline", "catalog"), out.final
    sub = pd.read_csv(out.final.submission)
    assert list(sub.columns) == ["wine_id", "cultivar"]
    assert sub["wine_id"].tolist() == list(range(501, 500 + 178, 2))
    assert out.final.score is not None and out.final.score > 0.8, out.final
