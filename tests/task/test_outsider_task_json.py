"""task.json files written by people who never read the TAM-Bench schema: their own field names
(``label``, ``evaluation``, ``description``, ``train_file``), a ``data/`` folder, ``"id"`` meant
as the id column.  Real data (scikit-learn's wine and diabetes tables)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from mlestar_jupyter.cli import main
from mlestar_jupyter.journal import read_events
from mlestar_jupyter.task import TaskError, TaskFormatError, load_task


def _tables(root: Path, folder: str, *, kind: str, id_col: str, target: str) -> None:
    """train/test/sample_submission CSVs of a packaged data set in ``root/folder``."""
    from sklearn.datasets import load_diabetes, load_wine

    data = (load_wine if kind == "wine" else load_diabetes)(as_frame=True).frame
    data = data.rename(columns={"target": target}).sample(frac=1.0, random_state=0)
    data.insert(0, id_col, range(1000, 1000 + len(data)))
    cut = int(len(data) * 0.75)
    d = root / folder if folder else root
    d.mkdir(parents=True, exist_ok=True)
    data.iloc[:cut].to_csv(d / "train.csv", index=False)
    data.iloc[cut:].drop(columns=[target]).to_csv(d / "test.csv", index=False)
    sample = data.iloc[cut:][[id_col]].assign(**{target: data[target].iloc[0]})
    sample.to_csv(d / "sample_submission.csv", index=False)


def _wine_kaggle_style(root: Path) -> Path:
    """A Kaggle player's task file: prose metric, ``label``, ``id`` = the id column, ``data/``."""
    _tables(root, "data", kind="wine", id_col="row_id", target="cultivar")
    (root / "task.json").write_text(
        json.dumps(
            {
                "name": "wine-cultivars",
                "description": "Tell which of three cultivars a wine comes from by its chemistry.",
                "evaluation": "Submissions are scored by the share of wines classified correctly (accuracy).",
                "label": "cultivar",
                "id": "row_id",
                "author": "someone else",
            },
            indent=2,
        )
    )
    return root


def _diabetes_config_style(root: Path) -> Path:
    """An ML engineer's config: metric object with ``name``/``greater_is_better``, flat file keys."""
    _tables(root, "input", kind="diabetes", id_col="patient", target="progression")
    (root / "task.json").write_text(
        json.dumps(
            {
                "problem_type": "regression",
                "objective": "Predict disease progression one year after baseline.",
                "evaluation_metric": {"name": "RMSE", "greater_is_better": False},
                "target_column": "progression",
                "id_column": "patient",
                "train_file": "input/train.csv",
                "test_file": "input/test.csv",
            }
        )
    )
    return root


def test_kaggle_style_task_json_is_read(tmp_path: Path) -> None:
    task = load_task(_wine_kaggle_style(tmp_path / "wine"))
    assert task.goal.startswith("Tell which of three cultivars")
    assert (task.metric_name, task.direction) == ("accuracy", "maximize")
    assert task.target_cols == ("cultivar",) and task.id_col == "row_id"
    assert task.id == "wine-cultivars"  # the id column did not become the task's name
    assert task.input_dir == tmp_path / "wine" / "data"
    assert task.task_type == "classification"
    said = "\n".join(task.notices)
    for expected in (
        "using 'description' as the goal",
        "read 'evaluation' as 'metric'",
        "read 'label' as 'target_col'",
        "'id' names the column 'row_id'",
        "data read from data/",
        "fields not read: author",
    ):
        assert expected in said


def test_config_style_task_json_is_read(tmp_path: Path) -> None:
    task = load_task(_diabetes_config_style(tmp_path / "diabetes"))
    assert (task.metric_name, task.direction) == ("rmse", "minimize")
    assert (task.task_type, task.target_cols, task.id_col) == (
        "regression",
        ("progression",),
        "patient",
    )
    assert task.id == "diabetes"
    assert {f.path for f in task.files if f.role in ("train", "test")} == {"train.csv", "test.csv"}
    said = "\n".join(task.notices)
    assert "read 'train_file' as 'data_information.train.data_location'" in said
    assert "read 'evaluation_metric' as 'metric'" in said
    assert "fields not read" not in said


