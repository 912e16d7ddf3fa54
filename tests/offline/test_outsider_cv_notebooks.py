"""Notebooks written the way course and Kaggle notebooks are, that a run could not score:

- ``scores = cross_val_score(RandomForestClassifier(), X, y, cv=5)`` and no ``.fit``: "no model
  fit found".  The estimator built inside the call now gets a line and a name of its own, and
  the validation cell cross-validates what that line builds (a refinement of it changes the
  score);
- ``bst = xgb.train(params, dtrain, ...)`` after a ``train_test_split``: "no validation data"
  (the fit reads no ``X_train``).  The cell now scores the booster on the split's validation rows,
  a DMatrix for xgboost, its probabilities read as classes for a label metric."""

from __future__ import annotations

from pathlib import Path

import nbformat
import numpy as np
import pytest
from kernel import run_notebook
from sklearn.datasets import load_breast_cancer
from user_runs import code_notebook as _nb

from mlestar_jupyter.agent.cv_models import name_cv_models
from mlestar_jupyter.agent.user_notebook import prepare_user_notebook
from mlestar_jupyter.importer.notebook_task import task_from_notebook
from mlestar_jupyter.notebook import SolutionNotebook


def test_an_estimator_built_inside_a_cross_validation_gets_its_own_line() -> None:
    nb = _nb(
        "%matplotlib inline\ncv_model = 1  # a name the notebook already uses",
        "for k in [3, 5]:\n"
        "    s = cross_val_score(\n"
        "        RandomForestClassifier(n_estimators=50,\n"
        "                               max_depth=4),  # 'été'\n"
        "        X, y, cv=k)\n"
        "    print(k, s.mean())",
        "def f():\n    return cross_val_score(Ridge(), X, y)",  # a function: its own names
        "print(cross_val_score(estimator=SVC(C=2), X=X, y=y).mean())",
        "cross_val_score(model, X, y)",  # already a name: nothing to do
    )
    out, named = name_cv_models(nb)
    assert [(m.block_id, m.name) for m in named] == [("b2", "cv_model_2"), ("b4", "cv_model_3")]
    assert named[0].code == "RandomForestClassifier(n_estimators=50, max_depth=4)"
    assert out.block("b2").source == (
        "cv_model_2 = RandomForestClassifier(n_estimators=50,\n"
        "                               max_depth=4)\n"
        "for k in [3, 5]:\n"
        "    s = cross_val_score(\n"
        "        cv_model_2,  # 'été'\n"
        "        X, y, cv=k)\n"
        "    print(k, s.mean())"
    )
    assert out.block("b4").source == (
        "cv_model_3 = SVC(C=2)\nprint(cross_val_score(estimator=cv_model_3, X=X, y=y).mean())"
    )
    for b in ("b1", "b3", "b5"):
        assert out.block(b).source == nb.block(b).source


@pytest.mark.parametrize(
    "cell",
    [  # hunt E (session 28): moved above its statement, the estimator read k before it existed
        "scores = {}\nfor k in tqdm(range(1, 26, 2)):\n"
        "    scores[k] = cross_val_score(KNeighborsClassifier(n_neighbors=k), X, y, cv=5).mean()",
        "res = {d: cross_val_score(RandomForestClassifier(max_depth=d), X, y).mean() "
        "for d in (2, 4, 8)}",
        "best = max((2, 4), key=lambda d: cross_val_score(Ridge(alpha=d), X, y).mean())",
        "for a in (0.1, 1.0):\n    m = Ridge(alpha=a)\n    print(cross_val_score(Lasso(alpha=a * 2), X, y))",
    ],
)
def test_an_estimator_reading_its_loop_s_variable_stays_in_the_loop(cell: str) -> None:
    nb = _nb("X, y = 1, 2", cell)
    out, named = name_cv_models(nb)
    assert named == () and out.block("b2").source == cell


def _breast_cancer(folder: Path) -> None:
    df = load_breast_cancer(as_frame=True).frame.rename(columns={"target": "diagnosis"})
    folder.mkdir(parents=True, exist_ok=True)
    df.to_csv(folder / "data.csv", index=False)


def _prepared(folder: Path, *cells: str):  # type: ignore[no-untyped-def]
    nb = _nb(*cells)
    nbformat.write(nb.nb, folder / "nb.ipynb")
    task = task_from_notebook(SolutionNotebook.read(folder / "nb.ipynb"), folder, "nb.ipynb")
    return task, prepare_user_notebook(nb, task)


def test_a_notebook_that_only_cross_validates_is_scored_by_the_model_its_line_builds(
    tmp_path: Path,
) -> None:
    _breast_cancer(tmp_path / "course")
    task, prepared = _prepared(
        tmp_path / "course",
        "import pandas as pd\n"
        "from sklearn.model_selection import cross_val_score\n"
        "from sklearn.ensemble import RandomForestClassifier\n"
        "from sklearn.dummy import DummyClassifier",
        "df = pd.read_csv('data.csv')\nX = df.drop('diagnosis', axis=1)\ny = df['diagnosis']",
        "scores = cross_val_score(RandomForestClassifier(n_estimators=30, random_state=0), X, y,"
        " cv=5, scoring='roc_auc')\nprint('mean AUC', scores.mean())",
    )
    assert task.metric_name == "roc_auc" and task.target_cols == ("diagnosis",)
    assert prepared.understood, prepared.reason
    # the notebook's own 5 folds score it (its scoring is the task's metric)
    assert "as the mean of your cross-validation's scores (`scores`)" in prepared.note
    ran = run_notebook(prepared.notebook, task.root, tmp_path / "forest")
    assert ran.score is not None and ran.score > 0.95
    # what a refinement of the user's line does: the validation cell scores the new model
    line = "cv_model = RandomForestClassifier(n_estimators=30, random_state=0)"
    assert line in prepared.notebook.block("b3").source
    dummy = prepared.notebook.replace_block(
        "b3", prepared.notebook.block("b3").source.replace(line, "cv_model = DummyClassifier()")
    )
    assert run_notebook(dummy, task.root, tmp_path / "dummy").score == pytest.approx(0.5)


