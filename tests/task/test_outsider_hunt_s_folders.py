"""Task folders written by other authors (hunt S, session 35): a task.json saying which way its
metric is better beside ``"metric": "..."`` (``"greaterIsBetter": false``), and one whose
direction contradicts its metric."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_diabetes, load_iris, load_wine

from mlestar_jupyter.task import TaskFormatError, load_task


def _diabetes(root: Path, spec: dict[str, Any]) -> Path:
    """Diabetes progression in ``data/`` (train/test, no sample), and the author's task.json."""
    frame = load_diabetes(as_frame=True).frame.rename(columns={"target": "progression"})
    frame.insert(0, "pid", range(len(frame)))
    (root / "data").mkdir(parents=True)
    frame.iloc[:350].to_csv(root / "data" / "train.csv", index=False)
    frame.iloc[350:].drop(columns="progression").to_csv(root / "data" / "test.csv", index=False)
    spec = {**spec, "target": "progression", "id_column": "pid"}
    (root / "task.json").write_text(json.dumps(spec))
    return root


@pytest.mark.parametrize(
    ("fields", "key"),
    [
        ({"metric": "rmse", "greater_is_better": False}, "greater_is_better"),
        ({"metric": "MAE", "greaterIsBetter": False}, "greater_is_better"),
        ({"metric": "mae", "lower_is_better": True}, "lower_is_better"),
        (
            {
                "evaluation": "Submissions are evaluated on Mean Absolute Error",
                "higher_is_better": "false",
            },
            "higher_is_better",
        ),
    ],
)
def test_a_direction_beside_the_metric_is_read(
    tmp_path: Path, fields: dict[str, Any], key: str
) -> None:
    """Before: "task.json: fields not read: greater_is_better" (only a metric object's own was
    read); now it is the metric's direction, agreeing with it."""
    task = load_task(_diabetes(tmp_path, fields))
    assert task.direction == "minimize"
    assert any(f"read '{key}' as the metric's direction (minimize)" in n for n in task.notices)
    assert not any("not read" in n for n in task.notices), task.notices


@pytest.mark.parametrize(
    "fields",
    [
        {"metric": "r2", "greaterIsBetter": False},  # before: read as r2, maximized (unread)
        {"metric": {"name": "mae", "direction": "maximize"}},  # before: MAE maximized
    ],
)
def test_a_direction_that_contradicts_the_metric_is_refused(
    tmp_path: Path, fields: dict[str, Any]
) -> None:
    """A run maximizing MAE keeps its worst candidates: the task is refused saying why."""
    with pytest.raises(TaskFormatError, match="-is-better, but the task file says"):
        load_task(_diabetes(tmp_path, fields))


def test_a_negated_scikit_learn_scorer_higher_is_better_grades_the_error_lower(
    tmp_path: Path,
) -> None:
    """``{"name": "neg_mean_absolute_error", "greater_is_better": true}`` is scikit-learn's
    negated MAE; before, the run graded MAE itself and maximized it (kept the worst model)."""
    spec = {"metric": {"name": "neg_mean_absolute_error", "greater_is_better": True}}
    task = load_task(_diabetes(tmp_path, spec))
    assert (task.metric_name, task.direction) == ("mae", "minimize")
    assert any("negated mae" in n for n in task.notices)


def _wine() -> pd.DataFrame:
    frame = load_wine(as_frame=True).frame.rename(columns={"target": "cultivar"})
    return frame.sample(frac=1.0, random_state=0).reset_index(drop=True)


@pytest.mark.parametrize("target", [{"target": "cultivar"}, {}])
def test_task_json_beside_features_and_labels_tables(
    tmp_path: Path, target: dict[str, str]
) -> None:
    """``data/X_train.csv``, ``y_train.csv``, ``X_test.csv`` and a task.json: before, "no
    training data found" (a README beside them was read); now the features and labels are the
    training table, the target the labels' column (named or not)."""
    wine = _wine()
    (tmp_path / "data").mkdir()
    features = wine.drop(columns="cultivar")
    features.iloc[:140].to_csv(tmp_path / "data" / "X_train.csv", index=False)
    wine[["cultivar"]].iloc[:140].to_csv(tmp_path / "data" / "y_train.csv", index=False)
    features.iloc[140:].to_csv(tmp_path / "data" / "X_test.csv", index=False)
    (tmp_path / "task.json").write_text(json.dumps({"metric": "accuracy", **target}))
    task = load_task(tmp_path)
    assert task.target_cols == ("cultivar",)
    roles = {f.path: f.role for f in task.files}
    assert roles == {"X_train.csv": "train", "y_train.csv": "extra", "X_test.csv": "test"}
    assert any("read as one training table" in n for n in task.notices)


