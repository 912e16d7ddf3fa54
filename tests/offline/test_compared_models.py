"""A notebook that compares models in a loop (``for name, model in models.items(): model.fit``)
leaves the *last* model in ``model``.  The run measured that one, however bad, and the notebook's
later cells predicted with it.  The added validation cell now scores every model compared,
prints each score, and keeps the best as ``model``.

Its refinements then changed the *last* entry of the collection (where a model edit lands by
default) rather than the model the comparison kept, so they changed a model never submitted.
The run now notes on that cell the entry it kept, and the refiner changes that entry only (or,
when no run named one, says in its plan that it does not know which model won)."""

from __future__ import annotations

import ast
from pathlib import Path

from kernel import run_notebook
from user_runs import code_notebook as _notebook

from mlestar_jupyter.agent.compared_models import kept_entry, note_kept_model
from mlestar_jupyter.agent.policy import Plan, RefineTarget
from mlestar_jupyter.agent.user_notebook import prepare_user_notebook
from mlestar_jupyter.notebook import SolutionNotebook
from mlestar_jupyter.offline import user_code
from mlestar_jupyter.offline.user_code.compared import entries
from mlestar_jupyter.offline.user_refiner import UserCodeRefiner
from mlestar_jupyter.task import load_task

ROOT = Path(__file__).parents[2]
BREAST_CANCER = ROOT / "example_notebooks" / "tasks" / "breast-cancer"
DIABETES = ROOT / "example_notebooks" / "tasks" / "diabetes"


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


# the way a user compares models and keeps the best (an outsider's notebook, issue report)
COMPARE_AND_KEEP = (
    "import pandas as pd\n"
    "from sklearn.model_selection import train_test_split\n"
    "from sklearn.linear_model import LogisticRegression\n"
    "from sklearn.ensemble import RandomForestClassifier, GradientBoostingClassifier\n"
    "from sklearn.metrics import accuracy_score",
    "df = pd.read_csv('input/train.csv')\n"
    "X = df.drop(columns=['id', 'target'])\n"
    "y = df['target']\n"
    "X_tr, X_va, y_tr, y_va = train_test_split(X, y, test_size=0.25, random_state=42)",
    'models = {"logreg": LogisticRegression(max_iter=1000), '
    '"rf": RandomForestClassifier(n_estimators=200), "gb": GradientBoostingClassifier()}\n'
    "scores = {}\n"
    "for name, m in models.items():\n"
    "    m.fit(X_tr, y_tr)\n"
    "    scores[name] = accuracy_score(y_va, m.predict(X_va))\n"
    "    print(name, scores[name])\n"
    "best_name = max(scores, key=scores.get)\n"
    "best_model = models[best_name]",
    "print('best:', best_name)",  # the notebook's own line, not the added cell's
)


def _compared_part(nb: SolutionNotebook) -> user_code.Part:
    return next(p for p in user_code.parts(nb) if p.compares)


def _entry_sources(src: str) -> dict[str, str | None]:
    return {n: ast.get_source_segment(src, v) for n, v in entries(src, "models")}


def _every_change(nb: SolutionNotebook) -> list[tuple[str, str]]:
    """(plan text, new source) of every strategy the refiner applies to the compared part, in
    turn, until none is left."""
    refiner, part = UserCodeRefiner(), _compared_part(nb)
    target = RefineTarget(part.block_id, Plan(""), part.fragment)
    history: list[tuple[Plan, float | None]] = []
    changes = []
    while not (plan := refiner.plan(nb, target, history)).exhausted:
        changes.append((plan.text, refiner.code(nb, target, plan)))
        history.append((plan, None))
    return changes


def test_refinements_change_the_model_the_comparison_kept() -> None:
    prepared = prepare_user_notebook(_notebook(*COMPARE_AND_KEEP), load_task(BREAST_CANCER))
    cell = prepared.added_block or ""
    assert prepared.notebook.cell(cell).metadata["mlestar"]["compares"] == "models"
    output = (
        "logreg 0.951\nrf 0.965\ngb 0.958\nlogreg: 0.991\nrf: 0.996\ngb: 0.990\n"
        "best: rf\nFinal Validation Performance: 0.996\nbest: rf\n"
    )
    nb = note_kept_model(prepared.notebook, output)
    assert nb.cell(cell).metadata["mlestar"]["kept"] == "rf"
    part = _compared_part(nb)
    assert (part.compares, part.kept) == ("models", "rf")
    before = _entry_sources(part.source)
    changes = _every_change(nb)
    assert len(changes) >= 3
    for text, new in changes:
        assert text.startswith("In `models`, the model the notebook's comparison kept (`rf`): ")
        after = _entry_sources(new)
        assert after["logreg"] == before["logreg"] and after["gb"] == before["gb"], new
        assert after["rf"] != before["rf"]
    assert any("RandomForestClassifier(n_estimators=600)" in new for _, new in changes)
    for name, new in user_code.ablations(part):  # the ablations study the kept model too
        after = _entry_sources(new)
        assert after["logreg"] == before["logreg"] and after["gb"] == before["gb"], name
    # without the note (an earlier run's), edits land on the last entry again
    assert _compared_part(prepared.notebook).kept == ""


def test_without_a_named_winner_the_plan_says_it_is_not_known() -> None:
    """A notebook that prints its own score gets no comparing cell: no run names the model its
    comparison kept, and the plan says which entry it changes instead of pretending."""
    own = (*COMPARE_AND_KEEP, "print('Final Validation Performance:', scores[best_name])")
    prepared = prepare_user_notebook(_notebook(*own), load_task(BREAST_CANCER))
    assert prepared.added_block is None
    before = _entry_sources(_compared_part(prepared.notebook).source)
    changes = _every_change(prepared.notebook)
    assert changes
    for text, new in changes:
        assert text.startswith("Which model of `models` won the notebook's comparison is not known")
        after = _entry_sources(new)
        changed = [n for n in before if after[n] != before[n]]
        if changed:  # it names the entries it changes
            names = ", ".join(f"`{n}`" for n in changed)
            assert f"so this changes {names}, which may not be the model it keeps" in text
    # the notebook's own "best: rf" line is not the comparing cell's (no score line follows)
    assert kept_entry("rf 0.97\nbest: rf\n") is None
    assert note_kept_model(prepared.notebook, "best: rf\n") is prepared.notebook


def test_a_real_run_names_the_model_it_kept_and_that_one_is_refined(tmp_path: Path) -> None:
    prepared = prepare_user_notebook(_notebook(*COMPARE_AND_KEEP), load_task(BREAST_CANCER))
    ran = run_notebook(prepared.notebook, BREAST_CANCER, tmp_path)
    kept = kept_entry(ran.output)
    assert kept in ("logreg", "rf", "gb"), ran.output[-1500:]
    nb = note_kept_model(prepared.notebook, ran.output)
    before = _entry_sources(_compared_part(nb).source)
    text, new = _every_change(nb)[0]
    assert f"the model the notebook's comparison kept (`{kept}`)" in text
    after = _entry_sources(new)
    assert [n for n in before if after[n] != before[n]] == [kept]
