"""A notebook validated by its own ``RandomizedSearchCV`` / ``GridSearchCV`` (hunt M's
``colab_export``): the validation cell cross-validated a clone of the whole search three times,
which ran past the notebook's time cap, and the notebook was set aside.  The search's own
``best_score_`` is now the run's validation score."""

from __future__ import annotations

import contextlib
import io
import os

import pytest

from mlestar_jupyter.agent.search_cv import search_score_cell
from mlestar_jupyter.agent.user_notebook import prepare_user_notebook
from mlestar_jupyter.notebook.roles import analyze
from mlestar_jupyter.task import load_task

from .notebooks import BREAST_CANCER
from .notebooks import code_notebook as _nb

LOAD = (
    "import pandas as pd\n"
    "from sklearn.linear_model import LogisticRegression\n"
    "from sklearn.pipeline import make_pipeline\n"
    "from sklearn.preprocessing import StandardScaler\n"
    "from sklearn.model_selection import GridSearchCV, RandomizedSearchCV\n"
    "train = pd.read_csv('train.csv'); test = pd.read_csv('test.csv')\n"
    "X = train.drop(columns=['id', 'target']); y = train['target']"
)
SEARCH = (
    "search = RandomizedSearchCV(make_pipeline(StandardScaler(), LogisticRegression()), "
    "{'logisticregression__C': [0.01, 0.1, 1.0]}, n_iter=3, cv=3, scoring='roc_auc', "
    "refit=True, random_state=0)\n"
    "search.fit(X, y)\n"
    "print(search.best_params_, search.best_score_)"
)
SUBMIT = (
    "pd.DataFrame({'id': test['id'], 'target': search.predict_proba(test[X.columns])[:, 1]})"
    ".to_csv('submission.csv', index=False)"
)


def test_the_searchs_own_best_score_is_the_validation_score(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    task = load_task(BREAST_CANCER)
    prepared = prepare_user_notebook(_nb(LOAD, SEARCH, SUBMIT), task)
    assert prepared.understood
    cell = next(b for b in prepared.notebook.code_blocks if b.origin == "mlestar:validation")
    assert "search.best_score_" in cell.source and "clone" not in cell.source
    namespace: dict[str, object] = {}
    out = io.StringIO()
    monkeypatch.chdir(BREAST_CANCER)
    with contextlib.redirect_stdout(out):
        for b in prepared.notebook.code_blocks:
            if "to_csv" not in b.source:
                exec(compile(b.source, b.id, "exec"), namespace)
    printed = float(out.getvalue().split("Final Validation Performance: ")[1].split()[0])
    assert printed == pytest.approx(namespace["search"].best_score_)  # type: ignore[attr-defined]
    assert os.getcwd() == str(BREAST_CANCER)


@pytest.mark.parametrize(
    "search",
    [
        SEARCH.replace("scoring='roc_auc'", "scoring='accuracy'"),  # not the task's metric
        SEARCH.replace("refit=True", "refit=False"),  # no best model refitted
        SEARCH + "\nmodel = LogisticRegression().fit(X, y)",  # another model after it
    ],
)
def test_other_searches_are_left_to_the_other_cells(search: str) -> None:
    nb = _nb(LOAD, search)
    assert search_score_cell(analyze(nb), nb, "roc_auc", True) is None


def test_a_search_without_scoring_is_read_as_the_estimators_score() -> None:
    nb = _nb(LOAD, SEARCH.replace(", scoring='roc_auc'", ""))
    found = search_score_cell(analyze(nb), nb, "accuracy", True)
    assert found is not None and "float(search.best_score_)" in found.code
    assert search_score_cell(analyze(nb), nb, "roc_auc", True) is None