def test_task_json_beside_one_table_with_a_split_column(tmp_path: Path) -> None:
    """``data/wine.csv`` with ``split`` = train / test (the target empty in the test rows) and
    a task.json: before, "no training data found"; now read as a README beside it is."""
    wine = _wine()
    wine["split"] = np.where(np.arange(len(wine)) < 140, "train", "test")
    wine.loc[wine["split"] == "test", "cultivar"] = np.nan
    (tmp_path / "data").mkdir()
    wine.to_csv(tmp_path / "data" / "wine.csv", index=False)
    (tmp_path / "task.json").write_text(json.dumps({"metric": "accuracy", "target": "cultivar"}))
    task = load_task(tmp_path)
    assert task.target_cols == ("cultivar",)
    assert [(f.path, f.role) for f in task.files] == [("wine.csv", "train")]
    assert any("holds the training rows (split = 'train')" in n for n in task.notices)


def test_an_id_named_in_tab_separated_txt_tables_is_the_id_column(tmp_path: Path) -> None:
    """``train.txt`` / ``test.txt`` separated by tabs and ``"id": "patient"``: before, the
    header of a ``.txt`` table was not read, so ``id`` was the task's name and ``patient`` a
    feature; now it is the id column."""
    frame = load_diabetes(as_frame=True).frame.rename(columns={"target": "progression"})
    frame.insert(0, "patient", range(1000, 1000 + len(frame)))
    (tmp_path / "data").mkdir()
    frame.iloc[:350].to_csv(tmp_path / "data" / "train.txt", sep="\t", index=False)
    test = frame.iloc[350:].drop(columns="progression")
    test.to_csv(tmp_path / "data" / "test.txt", sep="\t", index=False)
    spec = {"metric": "mae", "target": "progression", "id": "patient"}
    (tmp_path / "task.json").write_text(json.dumps(spec))
    task = load_task(tmp_path)
    assert task.id_col == "patient"


def _arff(frame: pd.DataFrame, path: Path) -> None:
    """``frame`` as OpenML writes an ARFF table: named attributes, nominal ones listed."""
    lines = ["@RELATION flowers", ""]
    for column in frame.columns:
        if frame[column].dtype == object:
            values = ",".join(sorted(frame[column].unique()))
            lines.append(f"@ATTRIBUTE '{column}' {{{values}}}")
        else:
            lines.append(f"@ATTRIBUTE '{column}' NUMERIC")
    lines += ["", "@DATA", *(",".join(map(str, row)) for row in frame.itertuples(index=False))]
    path.write_text("\n".join(lines) + "\n")


def _iris() -> pd.DataFrame:
    frame = load_iris(as_frame=True).frame.rename(columns={"target": "species"})
    frame["species"] = np.array(["setosa", "versicolor", "virginica"])[frame["species"]]
    return frame.sample(frac=1.0, random_state=0).reset_index(drop=True)


def test_openml_arff_tables_beside_a_readme_are_a_table_task(tmp_path: Path) -> None:
    """``train.arff`` / ``test.arff`` (OpenML's) beside a README naming the metric: before,
    "sample_submission.csv missing and the description names no 'Target: <column>' line" (the
    ARFF header was not read); now the column the test table lacks is the target."""
    iris = _iris()
    _arff(iris.iloc[:120], tmp_path / "train.arff")
    _arff(iris.iloc[120:].drop(columns="species"), tmp_path / "test.arff")
    (tmp_path / "README.md").write_text("# Iris\n\nClassify each flower.\n\nMetric: accuracy\n")
    task = load_task(tmp_path)
    assert (task.target_cols, task.modality) == (("species",), "tabular")


def test_a_task_json_beside_arff_tables_is_a_table_task_not_series(tmp_path: Path) -> None:
    """Before: any ``.arff`` file made the task a time-series one (sktime's format), so an
    OpenML table was handed to the series templates."""
    iris = _iris()
    (tmp_path / "data").mkdir()
    _arff(iris.iloc[:120], tmp_path / "data" / "train.arff")
    _arff(iris.iloc[120:].drop(columns="species"), tmp_path / "data" / "test.arff")
    spec = {"metric": "accuracy", "target": "species"}
    (tmp_path / "task.json").write_text(json.dumps(spec))
    assert load_task(tmp_path).modality == "tabular"


