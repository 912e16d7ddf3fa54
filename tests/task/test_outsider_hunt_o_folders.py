"""Task folders other benchmarks and sites write (hunt O), each refused or misread before:

- a test table that keeps the target column, left empty (``Sale Price`` blank in every row),
  a README and no sample: "names no 'Target: <column>' line";
- OpenML's task description (``target_feature``, ``evaluation_measure: predictive_accuracy``):
  "field 'metric' missing";
- the AutoML benchmark's ``task.yaml`` (a list of one task, ``metric: [acc, logloss]``):
  "must hold an object";
- MLE-bench's competition ``config.yaml`` (``grader: {name: auc-roc}``) beside a
  description.md that names no metric: "names no metric";
- a competition page saved as ``overview.html`` beside the tables: "no description.md".
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.errors import TaskFormatError
from mlestar_jupyter.task.layout import inspect_task


def _tables(root: Path, target: str, *, id_col: str = "id", n: int = 40) -> pd.DataFrame:
    rs = np.random.RandomState(0)
    df = pd.DataFrame({"a": rs.randn(n), "b": rs.randn(n)})
    df.insert(0, id_col, range(n))
    df[target] = (df.a > 0).astype(int)
    root.mkdir(parents=True, exist_ok=True)
    df.iloc[:30].to_csv(root / "train.csv", index=False)
    df.iloc[30:].drop(columns=target).to_csv(root / "test.csv", index=False)
    return df


def test_test_table_with_the_target_left_empty(tmp_path: Path) -> None:
    rs = np.random.RandomState(1)
    df = pd.DataFrame({"lot": rs.rand(40), "rooms": rs.randint(1, 6, 40)})
    df.insert(1, "Id", range(1, 41))  # the id not first
    df["Sale Price"] = df.lot * 1e5
    df.iloc[:30].to_csv(tmp_path / "train.csv", index=False)
    df.iloc[30:].assign(**{"Sale Price": np.nan}).to_csv(tmp_path / "test.csv", index=False)
    (tmp_path / "README.md").write_text(
        "# House prices\n\nPredict the `Sale Price` of each house. Metric: R² (coefficient of "
        "determination).\n"
    )
    task = load_task(tmp_path)
    assert task.metric_name == "r2"
    assert task.target_cols == ("Sale Price",)
    layout = inspect_task(task)
    assert layout.label_col == "Sale Price"
    assert layout.id_col == "Id"


def test_openml_task_description(tmp_path: Path) -> None:
    _tables(tmp_path, "malignant", id_col="rid")
    (tmp_path / "task.json").write_text(
        json.dumps(
            {
                "task_id": 9931,
                "task_type": "Supervised Classification",
                "target_feature": "malignant",
                "evaluation_measure": "predictive_accuracy",
                "estimation_procedure": "holdout",
            }
        )
    )
    task = load_task(tmp_path)
    assert task.metric_name == "accuracy"
    assert task.target_cols == ("malignant",)
    assert any("evaluation_measure" in n for n in task.notices)


def test_openml_area_under_roc_curve(tmp_path: Path) -> None:
    _tables(tmp_path, "y")
    (tmp_path / "task.json").write_text(
        json.dumps({"target_feature": "y", "evaluation_measure": "area_under_roc_curve"})
    )
    assert load_task(tmp_path).metric_name == "roc_auc"


def test_automl_benchmark_yaml(tmp_path: Path) -> None:
    df = _tables(tmp_path / "tmp", "quality", id_col="row_id")
    df.iloc[:30].to_csv(tmp_path / "wine_train.csv", index=False)
    df.iloc[30:].drop(columns="quality").to_csv(tmp_path / "wine_test.csv", index=False)
    for p in (tmp_path / "tmp").iterdir():
        p.unlink()
    (tmp_path / "tmp").rmdir()
    (tmp_path / "task.yaml").write_text(
        "---\n- name: wine\n  dataset:\n    train: wine_train.csv\n    test: wine_test.csv\n"
        "    target: quality\n  folds: 1\n  metric: [acc, logloss]\n"
    )
    task = load_task(tmp_path)
    assert task.metric_name == "accuracy"
    assert task.target_cols == ("quality",)
    assert any("the first, 'acc'" in n for n in task.notices)
    assert inspect_task(task).train_table == "wine_train.csv"


def test_a_benchmark_list_of_several_tasks_says_to_keep_one(tmp_path: Path) -> None:
    _tables(tmp_path, "y")
    (tmp_path / "task.yaml").write_text(
        "- name: one\n  dataset: {train: train.csv, target: y}\n  metric: acc\n"
        "- name: two\n  dataset: {train: train.csv, target: y}\n  metric: auc\n"
    )
    with pytest.raises(TaskFormatError, match=r"list of 2 tasks \(one, two\).*keep the one"):
        load_task(tmp_path)


def test_mlebench_config_names_the_metric(tmp_path: Path) -> None:
    df = _tables(tmp_path, "Transported", id_col="PassengerId")
    pd.DataFrame({"PassengerId": df.PassengerId[30:], "Transported": 0}).to_csv(
        tmp_path / "sample_submission.csv", index=False
    )
    (tmp_path / "description.md").write_text("# Titanic\n\nPredict whether each was Transported.\n")
    (tmp_path / "config.yaml").write_text(
        "id: tumour-titanic\ncompetition_type: simple\ndescription: description.md\n"
        "dataset:\n  answers: x/prepared/private/test.csv\n  sample_submission: "
        "x/prepared/public/sample_submission.csv\ngrader:\n  name: auc-roc\n  grade_fn: "
        "mlebench.competitions.x.grade:grade\npreparer: mlebench.competitions.x.prepare:prepare\n"
    )
    task = load_task(tmp_path)
    assert task.metric_name == "roc_auc"
    assert any("config.yaml's 'grader'" in n for n in task.notices)


def test_a_config_beside_a_description_and_input_folder_is_read_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """description.md naming no metric, config.yaml beside it, the tables in input/: the
    config names the metric, read once (it was read twice: once to learn whether a metric is
    named, once for the metric)."""
    from mlestar_jupyter.task import description_metric

    df = _tables(tmp_path / "input", "y")
    pd.DataFrame({"id": df.id[30:], "y": 0}).to_csv(
        tmp_path / "input" / "sample_submission.csv", index=False
    )
    (tmp_path / "description.md").write_text("# T\n\nPredict y.\n")
    (tmp_path / "config.yaml").write_text("grader:\n  name: auc-roc\n")
    read: list[str] = []
    read_spec = description_metric.read_spec

    def counted(path: Path) -> dict[str, Any]:
        read.append(path.name)
        return read_spec(path)

    monkeypatch.setattr(description_metric, "read_spec", counted)
    task = load_task(tmp_path)
    assert (task.source_format, task.metric_name) == ("description", "roc_auc")
    assert any("config.yaml's 'grader'" in n for n in task.notices)
    assert read == ["config.yaml"]


def test_a_description_naming_no_metric_and_no_config_is_still_refused(tmp_path: Path) -> None:
    df = _tables(tmp_path, "y")
    pd.DataFrame({"id": df.id[30:], "y": 0}).to_csv(tmp_path / "sample_submission.csv", index=False)
    (tmp_path / "description.md").write_text("# T\n\nPredict y.\n")
    with pytest.raises(TaskFormatError, match="names no metric"):
        load_task(tmp_path)


def test_competition_page_saved_as_html(tmp_path: Path) -> None:
    df = _tables(tmp_path, "benign")
    pd.DataFrame({"id": df.id[30:], "benign": 0.5}).to_csv(
        tmp_path / "sample_submission.csv", index=False
    )
    (tmp_path / "overview.html").write_text(
        "<!DOCTYPE html><html><head><title>Tumour | Kaggle</title><script>var auc=1;</script>"
        "</head><body><nav>Home</nav><h1>Tumour Challenge</h1><p>Predict the probability that "
        "each tumour is <b>benign</b>.</p><h2>Evaluation</h2><p>Submissions are scored on the "
        "area under the ROC curve between the predicted probability and the observed target."
        "</p><h2>Submission File</h2><pre>id,benign\n12,0.5\n</pre></body></html>"
    )
    task = load_task(tmp_path)
    assert task.metric_name == "roc_auc"
    assert task.target_cols == ("benign",)
    assert "var auc" not in task.goal and "benign" in task.goal


def test_target_line_beside_tables_with_an_id_column(tmp_path: Path) -> None:
    """ "Target: Qualität" (unicode), an ``ID`` column of words, no sample: the submission is
    ``ID,Qualität`` (it was the target alone, in row order)."""
    rs = np.random.RandomState(2)
    df = pd.DataFrame({"ID": [f"W{i}" for i in range(40)], "alc.value": rs.rand(40)})
    df["Qualität"] = rs.randint(0, 3, 40)
    df.iloc[:30].to_csv(tmp_path / "train.csv", index=False)
    df.iloc[30:].drop(columns="Qualität").to_csv(tmp_path / "test.csv", index=False)
    (tmp_path / "README.md").write_text(
        "# Weinqualität\n\nTarget: Qualität\n\nMetric: weighted F1\n"
    )
    task = load_task(tmp_path)
    assert (task.metric_name, task.target_cols, task.id_col) == (
        "f1_weighted",
        ("Qualität",),
        "ID",
    )
    assert inspect_task(task).id_col == "ID"
    assert any("the submission is 'ID,Qualität'" in n for n in task.notices)


def test_target_line_beside_tables_without_an_id_keeps_row_order(tmp_path: Path) -> None:
    rs = np.random.RandomState(3)
    df = pd.DataFrame({"alcohol": rs.rand(40) + 11, "ash": rs.rand(40)})
    df["class"] = rs.randint(0, 3, 40)
    df.iloc[:30].to_csv(tmp_path / "train.csv", index=False)
    df.iloc[30:].drop(columns="class").to_csv(tmp_path / "test.csv", index=False)
    (tmp_path / "README.md").write_text("# Wine\n\nTarget: class\n\nMetric: accuracy\n")
    task = load_task(tmp_path)
    assert task.id_col is None
    assert any("in the order of the rows to predict" in n for n in task.notices)


@pytest.mark.parametrize("labels_header", [True, False])
def test_course_assignment_features_and_labels_apart(tmp_path: Path, labels_header: bool) -> None:
    """``X_train.csv``, ``y_train.csv`` (with a header, or bare as ``np.savetxt`` writes it),
    ``X_test.csv``, no id, a README: was "no training data found: add train.csv"."""
    from mlestar_jupyter.importer.table_parts import parts_as_tables

    data = tmp_path / "task"
    data.mkdir()
    rs = np.random.RandomState(4)
    x = pd.DataFrame({"alcohol": rs.rand(40) + 11, "ash": rs.rand(40)})
    y = pd.Series(rs.randint(0, 3, 40), name="class")
    x.iloc[:30].to_csv(data / "X_train.csv", index=False)
    y.iloc[:30].to_csv(data / "y_train.csv", index=False, header=labels_header)
    x.iloc[30:].to_csv(data / "X_test.csv", index=False)
    (data / "README.md").write_text(
        "# Assignment 3\n\nTrain on X_train.csv / y_train.csv, predict the class of every row "
        "of X_test.csv in the same order. We grade accuracy.\n"
    )
    task = load_task(data)
    target = "class" if labels_header else "label"
    assert task.target_cols == (target,)
    assert task.id_col is None
    joined = parts_as_tables(task, tmp_path / "run" / "table-parts")
    assert joined is not None
    layout = inspect_task(joined)
    assert (layout.label_col, layout.id_col) == (target, None)
    train = pd.read_csv(joined.input_dir / "train.csv")
    assert list(train.columns) == ["alcohol", "ash", target]
    assert train[target].tolist() == y.iloc[:30].tolist()
    assert len(pd.read_csv(joined.input_dir / "test.csv")) == 10
    assert sorted(p.name for p in data.iterdir()) == [
        "README.md",
        "X_test.csv",
        "X_train.csv",
        "y_train.csv",
    ]


def _run_copy(task, folder: Path):  # type: ignore[no-untyped-def]
    from mlestar_jupyter.importer.readable_input import readable_input

    return readable_input(task, folder)


def test_tables_separated_by_tabs_under_a_txt_name(tmp_path: Path) -> None:
    """``train.txt`` / ``test.txt`` separated by tabs, a README naming the metric only: was
    "names no 'Target: <column>' line"."""
    data = tmp_path / "task"
    data.mkdir()
    rs = np.random.RandomState(5)
    df = pd.DataFrame({"case": range(40), "radius": rs.rand(40), "texture": rs.rand(40)})
    df["diagnosis"] = (df.radius > 0.5).astype(int)
    df.iloc[:30].to_csv(data / "train.txt", sep="\t", index=False)
    df.iloc[30:].drop(columns="diagnosis").to_csv(data / "test.txt", sep="\t", index=False)
    (data / "notes.txt").write_text("collected in 1995, see the paper\n")
    (data / "README.md").write_text(
        "# Tumours\n\ntrain.txt and test.txt are tab-separated. Predict `diagnosis`. "
        "Submissions are scored on the area under the ROC curve.\n"
    )
    task = load_task(data)
    assert (task.metric_name, task.target_cols, task.id_col) == (
        "roc_auc",
        ("diagnosis",),
        "case",
    )
    copy = _run_copy(task, tmp_path / "run" / "readable-input")
    assert copy is not None
    layout = inspect_task(copy)
    assert (layout.train_table, layout.label_col) == ("train.csv", "diagnosis")
    assert list(pd.read_csv(copy.input_dir / "train.csv").columns) == list(df.columns)
    assert not (copy.input_dir / "notes.csv").exists()


def test_json_records_wrapped_in_an_object(tmp_path: Path) -> None:
    """``train.json`` = ``{"data": [{...}, ...]}``: was "names no 'Target: <column>' line"."""
    data = tmp_path / "task"
    data.mkdir()
    df = _tables(tmp_path / "tables", "label")
    for name, part in (("train", df.iloc[:30]), ("test", df.iloc[30:].drop(columns="label"))):
        (data / f"{name}.json").write_text(json.dumps({"data": part.to_dict("records")}))
    (data / "README.md").write_text("# Wine\n\nPredict the class. Metric: accuracy.\n")
    task = load_task(data)
    assert (task.target_cols, task.id_col) == (("label",), "id")
    copy = _run_copy(task, tmp_path / "run" / "readable-input")
    assert copy is not None
    assert len(pd.read_csv(copy.input_dir / "train.csv")) == 30
    assert inspect_task(copy).label_col == "label"


def test_arrays_in_one_npz_file(tmp_path: Path) -> None:
    """``data.npz`` holding ``X_train``, ``y_train``, ``X_test`` and a README: was "not a task
    folder"; the run reads the arrays as ``.npy`` files of their names."""
    data = tmp_path / "task"
    data.mkdir()
    rs = np.random.RandomState(6)
    np.savez(
        data / "data.npz",
        X_train=rs.rand(30, 4),
        y_train=rs.randint(0, 3, 30),
        X_test=rs.rand(10, 4),
    )
    (data / "README.md").write_text(
        "# Digits\n\nPredict the digit of each X_test row. Metric: accuracy.\n"
    )
    task = load_task(data)
    assert task.metric_name == "accuracy"
    copy = _run_copy(task, tmp_path / "run" / "readable-input")
    assert copy is not None
    layout = inspect_task(copy)
    assert layout.npy_files == {
        "X_train": "X_train.npy",
        "y_train": "y_train.npy",
        "X_test": "X_test.npy",
    }
    assert np.load(copy.input_dir / "X_test.npy").shape == (10, 4)
    assert sorted(p.name for p in data.iterdir()) == ["README.md", "data.npz"]