def test_fields_the_evaluator_reads_are_no_alias_and_no_notice(tmp_path: Path) -> None:
    """``labels`` (the classes) and ``positive_label`` belong to the evaluator; a ``label``
    holding a list of classes names no target column."""
    root = _wine_kaggle_style(tmp_path / "wine")
    spec = json.loads((root / "task.json").read_text())
    spec.update(labels=[0, 1, 2], positive_label="1", label=["a", "b"], target_col="cultivar")
    (root / "task.json").write_text(json.dumps(spec))
    task = load_task(root)
    assert task.target_cols == ("cultivar",)
    said = "\n".join(task.notices)
    assert (
        "fields not read: author, label" in said
        and "labels" not in said.split("fields not read")[1]
    )
    del spec["target_col"]
    (root / "task.json").write_text(json.dumps(spec))
    assert load_task(root).target_cols == ("cultivar",)  # from the sample submission, not 'label'


def test_schema_names_win_over_aliases(tmp_path: Path) -> None:
    root = _wine_kaggle_style(tmp_path / "wine")
    spec = json.loads((root / "task.json").read_text())
    spec.update(goal_description="The schema's goal.", target_col="cultivar", label="nonsense")
    spec["id"] = "my-wine-task"  # a task name, no column: stays the name
    (root / "task.json").write_text(json.dumps(spec))
    task = load_task(root)
    assert task.goal == "The schema's goal." and task.target_cols == ("cultivar",)
    assert task.id == "my-wine-task" and task.id_col == "row_id"  # from the sample submission
    assert "fields not read: author, label" in "\n".join(task.notices)


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (  # CSVs beside task.json and the answers, no input/ or data/
            lambda r: (
                [p.rename(r / p.name) for p in (r / "data").iterdir()]
                and (r / "data").rmdir()
                or (r / "answers.csv").write_text("row_id,cultivar\n")
            ),
            "(found answers.csv, sample_submission.csv, test.csv, train.csv beside task.json: "
            "move them into input/, so that the run's code cannot read answers.csv beside them)",
        ),
        (
            lambda r: _spec(r, data_dir="../elsewhere"),
            "'data_dir' names '../elsewhere', which is no folder beside task.json",
        ),
        (
            lambda r: (r / "elsewhere").mkdir() or _spec(r, data_dir=".."),
            "'data_dir' must name a folder inside the task folder",
        ),
        (
            lambda r: _spec(r, evaluation="whoever is closest wins"),
            "unknown metric 'whoever is closest wins'",
        ),
        (
            lambda r: _spec(r, evaluation=None, description=None),
            "field 'metric' missing (expected",  # no goal is read from the fields now
        ),
        (
            lambda r: _spec(r, evaluation=None),
            "also read as: evaluation_metric, eval_metric, scoring, evaluation)",
        ),
    ],
)
def test_outsider_mistakes_get_actionable_errors(tmp_path: Path, edit, expected: str) -> None:  # type: ignore[no-untyped-def]
    root = _wine_kaggle_style(tmp_path / "wine")
    edit(root)
    with pytest.raises(TaskFormatError) as e:
        load_task(root)
    assert expected in str(e.value)


def _spec(root: Path, **changes: object) -> None:
    spec = json.loads((root / "task.json").read_text())
    for k, v in changes.items():
        spec.pop(k, None) if v is None else spec.__setitem__(k, v)
    (root / "task.json").write_text(json.dumps(spec))


@pytest.mark.slow
def test_kaggle_style_task_runs_end_to_end(tmp_path: Path) -> None:
    """The outsider's folder goes through a real (small) run to a valid submission."""
    root = _wine_kaggle_style(tmp_path / "wine")
    out = tmp_path / "run"
    small = ["-M", "1", "-K", "1", "-T", "1", "-L", "1", "-R", "0", "--no-progress"]
    assert main(["run", str(root), *small, "--time-limit", "120", "--out", str(out)]) == 0
    sub = pd.read_csv(out / "final" / "submission.csv")
    test = pd.read_csv(root / "data" / "test.csv")
    assert list(sub.columns) == ["row_id", "cultivar"]
    assert sub["row_id"].tolist() == test["row_id"].tolist()
    assert sub["cultivar"].isin([0, 1, 2]).all()
    warned = [e.data["message"] for e in read_events(out / "events.jsonl") if e.type == "warning"]
    assert any("read 'label' as 'target_col'" in m for m in warned)


