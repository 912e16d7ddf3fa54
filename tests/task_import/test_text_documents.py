"""Text tasks kept as one ``.txt`` file per document, as people publish them (hunt I), which
stopped at "no training table (train.csv) found" (or, for class folders with a README, at
"the description names no 'Target: <column>' line"):

- ``train/<id>.txt`` and ``test/<id>.txt`` beside ``labels.csv`` (``id,label``);
- ``train/pos/*.txt`` and ``train/neg/*.txt`` with ``test/*.txt`` (aclImdb's way);
- every document in ``docs/``, ``labels.csv`` naming the training ones and the sample
  submission the ones to predict."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from mlestar_jupyter.importer.text_documents import documents_as_tables
from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.layout import inspect_task

README = "# Reviews\n\n{goal}\n\n## Evaluation\n\nAccuracy.\n"
WORDS = {"pos": "great lovely superb fun", "neg": "awful dull boring poor"}


def _doc(path: Path, k: int, label: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"The film number {k} was {WORDS[label]}.\n")


def _label(k: int) -> str:
    return ["pos", "neg"][k % 2]


def _gathered(root: Path, tmp_path: Path) -> tuple[pd.DataFrame, pd.DataFrame, str]:
    task = documents_as_tables(load_task(root), tmp_path / "run" / "text-tables")
    assert task is not None and task.modality == "text"
    layout = inspect_task(task)
    assert (layout.train_table, layout.test_table) == ("train.csv", "test.csv")
    train = pd.read_csv(task.input_dir / "train.csv", dtype=str)
    test = pd.read_csv(task.input_dir / "test.csv", dtype=str)
    return train, test, str(layout.label_col)


def test_document_files_beside_a_labels_table(tmp_path: Path) -> None:
    root = tmp_path / "reviews"
    for k in range(12):
        _doc(root / "train" / f"r{k:03d}.txt", k, _label(k))
    for k in range(12, 16):
        _doc(root / "test" / f"r{k:03d}.txt", k, _label(k))
    pd.DataFrame(
        {"id": [f"r{k:03d}" for k in range(12)], "label": [_label(k) for k in range(12)]}
    ).to_csv(root / "labels.csv", index=False)
    pd.DataFrame({"id": [f"r{k:03d}" for k in range(12, 16)], "label": "pos"}).to_csv(
        root / "sample_submission.csv", index=False
    )
    (root / "README.md").write_text(README.format(goal="Predict each review's label."))
    train, test, label = _gathered(root, tmp_path)
    assert label == "label" and list(train.columns) == ["id", "text", "label"]
    assert train.set_index("id").loc["r003", "label"] == "neg"
    assert "awful" in train.set_index("id").loc["r003", "text"]
    assert list(test["id"]) == [f"r{k:03d}" for k in range(12, 16)]


def test_documents_in_class_folders_with_a_readme(tmp_path: Path) -> None:
    root = tmp_path / "imdb"
    for k in range(12):
        _doc(root / "train" / _label(k) / f"{k}_7.txt", k, _label(k))
    for k in range(12, 15):
        _doc(root / "test" / f"{k}_7.txt", k, _label(k))
    (root / "README.md").write_text(
        README.format(goal="Reviews in `train/pos/` and `train/neg/`; classify `test/`.")
    )
    train, test, label = _gathered(root, tmp_path)
    assert label == "label" and set(train["label"]) == {"pos", "neg"}
    assert train.set_index("id").loc["2_7", "label"] == "pos" and len(test) == 3


def test_one_folder_of_all_documents(tmp_path: Path) -> None:
    root = tmp_path / "docs_task"
    for k in range(16):
        _doc(root / "docs" / f"doc_{k:03d}.txt", k, _label(k))
    pd.DataFrame(
        {"doc_id": [f"doc_{k:03d}" for k in range(12)], "sentiment": [_label(k) for k in range(12)]}
    ).to_csv(root / "labels.csv", index=False)
    pd.DataFrame({"doc_id": [f"doc_{k:03d}" for k in range(12, 16)], "sentiment": "pos"}).to_csv(
        root / "sample_submission.csv", index=False
    )
    (root / "description.md").write_text(README.format(goal="`docs/<doc_id>.txt` are reviews."))
    train, test, label = _gathered(root, tmp_path)
    assert label == "sentiment" and len(train) == 12
    assert list(test["doc_id"]) == [f"doc_{k:03d}" for k in range(12, 16)]


def test_a_task_with_train_csv_is_left_as_it_is(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    root.mkdir()
    pd.DataFrame({"id": [1, 2, 3, 4], "x": [1, 2, 3, 4], "y": [0, 1, 0, 1]}).to_csv(
        root / "train.csv", index=False
    )
    pd.DataFrame({"id": [5, 6], "x": [5, 6]}).to_csv(root / "test.csv", index=False)
    pd.DataFrame({"id": [5, 6], "y": [0, 0]}).to_csv(root / "sample_submission.csv", index=False)
    (root / "README.md").write_text(README.format(goal="Predict y."))
    assert documents_as_tables(load_task(root), tmp_path / "run" / "text-tables") is None
