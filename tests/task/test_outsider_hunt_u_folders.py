"""Task folders written by other authors (hunt U, session 36): tables separated by spaces in
``.txt`` files, Apache Arrow files, a ``TASK.md`` / ``instructions.md`` as the description,
Ludwig's ``input_features`` / ``output_features`` config as the task file, and a sample
submission beside ``X_train`` / ``y_train`` / ``X_test`` tables."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from sklearn.datasets import load_diabetes, load_iris

from mlestar_jupyter.importer.run_input import inspect_as_run
from mlestar_jupyter.task import load_task


def _iris() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Iris with an ``id`` column and plain column names, shuffled: 110 training rows, 40 test."""
    frame = load_iris(as_frame=True).frame
    frame.columns = ["sepal_length", "sepal_width", "petal_length", "petal_width", "target"]
    frame.insert(0, "id", range(len(frame)))
    frame = frame.sample(frac=1, random_state=0)
    return frame.iloc[:110], frame.iloc[110:].drop(columns="target")


def _spec(root: Path, spec: dict[str, Any]) -> Path:
    (root / "task.json").write_text(json.dumps(spec))
    return root


_IRIS_SPEC = {"metric": "accuracy", "target": "target", "id_column": "id"}


# ---------------------------------------------------------------- train.txt separated by spaces
@pytest.mark.parametrize("aligned", [False, True])
def test_a_space_separated_txt_table_beside_task_json_is_read(
    tmp_path: Path, aligned: bool
) -> None:
    """``train.txt`` with an ``id sepal_length ... target`` header, fields separated by spaces (R's
    ``write.table``; or aligned in columns by runs of spaces); before: "input/: missing"."""
    train, test = _iris()
    if aligned:
        (tmp_path / "train.txt").write_text(train.to_string(index=False) + "\n")
        (tmp_path / "test.txt").write_text(test.to_string(index=False) + "\n")
    else:
        train.to_csv(tmp_path / "train.txt", sep=" ", index=False)
        test.to_csv(tmp_path / "test.txt", sep=" ", index=False)
    task = load_task(_spec(tmp_path, _IRIS_SPEC))
    assert {f.path: f.role for f in task.files} == {"train.txt": "train", "test.txt": "test"}
    layout = inspect_as_run(task)
    assert (layout.train_table, layout.label_col, layout.id_col) == ("train.csv", "target", "id")
    assert layout.task_type == "classification"


def test_a_space_separated_txt_table_in_input_is_read_with_its_columns(tmp_path: Path) -> None:
    """In ``input/`` the file was taken for a table but read as one column, "a b c target"."""
    from mlestar_jupyter.task.other_tables import text_table_frame

    train, test = _iris()
    (tmp_path / "input").mkdir()
    train.to_csv(tmp_path / "input" / "train.txt", sep=" ", index=False)
    frame = text_table_frame(tmp_path / "input" / "train.txt")
    assert list(frame.columns) == list(train.columns) and len(frame) == 110


def test_a_tab_separated_txt_table_and_prose_notes_are_read_as_before(tmp_path: Path) -> None:
    from mlestar_jupyter.task.other_tables import is_delimited_text_table, text_table_frame

    train, _ = _iris()
    train.to_csv(tmp_path / "train.txt", sep="\t", index=False)
    assert list(text_table_frame(tmp_path / "train.txt").columns) == list(train.columns)
    notes = tmp_path / "test_notes.txt"
    notes.write_text(
        "These rows were taken in 1936\nby Edgar Anderson on the Gaspe\npeninsula 3 4\n"
    )
    assert not is_delimited_text_table(notes)
    words = tmp_path / "train_words.txt"
    words.write_text("the cat sat\non the mat\nand then slept\n")  # same widths, no numbers
    assert not is_delimited_text_table(words)