def test_a_top_level_data_type_names_the_modality(tmp_path: Path) -> None:
    """``"data_type": "Text"`` beside ``"target": "category"`` (not under data_information):
    the short reviews are a text task, and the key is read, not listed as unread."""
    inp = tmp_path / "reviews" / "input"
    inp.mkdir(parents=True)
    rows = [("great lamp", "pos"), ("awful kettle", "neg")] * 10
    pd.DataFrame(
        {"id": range(20), "words": [w for w, _ in rows], "category": [c for _, c in rows]}
    ).to_csv(inp / "train.csv", index=False)
    pd.DataFrame({"id": range(20, 24), "words": "great lamp"}).to_csv(inp / "test.csv", index=False)
    spec = {
        "title": "Short reviews",
        "metric": "Accuracy",
        "target": "category",
        "data_type": "Text",
    }
    (tmp_path / "reviews" / "task.json").write_text(json.dumps(spec))
    task = load_task(tmp_path / "reviews")
    said = "\n".join(task.notices)
    assert task.modality == "text" and task.target == "category"
    assert "read 'data_type' as 'data_information.data_type'" in said
    assert "fields not read" not in said
    spec["data_information"] = {"data_type": "Tabular"}  # the schema's place wins
    (tmp_path / "reviews" / "task.json").write_text(json.dumps(spec))
    assert load_task(tmp_path / "reviews").modality == "tabular"


def test_a_files_object_with_its_own_role_names_is_read(tmp_path: Path) -> None:
    """``"files": {"training": ..., "testing": ...}`` beside ``"data_dir": "./data"`` (hunt,
    session 22): "no training data found" before."""
    _tables(tmp_path, "data", kind="wine", id_col="sample_id", target="cultivar")
    for role, name in (("train", "wine_train.csv"), ("test", "wine_test.csv")):
        (tmp_path / "data" / f"{role}.csv").rename(tmp_path / "data" / name)
    (tmp_path / "task.json").write_text(
        json.dumps(
            {
                "name": "wine-cultivar",
                "description": "Predict the wine cultivar (0,1,2) from chemistry.",
                "label": "cultivar",
                "id_column": "sample_id",
                "metric": {"name": "accuracy", "higher_is_better": True},
                "data_dir": "./data",
                "files": {"training": "wine_train.csv", "testing": "wine_test.csv"},
            }
        )
    )
    task = load_task(tmp_path)
    assert [f.path for f in task.train_files] == ["wine_train.csv"]
    assert [f.path for f in task.test_files] == ["wine_test.csv"]
    assert "task.json: read 'files.training' as 'data_information.train.data_location'" in (
        task.notices
    )


def test_a_files_list_with_roles_names_the_tables(tmp_path: Path) -> None:
    """``"files": [{"path": ..., "role": "training"}, {"path": ..., "role": "prediction"}]``
    (hunt, session 22): refused with "no test table" before."""
    _tables(tmp_path, "input", kind="diabetes", id_col="pid", target="progression")
    (tmp_path / "input" / "sample_submission.csv").unlink()
    (tmp_path / "input" / "train.csv").rename(tmp_path / "input" / "train_data.csv")
    (tmp_path / "input" / "test.csv").rename(tmp_path / "input" / "holdout_features.csv")
    (tmp_path / "task.json").write_text(
        json.dumps(
            {
                "task_name": "diabetes",
                "problem_type": "regression",
                "target_column": "progression",
                "id_column": "pid",
                "metric": {"name": "Root Mean Squared Error", "lower_is_better": True},
                "files": [
                    {"path": "train_data.csv", "role": "training"},
                    {"path": "holdout_features.csv", "role": "prediction"},
                ],
            }
        )
    )
    task = load_task(tmp_path)
    assert [f.path for f in task.train_files] == ["train_data.csv"]
    assert [f.path for f in task.test_files] == ["holdout_features.csv"]
    assert task.metric_name == "rmse" and task.target_cols == ("progression",)
    assert not any("fields not read: files" in n for n in task.notices)


