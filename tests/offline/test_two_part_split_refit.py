"""Notebooks that split the training table in two (``tr, va = train_test_split(train)``),
score their model on ``va`` and then refit a model of another name on every row to write the
submission (hunt, session 23: ``lgb.train`` with early stopping, a class wrapping a forest):
both were ``not_understood``, "no validation rows a cell added after it can score it on",
because the metric call came before the last fit.  A refit that only makes the submission no
longer hides the metric call before it; the added cell scores what the notebook scored."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from inprocess import exec_notebook
from user_runs import code_notebook

from mlestar_jupyter.agent.user_notebook import prepare_user_notebook
from mlestar_jupyter.task import load_task

ROOT = Path(__file__).parents[2]


BREAST_CANCER = ROOT / "example_notebooks" / "tasks" / "breast-cancer"

READ = (
    "import pandas as pd\nfrom sklearn.model_selection import train_test_split\n"
    "from sklearn.metrics import roc_auc_score\n"
    "train = pd.read_csv('input/train.csv'); test = pd.read_csv('input/test.csv')\n"
    "feats = [c for c in train.columns if c not in ('id', 'target')]\n"
    "tr, va = train_test_split(train, test_size=0.2, random_state=42, stratify=train.target)"
)
LGB = (
    "import lightgbm as lgb\n"
    "params = {'objective': 'binary', 'learning_rate': 0.1, 'num_leaves': 7, 'verbose': -1}\n"
    "bst = lgb.train(params, lgb.Dataset(tr[feats], tr.target), num_boost_round=60)\n"
    "auc = roc_auc_score(va.target, bst.predict(va[feats]))\nprint(f'AUC: {auc:.4f}')",
    "full = lgb.train(params, lgb.Dataset(train[feats], train.target), num_boost_round=60)\n"
    "pd.DataFrame({'id': test.id, 'target': full.predict(test[feats])})"
    ".to_csv('submission.csv', index=False)",
)
OOP = (
    "from sklearn.ensemble import RandomForestClassifier\n\n"
    "class CancerModel:\n"
    "    def __init__(self):\n"
    "        self.model = RandomForestClassifier(n_estimators=50, random_state=0)\n\n"
    "    def fit(self, df):\n"
    "        self.model.fit(df[feats], df['target'])\n"
    "        return self\n\n"
    "    def predict(self, df):\n"
    "        return self.model.predict_proba(df[feats])[:, 1]",
    "m = CancerModel().fit(tr)\nprint('val auc', roc_auc_score(va['target'], m.predict(va)))",
    "final = CancerModel().fit(train)\n"
    "pd.DataFrame({'id': test['id'], 'target': final.predict(test)})"
    ".to_csv('submission.csv', index=False)",
)


@pytest.mark.parametrize("cells", [LGB, OOP], ids=["lgb_train", "class"])
def test_a_metric_before_the_refit_for_the_submission_is_the_score(
    tmp_path: Path, cells: tuple[str, ...]
) -> None:
    task = load_task(BREAST_CANCER)
    prepared = prepare_user_notebook(code_notebook(READ, *cells), task)
    assert prepared.understood, prepared.reason
    assert "from the values your metric uses" in prepared.note
    _, printed = exec_notebook(prepared.notebook, BREAST_CANCER, tmp_path / "run")
    own = float(re.findall(r"(?:AUC:|val auc) ([0-9.]+)", printed)[0])
    score = float(re.findall(r"Final Validation Performance: ([0-9.]+)", printed)[0])
    assert score == pytest.approx(own, abs=1e-4) and score > 0.9


def test_a_metric_of_a_baseline_before_the_real_model_is_not_its_score() -> None:
    """A baseline scored first and the real model fitted after, with no metric of its own: the
    baseline's metric is not the notebook's score (the real model's cell writes no file)."""
    task = load_task(BREAST_CANCER)
    nb = code_notebook(
        READ,
        "from sklearn.dummy import DummyClassifier\n"
        "base = DummyClassifier().fit(tr[feats], tr.target)\n"
        "print(roc_auc_score(va.target, base.predict_proba(va[feats])[:, 1]))",
        "from sklearn.linear_model import LogisticRegression\n"
        "model = LogisticRegression(max_iter=2000).fit(tr[feats], tr.target)",
    )
    prepared = prepare_user_notebook(nb, task)
    assert "from the values your metric uses" not in (prepared.note or "")
