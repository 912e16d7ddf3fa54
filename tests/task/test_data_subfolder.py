"""A description beside ``data/<name>/`` or ``dataset/`` holding the tables, as notebook
projects keep them (hunt J: ``data/wine/train.csv`` beside ``description.md`` and the notebook):
the folder was refused with "input/: missing"."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from mlestar_jupyter.task import load_task


def _wine(folder: Path) -> None:
    folder.mkdir(parents=True)
    frame = pd.DataFrame(
        {
            "id": range(40),
            "alcohol": [12.0 + k % 5 for k in range(40)],
            "cultivar": [k % 3 for k in range(40)],
        }
    )
    frame.iloc[:30].to_csv(folder / "train.csv", index=False)
    frame.iloc[30:].drop(columns="cultivar").to_csv(folder / "test.csv", index=False)
    frame.iloc[30:][["id", "cultivar"]].to_csv(folder / "sample_submission.csv", index=False)


@pytest.mark.parametrize("where", ["data/wine", "dataset", "datasets/wine-quality"])
def test_the_tables_one_folder_down_are_the_data(tmp_path: Path, where: str) -> None:
    root = tmp_path / "project"
    _wine(root / where)
    (root / "description.md").write_text("Predict each wine's cultivar.\n\nMetric: accuracy.\n")
    task = load_task(root)
    assert task.input_dir == root / where
    assert task.target_cols == ("cultivar",) and task.id_col == "id"


def test_two_folders_of_tables_are_not_guessed_between(tmp_path: Path) -> None:
    root = tmp_path / "project"
    _wine(root / "data" / "red")
    _wine(root / "data" / "white")
    (root / "description.md").write_text("Predict each wine's cultivar.\n\nMetric: accuracy.\n")
    with pytest.raises(Exception, match="input/"):
        load_task(root)