YAML_TASK = """# task definition
name: diabetes-progression
objective: Predict disease progression one year after baseline.
target: progression
metric: mae
id: patient
data:
  train: input/train.csv
  test: input/test.csv
"""


@pytest.mark.parametrize("name", ["task.yaml", "task.yml"])
def test_a_task_file_written_in_yaml_is_read_as_task_json_is(tmp_path: Path, name: str) -> None:
    """An author who keeps configs in YAML (hunt, session 23: "not a task folder")."""
    from mlestar_jupyter.evaluator.submission import _raw_spec
    from mlestar_jupyter.task import has_task_description

    root = tmp_path / "t"
    _tables(root, "input", kind="diabetes", id_col="patient", target="progression")
    (root / name).write_text(YAML_TASK)
    assert has_task_description(root) and has_task_description(root / name)
    task = load_task(root / name)
    assert task.target_cols == ("progression",) and task.metric_name == "mae"
    assert task.id_col == "patient" and task.root == root
    assert any(n.startswith(f"{name}: read 'target' as 'target_col'") for n in task.notices)
    assert _raw_spec(task)["name"] == "diabetes-progression"  # what the evaluator reads too
    (root / name).write_text("name: [unclosed\ntarget: progression\n")
    with pytest.raises(TaskFormatError, match=f"{name}: is not valid YAML .*fix the syntax"):
        load_task(root)
    (root / name).write_text("- a list\n- of things\n")
    with pytest.raises(TaskFormatError, match="must hold an object"):
        load_task(root)


def test_a_target_list_names_several_columns(tmp_path: Path) -> None:
    """``{"target": ["alcohol", "color_intensity"]}`` (hunt, session 23): "cannot tell the
    target column", where the same two stated in a description.md were read."""
    from sklearn.datasets import load_wine

    frame = load_wine(as_frame=True).frame.drop(columns="target")
    frame.insert(0, "id", range(len(frame)))
    inp = tmp_path / "t" / "input"
    inp.mkdir(parents=True)
    frame.iloc[:140].to_csv(inp / "train.csv", index=False)
    frame.iloc[140:].drop(columns=["alcohol", "color_intensity"]).to_csv(
        inp / "test.csv", index=False
    )
    spec = {"target": ["alcohol", "color_intensity"], "metric": "rmse", "id": "id"}
    (tmp_path / "t" / "task.json").write_text(json.dumps(spec))
    task = load_task(tmp_path / "t")
    assert task.target_cols == ("alcohol", "color_intensity") and task.id_col == "id"
    spec["label"] = spec.pop("target")  # "label" names one column: a list of two is no target
    (tmp_path / "t" / "task.json").write_text(json.dumps(spec))
    with pytest.raises(TaskFormatError, match="cannot tell the target column"):
        load_task(tmp_path / "t")


def test_without_a_target_the_one_column_the_test_table_lacks_is_it(tmp_path: Path) -> None:
    """A task.json naming no target, no sample submission (hunt, session 26): "cannot tell the
    target column", while ``target`` was the training table's one column the test rows lack."""
    from sklearn.datasets import load_wine

    frame = load_wine(as_frame=True).frame
    frame.insert(0, "id", range(len(frame)))
    inp = tmp_path / "t" / "input"
    inp.mkdir(parents=True)
    frame.iloc[:140].to_csv(inp / "train.csv", index=False)
    frame.iloc[140:].drop(columns="target").to_csv(inp / "test.csv", index=False)
    (tmp_path / "t" / "task.json").write_text(json.dumps({"name": "wine", "metric": "accuracy"}))
    task = load_task(tmp_path / "t")
    assert task.target_cols == ("target",) and task.id_col == "id"
    assert any("no target_col; 'target'" in n for n in task.notices)
    frame.iloc[140:].drop(columns=["target", "alcohol"]).to_csv(inp / "test.csv", index=False)
    with pytest.raises(TaskFormatError, match="2 columns the test table lacks: alcohol, target"):
        load_task(tmp_path / "t")


