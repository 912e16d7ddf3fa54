"""A notebook that compares models in a loop (``for name, model in models.items(): model.fit``)
leaves the *last* model in ``model``.  The run measured that one, however bad, and the notebook's
later cells predicted with it.  The added validation cell now scores every model compared,
prints each score, and keeps the best as ``model``."""

from __future__ import annotations

from pathlib import Path

import nbformat
from kernel import run_notebook

from mlestar_jupyter.agent.user_notebook import prepare_user_notebook
from mlestar_jupyter.notebook import SolutionNotebook
from mlestar_jupyter.task import load_task

ROOT = Path(__file__).parents[2]
BREAST_CANCER = ROOT / "example_notebooks" / "tasks" / "breast-cancer"
DIABETES = ROOT / "example_notebooks" / "tasks" / "diabetes"


def _notebook(*cells: str) -> SolutionNotebook:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    return SolutionNotebook(nb)


# the way a course notebook compares classifiers: the worst one (a constant) comes last
COMPARE = _notebook(
    "import pandas as pd\n"
    "from sklearn.model_selection import train_test_split\n"
    "from sklearn.linear_model import LogisticRegression\n"
    "from sklearn.tree import DecisionTreeClassifier\n"
    "from sklearn.dummy import DummyClassifier\n"
    "from sklearn.metrics import accuracy_score\n"
    "from sklearn.pipeline import make_pipeline\n"
    "from sklearn.preprocessing import StandardScaler",
    "df = pd.read_csv('input/train.csv')\n"
    "X = df.drop(columns=['id', 'target'])\n"
    "y = df['target']\n"
    "X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=1)",
    "models = {\n"
    "    'Logistic Regression': make_pipeline(StandardScaler(), LogisticRegression()),\n"
    "    'Decision Tree': DecisionTreeClassifier(max_depth=3, random_state=0),\n"
    "    'Baseline': DummyClassifier(),\n"
    "}\n"
    "for name, model in models.items():\n"
    "    model.fit(X_train, y_train)\n"
    "    print(name, accuracy_score(y_test, model.predict(X_test)))",
    "print('kept:', type(model).__name__)",
)


def test_every_compared_model_is_scored_and_the_best_is_kept(tmp_path: Path) -> None:
    prepared = prepare_user_notebook(COMPARE, load_task(BREAST_CANCER))
    assert prepared.understood and "for each model of `models`" in prepared.note
    ran = run_notebook(prepared.notebook, BREAST_CANCER, tmp_path)
    out = ran.output
    # each model's ROC AUC printed; the run's score is the best one, not the constant's 0.5
    for name in ("Logistic Regression", "Decision Tree", "Baseline"):
        assert f"{name}: " in out
    assert "Baseline: 0.5" in out
    assert ran.score is not None and ran.score > 0.95
    assert "best: Logistic Regression" in out
    assert "kept: Pipeline" in out  # the notebook's next cell sees the best model


def test_a_list_of_regressors_scored_by_cross_validation_keeps_the_lowest_error(
    tmp_path: Path,
) -> None:
    """No split in the notebook: each model is cross-validated; RMSE is lower-is-better."""
    nb = _notebook(
        "import pandas as pd\n"
        "from sklearn.linear_model import LinearRegression\n"
        "from sklearn.dummy import DummyRegressor\n"
        "train = pd.read_csv('input/train.csv')\n"
        "X, y = train.drop(columns=['id', 'progression']), train['progression']",
        "candidates = [DummyRegressor(), LinearRegression()]\n"
        "for reg in candidates:\n"
        "    reg.fit(X, y)",
    )
    task = load_task(DIABETES)
    assert task.metric_name == "rmse"
    prepared = prepare_user_notebook(nb, task)
    assert prepared.understood and "cross-validation" in prepared.note
    ran = run_notebook(prepared.notebook, DIABETES, tmp_path)
    scores = {
        line.split(": ")[0]: float(line.split(": ")[1])
        for line in ran.output.splitlines()
        if line[:2] in ("0:", "1:")
    }
    assert scores["1"] < scores["0"]  # linear regression beats the mean
    assert "best: 1" in ran.output and ran.score == scores["1"]


def test_a_single_model_is_measured_as_before() -> None:
    nb = _notebook(
        "import pandas as pd\n"
        "from sklearn.model_selection import train_test_split\n"
        "from sklearn.ensemble import RandomForestClassifier\n"
        "df = pd.read_csv('input/train.csv')\n"
        "X_train, X_val, y_train, y_val = train_test_split(df.drop(columns='target'), df.target)",
        "clf = RandomForestClassifier()\nclf.fit(X_train, y_train)",
    )
    prepared = prepare_user_notebook(nb, load_task(BREAST_CANCER))
    added = prepared.notebook.block(prepared.added_block or "")
    assert (
        "_mlestar_models" not in added.source
        and "_mlestar_score(clf, X_val, y_val)" in added.source
    )
    assert "on your validation split (`X_val`, `y_val`)" in prepared.note
