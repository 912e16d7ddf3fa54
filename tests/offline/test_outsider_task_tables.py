"""The catalog's notebooks on tables written by other people (real kernels): a European CSV
(``;`` and decimal commas, with a sample submission in the same format) and an id spelled ``ID``
in the training table and ``Id`` in the test table.  Before, the first scored 0 on one column
and submitted zeros, the second failed in every notebook (``KeyError: ['Id'] not found``)."""

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
    sub = pd.read_csv(ran.submission)
    assert list(sub.columns) == ["Id", "y"] and sub["y"].nunique() > 50