def test_top_level_train_and_test_paths_name_the_tables(tmp_path: Path) -> None:
    """``"train": "data/clinic_2019.csv"`` at the top of task.json (hunt, session 23) was listed
    among the "fields not read": tables of other names were not found."""
    root = tmp_path / "t"
    _tables(root, "data", kind="diabetes", id_col="patient", target="progression")
    (root / "data" / "train.csv").rename(root / "data" / "clinic_2019.csv")
    (root / "data" / "test.csv").rename(root / "data" / "clinic_2020.csv")
    spec = {
        "target": "progression",
        "metric": "mae",
        "id_column": "patient",
        "train": "data/clinic_2019.csv",
        "test": "data/clinic_2020.csv",
        "version": 2,
    }
    (root / "task.json").write_text(json.dumps(spec))
    task = load_task(root)
    roles = {f.path: f.role for f in task.files}
    assert roles["clinic_2019.csv"] == "train" and roles["clinic_2020.csv"] == "test"
    assert not any("fields not read: " in n and "train" in n.split(":")[-1] for n in task.notices)
    spec["train"] = "yes"  # no path: not read as one
    (root / "task.json").write_text(json.dumps(spec))
    with pytest.raises(TaskFormatError):
        load_task(root)


def test_fields_nested_in_a_data_object_are_read(tmp_path: Path) -> None:
    """Hunt, session 24: ``{"name", "evaluation": {"metric"}, "data": {"train", "test",
    "target"}}`` was refused ("cannot tell the target column") without a word on the fields."""
    root = tmp_path / "nested"
    _tables(root, "input", kind="wine", id_col="id", target="label")
    (root / "input" / "sample_submission.csv").unlink()
    spec = {
        "name": "wine-cultivars",
        "evaluation": {"metric": "weighted F1"},
        "data": {"train": "train.csv", "test": "test.csv", "target": "label"},
    }
    (root / "task.json").write_text(json.dumps(spec))
    task = load_task(root)
    assert task.target_cols == ("label",) and task.metric_name == "f1_weighted"
    assert [(f.path, f.role) for f in task.files] == [("train.csv", "train"), ("test.csv", "test")]
    assert any("'data.target'" in n for n in task.notices)


@pytest.mark.parametrize("role", ["inference", "holdout", "scoring", "prediction"])
def test_a_files_object_naming_the_rows_to_predict_by_their_use_is_read(
    tmp_path: Path, role: str
) -> None:
    """Session 25: ``"files": {"training": ..., "inference": ...}`` with no sample submission:
    the inference table was not read as the test table, so the run took the folder for a
    dataset, held out 20 % of the training rows and predicted those instead of the file."""
    root = tmp_path / "t"
    _tables(root, "data", kind="wine", id_col="sample_id", target="target")
    (root / "data" / "train.csv").rename(root / "data" / "training_set.csv")
    (root / "data" / "test.csv").rename(root / "data" / f"{role}_features.csv")
    (root / "data" / "sample_submission.csv").unlink()
    spec = {
        "task_name": "wine-cultivar",
        "evaluation_metric": "macro F1",
        "label_column": "target",
        "id_column": "sample_id",
        "files": {"training": "data/training_set.csv", role: f"data/{role}_features.csv"},
    }
    (root / "task.json").write_text(json.dumps(spec))
    task = load_task(root)
    assert [f.path for f in task.test_files] == [f"{role}_features.csv"]
    assert [f.path for f in task.train_files] == ["training_set.csv"]


def test_aide_s_eval_key_and_parquet_in_a_data_folder(tmp_path: Path) -> None:
    """Hunt, session 26: AIDE's ``"eval": "RMSE"`` was not read as the metric, and a
    description.md beside a ``data/`` folder of parquet files was told to "put the task's data
    files in an input/ folder" (only text tables counted as data there)."""
    from sklearn.datasets import load_diabetes

    frame = load_diabetes(as_frame=True, scaled=False).frame
    frame.insert(0, "id", range(len(frame)))
    root = tmp_path / "aide"
    (root / "data").mkdir(parents=True)
    frame.iloc[:350].to_parquet(root / "data" / "train.parquet", index=False)
    frame.iloc[350:].drop(columns="target").to_parquet(root / "data" / "test.parquet", index=False)
    (root / "description.md").write_text("# Progression\n\nTarget: target\n\nMetric: MAE\n")
    task = load_task(root)
    assert task.input_dir == root / "data" and task.metric_name == "mae"
    (root / "description.md").unlink()
    spec = {"goal": "Predict disease progression", "eval": "RMSE", "target_col": "target"}
    (root / "task.json").write_text(json.dumps(spec))
    assert load_task(root).metric_name == "rmse"