# ---------------------------------------------------------------- Arrow / Feather
@pytest.mark.parametrize("suffix", [".feather", ".arrow"])
@pytest.mark.parametrize("described", [False, True])
def test_arrow_files_are_read_beside_task_json_or_a_description(
    tmp_path: Path, suffix: str, described: bool
) -> None:
    """``train.arrow`` (Arrow's IPC file, as ``pyarrow.feather`` and R's ``arrow`` write it)
    beside task.json: before, "input/: missing"; ``.feather`` was read already."""
    train, test = _iris()
    train.reset_index(drop=True).to_feather(tmp_path / f"train{suffix}")
    test.reset_index(drop=True).to_feather(tmp_path / f"test{suffix}")
    if described:
        (tmp_path / "description.md").write_text(
            f"# Iris\n\nPredict `target` for each row of test{suffix}.\n\nMetric: accuracy\n"
        )
        task = load_task(tmp_path)
    else:
        task = load_task(_spec(tmp_path, _IRIS_SPEC))
    assert {f.path: f.role for f in task.files if f.role != "extra"} == {
        f"train{suffix}": "train",
        f"test{suffix}": "test",
    }
    layout = inspect_as_run(task)
    assert (layout.train_table, layout.label_col) == (f"train{suffix}", "target")
    assert "pd.read_feather(" in layout.read_code(f"train{suffix}")


# ---------------------------------------------------------------- TASK.md, instructions.md
@pytest.mark.parametrize("name", ["TASK.md", "task.md", "instructions.md", "Instructions.txt"])
def test_a_task_or_instructions_file_is_the_description(tmp_path: Path, name: str) -> None:
    """A benchmark's ``TASK.md`` (or an exercise's ``instructions.md``) beside its tables, no
    task.json; before: "not a task folder"."""
    train, test = _iris()
    train.to_csv(tmp_path / "train.csv", index=False)
    test.to_csv(tmp_path / "test.csv", index=False)
    (tmp_path / name).write_text(
        "# Iris species\n\nPredict the `target` column (the species) of each flower in "
        "test.csv.\n\nMetric: macro F1\n"
    )
    task = load_task(tmp_path)
    assert (task.metric_name, task.target_cols, task.task_type) == (
        "f1_macro",
        ("target",),
        "classification",
    )
    assert "Predict the `target` column" in task.description


def test_a_description_md_is_read_before_a_task_md(tmp_path: Path) -> None:
    train, test = _iris()
    train.to_csv(tmp_path / "train.csv", index=False)
    test.to_csv(tmp_path / "test.csv", index=False)
    (tmp_path / "description.md").write_text("Predict `target`.\n\nMetric: accuracy\n")
    (tmp_path / "TASK.md").write_text("Predict `target`.\n\nMetric: macro F1\n")
    assert load_task(tmp_path).metric_name == "accuracy"


# ---------------------------------------------------------------- Ludwig's config
def _diabetes(root: Path) -> Path:
    frame = load_diabetes(as_frame=True).frame.rename(columns={"target": "progression"})
    frame.iloc[:350].to_csv(root / "train.csv", index=False)
    frame.iloc[350:].drop(columns="progression").to_csv(root / "test.csv", index=False)
    return root


def test_ludwigs_yaml_config_names_the_target_and_its_type(tmp_path: Path) -> None:
    """Ludwig's ``config.yaml`` kept as the task file: ``output_features`` name the target, its
    ``number`` type makes it a regression; before: "field 'metric' missing", and with a metric,
    "target_col missing"."""
    pytest.importorskip("yaml")
    _diabetes(tmp_path)
    (tmp_path / "task.yaml").write_text(
        "input_features:\n"
        + "".join(f"  - name: {c}\n    type: number\n" for c in ("age", "sex", "bmi", "bp"))
        + "output_features:\n  - name: progression\n    type: number\n"
        + "trainer:\n  epochs: 20\n  validation_metric: mean_absolute_error\n"
    )
    task = load_task(tmp_path)
    assert (task.target_cols, task.task_type, task.metric_name) == (
        ("progression",),
        "regression",
        "mae",
    )
    assert not any("not read" in n for n in task.notices), task.notices


@pytest.mark.parametrize(
    ("ludwig_type", "task_type", "metric"),
    [("category", "classification", "log_loss"), ("number", "regression", "mse")],
)
def test_ludwigs_output_type_decides_the_task_type_and_default_loss(
    tmp_path: Path, ludwig_type: str, task_type: str, metric: str
) -> None:
    """Iris's classes are the numbers 0, 1, 2: the output feature's type says which they are."""
    train, test = _iris()
    train.to_csv(tmp_path / "train.csv", index=False)
    test.to_csv(tmp_path / "test.csv", index=False)
    spec = {
        "input_features": [{"name": c, "type": "number"} for c in train.columns[1:5]],
        "output_features": [{"name": "target", "type": ludwig_type}],
    }
    task = load_task(_spec(tmp_path, spec))
    assert (task.target_cols, task.task_type, task.metric_name) == (
        ("target",),
        task_type,
        metric,
    )
    assert any("the loss Ludwig validates" in n for n in task.notices)


