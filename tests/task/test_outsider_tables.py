"""Task folders written by other people, whose tables the run misread or could not use:

- a European CSV (``;`` between fields, decimal commas) was read as one column, the notebooks
  predicted 0 for everything and the run reported a validation RMSE of 0;
- the same export saved by Excel as "Text (Tab delimited)" (``train.tsv``, or tabs in a
  ``.csv``) or separated by ``|``: its decimal-comma numbers were read as text;
- a ``test.tsv`` beside ``train.csv`` and a ``train.csv.gz``: the notebooks read them as plain
  CSVs (every candidate failed), the gzipped table was "not found";
- a parquet table without pyarrow: a raw ``ImportError`` traceback;
- a training table with a header only, a test table with no rows, empty target cells, a
  target column task.json names that the table lacks: every candidate failed (or, for the
  missing column, the run trained on another column without a word)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_diabetes

from mlestar_jupyter.task import Task, TaskError, load_task
from mlestar_jupyter.task.layout import inspect_task, tables
from mlestar_jupyter.task.layout.checks import data_problems
from mlestar_jupyter.task.layout.tables import (
    read_args,
    read_head,
    read_submission,
    submission_args,
    write_submission,
)


def _task(root: Path, train: pd.DataFrame, test: pd.DataFrame, **spec: object) -> Path:
    (root / "input").mkdir(parents=True)
    train.to_csv(root / "input" / "train.csv", index=False)
    test.to_csv(root / "input" / "test.csv", index=False)
    body = {"goal": "predict y", "metric": "rmse", "target_col": "y", "id_col": "id", **spec}
    (root / "task.json").write_text(json.dumps(body))
    return root


def _diabetes() -> tuple[pd.DataFrame, pd.DataFrame]:
    df = load_diabetes(as_frame=True, scaled=False).frame.rename(columns={"target": "y"})
    df.insert(0, "id", range(len(df)))
    return df.iloc[:300], df.iloc[300:].drop(columns="y")


def test_a_european_csv_is_read_with_its_separator_and_decimal_commas(tmp_path: Path) -> None:
    train, test = _diabetes()
    root = _task(tmp_path / "t", train, test)
    for name, frame in (("train.csv", train), ("test.csv", test)):
        frame.to_csv(root / "input" / name, sep=";", decimal=",", index=False)
    assert read_args(root / "input" / "train.csv") == {"sep": ";", "decimal": ","}
    head = read_head(root / "input" / "train.csv")
    assert list(head.columns) == list(train.columns) and head["bmi"].dtype.kind == "f"
    layout = inspect_task(load_task(root))
    assert layout.label_col == "y" and layout.id_col == "id"
    code = layout.read_code("train.csv")
    assert code == 'pd.read_csv(INPUT / "train.csv", sep=";", decimal=",")'
    read = eval(code, {"pd": pd, "INPUT": root / "input"})  # what the notebooks run
    assert np.allclose(read["bmi"], train["bmi"])


def test_tsv_and_gzipped_tables_are_read_as_what_they_are(tmp_path: Path) -> None:
    train, test = _diabetes()
    root = _task(tmp_path / "t", train, test)
    (root / "input" / "test.csv").unlink()
    test.to_csv(root / "input" / "test.tsv", sep="\t", index=False)
    (root / "input" / "train.csv").unlink()
    with gzip.open(root / "input" / "train.csv.gz", "wt") as f:
        train.to_csv(f, index=False)
    layout = inspect_task(load_task(root))
    assert (layout.train_table, layout.test_table) == ("train.csv.gz", "test.tsv")
    assert layout.read_code("test.tsv") == 'pd.read_csv(INPUT / "test.tsv", sep="\\t")'
    read = eval(layout.read_code("test.tsv"), {"pd": pd, "INPUT": root / "input"})
    assert list(read.columns) == list(test.columns)
    assert layout.read_code("train.csv.gz") == 'pd.read_csv(INPUT / "train.csv.gz")'


def test_a_parquet_table_without_its_engine_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "train.parquet"
    path.write_bytes(b"PAR1")

    def no_engine(*a: object, **k: object) -> None:
        raise ImportError("Unable to find a usable engine; tried using: 'pyarrow'")

    monkeypatch.setattr(pd, "read_parquet", no_engine)
    with pytest.raises(TaskError, match="install it \\(pip install pyarrow\\)"):
        read_head(path)


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda tr, te: (tr.iloc[:0], te), "the training table has no rows"),
        (lambda tr, te: (tr, te.iloc[:0]), "the test table has no rows"),
        (lambda tr, te: (tr.assign(y=np.nan), te), "every row's 'y' is empty"),
        (
            lambda tr, te: (tr.assign(y=tr.y.where(tr.index % 50 != 7)), te),
            "6 of 300 rows have no 'y' (lines 9, 59, 109, 159, 209 ...): remove them",
        ),
    ],
)
def test_tables_that_cannot_train_or_be_predicted_are_named_before_a_run(
    tmp_path: Path, change, said: str
) -> None:  # type: ignore[no-untyped-def]
    train, test = change(*_diabetes())
    task = load_task(_task(tmp_path / "t", train, test))
    problems = data_problems(task, inspect_task(task))
    assert len(problems) == 1 and said in problems[0], problems


def test_a_target_task_json_names_and_the_table_lacks_is_refused(tmp_path: Path) -> None:
    train, test = _diabetes()
    root = _task(tmp_path / "t", train, test, target_col="outcome")
    with pytest.raises(TaskError, match="has no column 'outcome'.*the one only the training"):
        inspect_task(load_task(root))


def test_a_good_table_has_no_problems(tmp_path: Path) -> None:
    task = load_task(_task(tmp_path / "t", *_diabetes()))
    assert data_problems(task, inspect_task(task)) == []


def test_a_run_refuses_such_data_before_it_starts(tmp_path: Path) -> None:
    from mlestar_jupyter.agent.config import RunConfig
    from mlestar_jupyter.agent.run import run_mlestar
    from mlestar_jupyter.journal import RunJournal

    train, test = _diabetes()
    task = load_task(_task(tmp_path / "t", train.assign(y=np.nan), test))
    journal = RunJournal.create(tmp_path / "run", {})

    def no_policy(i: int) -> None:
        raise AssertionError("no policy is made for unusable data")

    with pytest.raises(TaskError, match="every row's 'y' is empty"):
        run_mlestar(task, RunConfig(), journal, None, no_policy)  # type: ignore[arg-type]


def _wine_folder(root: Path, metric: object) -> Path:
    """An outsider's task folder: task.json with its own field names, the tables in data/."""
    from sklearn.datasets import load_wine

    df = load_wine(as_frame=True).frame.rename(columns={"target": "cultivar"})
    df.insert(0, "sample_id", range(len(df)))
    (root / "data").mkdir(parents=True)
    df.iloc[:140].to_csv(root / "data" / "wine_train.csv", index=False)
    df.iloc[140:].drop(columns="cultivar").to_csv(root / "data" / "wine_test.csv", index=False)
    spec = {
        "name": "wine-cultivar",
        "description": "Predict the wine cultivar (0,1,2) from chemistry.",
        "label": "cultivar",
        "id_column": "sample_id",
        "metric": metric,
        "data_dir": "./data",
        "files": {"train": "wine_train.csv", "test": "wine_test.csv"},
    }
    (root / "task.json").write_text(json.dumps(spec, indent=1))
    return root


