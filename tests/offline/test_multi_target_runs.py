"""A user's notebook fitting one model on two target columns, graded by MCRMSE, gets a
validation cell scoring both columns, and is run, scored and refined (offline backend, real
kernels for the slow test).

Hunt J (session 31): ``ExtraTreesRegressor().fit(X, train[['y1', 'y2']])`` with a sample
submission ``id,y1,y2`` and "scored on the mean column-wise root mean squared error (MCRMSE)"
was set aside ("the task's metric 'mcrmse' cannot be computed automatically") and its own file
handed in."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_wine
from user_runs import run_user_notebook, user_notebook

from mlestar_jupyter.agent.multi_target import MCRMSE_EXPR
from mlestar_jupyter.agent.user_notebook import prepare_user_notebook
from mlestar_jupyter.metrics import get_metric
from mlestar_jupyter.task import load_task

CELLS = (
    "import numpy as np\nimport pandas as pd\nfrom sklearn.ensemble import ExtraTreesRegressor\n"
    "from sklearn.model_selection import train_test_split",
    "train = pd.read_csv('train.csv')\ntest = pd.read_csv('test.csv')\nTARGETS = ['y1', 'y2']\n"
    "FEATS = [c for c in train.columns if c not in ['id'] + TARGETS]",
    "X_tr, X_va, Y_tr, Y_va = train_test_split(train[FEATS], train[TARGETS], test_size=0.2, random_state=3)\n"
    "reg = ExtraTreesRegressor(n_estimators=50, random_state=3, n_jobs=1).fit(X_tr, Y_tr)",
    "reg.fit(train[FEATS], train[TARGETS])\n"
    "sub = pd.DataFrame(reg.predict(test[FEATS]), columns=TARGETS)\n"
    "sub.insert(0, 'id', test['id'].values)\nsub.to_csv('submission.csv', index=False)",
)


def two_target_folder(folder: Path) -> Path:
    """sklearn's wine table, ``alcohol`` and ``color_intensity`` as the targets ``y1, y2``,
    beside a description naming MCRMSE and a sample submission ``id,y1,y2``."""
    df = load_wine(as_frame=True).frame.drop(columns=["target"])
    df = df.rename(columns={"alcohol": "y1", "color_intensity": "y2"})
    df.insert(0, "id", range(1000, 1000 + len(df)))
    df.iloc[:130].to_csv(folder / "train.csv", index=False)
    test = df.iloc[130:].drop(columns=["y1", "y2"])
    test.to_csv(folder / "test.csv", index=False)
    test[["id"]].assign(y1=0.0, y2=0.0).to_csv(folder / "sample_submission.csv", index=False)
    (folder / "description.md").write_text(
        "Predict both `y1` and `y2`. Submissions are scored on the mean column-wise root mean "
        "squared error (MCRMSE).\n",
        encoding="utf-8",
    )
    return folder


def test_the_expression_is_the_registry_s_mcrmse() -> None:
    rng = np.random.default_rng(0)
    for shape in ((40, 2), (40, 3), (40,)):
        _y, _p = rng.normal(size=shape), rng.normal(size=shape)
        assert eval(MCRMSE_EXPR) == get_metric("mcrmse")(_y, _p)  # noqa: S307 - our own text


def test_a_two_target_notebook_gets_a_validation_cell_in_mcrmse(tmp_path: Path) -> None:
    task = load_task(two_target_folder(tmp_path))
    assert task.metric_name == "mcrmse" and task.target_cols == ("y1", "y2")
    prepared = prepare_user_notebook(user_notebook(CELLS), task)
    assert prepared.understood, prepared.reason
    assert prepared.added_block is not None
    code = prepared.notebook.block(prepared.added_block).source
    assert MCRMSE_EXPR in code and "_mlestar_score(reg, X_va, Y_va)" in code


@pytest.mark.slow
def test_a_two_target_notebook_is_scored_in_mcrmse_and_refined(tmp_path: Path) -> None:
    (tmp_path / "task").mkdir()
    out, evs = run_user_notebook(CELLS, tmp_path, two_target_folder(tmp_path / "task"))
    assert next(d for t, d in evs if t == "understanding")["understood"]
    user = next(d for t, d in evs if t == "candidate" and d["id"] == "user")
    # the mean of two RMSEs: alcohol (sd 0.8) and colour intensity (sd 2.3), well below both
    assert user["score"] is not None and 0.1 < user["score"] < 1.5
    assert any(t == "candidate" and d.get("phase") == "refine" for t, d in evs)
    assert out.final.ok  # type: ignore[attr-defined]
    sub = pd.read_csv(out.final.submission)  # type: ignore[attr-defined]
    assert list(sub.columns) == ["id", "y1", "y2"] and len(sub) == 48
    assert np.isfinite(sub[["y1", "y2"]].to_numpy()).all()
