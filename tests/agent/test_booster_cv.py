"""A LightGBM notebook validated only by ``lgb.cv`` and fitted by ``lgb.train`` (no split, no
scikit-learn API) gets a validation cell reading the cross-validation's last mean (no kernel;
``tests/offline/test_booster_cv_runs.py`` runs one).

Hunt J (session 31): ``cv = lgb.cv(params, lgb.Dataset(X, y), nfold=5, ...)`` then
``model = lgb.train(params, ..., num_boost_round=len(cv['valid auc-mean']))`` was set aside:
"found a model fit (`model`) but no validation rows a cell added after it can score it on"; and
``params = dict(objective='regression', ...)`` was no part a strategy could refine."""

from __future__ import annotations

import pytest

from mlestar_jupyter.agent.booster_cv import booster_cv_cell
from mlestar_jupyter.agent.user_notebook import prepare_user_notebook
from mlestar_jupyter.notebook.roles import analyze
from mlestar_jupyter.offline.user_code.booster_edits import BOOSTER_STRATEGIES
from mlestar_jupyter.task import load_task

from .notebooks import BREAST_CANCER
from .notebooks import code_notebook as _nb

LOAD = (
    "import pandas as pd\nimport lightgbm as lgb\n"
    "train = pd.read_csv('train.csv')\ntest = pd.read_csv('test.csv')\n"
    "X, y = train.drop(columns=['id', 'target']), train['target']"
)
CV = (
    "params = {'objective': 'binary', 'metric': 'auc', 'learning_rate': 0.05, 'verbose': -1}\n"
    "cv_results = lgb.cv(params, lgb.Dataset(X, y), num_boost_round=2000, nfold=5,\n"
    "                    callbacks=[lgb.early_stopping(100)])\n"
    "best_rounds = len(cv_results['valid auc-mean'])"
)
TRAIN = (
    "model = lgb.train(params, lgb.Dataset(X, y), num_boost_round=best_rounds)\n"
    "pd.DataFrame({'id': test.id, 'target': model.predict(test[X.columns])})"
    ".to_csv('submission.csv', index=False)"
)


def test_a_notebook_validated_by_lgb_cv_is_understood() -> None:
    prepared = prepare_user_notebook(_nb(LOAD, CV, TRAIN), load_task(BREAST_CANCER))
    assert prepared.understood, prepared.reason
    assert prepared.added_block is not None
    ids = prepared.notebook.block_ids
    code = prepared.notebook.block(prepared.added_block).source
    # right after the cross-validation, before the refit on every row
    assert prepared.notebook.block(ids[ids.index(prepared.added_block) - 1]).source.startswith(
        "params = {"
    )
    assert "_cv = cv_results" in code and "('auc',)" in code
    assert "metrics='auc'" in code  # scored once more in the task's metric if it lacked it
    assert "last round's mean of your cross-validation (`cv_results`" in (prepared.note or "")


def _cell(code: str, metric: str) -> str | None:
    nb = _nb(LOAD, code, TRAIN.replace("params", code.split(" =")[0]))
    found = booster_cv_cell(analyze(nb), nb, metric)
    return found.code if found is not None else None


@pytest.mark.parametrize(
    ("metric", "names", "error_rate"),
    [
        ("rmse", "('rmse', 'l2_root')", False),
        ("mae", "('l1', 'mae')", False),
        ("accuracy", "('binary_error', 'multi_error', 'error', 'merror')", True),
    ],
)
def test_the_cell_reads_the_task_s_metric(metric: str, names: str, error_rate: bool) -> None:
    code = _cell(CV, metric)
    assert code is not None and names in code
    assert ("_score = 1 - float(" in code) is error_rate


def test_what_is_not_read_as_a_booster_cross_validation() -> None:
    assert _cell(CV, "f1") is None  # a metric the libraries' results do not hold
    other = _nb(LOAD, CV, "rf = RandomForestClassifier().fit(X, y)")  # another model after it
    assert booster_cv_cell(analyze(other), other, "roc_auc") is None
    looped = "for lr in (0.1, 0.05):\n    cv_results = lgb.cv({'learning_rate': lr}, ds)"
    nb = _nb(LOAD, looped, TRAIN)
    assert booster_cv_cell(analyze(nb), nb, "roc_auc") is None  # a search, not one validation


def test_keyword_dict_parameters_and_the_cv_rounds_are_refinable() -> None:
    cell = (
        "params = dict(objective='regression', metric='rmse', learning_rate=0.02, num_leaves=7)\n"
        "cv = lgb.cv(params, dtrain, num_boost_round=3000, nfold=5,\n"
        "            callbacks=[lgb.early_stopping(stopping_rounds=200, verbose=False)])"
    )
    roles = analyze(_nb(LOAD, cell)).cells[1]
    assert roles.role == "model"  # was 'other': nothing a strategy could refine
    slower = next(s for s in BOOSTER_STRATEGIES if s.id == "booster_slower_learning").edit(cell)
    assert slower is not None
    assert "learning_rate=0.006667" in slower and "num_boost_round=9000" in slower


def test_a_cross_validation_of_another_metric_is_run_again_in_the_task_s() -> None:
    """``params`` without a metric (LightGBM's default for binary: binary_logloss), the task
    graded by ROC AUC: the cell runs the call once more with ``metrics='auc'``."""
    nb = _nb(LOAD, CV.replace("'metric': 'auc', ", ""), TRAIN)
    found = booster_cv_cell(analyze(nb), nb, "roc_auc")
    assert found is not None and "metrics='auc'" in found.code