def test_a_native_xgboost_booster_is_scored_on_the_notebooks_split(tmp_path: Path) -> None:
    pytest.importorskip("xgboost")
    _breast_cancer(tmp_path / "kaggle")
    task, prepared = _prepared(
        tmp_path / "kaggle",
        "import pandas as pd, xgboost as xgb\nfrom sklearn.model_selection import train_test_split",
        "df = pd.read_csv('data.csv')\nX = df.drop(columns='diagnosis'); y = df.diagnosis\n"
        "Xtr, Xva, ytr, yva = train_test_split(X, y, stratify=y, random_state=0)",
        "dtrain = xgb.DMatrix(Xtr, label=ytr); dval = xgb.DMatrix(Xva, label=yva)\n"
        "bst = xgb.train({'objective': 'binary:logistic', 'max_depth': 2}, dtrain, 40,"
        " evals=[(dval, 'val')], verbose_eval=False)\n"
        "pd.Series(bst.predict(dval)).to_csv('val_pred.csv', index=False)",
    )
    assert prepared.understood, prepared.reason
    assert "on your validation split (`Xva`, `yva`)" in prepared.note
    ran = run_notebook(prepared.notebook, task.root, tmp_path / "work")
    import pandas as pd
    from sklearn.model_selection import train_test_split

    df = pd.read_csv(tmp_path / "kaggle" / "data.csv")
    _, _, _, yva = train_test_split(
        df.drop(columns="diagnosis"), df.diagnosis, stratify=df.diagnosis, random_state=0
    )
    p = pd.read_csv(tmp_path / "work" / "val_pred.csv").iloc[:, 0].to_numpy()
    want = float(np.mean((p > 0.5).astype(int) == yva.to_numpy()))
    assert 0.9 < want < 1 and ran.score == pytest.approx(want)


def test_a_notebook_s_own_cross_validation_is_its_score(tmp_path: Path) -> None:
    """``scores = cross_val_score(pipe, X, y, cv=5)`` printed in an f-string, then
    ``pipe.fit(X, y)`` on every row for the submission: the run read no score and measured the
    notebook by a 3-fold cross-validation of its own (0.774 where the notebook's 5 folds said
    0.782), choosing changes by it.  The mean of the notebook's scores is its score now; a
    ``neg_`` scorer is negated; a scoring that is not the task's metric still gets the run's
    own cross-validation."""
    _breast_cancer(tmp_path / "pima")
    head = (
        "import pandas as pd\nfrom sklearn.model_selection import cross_val_score\n"
        "from sklearn.pipeline import make_pipeline\nfrom sklearn.preprocessing import StandardScaler\n"
        "from sklearn.linear_model import LogisticRegression, Ridge",
        "df = pd.read_csv('data.csv')\nX = df.drop(columns='diagnosis'); y = df['diagnosis']",
    )
    task, prepared = _prepared(
        tmp_path / "pima",
        *head,
        "pipe = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))\n"
        "scores = cross_val_score(pipe, X, y, cv=5)\n"
        'print(f"CV accuracy: {scores.mean():.3f} +/- {scores.std():.3f}")',
        "pipe.fit(X, y)",
    )
    assert task.metric_name == "accuracy" and prepared.understood, prepared.reason
    assert "as the mean of your cross-validation's scores (`scores`)" in prepared.note
    ran = run_notebook(prepared.notebook, task.root, tmp_path / "own")
    printed = float(ran.output.split("CV accuracy: ")[1].split()[0])
    assert ran.score == pytest.approx(printed, abs=5e-4)  # the notebook's own number

    rmse = prepare_user_notebook(
        _nb(
            *head,
            "reg = Ridge()\n"
            "scores = cross_val_score(reg, X, y, cv=4, scoring='neg_root_mean_squared_error')",
        ),
        task,
    )
    # the task is graded by accuracy: an RMSE scorer's folds are not its score
    assert "3-fold cross-validation of `reg`" in rmse.note
    other = _nb(
        *head,
        "pipe = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))\n"
        "scores = cross_val_score(pipe, X, y, cv=5)",
        "other = LogisticRegression(C=5).fit(X, y)",
    )
    from mlestar_jupyter.agent.user_notebook import _own_cross_validation
    from mlestar_jupyter.notebook.roles import analyze

    assert _own_cross_validation(analyze(other), other, "accuracy", True) is None  # a later model


def test_a_neg_scorer_is_negated() -> None:
    from mlestar_jupyter.agent.user_notebook import _own_cross_validation
    from mlestar_jupyter.notebook.roles import analyze

    nb = _nb(
        "from sklearn.model_selection import cross_val_score\nfrom sklearn.linear_model import Ridge",
        "reg = Ridge()\nrmse = cross_val_score(reg, X, y, cv=4, scoring='neg_root_mean_squared_error')",
        "reg.fit(X, y)",
    )
    found = _own_cross_validation(analyze(nb), nb, "rmse", False)
    assert found is not None and "{-float(np.mean(rmse))}" in found.code
    assert _own_cross_validation(analyze(nb), nb, "mae", False) is None