@pytest.mark.parametrize(
    ("metric", "said"),
    [
        ("F1", "f1 of 3 classes is graded as their macro average"),
        ({"name": "Recall", "higher_is_better": True}, "recall of 3 classes is graded as their"),
        ({"name": "F1", "average": "macro"}, None),  # the author said so
        ("accuracy", None),
    ],
)
def test_a_per_class_metric_of_several_classes_is_said_to_be_their_macro_average(
    tmp_path: Path, metric: object, said: str | None
) -> None:
    """A task folder whose task.json grades three cultivars by "F1" was graded by their macro
    average without a word (a dataset said so: hunt, session 22); the run's start says it."""
    from mlestar_jupyter.agent.run import _checked_data
    from mlestar_jupyter.task.layout.checks import data_notes

    task = load_task(_wine_folder(tmp_path / "t", metric))
    notes = data_notes(task, inspect_task(task))
    assert (notes == []) if said is None else (len(notes) == 1 and said in notes[0]), notes
    assert _checked_data(task) == notes


def test_the_start_of_a_run_reads_the_label_column_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The checks that stop a run (empty targets) and the notes it says (labels written two
    ways, F1 of three classes) each read the training table's label column: a run reads it
    once for both."""
    from mlestar_jupyter.agent.run import _checked_data
    from mlestar_jupyter.task.layout import checks

    task = load_task(_wine_folder(tmp_path / "t", "F1"))
    layout = inspect_task(task)
    reads: list[object] = []
    real = checks.read_table

    def counted(path: Path, **kw: object) -> object:
        reads.append(kw.get("columns"))
        return real(path, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(checks, "read_table", counted)
    notes = _checked_data(task)
    assert any("macro average" in n for n in notes), notes
    assert reads.count([layout.label_col]) == 1, reads


def test_an_id_spelled_one_way_in_train_and_another_in_test(tmp_path: Path) -> None:
    """``ID`` in the training table, ``Id`` in the test table, task.json says ``Id``: the id
    took the training table's spelling, which the test table lacks, and the submission had no id
    column; with a sample submission every notebook failed dropping ``Id`` from the training
    rows.  The id is the test table's (and the submission's) column."""
    from mlestar_jupyter.offline.catalog import load_catalog

    train, test = _diabetes()
    root = _task(
        tmp_path / "t", train.rename(columns={"id": "ID"}), test.rename(columns={"id": "Id"})
    )
    spec = json.loads((root / "task.json").read_text())
    (root / "task.json").write_text(json.dumps({**spec, "id_col": "Id"}))
    task = load_task(root)
    assert task.id_col == "Id"
    layout = inspect_task(task)
    assert layout.id_col == "Id" and "ID" in layout.drop_cols
    assert load_catalog is not None


def test_a_description_that_states_its_metric_in_prose(tmp_path: Path) -> None:
    """An MLE-bench folder whose Evaluation section describes log loss in words: "names no
    metric".  The prose and formula vocabulary of the page importer reads it now."""
    from mlestar_jupyter.task.infer import metric_from_text

    text = (
        "# Wine\n\n## Evaluation\nSubmissions are evaluated on the average of the negative "
        "logarithm of the predicted probability assigned to the true cultivar. Lower is better."
    )
    assert metric_from_text(tmp_path, text) == ("log_loss", "minimize")
    with pytest.raises(TaskError, match="names no metric"):
        metric_from_text(tmp_path, "# Wine\n\n## Evaluation\nWe look at the results.")


