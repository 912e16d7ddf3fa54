"""The catalog's notebooks on tables written by other people (real kernels): a European CSV
(``;`` and decimal commas, with a sample submission in the same format) and an id spelled ``ID``
in the training table and ``Id`` in the test table.  Before, the first scored 0 on one column
and submitted zeros, the second failed in every notebook (``KeyError: ['Id'] not found``); then
the first wrote its submission comma-separated with decimal points, which the author's grader,
reading it as it reads the sample, could not read."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from kernel import run_notebook
from sklearn.datasets import load_diabetes

from mlestar_jupyter.agent.config import RunConfig
from mlestar_jupyter.agent.submission import submission_problems
from mlestar_jupyter.offline import OfflinePolicy, render_notebook
from mlestar_jupyter.task import load_task


def _folder(root: Path, euro: bool, id_spellings: tuple[str, str]) -> Path:
    df = load_diabetes(as_frame=True, scaled=False).frame.rename(columns={"target": "y"})
    df.insert(0, "id", range(len(df)))
    train = df.iloc[:330].rename(columns={"id": id_spellings[0]})
    test = df.iloc[330:].drop(columns="y").rename(columns={"id": id_spellings[1]})
    sample = pd.DataFrame({id_spellings[1]: test[id_spellings[1]], "y": 150.0})
    fmt = {"sep": ";", "decimal": ","} if euro else {}
    (root / "input").mkdir(parents=True)
    for name, frame in (("train", train), ("test", test), ("sample_submission", sample)):
        frame.to_csv(root / "input" / f"{name}.csv", index=False, **fmt)
    spec = {"goal": "progression", "metric": "rmse", "target_col": "y", "id_col": "Id"}
    (root / "task.json").write_text(json.dumps(spec))
    return root


@pytest.mark.parametrize(
    ("euro", "ids"), [(True, ("Id", "Id")), (False, ("ID", "Id"))], ids=["euro", "id-case"]
)
def test_the_catalogs_notebook_reads_the_tables_as_they_are(
    tmp_path: Path, euro: bool, ids: tuple[str, str]
) -> None:
    root = _folder(tmp_path / "task", euro, ids)
    task = load_task(root)
    policy = OfflinePolicy(task, RunConfig())
    nb = render_notebook(policy.catalog, policy.catalog["linear"], policy.ctx)
    ran = run_notebook(nb, root, tmp_path / "work")
    assert ran.score is not None and 40 < ran.score < 70, ran.output[-2000:]
    assert submission_problems(task, ran.submission) == []
    # written as the sample submission is: a grader reads it the way it reads the sample
    fmt = {"sep": ";", "decimal": ","} if euro else {}
    assert ran.submission.read_text().startswith("Id;y\n" if euro else "Id,y\n")
    sub = pd.read_csv(ran.submission, **fmt)
    assert list(sub.columns) == ["Id", "y"] and sub["y"].nunique() > 50
    assert sub["y"].dtype.kind == "f" and sub["y"].between(0, 400).all()


def test_the_check_reads_a_european_submission_either_way(tmp_path: Path) -> None:
    """A notebook of the author's (or one that forgot the format) may write either; the check
    judges what the file holds, and the run hands it in as the sample is written."""
    task = load_task(_folder(tmp_path / "task", True, ("Id", "Id")))
    test = pd.read_csv(task.input_dir / "test.csv", sep=";", decimal=",")
    preds = pd.DataFrame({"Id": test["Id"], "y": 150.5})
    for name, fmt in (("euro.csv", {"sep": ";", "decimal": ","}), ("plain.csv", {})):
        preds.to_csv(tmp_path / name, index=False, **fmt)
        assert submission_problems(task, tmp_path / name) == [], name
    preds.assign(y="150,5 mm").to_csv(tmp_path / "bad.csv", index=False, sep=";")
    assert "'y'" in submission_problems(task, tmp_path / "bad.csv")[0]