def test_aide_s_goal_file_beside_its_data_folder_is_the_description(tmp_path: Path) -> None:
    """Hunt, session 26 (B4): AIDE keeps its ``goal`` and ``eval`` in ``goal.txt`` beside
    ``data/``; the folder was refused as "not a task folder", with advice to pass ``data/``
    (which holds no description either)."""
    root = tmp_path / "aide"
    _tables(root, "data", kind="diabetes", id_col="patient", target="progression")
    (root / "data" / "sample_submission.csv").unlink()
    (root / "goal.txt").write_text(
        "goal: Predict disease progression one year after baseline (column `progression`) "
        "for the patients in test.csv\neval: MAE\n"
    )
    task = load_task(root)
    assert task.input_dir == root / "data"
    assert task.target_cols == ("progression",) and task.metric_name == "mae"
    assert "disease progression" in task.goal


@pytest.mark.parametrize("data_dir", [None, "."])
def test_tables_beside_task_json_are_its_data(tmp_path: Path, data_dir: str | None) -> None:
    """Hunt, session 26 (B4): train.csv and test.csv beside task.json (no input/ or data/) were
    refused with "move them into input/", though a description.md may keep its tables beside it;
    so was ``"data_dir": "."``.  Refused still when the answers lie beside them."""
    root = _wine_kaggle_style(tmp_path / "wine")
    for p in (root / "data").iterdir():
        p.rename(root / p.name)
    (root / "data").rmdir()
    if data_dir is not None:
        _spec(root, data_dir=data_dir)
    task = load_task(root)
    assert task.input_dir == root and task.target_cols == ("cultivar",)
    assert {f.path for f in task.files if f.role in ("train", "test")} == {"train.csv", "test.csv"}
    assert any("data read from beside task.json" in n for n in task.notices)


@pytest.mark.parametrize(
    ("files", "said"),
    [
        (  # Kaggle's train.zip of train.csv, as TAM-Bench's example names train.7z
            ("train.zip", "test.zip"),
            "holds the archive test.zip (holding test.csv); train.zip (holding train.csv): a run "
            "reads the files themselves, so unpack them there (cd {input} && unzip test.zip && "
            "unzip train.zip)",
        ),
        (  # OpenML's tables
            ("train.arff", "test.arff"),
            "holds test.arff, train.arff: `mlestar run` reads dense ARFF tables as CSV, but not "
            "sparse rows or relational attributes; save them as CSV",
        ),
    ],
)
def test_tables_a_run_cannot_read_are_named_with_what_to_do(
    tmp_path: Path, files: tuple[str, ...], said: str
) -> None:
    """Hunt D (session 27): ``input/train.zip`` (a TAM-Bench task.json naming it) and
    ``train.arff`` were told only "no training table (train.csv) found".  (A run reads both
    from a copy of input/: ``tests/task_import/test_readable_input.py``; these are the words of
    the layout of the folder as it is, e.g. a server's preview.)"""
    import zipfile

    from mlestar_jupyter.task.layout import inspect_task

    root = _wine_kaggle_style(tmp_path / "wine")
    data = root / "data"
    for name in files:
        table = data / f"{name.split('.')[0]}.csv"
        if name.endswith(".zip"):
            with zipfile.ZipFile(data / name, "w") as z:
                z.write(table, table.name)
        else:
            (data / name).write_text("@relation wine\n@data\n")
        table.unlink()
    with pytest.raises(TaskError) as e:
        inspect_task(load_task(root))
    assert said.format(input=data) in str(e.value)


def test_data_dir_dot_with_the_tables_in_a_data_folder_reads_that_folder(tmp_path: Path) -> None:
    """``"data_dir": "."`` where the tables are in ``data/`` after all: that folder, not the
    refusal "put the task's data files in an input/ folder"."""
    root = _wine_kaggle_style(tmp_path / "wine")
    _spec(root, data_dir=".")
    task = load_task(root)
    assert task.input_dir == root / "data" and task.target_cols == ("cultivar",)