@pytest.mark.parametrize("relational", [False, True])
def test_arff_series_stay_series(tmp_path: Path, relational: bool) -> None:
    """The UCR archive's ARFF (``att0 ... att39`` numeric, then the class) and sktime's
    relational ARFF are series still."""
    rng = np.random.RandomState(0)
    (tmp_path / "data").mkdir()
    for split in ("TRAIN", "TEST"):
        if relational:
            lines = ["@relation s", "@attribute series relational", "@attribute a1 numeric"]
            lines += ["@end series", "@attribute target {a,b}", "@data", "'1\\n2',a"]
        else:
            head = [f"@attribute att{i} numeric" for i in range(40)]
            rows = [",".join(f"{v:.3f}" for v in rng.rand(40)) + ",a" for _ in range(5)]
            lines = ["@relation s", *head, "@attribute target {a,b}", "@data", *rows]
        (tmp_path / "data" / f"Coffee_{split}.arff").write_text("\n".join(lines) + "\n")
    from mlestar_jupyter.task.infer import infer_modality

    assert infer_modality(tmp_path / "data", []) == "time_series"


@pytest.mark.parametrize(
    ("fields", "counted"),
    [
        ({"target": 13}, "counted from 0"),
        ({"class_index": -1}, "counted from 0"),  # Weka's "last"
        ({"target": 14}, "counted from 1, the column the test table lacks"),  # R's count
    ],
)
def test_a_target_given_by_its_place_among_the_columns(
    tmp_path: Path, fields: dict[str, int], counted: str
) -> None:
    """Before: "task.json: fields not read: target" (a number is no column name), the target
    then guessed from the test table; now the place names the column, said in a notice."""
    wine = _wine()
    (tmp_path / "data").mkdir()
    wine.iloc[:140].to_csv(tmp_path / "data" / "train.csv", index=False)
    wine.iloc[140:].drop(columns="cultivar").to_csv(tmp_path / "data" / "test.csv", index=False)
    (tmp_path / "task.json").write_text(json.dumps({"metric": "accuracy", **fields}))
    task = load_task(tmp_path)
    assert task.target_cols == ("cultivar",)
    assert any(f"read as the target column 'cultivar' ({counted})" in n for n in task.notices)
    assert not any("not read" in n for n in task.notices), task.notices


def test_a_target_place_past_the_columns_is_refused(tmp_path: Path) -> None:
    wine = _wine()
    (tmp_path / "data").mkdir()
    wine.iloc[:140].to_csv(tmp_path / "data" / "train.csv", index=False)
    wine.iloc[140:].to_csv(tmp_path / "data" / "test.csv", index=False)
    (tmp_path / "task.json").write_text(json.dumps({"metric": "accuracy", "target": 40}))
    with pytest.raises(TaskFormatError, match="'target': 40 is no column of the training table"):
        load_task(tmp_path)


@pytest.mark.parametrize("described_by", ["README.md", "task.json"])
def test_a_workbook_of_train_and_test_sheets_says_to_save_each_sheet(
    tmp_path: Path, described_by: str
) -> None:
    """``data.xlsx`` with sheets ``train`` and ``test``: before, only "no training data found:
    add train.csv"; now the refusal names the sheets and the lines that save each."""
    wine = _wine()
    with pd.ExcelWriter(tmp_path / "data.xlsx") as book:
        wine.iloc[:140].to_excel(book, sheet_name="train", index=False)
        wine.iloc[140:].drop(columns="cultivar").to_excel(book, sheet_name="test", index=False)
    if described_by == "README.md":
        (tmp_path / "README.md").write_text("# Wine\n\nTarget: cultivar\n\nMetric: accuracy\n")
    else:
        spec = {"metric": "accuracy", "target": "cultivar", "data_dir": "."}
        (tmp_path / "task.json").write_text(json.dumps(spec))
    with pytest.raises(TaskFormatError) as e:
        load_task(tmp_path)
    said = str(e.value)
    assert "data.xlsx holds the sheets 'train', 'test'" in said
    assert "pd.read_excel('data.xlsx', sheet_name='train').to_csv('train.csv'" in said