def test_one_table_with_a_split_column(tmp_path: Path) -> None:
    """``data.csv`` with ``split`` = train / test, the target empty in the test rows: was "no
    training data found: add train.csv"; the run cuts it into train.csv and test.csv."""
    from mlestar_jupyter.importer.table_parts import parts_as_tables

    data = tmp_path / "task"
    data.mkdir()
    rs = np.random.RandomState(7)
    df = pd.DataFrame({"id": range(40), "alcohol": rs.rand(40) + 11})
    df["cultivar"] = rs.randint(0, 3, 40).astype(float)
    df["split"] = ["train"] * 30 + ["test"] * 10
    df.loc[df.split == "test", "cultivar"] = np.nan
    df.sample(frac=1, random_state=1).to_csv(data / "data.csv", index=False)
    (data / "README.md").write_text(
        "# Wine\n\n`data.csv` holds all rows; the `split` column says train or test. Predict "
        "the cultivar of the test rows. Metric: accuracy.\n"
    )
    from mlestar_jupyter.importer.dataset_task import find_dataset

    assert find_dataset(data) is None  # (the run held out rows of it: "no test table")
    task = load_task(data)
    assert (task.target_cols, task.id_col) == (("cultivar",), "id")
    from mlestar_jupyter.importer.dataset_task import dataset_of_task

    assert dataset_of_task(task) is None  # (the run held 25 of the training rows out)
    cut = parts_as_tables(task, tmp_path / "run" / "table-parts")
    assert cut is not None
    layout = inspect_task(cut)
    assert (layout.train_table, layout.test_table, layout.label_col) == (
        "train.csv",
        "test.csv",
        "cultivar",
    )
    test = pd.read_csv(cut.input_dir / "test.csv")
    assert list(test.columns) == ["id", "alcohol"] and len(test) == 10
    # the classes as written in the training rows (1, not 1.0: the test rows' blanks made the
    # column one of floats, and the submission wrote 1.0)
    train_text = (cut.input_dir / "train.csv").read_text().splitlines()
    assert not any(line.endswith(".0") for line in train_text[1:])