def test_a_metric_beside_ludwigs_features_is_the_metric(tmp_path: Path) -> None:
    train, test = _iris()
    train.to_csv(tmp_path / "train.csv", index=False)
    test.to_csv(tmp_path / "test.csv", index=False)
    spec = {"metric": "accuracy", "output_features": [{"name": "target", "type": "category"}]}
    task = load_task(_spec(tmp_path, spec))
    assert (task.target_cols, task.metric_name) == (("target",), "accuracy")


# ---------------------------------------------------------------- X_train / y_train / X_test
def _features_labels(root: Path, names: tuple[str, str, str], sample: bool) -> Path:
    """A course's features and labels tables (scikit-learn's names), and a sample submission
    of the rows to predict (``id``, ``species``) when ``sample``."""
    train, test = _iris()
    x_train, y_train, x_test = names
    train.drop(columns="target").to_csv(root / x_train, index=False)
    train[["target"]].rename(columns={"target": "species"}).to_csv(root / y_train, index=False)
    test.to_csv(root / x_test, index=False)
    if sample:
        pd.DataFrame({"id": test["id"], "species": 0}).to_csv(
            root / "sample_submission.csv", index=False
        )
    return root


@pytest.mark.parametrize("described", [True, False])
def test_a_sample_submission_beside_features_and_labels_keeps_its_role(
    tmp_path: Path, described: bool
) -> None:
    """Before, the description reader made the sample an extra file: "sample_submission.csv
    missing and the description names no 'Target: <column>' line"; the task-file reader kept
    it.  Both read it now (one function re-roles the files for both)."""
    _features_labels(tmp_path, ("X_train.csv", "y_train.csv", "X_test.csv"), sample=True)
    if described:
        (tmp_path / "description.md").write_text(
            "# Iris\n\nPredict the species of each flower of X_test.csv.\n\nMetric: accuracy\n"
        )
    else:
        _spec(tmp_path, {"metric": "accuracy"})
    task = load_task(tmp_path)
    roles = {f.path: f.role for f in task.files}
    assert roles["sample_submission.csv"] == "sample_submission"
    assert (roles["X_train.csv"], roles["X_test.csv"], roles["y_train.csv"]) == (
        "train",
        "test",
        "extra",
    )
    assert (task.id_col, task.target_cols) == ("id", ("species",))
    layout = inspect_as_run(task)
    assert (layout.train_table, layout.label_col, layout.sample_submission) == (
        "train.csv",
        "species",
        "sample_submission.csv",
    )


@pytest.mark.parametrize("described", [True, False])
def test_train_x_and_train_y_tables_are_joined_by_either_reader(
    tmp_path: Path, described: bool
) -> None:
    """``train_X.csv`` / ``train_y.csv`` / ``test_X.csv`` (``train_X.csv`` is a training table by
    its name too): the two readers give them the same roles."""
    _features_labels(tmp_path, ("train_X.csv", "train_y.csv", "test_X.csv"), sample=False)
    if described:
        (tmp_path / "description.md").write_text("Predict the species.\n\nMetric: accuracy\n")
    else:
        _spec(tmp_path, {"metric": "accuracy", "target": "species"})
    task = load_task(tmp_path)
    roles = {f.path: f.role for f in task.files}
    assert (roles["train_X.csv"], roles["train_y.csv"], roles["test_X.csv"]) == (
        "train",
        "extra",
        "test",
    )
    assert task.target_cols == ("species",)
    assert inspect_as_run(task).label_col == "species"


def test_an_arrow_file_without_pyarrow_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    train, test = _iris()
    train.reset_index(drop=True).to_feather(tmp_path / "train.arrow")
    test.reset_index(drop=True).to_feather(tmp_path / "test.arrow")

    def no_pyarrow(*args: Any, **kwargs: Any) -> pd.DataFrame:
        raise ImportError("Missing optional dependency 'pyarrow'.")

    monkeypatch.setattr(pd, "read_feather", no_pyarrow)
    with pytest.raises(Exception, match="pip install pyarrow"):
        inspect_as_run(load_task(_spec(tmp_path, _IRIS_SPEC)))


