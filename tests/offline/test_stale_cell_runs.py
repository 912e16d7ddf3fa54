"""A notebook saved without outputs whose leftover cell raises after the model cell is run
without that cell (offline backend, real kernels).

Hunts H and J (session 31): ``train['radius'].plot()`` of a column since renamed, and a print
of names from a deleted cell, stopped Run All; the run set the whole notebook aside
(``not_understood``: "your notebook gave no validation score (KeyError: 'radius')") and handed
in the task's own solutions."""

from __future__ import annotations

from pathlib import Path

import pytest
from user_runs import run_user_notebook

from mlestar_jupyter.notebook import SolutionNotebook

pytestmark = pytest.mark.slow

BREAST_CANCER = Path(__file__).parents[2] / "example_notebooks" / "tasks" / "breast-cancer"

CELLS = (
    "import pandas as pd\nfrom sklearn.linear_model import LogisticRegression\n"
    "from sklearn.model_selection import train_test_split\nfrom sklearn.metrics import roc_auc_score",
    "train = pd.read_csv('train.csv')\ntest = pd.read_csv('test.csv')",
    "X = train.drop(columns=['id', 'target'])\ny = train['target']\n"
    "X_tr, X_va, y_tr, y_va = train_test_split(X, y, test_size=0.25, random_state=0)\n"
    "clf = LogisticRegression(C=0.5, max_iter=5000).fit(X_tr, y_tr)\n"
    "print('AUC', roc_auc_score(y_va, clf.predict_proba(X_va)[:, 1]))",
    "train['radius'].plot(kind='hist', bins=30)",  # the column is mean_radius now
    "print(confusion_matrix(y_val, clf.predict(X_val)))",  # names of a deleted cell
    "clf.fit(X, y)\npd.DataFrame({'id': test.id, 'target': clf.predict_proba(test[X.columns])[:, 1]})"
    ".to_csv('submission.csv', index=False)",
)


def test_leftover_failing_cells_are_not_run_and_the_rest_is_refined(tmp_path: Path) -> None:
    out, evs = run_user_notebook(CELLS, tmp_path, BREAST_CANCER, inner_steps=1)
    users = {d["id"]: d for t, d in evs if t == "candidate" and d["id"].startswith("user")}
    assert "KeyError" in (users["user"]["error"] or "")  # as written: stopped at the plot
    assert "NameError" in (users["user-s1"]["error"] or "")  # then at the print
    assert users["user-s2"]["score"] is not None  # without both: the notebook's own AUC
    warned = [d["message"] for t, d in evs if t == "warning" and d.get("what") == "notebook"]
    assert warned and "train['radius'].plot" in warned[0] and "(NameError)" in warned[0]
    finished = next(d for t, d in evs if t == "run_finished")
    assert finished["status"] != "not_understood" and out.final.ok  # type: ignore[attr-defined]
    final = SolutionNotebook.read(Path(out.final.notebook))  # type: ignore[attr-defined]
    code = "\n".join(b.source for b in final.code_blocks)
    assert "# train['radius'].plot(kind='hist', bins=30)" in code
