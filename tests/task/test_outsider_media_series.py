"""Non-tabular task folders laid out as other people lay them out, which the run could not read:

- images named by a ``labels.csv`` (``filename,label``, the file names with an ``images/``
  prefix) and no ``train*`` entry: "no training data found";
- series as ``.npy`` arrays (``X_train.npy``, ``y_train.npy``, ``X_test.npy``) in a folder with
  a ``description.md``: "no training data found", though the data layout reads such arrays;
- series stored long in ``train.csv`` / ``test.csv`` (``series_id,timestamp,value``) with the
  labels in ``train_labels.csv``: "cannot tell which training column holds the target";
- short reviews (a ``text`` column of a few words each) read as a category, so no text model
  was tried and the text was encoded as an ordinal."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from mlestar_jupyter.task import TaskFormatError, load_task
from mlestar_jupyter.task.errors import LayoutError
from mlestar_jupyter.task.infer import complete_files, has_training_arrays
from mlestar_jupyter.task.layout import inspect_task

DESCRIPTION = "# {title}\n\n{goal}\n\nMetric: accuracy\n"


def _described(root: Path, goal: str) -> Path:
    (root / "input").mkdir(parents=True, exist_ok=True)
    (root / "description.md").write_text(DESCRIPTION.format(title=root.name, goal=goal))
    return root / "input"


def _digit(path: Path, k: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray((np.arange(64).reshape(8, 8) * (k % 4 + 1)).astype(np.uint8), "L").save(path)


def test_images_named_by_a_labels_table_are_the_training_data(tmp_path: Path) -> None:
    inp = _described(tmp_path / "digits", "Classify each image into its digit word.")
    rows = []
    for k in range(12):
        _digit(inp / "images" / f"img_{k:03d}.png", k)
        rows.append((f"images/img_{k:03d}.png", ["zero", "one"][k % 2]))
    pd.DataFrame(rows, columns=["filename", "label"]).to_csv(inp / "labels.csv", index=False)
    tests = [f"t_{k:03d}.png" for k in range(6)]
    for name in tests:
        _digit(inp / "test_images" / name, 1)
    pd.DataFrame({"filename": tests, "label": "zero"}).to_csv(
        inp / "sample_submission.csv", index=False
    )
    task = load_task(tmp_path / "digits")
    assert task.modality == "image" and task.target == "label"
    layout = inspect_task(task)
    assert layout.train_table == "labels.csv" and layout.label_col == "label"
    assert layout.train_media is not None and layout.train_media.column == "filename"
    assert layout.test_media is not None and layout.test_media.prefix == "test_images"


def test_a_labels_table_beside_a_train_folder_stays_an_extra_file(tmp_path: Path) -> None:
    inp = tmp_path / "input"
    (inp / "train").mkdir(parents=True)
    (inp / "labels.csv").write_text("id,label\n1,a\n")
    (inp / "annotations.csv").write_text("id,label\n1,a\n")
    roles = {f.path: f.role for f in complete_files(inp, [])}
    assert roles == {"annotations.csv": "extra", "labels.csv": "extra", "train": "train"}
    (inp / "train").rmdir()
    roles = {f.path: f.role for f in complete_files(inp, [])}
    assert roles == {"annotations.csv": "train", "labels.csv": "extra"}  # one training table


def test_npy_arrays_beside_a_description_are_training_data(tmp_path: Path) -> None:
    inp = _described(tmp_path / "gunpoint", "Classify each series as gun or point.")
    rng = np.random.default_rng(0)
    np.save(inp / "X_train.npy", rng.normal(size=(20, 32)))
    np.save(inp / "y_train.npy", np.array(["gun", "point"] * 10))
    np.save(inp / "X_test.npy", rng.normal(size=(8, 32)))
    pd.DataFrame({"id": range(8), "label": "gun"}).to_csv(
        inp / "sample_submission.csv", index=False
    )
    assert has_training_arrays(inp)
    layout = inspect_task(load_task(tmp_path / "gunpoint"))
    assert dict(layout.npy) == {
        "X_test": "X_test.npy",
        "X_train": "X_train.npy",
        "y_train": "y_train.npy",
    }
    assert layout.class_names == ("gun", "point") or layout.submission_kind == "single"


def _long(ids: list[str], rng: np.random.Generator) -> pd.DataFrame:
    return pd.DataFrame(
        [(s, t, float(rng.normal())) for s in ids for t in range(16)],
        columns=["series_id", "timestamp", "value"],
    )


def test_long_series_with_their_labels_in_train_labels_csv(tmp_path: Path) -> None:
    inp = _described(tmp_path / "motions", "Classify each hand motion as gun or point.")
    rng = np.random.default_rng(0)
    train_ids, test_ids = [f"s{i}" for i in range(10)], [f"s{i}" for i in range(10, 14)]
    _long(train_ids, rng).to_csv(inp / "train.csv", index=False)
    _long(test_ids, rng).to_csv(inp / "test.csv", index=False)
    labels = ["gun", "point"] * 5
    pd.DataFrame({"series_id": train_ids, "label": labels}).to_csv(
        inp / "train_labels.csv", index=False
    )
    pd.DataFrame({"series_id": test_ids, "label": "gun"}).to_csv(
        inp / "sample_submission.csv", index=False
    )
    layout = inspect_task(load_task(tmp_path / "motions"))
    assert layout.modality == "time_series"
    assert layout.train_table == "train_labels.csv" and layout.label_col == "label"
    assert layout.long_series == ("train.csv", "test.csv")
    assert layout.series_order == "timestamp" and layout.series_values == ("value",)


def test_a_wide_table_of_series_with_a_label_column_stays_a_table(tmp_path: Path) -> None:
    inp = _described(tmp_path / "wide", "Classify each series.")
    rng = np.random.default_rng(1)
    for name, n in (("train", 12), ("test", 4)):
        df = pd.DataFrame(rng.normal(size=(n, 8)), columns=[f"t{j}" for j in range(8)])
        df.insert(0, "id", range(n))
        if name == "train":
            df["label"] = ["a", "b"] * 6
        df.to_csv(inp / f"{name}.csv", index=False)
    pd.DataFrame({"id": range(4), "label": "a"}).to_csv(inp / "sample_submission.csv", index=False)
    layout = inspect_task(load_task(tmp_path / "wide"))
    assert layout.modality == "tabular" and layout.label_col == "label"
    assert layout.long_series is None or layout.long_series == ()


def _reviews(tmp_path: Path, texts: list[str], column: str = "text") -> Path:
    inp = _described(tmp_path / "reviews", "Predict the sentiment of each review.")
    n = len(texts)
    pd.DataFrame({"id": range(n), column: texts, "label": ["pos", "neg"] * (n // 2)}).to_csv(
        inp / "train.csv", index=False
    )
    pd.DataFrame({"id": range(n, n + 4), column: texts[:4]}).to_csv(inp / "test.csv", index=False)
    pd.DataFrame({"id": range(n, n + 4), "label": "pos"}).to_csv(
        inp / "sample_submission.csv", index=False
    )
    return tmp_path / "reviews"


def test_short_reviews_in_a_text_column_are_a_text_task(tmp_path: Path) -> None:
    rng = np.random.default_rng(4)
    words = "the this my phone kettle lamp great awful really quite box arrived today".split()
    texts = [" ".join(rng.choice(words, 6)).capitalize() + f" {i}" for i in range(20)]
    assert np.mean([len(t) for t in texts]) < 60  # too short for the length rule alone
    task = load_task(_reviews(tmp_path, texts))
    assert task.modality == "text"
    assert inspect_task(task).text_col == "text"


def _sentences(n: int, seed: int = 4) -> list[str]:
    rng = np.random.default_rng(seed)
    words = "the this my phone kettle lamp great awful really quite box arrived today".split()
    return [" ".join(rng.choice(words, 6)).capitalize() + f" {i}" for i in range(n)]


@pytest.mark.parametrize("column", ["words", "Phrase", "pregunta"])
def test_short_sentences_under_any_column_name_are_a_text_task(tmp_path: Path, column: str) -> None:
    """The only feature is a column of sentences, called something no list of names holds:
    before, a tabular task whose every model saw one category per row (a constant submission)."""
    task = load_task(_reviews(tmp_path, _sentences(20), column))
    assert task.modality == "text"
    assert inspect_task(task).text_col == column


def test_sentences_with_a_numeric_target_and_no_sample_are_a_text_task(tmp_path: Path) -> None:
    inp = _described(tmp_path / "phrases", "Predict whether each phrase is positive.\n\nTarget: y")
    texts = _sentences(20)
    pd.DataFrame({"row_id": range(20), "phrase": texts, "y": [0, 1] * 10}).to_csv(
        inp / "train.csv", index=False
    )
    pd.DataFrame({"row_id": range(20, 24), "phrase": texts[:4]}).to_csv(
        inp / "test.csv", index=False
    )
    assert load_task(tmp_path / "phrases").modality == "text"


def test_sentences_beside_several_numeric_features_stay_a_table(tmp_path: Path) -> None:
    """A product title beside its price, weight and rating: the numbers are most of the
    features, so the task stays tabular (its title is one feature among them)."""
    inp = _described(tmp_path / "goods", "Predict whether each product sells.")
    rng = np.random.default_rng(1)
    df = pd.DataFrame(
        {
            "id": range(20),
            "title": _sentences(20),
            "price": rng.uniform(1, 50, 20).round(2),
            "weight": rng.uniform(0.1, 3, 20).round(2),
            "rating": rng.integers(1, 6, 20),
        }
    )
    df.assign(label=["yes", "no"] * 10).to_csv(inp / "train.csv", index=False)
    df.iloc[:4].assign(id=range(20, 24)).to_csv(inp / "test.csv", index=False)
    pd.DataFrame({"id": range(20, 24), "label": "yes"}).to_csv(
        inp / "sample_submission.csv", index=False
    )
    assert load_task(tmp_path / "goods").modality == "tabular"


def test_a_text_column_of_a_few_repeated_words_stays_a_category(tmp_path: Path) -> None:
    task = load_task(_reviews(tmp_path, ["red", "blue", "green", "red dark"] * 5))
    assert task.modality == "tabular"


def test_image_class_folders_with_no_csv_at_all_submit_file_ids(tmp_path: Path) -> None:
    """``train/<class>/*.png`` and ``test/*.png``, no sample submission and no ``Target:`` line:
    the submission is ``id,label`` (each test file's name), said in a notice; before, the
    folder was refused, and with a ``Target:`` line the submission had no id column."""
    inp = _described(tmp_path / "digits", "Classify each digit image.")
    for k in range(12):
        _digit(inp / "train" / ["zero", "one"][k % 2] / f"{k}.png", k)
    for k in range(4):
        _digit(inp / "test" / f"te_{k}.png", k)
    task = load_task(tmp_path / "digits")
    assert task.id_col == "id" and task.target_cols == ("label",)
    assert any("the submission is 'id,label'" in n for n in task.notices)
    layout = inspect_task(task)
    assert layout.test_media is not None and layout.test_media.folder == "test"
    with (tmp_path / "digits" / "description.md").open("a") as fh:
        fh.write("\nTarget: digit\n")
    task = load_task(tmp_path / "digits")
    assert task.id_col == "id" and task.target_cols == ("digit",)


def test_a_table_task_without_a_sample_predicts_the_one_column_its_test_table_lacks(
    tmp_path: Path,
) -> None:
    """As for tables with other names (``paired_tables``): the one column only the training
    table has is the target (was: refused, asking for a 'Target:' line); with two such
    columns the line is still needed."""
    inp = _described(tmp_path / "t", "Predict y.")
    pd.DataFrame({"id": range(6), "x": range(6), "y": [0, 1] * 3}).to_csv(
        inp / "train.csv", index=False
    )
    pd.DataFrame({"id": range(6, 8), "x": range(2)}).to_csv(inp / "test.csv", index=False)
    task = load_task(tmp_path / "t")
    assert task.target_cols == ("y",) and task.id_col == "id"
    assert any("the submission is 'id,y'" in n for n in task.notices)
    pd.DataFrame({"id": range(6), "x": range(6), "y": [0, 1] * 3, "z": range(6)}).to_csv(
        inp / "train.csv", index=False
    )
    with pytest.raises(TaskFormatError, match="no 'Target: <column>' line"):
        load_task(tmp_path / "t")


def test_arrays_in_a_task_that_says_it_is_text_are_refused_with_the_fix(tmp_path: Path) -> None:
    """Every text model failed on them ("'NoneType' object has no attribute 'lower'") and the
    run handed in the training prior."""
    root = tmp_path / "arrays"
    (root / "input").mkdir(parents=True)
    np.save(root / "input" / "X_train.npy", np.zeros((6, 4)))
    np.save(root / "input" / "y_train.npy", np.array(["a", "b"] * 3))
    np.save(root / "input" / "X_test.npy", np.zeros((2, 4)))
    spec = {"title": "arrays", "metric": "Accuracy", "target": "label", "data_type": "Text"}
    (root / "task.json").write_text(json.dumps(spec))
    with pytest.raises(LayoutError, match="name the data type 'time series' or 'image'"):
        inspect_task(load_task(root))


def test_a_projects_readme_images_folder_and_two_lists_of_files(tmp_path: Path) -> None:
    """Session 25, an image task as people keep one: ``README.md`` saying what to do, the images
    in ``images/``, ``train_labels.csv`` (``filename,digit``) and ``test_files.csv``
    (``filename``), no sample.  It was "not a task folder"; with a description.md, "no column
    of the table names a file" (the names are relative to images/), then every candidate failed
    on ``KeyError: 'id'`` (the submission was guessed as ``id,label``)."""
    root = tmp_path / "digits"
    for k in range(16):
        _digit(root / "images" / f"img_{k:03d}.png", k)
    pd.DataFrame({"filename": [f"img_{k:03d}.png" for k in range(12)], "digit": [0, 1] * 6}).to_csv(
        root / "train_labels.csv", index=False
    )
    pd.DataFrame({"filename": [f"img_{k:03d}.png" for k in range(12, 16)]}).to_csv(
        root / "test_files.csv", index=False
    )
    (root / "README.md").write_text("# Digits\n\nClassify each image into its digit. Accuracy.\n")
    task = load_task(root)
    assert task.modality == "image" and task.metric_name == "accuracy"
    assert task.id_col == "filename" and task.target_cols == ("digit",)
    assert any(n.startswith("README.md: no sample_submission.csv") for n in task.notices)
    layout = inspect_task(task)
    assert layout.train_media is not None and layout.train_media.prefix == "images"
    assert layout.test_media is not None and layout.test_media.column == "filename"