def _euro(root: Path, sample_value: float) -> Path:
    """A European task folder: every table ``;``-separated with decimal commas."""
    train, test = _diabetes()
    _task(root, train, test)
    sample = pd.DataFrame({"id": test["id"], "y": sample_value})
    for name, frame in (("train", train), ("test", test), ("sample_submission", sample)):
        frame.to_csv(root / "input" / f"{name}.csv", sep=";", decimal=",", index=False)
    return root


def test_the_submission_is_written_as_the_sample_submission_is(tmp_path: Path) -> None:
    task = load_task(_euro(tmp_path / "euro", 150.5))
    assert (task.input_dir / "sample_submission.csv").read_text().startswith("id;y\n300;150,5")
    assert submission_args(task) == {"sep": ";", "decimal": ","}
    assert inspect_task(task).write_args() == ', sep=";", decimal=","'
    # a sample of whole numbers shows no decimal mark: the ;-tables' decimal comma is taken
    whole = load_task(_euro(tmp_path / "whole", 150))
    assert read_args(whole.input_dir / "sample_submission.csv") == {"sep": ";"}
    assert submission_args(whole) == {"sep": ";", "decimal": ","}
    # a plain task: a plain CSV, and the templates' code unchanged
    plain = load_task(_task(tmp_path / "plain", *_diabetes()))
    pd.DataFrame({"id": [1], "y": [0.5]}).to_csv(
        plain.input_dir / "sample_submission.csv", index=False
    )
    plain = load_task(plain.root)
    assert submission_args(plain) == {} and inspect_task(plain).write_args() == ""