@pytest.mark.parametrize(
    "name", ["README.txt", "readme.md", "Readme.md", "README", "README.rst", "DESCRIPTION.md"]
)
def test_a_readme_named_otherwise_beside_the_tables_is_the_description(
    tmp_path: Path, name: str
) -> None:
    """Before: only ``README.md`` (and ``description.md`` in lower case) described a folder of
    tables; the others were "not a task folder"."""
    wine = _wine()
    wine.iloc[:140].to_csv(tmp_path / "train.csv", index=False)
    wine.iloc[140:].drop(columns="cultivar").to_csv(tmp_path / "test.csv", index=False)
    (tmp_path / name).write_text("Wine cultivars\n\nTarget: cultivar\n\nMetric: accuracy\n")
    task = load_task(tmp_path)
    assert (task.metric_name, task.target_cols) == ("accuracy", ("cultivar",))


def test_uci_style_data_files_beside_a_readme_are_tables(tmp_path: Path) -> None:
    """``train.data`` / ``test.data`` (UCI's extension, comma-separated with a header) beside a
    README: before, "names no 'Target: <column>' line" (not read as tables); now the column the
    test table lacks is the target."""
    wine = _wine()
    wine.iloc[:140].to_csv(tmp_path / "train.data", index=False)
    wine.iloc[140:].drop(columns="cultivar").to_csv(tmp_path / "test.data", index=False)
    (tmp_path / "README.md").write_text("# Wine\n\nMetric: accuracy\n")
    task = load_task(tmp_path)
    assert task.target_cols == ("cultivar",)
    assert {f.path: f.role for f in task.files}["train.data"] == "train"


@pytest.mark.parametrize(
    ("fields", "metric"),
    [
        ({"response_column": "cultivar", "stopping_metric": "logloss"}, "log_loss"),  # H2O
        ({"y": "cultivar", "objective_metric_name": "accuracy"}, "accuracy"),  # SageMaker
        ({"class_column": "cultivar", "metrics": ["f1_macro", "accuracy"]}, "f1_macro"),
        ({"target_variable": "cultivar", "scoring_function": "accuracy_score"}, "accuracy"),
    ],
)
def test_other_tools_keys_for_the_metric_and_the_target(
    tmp_path: Path, fields: dict[str, Any], metric: str
) -> None:
    """Before: "field 'metric' missing" beside each of these metric keys (and the target key
    "not read")."""
    wine = _wine()
    (tmp_path / "data").mkdir()
    wine.iloc[:140].to_csv(tmp_path / "data" / "train.csv", index=False)
    wine.iloc[140:].to_csv(tmp_path / "data" / "test.csv", index=False)  # (labelled test rows)
    (tmp_path / "task.json").write_text(json.dumps(fields))
    task = load_task(tmp_path)
    assert (task.metric_name, task.target_cols) == (metric, ("cultivar",))
    assert not any("not read" in n for n in task.notices), task.notices


@pytest.mark.parametrize(
    ("fields", "metric"),
    [
        ({"eval_metric": "pinball_loss", "quantile_levels": [0.9]}, "pinball@0.9"),  # AutoGluon
        ({"metric": "mean_pinball_loss", "alpha": 0.2}, "pinball@0.2"),
    ],
)
def test_a_quantile_beside_the_pinball_loss_is_the_one_graded(
    tmp_path: Path, fields: dict[str, Any], metric: str
) -> None:
    """Before: the quantile beside ``"pinball_loss"`` was "not read" and the median's loss
    graded (alpha 0.5): the run predicted the wrong quantile."""
    task = load_task(_diabetes(tmp_path, fields))
    assert task.metric_name == metric


def test_several_quantiles_beside_the_pinball_loss_are_refused(tmp_path: Path) -> None:
    spec = {"eval_metric": "pinball_loss", "quantile_levels": [0.1, 0.5, 0.9]}
    with pytest.raises(TaskFormatError, match="several quantiles"):
        load_task(_diabetes(tmp_path, spec))


def test_a_y_key_naming_the_labels_file_is_no_target_column(tmp_path: Path) -> None:
    """``"data": {"X": "X_train.csv", "y": "y_train.csv", ...}``: ``y`` names a file here, not
    the target column (which the labels table's header gives)."""
    wine = _wine()
    (tmp_path / "data").mkdir()
    features = wine.drop(columns="cultivar")
    features.iloc[:140].to_csv(tmp_path / "data" / "X_train.csv", index=False)
    wine[["cultivar"]].iloc[:140].to_csv(tmp_path / "data" / "y_train.csv", index=False)
    features.iloc[140:].to_csv(tmp_path / "data" / "X_test.csv", index=False)
    data = {"X": "X_train.csv", "y": "y_train.csv", "X_test": "X_test.csv"}
    (tmp_path / "task.json").write_text(json.dumps({"metric": "accuracy", "data": data}))
    assert load_task(tmp_path).target_cols == ("cultivar",)
