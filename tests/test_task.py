"""Task folders of every format, inference, and each bad-folder error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mlestar_jupyter.task import Task, TaskFormatError, load_task


def test_tam_bench_task(tabular_task: Path) -> None:
    t = Task.load(tabular_task)
    assert t.source_format == "tam_bench"
    assert t.metric_name == "roc_auc" and t.direction == "maximize"
    assert t.target_cols == ("target",) and t.id_col == "id"
    assert t.modality == "tabular" and t.task_type == "classification"
    assert [f.path for f in t.train_files] == ["train.csv"]
    assert t.sample_submission_path and t.sample_submission_path.name == "sample_submission.csv"
    assert t.special_instructions == ("Predict the probability of class 1.",)
    assert t.answers_path and t.answers_path.name == "answers.csv"
    assert "roc_auc (higher is better)" in t.describe()


def test_mlebench_folder(make_task) -> None:  # type: ignore[no-untyped-def]
    t = load_task(make_task("mlebench"))
    assert t.source_format == "mlebench" and t.metric_name == "roc_auc"
    assert t.id_col == "id" and t.target_cols == ("target",)


def test_mlebench_prepared_public(tmp_path: Path, make_task) -> None:  # type: ignore[no-untyped-def]
    src = make_task("mlebench")
    comp = tmp_path / "comp"
    (comp / "prepared").mkdir(parents=True)
    src.rename(comp / "prepared" / "public")
    t = load_task(comp)
    assert t.source_format == "mlebench" and t.input_dir == (comp / "prepared" / "public").resolve()


def test_description_folder_infers_direction(make_task) -> None:  # type: ignore[no-untyped-def]
    root = make_task("description")
    (root / "description.md").write_text("# House prices\n\nPredict the price.\n\nMetric: RMSE\n")
    t = load_task(root)
    assert t.metric_name == "rmse" and t.direction == "minimize" and t.task_type == "regression"


def test_metric_phrase_in_evaluation_section(make_task) -> None:  # type: ignore[no-untyped-def]
    root = make_task("description")
    (root / "description.md").write_text(
        "# X\n\nPredict y.\n\n## Evaluation\n\nSubmissions are scored on the mean absolute error between prediction and truth.\n"
    )
    assert load_task(root).metric_name == "mae"


def _edit(root: Path, **changes: object) -> None:
    spec = json.loads((root / "task.json").read_text())
    for k, v in changes.items():
        if v is None:
            spec.pop(k, None)
        else:
            spec[k] = v
    (root / "task.json").write_text(json.dumps(spec))


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda r: (r / "task.json").write_text("{not json"), "task.json: is not valid JSON"),
        (
            lambda r: _edit(r, metric={"metric_name": "vibes"}),
            "unknown metric 'vibes' (expected one of: accuracy",
        ),
        (lambda r: _edit(r, metric=None), "field 'metric' missing"),
        (lambda r: (r / "input" / "train.csv").unlink(), "names 'train.csv', which is not in"),
        (lambda r: [p.unlink() for p in (r / "input").iterdir()], "names 'train.csv'"),
    ],
)
def test_bad_tam_bench_folders(tabular_task: Path, change, expected: str) -> None:  # type: ignore[no-untyped-def]
    change(tabular_task)
    with pytest.raises(TaskFormatError) as e:
        load_task(tabular_task)
    assert expected in str(e.value)


def test_missing_sample_submission_mlebench(make_task) -> None:  # type: ignore[no-untyped-def]
    root = make_task("mlebench")
    (root / "sample_submission.csv").unlink()
    (root / "description.md").write_text("# x\n\nMetric: accuracy\n")
    (root / "input").mkdir()
    for f in ("train.csv", "test.csv"):
        (root / f).rename(root / "input" / f)
    task = load_task(root)  # the one column the test table lacks is the target
    assert task.target_cols == ("target",) and task.metric_name == "accuracy"
    (root / "input" / "test.csv").write_text("a\n1\n")  # no column shared: nothing to say
    with pytest.raises(TaskFormatError, match="sample_submission.csv missing"):
        load_task(root)


def test_not_a_task_folder(tmp_path: Path) -> None:
    with pytest.raises(TaskFormatError, match="not a task folder.*--notebook NB"):
        load_task(tmp_path)
    with pytest.raises(TaskFormatError, match="no such folder"):
        load_task(tmp_path / "nope")


def test_modality_inference_images(tmp_path: Path) -> None:
    root = tmp_path / "img"
    (root / "input" / "train").mkdir(parents=True)
    for i in range(6):
        (root / "input" / "train" / f"{i}.png").write_bytes(b"\x89PNG")
    (root / "input" / "train.csv").write_text("id,label\n0.png,a\n")
    (root / "input" / "sample_submission.csv").write_text("id,label\n9.png,a\n")
    (root / "description.md").write_text("# Images\n\nClassify.\n\nMetric: accuracy\n")
    t = load_task(root)
    assert t.modality == "image" and t.target_cols == ("label",)


def test_every_metric_of_labels_or_probabilities_makes_a_classification() -> None:
    """A task.json naming precision, average precision or Gini and no task type was read as a
    regression (the classification metrics were a list kept by hand)."""
    from mlestar_jupyter.metrics import get_metric, metric_names
    from mlestar_jupyter.task.infer import infer_task_type

    for name in metric_names():
        kind = get_metric(name).kind
        want = "regression" if kind == "regression" else "classification"
        assert infer_task_type(None, name) == want, name


def test_a_task_file_from_another_author_without_a_goal_or_schema_names(tmp_path: Path) -> None:
    """No goal at all, the metric as an object, the label column in a one-item list, the files
    as a ``files`` object, the id under ``index_column``: read, each with a notice (the missing
    goal was an error)."""
    import pandas as pd
    from sklearn.datasets import load_wine

    df = load_wine(as_frame=True).frame
    df.insert(0, "ID", range(len(df)))
    (tmp_path / "input").mkdir()
    df.iloc[:140].to_csv(tmp_path / "input" / "train.csv", index=False)
    df.iloc[140:].drop(columns="target").to_csv(tmp_path / "input" / "test.csv", index=False)
    (tmp_path / "task.json").write_text(
        json.dumps(
            {
                "task_id": "wine",
                "task_type": "Multiclass Classification",
                "metric": {"name": "macro F1", "higher_is_better": True},
                "target_column": ["target"],
                "index_column": "ID",
                "files": {"train": "train.csv", "test": "test.csv"},
            }
        )
    )
    task = load_task(tmp_path)
    assert (task.metric_name, task.target_cols, task.id_col) == ("f1_macro", ("target",), "ID")
    assert [f.role for f in task.files] == ["train", "test"]
    assert task.goal == "Predict 'target' from train.csv (f1_macro)."
    assert any("no goal_description" in n for n in task.notices)
    assert any("'files.train'" in n for n in task.notices)
    assert pd.read_csv(task.input_dir / "train.csv").shape[0] == 140


def test_a_sample_submission_named_in_data_information_and_an_id_found_by_name(
    tmp_path: Path,
) -> None:
    """``data_information.sample_submission`` (not a schema key) was read as an extra file, and
    a task with no id_col and no sample submission had no id column although both tables had
    ``PassengerId``."""
    import pandas as pd

    def folder(name: str, sample: bool) -> Path:
        root = tmp_path / name
        (root / "input").mkdir(parents=True)
        df = pd.DataFrame({"PassengerId": range(20), "x": range(20), "y": [0, 1] * 10})
        df.iloc[:15].to_csv(root / "input" / "train.csv", index=False)
        df.iloc[15:].drop(columns="y").to_csv(root / "input" / "test.csv", index=False)
        info: dict[str, object] = {"train": {"data_location": "train.csv"}}
        if sample:
            df.iloc[15:][["PassengerId", "y"]].to_csv(root / "input" / "ours.csv", index=False)
            info["sample_submission"] = {"data_location": "ours.csv"}
        spec = {"goal": "y", "metric": "accuracy", "target_col": "y", "data_information": info}
        (root / "task.json").write_text(json.dumps(spec))
        return root

    with_sample = load_task(folder("a", True))
    assert with_sample.sample_submission is not None
    assert with_sample.sample_submission.path == "ours.csv"
    assert with_sample.id_col == "PassengerId"
    by_name = load_task(folder("b", False))
    assert by_name.id_col == "PassengerId"
    assert any("'PassengerId' (in both tables) read as the id column" in n for n in by_name.notices)