def test_a_submission_in_another_format_is_read_as_written_and_handed_in_rewritten(
    tmp_path: Path,
) -> None:
    task = load_task(_euro(tmp_path / "euro", 150.5))
    preds = pd.DataFrame({"id": [330, 331, 332], "y": [151.25, 99.5, 0.125]})
    own = tmp_path / "own.csv"  # what a notebook's plain to_csv writes
    preds.to_csv(own, index=False)
    assert list(read_submission(task, own).columns) == ["id", "y"]
    text = read_submission(task, own, as_text=True)
    assert text["y"].tolist() == ["151.25", "99.5", "0.125"]
    handed = tmp_path / "final.csv"
    assert write_submission(task, own, handed) == {"sep": ","}
    assert handed.read_text() == "id;y\n330;151,25\n331;99,5\n332;0,125\n"
    back = pd.read_csv(handed, sep=";", decimal=",")  # as the author's grader reads the sample
    assert back["y"].tolist() == preds["y"].tolist()
    # a file in the sample's format reads the same and is copied byte for byte
    assert read_submission(task, handed, as_text=True)["y"].tolist() == text["y"].tolist()
    again = tmp_path / "again.csv"
    assert write_submission(task, handed, again) is None
    assert again.read_bytes() == handed.read_bytes()


def _exported(root: Path, sep: str, ext: str, sample_value: float) -> Path:
    """A task folder whose tables a German or French Excel exported with ``sep`` between fields
    and decimal commas, as ``train.<ext>``, ``test.<ext>`` and ``sample_submission.<ext>``."""
    train, test = _diabetes()
    _task(root, train, test)
    for name in ("train.csv", "test.csv"):
        (root / "input" / name).unlink()
    sample = pd.DataFrame({"id": test["id"], "y": sample_value})
    for name, frame in (("train", train), ("test", test), ("sample_submission", sample)):
        cells = frame.astype(object).map(_excel_cell)
        cells.to_csv(root / "input" / f"{name}.{ext}", sep=sep, index=False, lineterminator="\r\n")
    return root


def _excel_cell(value: object) -> str:
    """A number as a German Excel writes it: ``101`` for a whole number, else ``93,2``."""
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value).replace(".", ",")
    return str(value)


@pytest.mark.parametrize(
    ("sep", "ext", "shown"),
    [("\t", "tsv", "\\t"), ("\t", "csv", "\\t"), ("|", "csv", "|")],
    ids=["tab-tsv", "tab-csv", "pipe-csv"],
)
def test_a_tab_or_pipe_export_with_decimal_commas_reads_its_numbers(
    tmp_path: Path, sep: str, ext: str, shown: str
) -> None:
    train, _ = _diabetes()
    root = _exported(tmp_path / "t", sep, ext, 150)
    first = (root / "input" / f"train.{ext}").read_bytes().split(b"\r\n")[1].decode()
    assert first.startswith(f"0{sep}59{sep}2{sep}32,1{sep}101{sep}157{sep}93,2"), first
    assert read_args(root / "input" / f"train.{ext}") == {"sep": sep, "decimal": ","}
    assert read_head(root / "input" / f"train.{ext}")["bmi"].dtype.kind == "f"
    task = Task.load(root)
    layout = inspect_task(task)
    assert (layout.train_table, layout.label_col) == (f"train.{ext}", "y")
    code = layout.read_code(f"train.{ext}")
    assert code == f'pd.read_csv(INPUT / "train.{ext}", sep="{shown}", decimal=",")'
    read = eval(code, {"pd": pd, "INPUT": root / "input"})  # what the notebooks run
    assert read["bmi"].dtype.kind == "f" and np.allclose(read["bmi"], train["bmi"])
    # a sample of whole numbers shows no decimal mark: the tables' decimal comma is taken
    assert submission_args(task) == {"sep": sep, "decimal": ","}


