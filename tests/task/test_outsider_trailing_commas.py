"""A task folder whose CSVs end each data row with a comma the header has no name for
(``id,a,b,y`` over ``1,2,3,0,``), as some exporters (and hand-edited spreadsheets) write them.
Before: pandas made the first column the index and shifted every name one column to the left,
so ``species`` named an empty column (the target read as all missing) and ``id`` held the
first feature; after: the tables are read with ``index_col=False`` (``text_format.read_args``),
in the layout, the previews and the notebooks' ``read_code`` alike."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from sklearn.datasets import load_iris

from mlestar_jupyter import api
from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.layout import inspect_task
from mlestar_jupyter.task.layout.tables import read_table
from mlestar_jupyter.task.text_format import call_args, read_args


def _trailing(frame: pd.DataFrame, path: Path) -> None:
    """``frame`` written as such an exporter writes it: a comma after each data row."""
    lines = frame.to_csv(index=False).splitlines()
    path.write_text("\n".join([lines[0], *(ln + "," for ln in lines[1:])]) + "\n")


def _task(root: Path) -> Path:
    """Iris as ``species`` (its names), train/test written with trailing commas, and an
    outsider's task.json naming them."""
    d = load_iris(as_frame=True)
    df = d.frame.rename(columns={"target": "species"})
    df["species"] = d.target_names[df["species"]]
    df.insert(0, "id", range(1000, 1000 + len(df)))
    df = df.sample(frac=1, random_state=0)
    (root / "input").mkdir(parents=True)
    _trailing(df.iloc[:110], root / "input" / "train.csv")
    _trailing(df.iloc[110:].drop(columns="species"), root / "input" / "test.csv")
    spec = {"metric": "accuracy", "target": "species", "id_col": "id",
            "train_file": "train.csv", "test_file": "test.csv"}  # fmt: skip
    (root / "task.json").write_text(json.dumps(spec))
    return root


def test_rows_ending_in_a_comma_are_read_unshifted(tmp_path: Path) -> None:
    root = _task(tmp_path / "t")
    train = root / "input" / "train.csv"
    assert read_args(train) == {"index_col": False}
    frame = read_table(train)
    assert list(frame.columns) == ["id", *load_iris().feature_names, "species"]
    assert frame["id"].iloc[0] >= 1000 and frame["species"].notna().all()
    task = load_task(root)
    layout = inspect_task(task)
    assert (layout.label_col, layout.id_col) == ("species", "id")
    # the notebooks' code reads it the same way: a Python literal, not JSON's 'false'
    code = layout.read_code("train.csv")
    assert code.endswith(", index_col=False)"), code
    INPUT = root / "input"  # noqa: N806  (the name the notebooks' code reads under)
    read = eval(code, {"pd": pd, "INPUT": INPUT})  # noqa: S307  (the code a notebook runs)
    assert read["species"].tolist() == frame["species"].tolist()


def test_plain_tables_and_header_commas_are_left_alone(tmp_path: Path) -> None:
    """A plain CSV, one whose header ends in a comma too (a real, unnamed empty column), and
    a single data row that is longer for another reason keep pandas' defaults."""
    plain, both, text = tmp_path / "a.csv", tmp_path / "b.csv", tmp_path / "c.csv"
    plain.write_text("id,a,y\n1,2,0\n2,3,1\n")
    both.write_text("id,a,y,\n1,2,0,\n2,3,1,\n")
    text.write_text('id,note,y\n1,"x, y",0\n2,z,1\n')
    assert [read_args(p) for p in (plain, both, text)] == [{}, {}, {}]
    assert read_args(tmp_path / "a.csv") == {}
    assert call_args({"sep": ";", "index_col": False}) == ', sep=";", index_col=False'


def test_a_run_reads_the_tables_unshifted(tmp_path: Path) -> None:
    root = _task(tmp_path / "t")
    out = api.run(root, out=tmp_path / "run", time_limit=45, models=1, inner=1, outer=1,
                  parallel=1, ensemble_rounds=0)  # fmt: skip
    assert out.final.ok and out.final.rung not in ("baseline", "catalog"), out.final
    sub = pd.read_csv(out.final.submission)
    assert list(sub.columns) == ["id", "species"], sub.columns
    test = pd.read_csv(root / "input" / "test.csv", index_col=False)
    assert sub["id"].tolist() == test["id"].tolist()
    assert set(sub["species"]) <= {"setosa", "versicolor", "virginica"}
    assert out.final.score is not None and out.final.score > 0.8, out.final


def test_the_labelled_copy_of_such_a_table_reads_unshifted(tmp_path: Path) -> None:
    """Rows with no label among them: the run's copy of the training table (``labelled_only``)
    is read from the trailing-comma table and written plainly, with its columns in place."""
    from mlestar_jupyter.task.layout.labelled import labelled_only

    root = _task(tmp_path / "t")
    train = read_table(root / "input" / "train.csv").astype(object)
    train.loc[train.index[:5], "species"] = None
    _trailing(train, root / "input" / "train.csv")
    task = load_task(root)
    copy = labelled_only(task, inspect_task(task), tmp_path / "copy")
    assert copy is not None
    layout = inspect_task(copy)
    read = eval(layout.read_code("train.csv"), {"pd": pd, "INPUT": copy.input_dir})  # noqa: S307
    assert len(read) == 105 and read["species"].notna().all()
    assert read["id"].tolist() == train["id"].iloc[5:].tolist()
