"""Outsiders' notebooks that the run misread (hunt P, session 34).

Each test holds the shape of the notebook that showed the fault: a scikit-learn ``Pipeline`` of
a ``ColumnTransformer`` (columns picked by ``make_column_selector``) validated on a split and then
refitted on every row in the same cell to write the submission.
"""

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


PIPELINE = (
    "import numpy as np\nimport pandas as pd\n"
    "from sklearn.compose import ColumnTransformer, make_column_selector as selector\n"
    "from sklearn.pipeline import Pipeline\nfrom sklearn.impute import SimpleImputer\n"
    "from sklearn.preprocessing import OneHotEncoder, StandardScaler\n"
    "from sklearn.ensemble import RandomForestClassifier\n"
    "from sklearn.model_selection import train_test_split\n"
    "from sklearn.metrics import roc_auc_score",
    "train = pd.read_csv('input/train.csv')\ntest = pd.read_csv('input/test.csv')\n"
    "X = train.drop(columns=['id', 'target'])\ny = train['target']",
    "pre = ColumnTransformer([\n"
    "    ('num', Pipeline([('imp', SimpleImputer()), ('sc', StandardScaler())]),"
    " selector(dtype_include=np.number)),\n"
    "    ('cat', OneHotEncoder(handle_unknown='ignore'), selector(dtype_include=object)),\n"
    "])\n"
    "clf = Pipeline([('pre', pre), ('model', RandomForestClassifier(n_estimators=50,"
    " random_state=0))])",
    "X_tr, X_va, y_tr, y_va = train_test_split(X, y, test_size=0.2, random_state=42, stratify=y)\n"
    "clf.fit(X_tr, y_tr)\n"
    "print('val AUC:', roc_auc_score(y_va, clf.predict_proba(X_va)[:, 1]))\n"
    "clf.fit(X, y)\n"
    "test['target'] = clf.predict_proba(test.drop(columns=['id']))[:, 1]\n"
    "test[['id', 'target']].to_csv('submission.csv', index=False)",
)


def test_a_pipeline_refitted_on_every_row_in_its_validation_cell_is_scored_unseen(
    tmp_path: Path,
) -> None:
    """inputs/p1_pipeline: the added cell scored ``clf`` after the cell's ``clf.fit(X, y)``, on
    validation rows the forest had learned: every forest scored AUC 1.0 and won the run while
    its own line printed 0.82.  Now a copy fitted on the training rows is scored."""
    task = load_task(BREAST_CANCER)
    prepared = prepare_user_notebook(code_notebook(*PIPELINE), task)
    assert prepared.understood, prepared.reason
    _, printed = exec_notebook(prepared.notebook, BREAST_CANCER, tmp_path / "run")
    own = float(re.findall(r"val AUC: ([0-9.]+)", printed)[0])
    score = float(re.findall(r"Final Validation Performance: ([0-9.]+)", printed)[0])
    assert score == pytest.approx(own, abs=1e-9)
    assert score < 1.0
    assert "refits `clf` on `X, y`" in prepared.note


LOG_CV = (
    "import numpy as np\nimport pandas as pd\nfrom sklearn.linear_model import Ridge\n"
    "from sklearn.model_selection import KFold, cross_val_score",
    "train = pd.read_csv('input/train.csv')\ntest = pd.read_csv('input/test.csv')\n"
    "y = np.log1p(train.pop('target'))\nX = train.drop(columns=['id'])",
    "model = Ridge(alpha=0.1)\nkf = KFold(5, shuffle=True, random_state=42)\n"
    "scores = np.sqrt(-cross_val_score(model, X, y, cv=kf, scoring='neg_mean_squared_error'))\n"
    "print('CV RMSLE: {:.6f} +- {:.4f}'.format(scores.mean(), scores.std()))",
    "model.fit(X, y)\n"
    "pd.DataFrame({'id': test.id, 'target': np.expm1(model.predict(test.drop(columns=['id'])))})"
    ".to_csv('submission.csv', index=False)",
)


def test_the_root_of_a_negated_squared_error_cross_validation_is_the_score(
    tmp_path: Path,
) -> None:
    """inputs/p8_log (House Prices' ``rmse_cv``): ``np.sqrt(-cross_val_score(model, X, y,
    scoring='neg_mean_squared_error'))`` of ``np.log1p`` prices was read as no score of the
    task's RMSLE, so a cell cross-validated the model again on 3 folds of its own: a score
    other than the notebook's, and a second cross-validation that made the run's first
    execution time out.  Now the mean of the notebook's own folds is the score."""
    from sklearn.datasets import load_diabetes

    from mlestar_jupyter.importer.notebook_task import task_from_notebook

    df = load_diabetes(as_frame=True).frame
    df.insert(0, "id", range(len(df)))
    (tmp_path / "input").mkdir()
    df.iloc[:350].to_csv(tmp_path / "input" / "train.csv", index=False)
    df.iloc[350:].drop(columns="target").to_csv(tmp_path / "input" / "test.csv", index=False)
    nb = code_notebook(*LOG_CV)
    task = task_from_notebook(nb, tmp_path, "nb.ipynb")
    assert task.metric_name == "rmsle"
    prepared = prepare_user_notebook(nb, task)
    assert prepared.understood, prepared.reason
    _, printed = exec_notebook(prepared.notebook, tmp_path, tmp_path / "run")
    own = float(re.findall(r"CV RMSLE: ([0-9.]+)", printed)[0])
    score = float(re.findall(r"Final Validation Performance: ([0-9.]+)", printed)[0])
    assert score == pytest.approx(own, abs=1e-6)
    assert "the mean of your cross-validation's scores" in prepared.note