@pytest.mark.parametrize(
    ("text", "args", "kinds"),
    [  # commas in quoted fields of a comma-separated file
        ('id,name,price\n1,"Smith, J",12.5\n2,"Doe, A",7.25\n', {}, "iOf"),
        ('id,price,note\n1,"1,5",a\n2,"2,25",b\n', {}, "iOO"),
        # free text with commas in a ;-separated file, its numbers whole or with points
        ("id;note;v\n1;Hello, world;3\n2;Bye, all;4\n", {"sep": ";"}, "iOi"),
        ("id;note;v\n1;Hello, world;3.5\n2;Bye, all;4.25\n", {"sep": ";"}, "iOf"),
        # a US tab export: decimal points, thousands commas (1,500 is not 1.5)
        ("id\tcount\tprice\n1\t12,345\t1.5\n2\t1,500\t2.25\n", {"sep": "\t"}, "iOf"),
        ("id\tcount\n1\t12,345\n2\t1,500\n", {"sep": "\t"}, "iO"),
        # a European ;-export whose numbers all look like thousands groups: its comma is decimal
        ("id;v\n1;1,500\n2;2,000\n", {"sep": ";", "decimal": ","}, "if"),
    ],
    ids=[
        "quoted-name",
        "quoted-number",
        "semicolon-text",
        "semicolon-points",
        "us-tab",
        "us-counts",
        "euro-grouped",
    ],
)
def test_commas_that_are_not_decimal_marks_leave_the_numbers_alone(
    tmp_path: Path, text: str, args: dict[str, str], kinds: str
) -> None:
    path = tmp_path / "train.csv"
    path.write_text(text)
    assert read_args(path) == args
    assert "".join(read_head(path).dtypes.map(lambda d: d.kind)) == kinds


def test_a_submission_for_a_tab_separated_sample_is_handed_in_as_the_sample_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    task = Task.load(_exported(tmp_path / "t", "\t", "tsv", 150.5))
    own = tmp_path / "own.csv"  # what a notebook's plain to_csv writes
    pd.DataFrame({"id": [330, 331], "y": [151.25, 0.125]}).to_csv(own, index=False)
    sniffed: list[Task] = []
    real = tables.submission_args

    def counted(t: Task) -> dict[str, str]:
        sniffed.append(t)
        return real(t)

    monkeypatch.setattr(tables, "submission_args", counted)
    handed = tmp_path / "final.tsv"
    assert write_submission(task, own, handed) == {"sep": ","}
    assert len(sniffed) == 1  # the sample's format is sniffed once per write
    assert handed.read_text() == "id\ty\n330\t151,25\n331\t0,125\n"
    assert read_submission(task, handed)["y"].tolist() == [151.25, 0.125]


def test_labels_written_in_more_than_one_way_are_named_at_the_start(tmp_path: Path) -> None:
    """Hunt D (session 27): ``'Class A'``, ``'class a'`` and ``'Class A '`` were learnt as twelve
    classes without a word, and the scorer (which strips spaces) disagreed with every notebook's
    printed score."""
    from mlestar_jupyter.task.layout.checks import data_notes

    rng = np.random.default_rng(0)
    species = rng.choice(["Class A", "class a", "Class A ", "Class B"], 80)
    train = pd.DataFrame({"id": range(80), "x": rng.normal(size=80), "species": species})
    test = train.drop(columns="species").iloc[:10].assign(id=range(100, 110))
    root = _task(tmp_path / "t", train, test, target_col="species", metric="accuracy")
    task = load_task(root)
    (note,) = [n for n in data_notes(task, inspect_task(task)) if "more than one way" in n]
    assert "1 label(s) of 'species' are written in more than one way" in note
    assert "'Class A'" in note and "'class a'" in note and "'Class B'" not in note
    clean = train.assign(species=rng.choice(["Class A", "Class B"], 80))
    task = load_task(_task(tmp_path / "c", clean, test, target_col="species", metric="accuracy"))
    assert not [n for n in data_notes(task, inspect_task(task)) if "more than one way" in n]


def test_columns_only_one_table_has_are_named_at_the_start(tmp_path: Path) -> None:
    """Hunt D (session 27): the training table's ``proline`` (missing from the test rows) was
    left out, and the test table's ``batch_code`` ignored, without a word."""
    from mlestar_jupyter.task.layout.checks import data_notes

    train, test = _diabetes()
    test = test.drop(columns="bmi").assign(batch_code="b7")
    task = load_task(_task(tmp_path / "t", train, test))
    notes = data_notes(task, inspect_task(task))
    assert "train.csv: column(s) 'bmi' are not in test.csv: they are left out" in notes[0]
    assert "test.csv: column(s) 'batch_code' are not in train.csv" in notes[1]
    task = load_task(_task(tmp_path / "same", *_diabetes()))
    assert data_notes(task, inspect_task(task)) == []