@pytest.mark.parametrize("ext", [".pkl", ".h5"])
def test_tables_in_a_format_no_reader_opens_are_named(tmp_path: Path, ext: str) -> None:
    """``train.pkl`` / ``test.pkl`` (or HDF5 stores) beside a README: the refusal said
    "sample_submission.csv missing ... no 'Target:' line"; it now names the files and the line
    that saves them as CSV (pickles are not loaded: unpickling runs code)."""
    (tmp_path / f"train{ext}").write_bytes(b"\x80\x04K\x01.")
    (tmp_path / f"test{ext}").write_bytes(b"\x80\x04K\x01.")
    (tmp_path / "README.md").write_text("# Wine\n\nPredict `cultivar`. Metric: accuracy.\n")
    with pytest.raises(TaskFormatError) as e:
        load_task(tmp_path)
    said = str(e.value)
    assert "cannot be read" in said and f"train{ext}" in said and "to_csv('train.csv'" in said
    assert "Target:" not in said


def test_project_with_data_raw_and_data_processed(tmp_path: Path) -> None:
    """A cookiecutter project: README, ``data/raw/train.csv`` + ``test.csv`` and
    ``data/processed/train_clean.csv``: was "not a task folder"; the raw folder, the one with
    both tables, is read."""
    df = _tables(tmp_path / "data" / "raw", "target")
    (tmp_path / "data" / "processed").mkdir()
    df.iloc[:30, :2].to_csv(tmp_path / "data" / "processed" / "train_clean.csv", index=False)
    (tmp_path / "README.md").write_text(
        "# Tumours\n\nPredict `target` for the test set. Metric: ROC AUC. Submit `id,target`.\n"
    )
    task = load_task(tmp_path)
    assert task.input_dir == (tmp_path / "data" / "raw").resolve()
    assert (task.metric_name, task.target_cols, task.id_col) == ("roc_auc", ("target",), "id")


