"""A text task kept as one ``.txt`` file per document (``importer.text_documents``): the run
reads a copy of its input folder with the documents gathered into ``train.csv`` / ``test.csv``.
Shaped like hunt I's inputs (session 30): ``train/<id>.txt`` and ``test/<id>.txt`` beside
``labels.csv``, and aclImdb's ``train/pos/*.txt`` / ``train/neg/*.txt``; ``mlestar run``
stopped at "no test table (test.csv) found"."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from mlestar_jupyter.agent.run import prepared_task
from mlestar_jupyter.journal import RunJournal
from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.layout import inspect_task

POS = "great excellent wonderful loved superb delightful brilliant charming".split()
NEG = "terrible awful boring hated dreadful poor dull painful".split()
FILL = "the a of and movie film plot actor scene story ending music".split()


def _reviews(n: int = 120) -> list[tuple[str, str, str]]:
    """(id, text, label) of ``n`` short reviews whose sentiment words give the label."""
    rs = np.random.RandomState(0)
    out = []
    for k in range(n):
        label = "pos" if k % 2 else "neg"
        words = list(rs.choice(FILL, 12)) + list(rs.choice(POS if label == "pos" else NEG, 3))
        rs.shuffle(words)
        out.append((f"r{k:03d}", " ".join(words) + ".", label))
    return out


def _readme(root: Path, body: str) -> None:
    (root / "README.md").write_text(f"# Review sentiment\n\n{body}\n\n## Evaluation\n\nAccuracy.\n")


def _files_and_labels(root: Path) -> list[tuple[str, str, str]]:
    """``train/<id>.txt``, ``test/<id>.txt``, ``labels.csv`` (``id,label``) and a sample."""
    docs = _reviews()
    train, test = docs[:90], docs[90:]
    for folder, rows in (("train", train), ("test", test)):
        (root / folder).mkdir(parents=True)
        for i, text, _ in rows:
            (root / folder / f"{i}.txt").write_text(text + "\n")
    pd.DataFrame([(i, y) for i, _, y in train], columns=["id", "label"]).to_csv(
        root / "labels.csv", index=False
    )
    pd.DataFrame({"id": [i for i, _, _ in test], "label": "pos"}).to_csv(
        root / "sample_submission.csv", index=False
    )
    _readme(root, "`train/<id>.txt` are reviews labelled in `labels.csv`; predict `test/`.")
    return test


def _prepared(root: Path, tmp_path: Path):  # type: ignore[no-untyped-def]
    journal = RunJournal.create(tmp_path / "run", {})
    return prepared_task(load_task(root), journal), journal.path("text-tables")


def test_txt_files_with_a_labels_table_are_read_as_a_text_task(tmp_path: Path) -> None:
    root = tmp_path / "reviews"
    test = _files_and_labels(root)
    before = sorted(p.name for p in root.iterdir())

    ready, copy = _prepared(root, tmp_path)
    assert ready.input_dir == copy and ready.modality == "text"
    layout = inspect_task(ready)
    assert (layout.train_table, layout.test_table) == ("train.csv", "test.csv")
    assert (layout.label_col, layout.text_col, layout.id_col) == ("label", "text", "id")
    train = pd.read_csv(copy / "train.csv")
    assert len(train) == 90 and set(train["label"]) == {"pos", "neg"}
    assert list(pd.read_csv(copy / "test.csv")["id"]) == [i for i, _, _ in test]
    # the documents and the labels table are in the two tables: not files to read besides
    assert {f.path for f in ready.files} == {
        "README.md",
        "sample_submission.csv",
        "train.csv",
        "test.csv",
    }
    assert any("one .txt file per document" in n for n in ready.notices), ready.notices
    assert sorted(p.name for p in root.iterdir()) == before  # the user's folder is unchanged


def test_txt_files_in_a_folder_per_class_take_the_folder_as_label(tmp_path: Path) -> None:
    """aclImdb's layout: no table at all, the label is the folder's name."""
    root = tmp_path / "imdb"
    docs = _reviews()
    for i, text, label in docs[:90]:
        (root / "train" / label).mkdir(parents=True, exist_ok=True)
        (root / "train" / label / f"{i}.txt").write_text(text)
    (root / "test").mkdir()
    for i, text, _ in docs[90:]:
        (root / "test" / f"{i}.txt").write_text(text)
    _readme(root, "Reviews are in `train/pos/` and `train/neg/`; classify each file of `test/`.")

    ready, copy = _prepared(root, tmp_path)
    layout = inspect_task(ready)
    assert (layout.label_col, layout.text_col) == ("label", "text")
    assert set(pd.read_csv(copy / "train.csv")["label"]) == {"neg", "pos"}
    assert len(pd.read_csv(copy / "test.csv")) == 30


def test_documents_in_one_folder_split_by_the_labels_and_the_sample(tmp_path: Path) -> None:
    """``docs/<id>.txt`` for all documents: ``labels.csv`` names the training ones, the sample
    submission the ones to predict (hunt F's ``text_files``)."""
    root = tmp_path / "docs_task"
    (root / "docs").mkdir(parents=True)
    docs = _reviews()
    for i, text, _ in docs:
        (root / "docs" / f"{i}.txt").write_text(text)
    pd.DataFrame([(i, y) for i, _, y in docs[:90]], columns=["doc_id", "sentiment"]).to_csv(
        root / "labels.csv", index=False
    )
    pd.DataFrame({"doc_id": [i for i, _, _ in docs[90:]], "sentiment": "pos"}).to_csv(
        root / "sample_submission.csv", index=False
    )
    _readme(root, "Each `docs/<doc_id>.txt` is a review; `labels.csv` labels some.")

    ready, copy = _prepared(root, tmp_path)
    layout = inspect_task(ready)
    assert (layout.label_col, layout.text_col, layout.id_col) == ("sentiment", "text", "doc_id")
    assert len(pd.read_csv(copy / "train.csv")) == 90
    assert list(pd.read_csv(copy / "test.csv")["doc_id"]) == [i for i, _, _ in docs[90:]]


def test_a_run_on_txt_files_hands_in_a_graded_submission(tmp_path: Path, short_run) -> None:  # type: ignore[no-untyped-def]
    """End to end (before: "no test table (test.csv) found")."""
    root = tmp_path / "reviews"
    test = _files_and_labels(root)
    out = short_run(root)
    assert out.final.ok and out.final.submission is not None, out.stop_reason
    sub = pd.read_csv(out.final.submission, dtype=str).set_index("id")
    got = sub.loc[[i for i, _, _ in test], "label"].to_numpy()
    assert (got == np.array([y for _, _, y in test])).mean() > 0.8
