"""Feather tables (``df.to_feather``: Arrow's format, common for large Kaggle tables): hunt B
(session 26) gave ``cards.feather``, which was no table here; a task folder of feather tables
had "no training table" either."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from sklearn.datasets import load_breast_cancer

from mlestar_jupyter import api
from mlestar_jupyter.importer.dataset_task import find_dataset
from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.layout import inspect_task
from mlestar_jupyter.task.layout.discovery import count_train_rows
from mlestar_jupyter.task.layout.tables import read_table


def _folder(root: Path) -> pd.DataFrame:
    data = load_breast_cancer(as_frame=True)
    df = data.frame.iloc[:, [0, 1, 2, 3, 7, 20, 27]].copy()
    df.columns = [c.replace(" ", "_") for c in df.columns[:-1]] + ["malignant"]
    df["malignant"] = 1 - data.frame["target"]
    df.insert(0, "case", range(5000, 5000 + len(df)))
    train, test = df.iloc[:420].reset_index(drop=True), df.iloc[420:].reset_index(drop=True)
    inp = root / "input"
    inp.mkdir(parents=True)
    train.to_feather(inp / "train.feather")
    test.drop(columns="malignant").to_feather(inp / "test.feather")
    test[["case"]].assign(malignant=0.5).to_csv(inp / "sample_submission.csv", index=False)
    (root / "description.md").write_text(
        "# Tumours\n\nPredict the probability that a tumour is malignant.\n\n"
        "## Evaluation\n\nArea under the ROC curve.\n"
    )
    return test


def test_a_folder_of_feather_tables_has_a_table_layout(tmp_path: Path) -> None:
    _folder(tmp_path / "t")
    task = load_task(tmp_path / "t")
    layout = inspect_task(task)
    assert (layout.train_table, layout.test_table) == ("train.feather", "test.feather")
    assert layout.label_col == "malignant" and layout.id_col == "case"
    assert layout.read_code("train.feather") == 'pd.read_feather(INPUT / "train.feather")'
    assert count_train_rows(task, layout) == 420
    head = read_table(task.input_dir / "train.feather", columns=["case"], nrows=3)
    assert head["case"].tolist() == [5000, 5001, 5002]


def test_one_feather_file_is_a_dataset(tmp_path: Path) -> None:
    path = tmp_path / "cards.feather"
    pd.DataFrame({"a": [1, 2], "y": [0, 1]}).to_feather(path)
    found = find_dataset(path)
    assert found is not None and found.name == "cards"


def test_a_run_on_feather_tables_hands_in_a_graded_submission(tmp_path: Path) -> None:
    from sklearn.metrics import roc_auc_score

    test = _folder(tmp_path / "t")
    out = api.run(
        tmp_path / "t", out=tmp_path / "run", time_limit=40, parallel=1, ensemble_rounds=0
    )
    assert out.final.ok and out.final.submission is not None, out.stop_reason
    sub = pd.read_csv(out.final.submission).set_index("case").loc[test["case"]]
    assert roc_auc_score(test["malignant"], sub["malignant"]) > 0.9
