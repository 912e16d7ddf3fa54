"""A LightGBM notebook that validates with ``lgb.cv`` and fits with ``lgb.train`` is run, scored
by its cross-validation's last mean and refined (offline backend, real kernels).

Hunt J (session 31): such a notebook (no split, no scikit-learn API) was set aside as "found a
model fit (`model`) but no validation rows", and the run handed in the notebook's own file."""

from __future__ import annotations

from pathlib import Path

import pytest
from user_runs import run_user_notebook

pytestmark = pytest.mark.slow

BREAST_CANCER = Path(__file__).parents[2] / "example_notebooks" / "tasks" / "breast-cancer"

CELLS = (
    "import pandas as pd\nimport lightgbm as lgb",
    "train = pd.read_csv('train.csv')\ntest = pd.read_csv('test.csv')\n"
    "features = [c for c in train.columns if c not in ['id', 'target']]\n"
    "X, y = train[features], train['target']",
    # no metric: LightGBM's default for binary, binary_logloss; the task grades ROC AUC
    "params = {'objective': 'binary', 'learning_rate': 0.1, 'num_leaves': 7, 'verbose': -1,\n"
    "          'num_threads': 1, 'seed': 0}\n"
    "cv_results = lgb.cv(params, lgb.Dataset(X, y), num_boost_round=300, nfold=5, seed=0,\n"
    "                    callbacks=[lgb.early_stopping(30, verbose=False)])\n"
    "best_rounds = len(cv_results['valid binary_logloss-mean'])\n"
    "print('cv logloss', cv_results['valid binary_logloss-mean'][-1], best_rounds)",
    "model = lgb.train(params, lgb.Dataset(X, y), num_boost_round=best_rounds)\n"
    "pd.DataFrame({'id': test['id'], 'target': model.predict(test[features])})"
    ".to_csv('submission.csv', index=False)",
)


def test_a_lgb_cv_notebook_is_scored_by_its_folds_and_refined(tmp_path: Path) -> None:
    out, evs = run_user_notebook(CELLS, tmp_path, BREAST_CANCER)
    understanding = next(d for t, d in evs if t == "understanding")
    assert understanding["understood"], understanding
    user = next(d for t, d in evs if t == "candidate" and d["id"] == "user")
    # the folds' AUC (asked for again with metrics='auc'), not the printed log loss
    assert user["score"] is not None and 0.9 < user["score"] <= 1.0
    refined = [d for t, d in evs if t == "candidate" and d.get("phase") == "refine"]
    assert refined and any(d["score"] is not None for d in refined)
    finished = next(d for t, d in evs if t == "run_finished")
    assert finished["status"] in ("done", "no_improvement", "stopped"), finished
    assert out.final.ok  # type: ignore[attr-defined]
