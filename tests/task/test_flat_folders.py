"""A competition's files beside its description.md, in the forms people download them: tab-
separated (``train.tsv``), gzipped (``train.csv.gz``, ``sample_submission.csv.gz``) or zipped as
Kaggle serves them (``train.csv.zip``).  Before
(hunt, session 22) only a ``train.csv`` made such a folder a task ("missing: put the task's data
files in an input/ folder"), and a gzipped sample could not be read ("cannot be read as text")."""

from __future__ import annotations

from pathlib import Path

import pytest
from sklearn.datasets import load_diabetes

from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.layout import inspect_task


def _flat(root: Path, ext: str, compression: str | None = None) -> Path:
    frame = load_diabetes(as_frame=True, scaled=False).frame.rename(
        columns={"target": "progression"}
    )
    frame["RecordKey"] = range(5000, 5000 + len(frame))  # the id, last
    root.mkdir(parents=True)
    sep = "\t" if ext.startswith(".tsv") else ","
    frame.iloc[:350].to_csv(root / f"train{ext}", sep=sep, index=False, compression=compression)
    frame.iloc[350:].drop(columns="progression").to_csv(
        root / f"test{ext}", sep=sep, index=False, compression=compression
    )
    sample = frame.iloc[350:][["RecordKey", "progression"]].assign(progression=0.0)
    name = "sample_submission.csv" + {None: "", "gzip": ".gz", "zip": ".zip"}[compression]
    sample.to_csv(root / name, index=False, compression=compression)
    (root / "description.md").write_text(
        "# Diabetes progression\nPredict `progression`. Submissions are scored by mean absolute error.\n"
    )
    return root


@pytest.mark.parametrize(
    ("ext", "compression"), [(".tsv", None), (".csv.gz", "gzip"), (".csv.zip", "zip")]
)
def test_a_flat_folder_of_tab_separated_or_gzipped_tables_is_a_task(
    tmp_path: Path, ext: str, compression: str | None
) -> None:
    task = load_task(_flat(tmp_path / "t", ext, compression))
    assert task.source_format == "mlebench" and task.metric_name == "mae"
    assert task.id_col == "RecordKey" and task.target_cols == ("progression",)
    assert [f.path for f in task.train_files] == [f"train{ext}"]
    layout = inspect_task(task)
    assert layout.train_table == f"train{ext}" and layout.test_table == f"test{ext}"
    assert layout.label_col == "progression" and layout.id_col == "RecordKey"