def test_kaggle_dataset_metadata_says_what_to_write(tmp_path: Path) -> None:
    """train.csv / test.csv beside a Kaggle ``dataset-metadata.json`` (no target, no metric):
    the refusal says the metadata names neither and which line to write (the column only the
    training table has)."""
    _tables(tmp_path, "y")
    (tmp_path / "dataset-metadata.json").write_text(
        json.dumps({"title": "Diabetes progression", "id": "someone/diabetes", "licenses": []})
    )
    with pytest.raises(TaskFormatError, match=r"Kaggle dataset's metadata.*'Target: y'"):
        load_task(tmp_path)


def test_libsvm_training_and_test_files(tmp_path: Path) -> None:
    """``train.svm`` / ``test.svm`` (LIBSVM rows, the test labels placeholders) beside a README:
    was "names no 'Target:' line"; the target is the rows' ``label``, the submission in row
    order, and the run reads both as CSV (the test labels left out)."""
    from sklearn.datasets import dump_svmlight_file

    data = tmp_path / "task"
    data.mkdir()
    rs = np.random.RandomState(8)
    x, y = rs.rand(40, 5), rs.randint(0, 2, 40)
    dump_svmlight_file(x[:30], y[:30], str(data / "train.svm"))
    dump_svmlight_file(x[30:], np.zeros(10), str(data / "test.svm"))
    (data / "README.md").write_text(
        "# Tumours\n\nLIBSVM files. Predict the probability of label 1. Metric: ROC AUC.\n"
    )
    task = load_task(data)
    assert (task.metric_name, task.target_cols, task.id_col) == ("roc_auc", ("label",), None)
    copy = _run_copy(task, tmp_path / "run" / "readable-input")
    assert copy is not None
    layout = inspect_task(copy)
    assert (layout.train_table, layout.test_table, layout.label_col) == (
        "train.csv",
        "test.csv",
        "label",
    )
    test = pd.read_csv(copy.input_dir / "test.csv")
    assert test.shape == (10, 5) and "label" not in test.columns
    assert pd.read_csv(copy.input_dir / "train.csv")["label"].tolist() == y[:30].tolist()


@pytest.mark.parametrize(
    ("line", "target"),
    [("Zielvariable: Preis", "Preis"), ("Variable objetivo: precio", "precio")],
)
def test_target_line_in_another_language(tmp_path: Path, line: str, target: str) -> None:
    """A German / Spanish README names the target ("Zielvariable: Preis") beside a training
    table with two columns the test table lacks: was refused, "names no 'Target:' line"."""
    rs = np.random.RandomState(9)
    df = pd.DataFrame({"Nr": range(40), "qm": rs.rand(40)})
    df[target] = df.qm * 1000
    df["Rabatt"] = rs.rand(40)  # known only afterwards: not in the test table either
    df.iloc[:30].to_csv(tmp_path / "train.csv", index=False)
    df.iloc[30:].drop(columns=[target, "Rabatt"]).to_csv(tmp_path / "test.csv", index=False)
    (tmp_path / "README.md").write_text(f"# Preise\n\n{line}\n\nMetric: RMSE\n")
    task = load_task(tmp_path)
    assert (task.target_cols, task.id_col) == ((target,), "Nr")
    assert inspect_task(task).label_col == target
