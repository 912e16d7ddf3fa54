"""Two tables that no name marks as training or test data (a clinic's ``patients_2019.csv`` and
``patients_2020_unlabelled.csv``) beside a description.md: the one with every column of the
other and the outcome too is the training table.  Before (hunt, session 22): "no training data
found: add train.csv", or, with the tables beside description.md, "put the task's data files in
an input/ folder"."""

from __future__ import annotations

from pathlib import Path

import pytest
from sklearn.datasets import load_diabetes

from mlestar_jupyter.task import TaskFormatError, load_task
from mlestar_jupyter.task.layout import inspect_task

DESCRIPTION = "Predict disease progression one year later for the 2020 patients. Metric: RMSE.\n"


def _clinic(root: Path, folder: str) -> Path:
    frame = load_diabetes(as_frame=True, scaled=False).frame.rename(
        columns={"target": "progression"}
    )
    frame.insert(0, "patient", frame.sample(frac=1.0, random_state=0).index + 100)
    data = root / folder if folder else root
    data.mkdir(parents=True)
    frame.iloc[:330].to_csv(data / "patients_2019.csv", index=False)
    frame.iloc[330:].drop(columns="progression").to_csv(
        data / "patients_2020_unlabelled.csv", index=False
    )
    (root / "description.md").write_text(DESCRIPTION)
    return root


@pytest.mark.parametrize("folder", ["input", ""])
def test_the_table_with_the_outcome_is_the_training_table(tmp_path: Path, folder: str) -> None:
    task = load_task(_clinic(tmp_path / "clinic", folder))
    roles = {f.path: f.role for f in task.files if f.path.endswith(".csv")}
    assert roles == {"patients_2019.csv": "train", "patients_2020_unlabelled.csv": "test"}
    assert task.target_cols == ("progression",) and task.id_col == "patient"
    assert task.metric_name == "rmse"
    assert any("patients_2019.csv is read as the training table" in n for n in task.notices)
    assert any("the submission is 'patient,progression'" in n for n in task.notices)
    layout = inspect_task(task)
    assert layout.train_table == "patients_2019.csv"
    assert layout.test_table == "patients_2020_unlabelled.csv"
    assert layout.label_col == "progression" and layout.id_col == "patient"


def test_two_unrelated_tables_still_ask_for_train_csv(tmp_path: Path) -> None:
    root = _clinic(tmp_path / "clinic", "input")
    (root / "input" / "patients_2020_unlabelled.csv").write_text("code,label\nA,x\nB,y\n")
    with pytest.raises(TaskFormatError, match="no training data found: add train.csv"):
        load_task(root)


@pytest.mark.parametrize("folder", ["input", "data", ""])
def test_without_a_description_the_error_names_the_pair_and_what_to_write(
    tmp_path: Path, folder: str
) -> None:
    """Two such tables and nothing else (hunt, session 22) were "not a task folder" with no
    word of what the folder holds; the error now names the pair and the sentence to write, and
    writing it makes the folder a task."""
    root = _clinic(tmp_path / "clinic", folder)
    (root / "description.md").unlink()
    with pytest.raises(TaskFormatError, match="not a task folder") as e:
        load_task(root)
    said = str(e.value)
    assert (
        "patients_2019.csv has every column of patients_2020_unlabelled.csv and 'progression'"
        in said
    )
    sentence = said.split("(e.g. '")[1].split("'),")[0]
    assert (
        sentence
        == "Predict progression for the rows of patients_2020_unlabelled.csv. Metric: RMSE."
    )
    (root / "description.md").write_text(sentence + "\n")
    task = load_task(root)
    assert task.target_cols == ("progression",) and task.metric_name == "rmse"


def test_a_competitions_archive_in_input_is_named_with_how_to_unpack_it(tmp_path: Path) -> None:
    """Hunt, session 24: ``input/data.zip`` (train.csv and test.csv, as a competition's download
    comes) beside the sample got "no training data found: add train.csv", the zip unmentioned."""
    import zipfile

    root = tmp_path / "comp"
    (root / "input").mkdir(parents=True)
    (root / "description.md").write_text("# Wine\n\nPredict target.\n\n## Evaluation\nAccuracy\n")
    with zipfile.ZipFile(root / "input" / "data.zip", "w") as z:
        z.writestr("train.csv", "id,x,target\n1,2,0\n")
        z.writestr("test.csv", "id,x\n2,3\n")
    (root / "input" / "sample_submission.csv").write_text("id,target\n2,0\n")
    with pytest.raises(TaskFormatError, match=r"data.zip \(holding train.csv, test.csv\).*unzip"):
        load_task(root)
