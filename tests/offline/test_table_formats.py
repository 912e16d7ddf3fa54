"""Task folders whose tables are no CSV (hunt, session 23): an Excel workbook per table, JSON
lines, a table written in parts (``train/part-00000.csv`` ..., as Spark and Dask write one).
Each was "no training table (train.csv) found"; the layout reads them now, and the catalog's
notebooks read them the same way and hand in a submission."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from inprocess import exec_notebook
from sklearn.datasets import load_diabetes

from mlestar_jupyter.agent.config import RunConfig
from mlestar_jupyter.offline import OfflinePolicy
from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.layout import inspect_task


def _write(frame: pd.DataFrame, inp: Path, role: str, kind: str) -> None:
    if kind == "xlsx":
        frame.to_excel(inp / f"{role}.xlsx", index=False)
    elif kind == "jsonl":
        frame.to_json(inp / f"{role}.jsonl", orient="records", lines=True)
    else:  # parts, with what a Spark writer leaves beside them
        (inp / role).mkdir()
        for i, part in enumerate(range(0, len(frame), 100)):
            frame.iloc[part : part + 100].to_csv(inp / role / f"part-{i:05d}.csv", index=False)
        (inp / role / "_SUCCESS").write_text("")
        (inp / role / ".part-00000.csv.crc").write_bytes(b"crc")


def _folder(root: Path, kind: str) -> Path:
    frame = load_diabetes(as_frame=True, scaled=False).frame.rename(columns={"target": "y"})
    frame.insert(0, "id", range(len(frame)))
    inp = root / "input"
    inp.mkdir(parents=True)
    _write(frame.iloc[:350], inp, "train", kind)
    _write(frame.iloc[350:].drop(columns="y"), inp, "test", kind)
    pd.DataFrame({"id": frame.id.iloc[350:], "y": 0.0}).to_csv(
        inp / "sample_submission.csv", index=False
    )
    (root / "description.md").write_text("# Diabetes\nPredict y. Metric: RMSE\n")
    return root


@pytest.mark.parametrize(
    ("kind", "train", "call"),
    [
        ("xlsx", "train.xlsx", 'pd.read_excel(INPUT / "train.xlsx")'),
        ("jsonl", "train.jsonl", 'pd.read_json(INPUT / "train.jsonl", lines=True)'),
        ("parts", "train", "pd.concat("),
    ],
)
def test_tables_of_other_formats_are_read_by_the_layout_and_the_notebooks(
    tmp_path: Path, kind: str, train: str, call: str
) -> None:
    root = _folder(tmp_path / "t", kind)
    task = load_task(root)
    layout = inspect_task(task)
    assert layout.train_table == train and layout.label_col == "y" and layout.id_col == "id"
    assert layout.read_code(layout.train_table).startswith(call)
    policy = OfflinePolicy(task, RunConfig())
    nb = policy.make_submission(policy.init_solution(policy.retrieve(1)[0]))
    scope, _ = exec_notebook(nb, root, tmp_path / "run")
    assert len(scope["train_df"]) == 350
    sub = pd.read_csv(tmp_path / "run" / "final" / "submission.csv")
    assert list(sub.columns) == ["id", "y"] and sub["id"].tolist() == list(range(350, 442))
    assert sub["y"].nunique() > 50


def test_a_folder_of_other_files_is_no_table_in_parts(tmp_path: Path) -> None:
    from mlestar_jupyter.task.layout.tables import shard_files

    folder = tmp_path / "train"
    folder.mkdir()
    (folder / "part-00000.csv").write_text("a,b\n1,2\n")
    assert [p.name for p in shard_files(folder)] == ["part-00000.csv"]
    (folder / "cat.png").write_bytes(b"\x89PNG")
    assert shard_files(folder) == []
