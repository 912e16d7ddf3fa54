"""Task folders written by other authors (hunt Q, session 34): a task.json in camelCase with its
files as a list of objects, a README whose metric line says "F1 score (macro)", a metric line
naming "Mean Average Precision @ 3", and a Hugging Face ``save_to_disk`` folder.  Real data
(scikit-learn's wine and breast cancer tables)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mlestar_jupyter.task import TaskFormatError, load_task
from mlestar_jupyter.task.infer import metric_from_text


def _wine(root: Path) -> None:
    """wine_train.csv / wine_test.csv (no target) with a ``sampleId`` column, in ``root``."""
    from sklearn.datasets import load_wine

    data = load_wine(as_frame=True).frame.sample(frac=1.0, random_state=0)
    data.insert(0, "sampleId", range(1000, 1000 + len(data)))
    root.mkdir(parents=True, exist_ok=True)
    data.iloc[:130].to_csv(root / "wine_train.csv", index=False)
    data.iloc[130:].drop(columns=["target"]).to_csv(root / "wine_test.csv", index=False)


def test_camel_case_task_json_with_a_files_list_is_read(tmp_path: Path) -> None:
    """Before: "task.json: field 'metric' missing" beside ``"evalMetric"``; the files list's
    ``fileName``/``split`` entries and ``taskName`` were not read either."""
    _wine(tmp_path)
    (tmp_path / "task.json").write_text(
        json.dumps(
            {
                "taskName": "wine-cultivar",
                "problemDescription": "Predict the cultivar of each wine.",
                "targetColumn": "target",
                "idColumn": "sampleId",
                "evalMetric": "balanced_accuracy",
                "files": [
                    {"fileName": "wine_train.csv", "split": "train"},
                    {"fileName": "wine_test.csv", "split": "test"},
                ],
                "createdAt": "2024-01-01",
            }
        )
    )
    task = load_task(tmp_path)
    assert task.id == "wine-cultivar"
    assert (task.metric_name, task.direction) == ("balanced_accuracy", "maximize")
    assert task.target_cols == ("target",) and task.id_col == "sampleId"
    assert task.goal == "Predict the cultivar of each wine."
    roles = {f.role: f.path for f in task.files}
    assert roles["train"] == "wine_train.csv" and roles["test"] == "wine_test.csv"
    assert any("'evalMetric' as 'eval_metric'" in n for n in task.notices)


def test_readme_table_metric_f1_score_macro_is_the_macro_average(tmp_path: Path) -> None:
    """Before: "| Evaluation metric | F1 score (macro) |" was read as binary F1 (a wrong guess:
    the run scored the positive class only)."""
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer(as_frame=True).frame
    data.columns = [c.replace(" ", "_") for c in data.columns]
    data["is_benign"] = data.pop("target").astype(bool)
    data.insert(0, "patient_id", [f"P{i:04d}" for i in range(len(data))])
    (tmp_path / "data").mkdir()
    data.iloc[:400].to_csv(tmp_path / "data" / "train.csv", index=False)
    data.iloc[400:].drop(columns=["is_benign"]).to_csv(tmp_path / "data" / "test.csv", index=False)
    (tmp_path / "README.md").write_text(
        "# Tumour screening\n\n| Column | Description |\n|---|---|\n"
        "| patient_id | unique row id |\n| is_benign | **target**: True when benign |\n\n"
        "| Item | Value |\n|---|---|\n| Evaluation metric | F1 score (macro) |\n"
    )
    task = load_task(tmp_path)
    assert task.metric_name == "f1_macro"
    assert task.target_cols == ("is_benign",) and task.id_col == "patient_id"
    assert task.goal.startswith("| Column")  # no prose: the first table is all there is
    readme = (tmp_path / "README.md").read_text()
    (tmp_path / "README.md").write_text(readme + "\nScreen each patient's scan for a tumour.\n")
    # before: the table of columns was the task's goal, shown to the model as what to do
    assert load_task(tmp_path).goal == "Screen each patient's scan for a tumour."


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ("Metric: F1 score, macro averaged", "f1_macro"),
        ("Metric: F1 score (weighted)", "f1_weighted"),
        # before: "precision" (the French word's pattern matched the English one first)
        ("Metric: Mean Average Precision @ 3", "map@3"),
        ("Metric: average precision", "average_precision"),
        ("Métrique : précision", "precision"),
        # scikit-learn's scorer name; before: refused, "unknown metric"
        ("Metric: recall_macro", "balanced_accuracy"),
        ("Metric: macro-averaged recall", "balanced_accuracy"),
    ],
)
def test_metric_lines_other_authors_write(line: str, name: str) -> None:
    """The metric line's words as written, read as the metric they name."""
    assert metric_from_text(Path("README.md"), line)[0] == name


def test_precision_macro_is_the_macro_average_not_binary_precision() -> None:
    """Before: "Metric: precision (macro)" was binary precision, then (hunt Q) refused; since
    hunt S it is the macro average of the classes' precision (``precision_macro``)."""
    assert metric_from_text(Path("README.md"), "Metric: precision (macro)") == (
        "precision_macro",
        "maximize",
    )


def test_hugging_face_save_to_disk_folder_says_how_to_save_csv(tmp_path: Path) -> None:
    """Before: "sample_submission.csv missing and the description names no 'Target: <column>'
    line" (the Arrow files were not mentioned); now the error names the splits and the lines
    that save them as CSV."""
    for split in ("train", "test"):
        (tmp_path / split).mkdir()
        (tmp_path / split / "data-00000-of-00001.arrow").write_bytes(b"ARROW1")
        (tmp_path / split / "state.json").write_text("{}")
    (tmp_path / "dataset_dict.json").write_text(json.dumps({"splits": ["train", "test"]}))
    (tmp_path / "README.md").write_text("# Iris species\n\nPredict `species`. Metric: accuracy.\n")
    with pytest.raises(TaskFormatError) as e:
        load_task(tmp_path)
    said = str(e.value)
    assert "save_to_disk" in said and "load_from_disk" in said
    assert "d['train'].to_csv('train.csv', index=False)" in said
