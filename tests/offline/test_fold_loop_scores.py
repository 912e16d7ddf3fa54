"""A notebook that cross-validates by hand scores each fold inside its loop and prints the mean.

The validation cell added after such a loop read the metric's values once, after the loop: the
last fold's rows, a fifth of them.  Every refinement was judged on that fold.  Now a line in the
loop keeps each pass's values and the cell scores the mean of the passes; a proposal gives the
user's cell back without that line."""

from __future__ import annotations

from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
import pytest
from kernel import run_notebook
from sklearn.datasets import load_diabetes
from user_runs import code_notebook as _nb

from mlestar_jupyter.agent.data_paths import restore_paths
from mlestar_jupyter.agent.fold_scores import collect_folds, in_loop
from mlestar_jupyter.agent.user_notebook import prepare_user_notebook
from mlestar_jupyter.importer.notebook_task import task_from_notebook
from mlestar_jupyter.notebook import SolutionNotebook
from mlestar_jupyter.notebook.roles import MetricCall, analyze

LOOP = (
    "scores = []\n"
    "kf = KFold(n_splits=5, shuffle=True, random_state=42)\n"
    "for fold, (tr_idx, va_idx) in enumerate(kf.split(X)):\n"
    "    X_tr, X_va = X.iloc[tr_idx], X.iloc[va_idx]\n"
    "    y_tr, y_va = y.iloc[tr_idx], y.iloc[va_idx]\n"
    "    model = Ridge(alpha=1.0)\n"
    "    model.fit(X_tr, y_tr)\n"
    "    preds = model.predict(X_va)\n"
    "    rmse = np.sqrt(mean_squared_error(y_va, preds))\n"
    "    print(f'Fold {fold}: RMSE = {rmse:.3f}')\n"
    "    scores.append(rmse)\n"
    "print('CV RMSE:', np.mean(scores))"
)


def _metric(nb: SolutionNotebook) -> MetricCall:
    (m,) = analyze(nb).metrics
    return m


def test_a_line_after_the_metrics_statement_keeps_every_pass() -> None:
    nb = _nb("%time\n" + LOOP)
    source = nb.block("b1").source
    assert in_loop(source, _metric(nb))
    out, added = collect_folds(source, _metric(nb))
    assert out.splitlines()[3].startswith("_mlestar_folds = []")  # just before the loop
    assert out.splitlines()[4].startswith("for fold, (tr_idx, va_idx)")
    keep = "    _mlestar_folds.append((y_va, preds))"
    assert out.splitlines()[11].startswith(keep)  # after `rmse = ...`, in the loop
    assert len(added) == 2 and out.replace(added[0] + "\n", "").replace(added[1] + "\n", "") == (
        source
    )


@pytest.mark.parametrize(
    "cell",
    [
        "rmse = mean_squared_error(y_va, preds)",  # no loop
        "for k in [1, 2]:\n    pass\nrmse = mean_squared_error(y_va, preds)",  # after the loop
        "for s in [mean_squared_error(y_va, preds)]:\n    print(s)",  # the loop's header
        "for k in [1]:\n    s = [mean_squared_error(a, b) for a, b in pairs]",  # its own names
    ],
)
def test_a_metric_outside_a_loops_body_is_left_alone(cell: str) -> None:
    nb = _nb(cell)
    assert not in_loop(nb.block("b1").source, _metric(nb))
    assert collect_folds(nb.block("b1").source, _metric(nb)) == (nb.block("b1").source, ())


def _diabetes_task(folder: Path):  # type: ignore[no-untyped-def]
    df = load_diabetes(as_frame=True).frame
    folder.mkdir(parents=True)
    df.to_csv(folder / "diabetes.csv", index=False)
    nb = _nb(
        "import numpy as np\nimport pandas as pd\nfrom sklearn.model_selection import KFold\n"
        "from sklearn.linear_model import Ridge\nfrom sklearn.metrics import mean_squared_error",
        "df = pd.read_csv('diabetes.csv')\nX = df.drop(columns=['target'])\ny = df['target']",
        LOOP,
    )
    nbformat.write(nb.nb, folder / "nb.ipynb")
    task = task_from_notebook(SolutionNotebook.read(folder / "nb.ipynb"), folder, "nb.ipynb")
    return task, nb


def test_the_validation_cell_scores_the_mean_of_the_folds(tmp_path: Path) -> None:
    task, nb = _diabetes_task(tmp_path / "course")
    assert task.metric_name == "rmse"
    prepared = prepare_user_notebook(nb, task)
    assert prepared.understood, prepared.reason
    assert "at every pass of your loop" in prepared.note
    ran = run_notebook(prepared.notebook, task.root, tmp_path / "work")
    # what the notebook itself computes: the mean of the five folds' RMSE
    from sklearn.linear_model import Ridge
    from sklearn.metrics import mean_squared_error
    from sklearn.model_selection import KFold

    df = pd.read_csv(tmp_path / "course" / "diabetes.csv")
    X, y = df.drop(columns=["target"]), df["target"]
    folds = []
    for tr, va in KFold(n_splits=5, shuffle=True, random_state=42).split(X):
        m = Ridge(alpha=1.0).fit(X.iloc[tr], y.iloc[tr])
        folds.append(np.sqrt(mean_squared_error(y.iloc[va], m.predict(X.iloc[va]))))
    assert ran.score == pytest.approx(float(np.mean(folds)))
    assert ran.score != pytest.approx(folds[-1])  # not the last fold's alone
    # a proposal for the loop cell gives the user's lines back, without the added ones
    (changed,) = {c.block_id for c in prepared.data_paths if c.kind == "fold"}
    refined = prepared.notebook.block(changed).source.replace("alpha=1.0", "alpha=0.1")
    assert restore_paths(refined, changed, prepared.data_paths) == LOOP.replace(
        "alpha=1.0", "alpha=0.1"
    )


def test_a_refinement_that_drops_the_added_lines_is_scored_on_the_last_fold(
    tmp_path: Path,
) -> None:
    task, nb = _diabetes_task(tmp_path / "course")
    prepared = prepare_user_notebook(nb, task)
    (changed,) = {c.block_id for c in prepared.data_paths if c.kind == "fold"}
    rewritten = prepared.notebook.replace_block(changed, LOOP)  # the added lines are gone
    ran = run_notebook(rewritten, task.root, tmp_path / "work")
    assert ran.score is not None and 40 < ran.score < 70
