"""Task folders written by other people that ``mlestar run`` misread (hunt F, session 28): a
``test_labels.csv`` beside the tables (the test rows' ids and their answers) was joined onto the
features by every candidate: named as the target, each failed with a KeyError and the run handed
in a constant; named otherwise, the test labels were silently learnt from."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from sklearn.datasets import load_wine

from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.layout import inspect_task
from mlestar_jupyter.task.layout.checks import data_notes


def _wine_folder(root: Path, answers_column: str) -> Path:
    """A wine task as outsiders wrote it: train.csv, test.csv, a sample submission and the
    organisers' ``test_labels.csv`` (the test ids and their cultivar) side by side."""
    df = load_wine(as_frame=True).frame.rename(columns={"target": "cultivar"})
    df.insert(0, "wine_id", range(len(df)))
    train, test = df.iloc[::2], df.iloc[1::2]
    root.mkdir(parents=True)
    train.to_csv(root / "train.csv", index=False)
    test.drop(columns="cultivar").to_csv(root / "test.csv", index=False)
    test[["wine_id"]].assign(cultivar=0).to_csv(root / "sample_submission.csv", index=False)
    answers = test[["wine_id", "cultivar"]].rename(columns={"cultivar": answers_column})
    answers.to_csv(root / "test_labels.csv", index=False)
    spec = {
        "task_type": "classification",
        "goal_description": "Predict the cultivar of each wine.",
        "metric": "matthews_corrcoef",
        "target_col": "cultivar",
        "id_col": "wine_id",
        "data_information": {
            "data_type": "Tabular",
            "train": {"data_location": "train.csv"},
            "test": {"data_location": "test.csv"},
        },
    }
    (root / "task.json").write_text(json.dumps(spec))
    return root


def test_test_labels_named_as_the_target_are_not_joined(tmp_path: Path) -> None:
    task = load_task(_wine_folder(tmp_path / "t", "Cultivar"))
    layout = inspect_task(task)
    assert layout.extra_tables == ()
    assert [f for f, _ in layout.unjoined_tables] == ["test_labels.csv"]
    assert any(
        "test_labels.csv: not read" in n and "'Cultivar'" in n for n in data_notes(task, layout)
    )


def test_test_labels_named_otherwise_are_not_joined(tmp_path: Path) -> None:
    task = load_task(_wine_folder(tmp_path / "t", "true_cultivar"))
    layout = inspect_task(task)
    assert layout.extra_tables == ()
    notes = [n for n in data_notes(task, layout) if n.startswith("test_labels.csv: not read")]
    assert notes and "only the rows to predict" in notes[0]


def test_a_lookup_table_of_the_training_keys_is_still_joined(tmp_path: Path) -> None:
    root = _wine_folder(tmp_path / "t", "true_cultivar")
    (root / "test_labels.csv").unlink()
    pd.DataFrame({"wine_id": range(178), "cellar": [i % 3 for i in range(178)]}).to_csv(
        root / "cellars.csv", index=False
    )
    layout = inspect_task(load_task(root))
    assert layout.extra_tables == (("cellars.csv", "wine_id"),)
    assert layout.unjoined_tables == ()


def test_the_set_aside_check_reads_each_table_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two extra tables keyed on ``wine_id``: the check read each extra table's header a second
    time (after its first rows) and the training table's key column once per extra table; now
    no header twice and the training keys once per layout."""
    from mlestar_jupyter.task.layout import columns

    root = _wine_folder(tmp_path / "t", "true_cultivar")
    pd.DataFrame({"wine_id": range(178), "cellar": [i % 3 for i in range(178)]}).to_csv(
        root / "cellars.csv", index=False
    )
    calls: list[tuple[str, dict[str, object]]] = []
    real = columns.read_table

    def counted(path: Path, **kwargs: Any) -> pd.DataFrame:
        calls.append((Path(path).name, kwargs))
        return real(path, **kwargs)

    monkeypatch.setattr(columns, "read_table", counted)
    layout = inspect_task(load_task(root))
    assert layout.extra_tables == (("cellars.csv", "wine_id"),)
    assert [f for f, _ in layout.unjoined_tables] == ["test_labels.csv"]
    assert not [c for c in calls if c[1].get("nrows") == 0], calls  # headers: read_head's
    train_keys = [c for c in calls if c[0] == "train.csv" and c[1].get("columns") == ["wine_id"]]
    assert len(train_keys) == 1, calls


def test_the_data_usage_checks_never_ask_for_the_answers(tmp_path: Path) -> None:
    """The checks that ask a solution to read every file (the offline one, and the language
    model's prompt) leave the set-aside answers out, and a run does not tell the user to use
    them."""
    from mlestar_jupyter.notebook import SolutionNotebook
    from mlestar_jupyter.offline.notebook_checks import check_data_usage
    from mlestar_jupyter.task.layout import files_to_read

    task = load_task(_wine_folder(tmp_path / "t", "true_cultivar"))
    assert "test_labels.csv" not in files_to_read(task)
    assert {"train.csv", "test.csv"} <= set(files_to_read(task))
    nb = SolutionNotebook.new([("load", "import pandas as pd\ntrain = pd.read_csv('train.csv')")])
    layout = inspect_task(task)
    report = check_data_usage(nb, task, layout)
    assert "test_labels.csv" not in report.unused_files and "test.csv" in report.unused_files


def test_the_offline_data_usage_check_reads_the_layout_it_is_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The offline check asks ``files_to_read`` for the files with the layout it has: the
    tables are not inspected again, and the rule is the one the prompts use, not a copy."""
    from mlestar_jupyter.notebook import SolutionNotebook
    from mlestar_jupyter.offline.notebook_checks import check_data_usage
    from mlestar_jupyter.task.layout import discovery

    task = load_task(_wine_folder(tmp_path / "t", "true_cultivar"))
    layout = inspect_task(task)
    monkeypatch.setattr(discovery, "inspect_task", lambda *a: pytest.fail("inspected again"))
    nb = SolutionNotebook.new([("load", "import pandas as pd\ntrain = pd.read_csv('train.csv')")])
    unused = check_data_usage(nb, task, layout).unused_files
    assert list(unused) == [f for f in discovery.files_to_read(task, layout) if f != "train.csv"]


def test_task_json_keys_written_with_capitals_are_read(tmp_path: Path) -> None:
    """Hunt F (session 28): ``"Metric"``, ``"Target"``, ``"ID"`` and a ``"Task"`` sentence
    (another author's casing) were not read: "field 'metric' missing"."""
    from sklearn.datasets import load_diabetes

    root = tmp_path / "t"
    (root / "input").mkdir(parents=True)
    d = load_diabetes(as_frame=True).frame.rename(columns={"target": "Outcome"})
    d.insert(0, "RecordID", range(1000, 1000 + len(d)))
    d.iloc[:350].to_csv(root / "input" / "train.csv", index=False)
    d.iloc[350:].drop(columns="Outcome").to_csv(root / "input" / "test.csv", index=False)
    spec = {
        "Task": "Predict Outcome from baseline measurements",
        "Metric": "mean_absolute_percentage_error",
        "Target": "Outcome",
        "ID": "RecordID",
    }
    (root / "task.json").write_text(json.dumps(spec))
    task = load_task(root)
    assert task.metric_name == "mape" and task.target_cols == ("Outcome",)
    assert task.id_col == "RecordID" and "baseline measurements" in task.goal
    assert any("read 'Metric' as 'metric'" in n for n in task.notices)
    assert not any("fields not read" in n for n in task.notices), task.notices