# ---------------------------------------------------------------- TAM-Bench's schema, camelCase
def _wine_camel(root: Path, info: dict[str, Any], metric: Any) -> Path:
    from sklearn.datasets import load_wine

    frame = load_wine(as_frame=True).frame.rename(columns={"target": "cultivar"})
    frame.columns = [c.replace("/", "_") for c in frame.columns]
    frame.insert(0, "sample_id", [f"w{i:03d}" for i in range(len(frame))])
    frame = frame.sample(frac=1, random_state=0)
    (root / "input").mkdir()
    frame.iloc[:130].to_csv(root / "input" / "wine_train.csv", index=False)
    frame.iloc[130:].drop(columns="cultivar").to_csv(root / "input" / "wine_test.csv", index=False)
    spec = {
        "taskName": "wine-cultivar",
        "goalDescription": "Classify each wine into its cultivar from its chemical analysis.",
        "evaluationMetric": metric,
        "dataInformation": info,
        "targetColumn": "cultivar",
        "idColumn": "sample_id",
    }
    return _spec(root, spec)


@pytest.mark.parametrize(
    "metric",
    [
        {"metricName": "F1 (macro)", "greaterIsBetter": True},  # was "metric.metric_name missing"
        {"MetricName": "f1_macro"},
        {"name": "f1", "average": "macro"},
    ],
)
@pytest.mark.parametrize(
    "info",
    [
        {
            "trainData": {"dataLocation": "wine_train.csv"},
            "testData": {"dataLocation": "wine_test.csv"},
        },
        {"training_set": {"path": "wine_train.csv"}, "test_set": {"path": "wine_test.csv"}},
        {"train": "wine_train.csv", "test": "wine_test.csv"},
        {"train": {"data_location": "wine_train.csv"}, "test": {"data_location": "wine_test.csv"}},
    ],
)
def test_tam_bench_fields_spelled_in_camel_case_are_read(
    tmp_path: Path, info: dict[str, Any], metric: Any
) -> None:
    """TAM-Bench's ``data_information.train.data_location`` and ``metric.metric_name`` spelled
    ``dataInformation.trainData.dataLocation`` and ``evaluationMetric.metricName``: before,
    "field 'metric.metric_name' missing", then "no training data found"."""
    task = load_task(_wine_camel(tmp_path, info, metric))
    roles = {f.path: f.role for f in task.files}
    assert (roles["wine_train.csv"], roles["wine_test.csv"]) == ("train", "test")
    assert (task.metric_name, task.target_cols, task.id_col) == (
        "f1_macro",
        ("cultivar",),
        "sample_id",
    )


def test_ludwigs_model_settings_are_said_unread_and_the_task_file_named(tmp_path: Path) -> None:
    pytest.importorskip("yaml")
    _diabetes(tmp_path)
    (tmp_path / "task.yaml").write_text(
        "model_type: ecd\ninput_features:\n  - name: bmi\n    type: number\n"
        "output_features:\n  - name: progression\n    type: number\n"
        "combiner:\n  type: concat\n"
    )
    task = load_task(tmp_path)
    assert any("Ludwig's model settings (model_type, combiner)" in n for n in task.notices)
    assert any("data read from beside task.yaml" in n for n in task.notices), task.notices
    assert not any("task.json" in n for n in task.notices), task.notices


def test_the_first_column_of_a_space_separated_test_txt_is_the_rows_id(tmp_path: Path) -> None:
    """``row`` (distinct whole numbers, first) in ``test.txt`` separated by spaces is the
    submission's id; before, the table read as one column of text: "no column is their id"."""
    train, test = _iris()
    train.rename(columns={"id": "row"}).to_csv(tmp_path / "train.txt", sep=" ", index=False)
    test.rename(columns={"id": "row"}).to_csv(tmp_path / "test.txt", sep=" ", index=False)
    (tmp_path / "TASK.md").write_text(
        "Predict `target` for each row of test.txt.\n\nMetric: accuracy\n"
    )
    task = load_task(tmp_path)
    assert (task.id_col, task.target_cols) == ("row", ("target",))
