"""Role inference on plain, untagged notebooks (no kernel): tests/files/user_notebooks."""

from __future__ import annotations

from pathlib import Path

import pytest

from mlestar_jupyter.agent.policy import AblationResult, AblationSummary, Plan
from mlestar_jupyter.agent.user_notebook import prepare_user_notebook
from mlestar_jupyter.notebook import SolutionNotebook
from mlestar_jupyter.notebook.roles import analyze, tag_roles
from mlestar_jupyter.offline import user_code
from mlestar_jupyter.offline.user_refiner import NothingToRefine, UserCodeRefiner
from mlestar_jupyter.task import load_task

PACK = Path(__file__).parent / "files" / "user_notebooks"
ROOT = Path(__file__).parents[1]
NOTEBOOKS = sorted(PACK.glob("*.ipynb"))
MODELS = [p for p in NOTEBOOKS if p.stem != "bc_eda_only"]


def read(name: str) -> SolutionNotebook:
    return SolutionNotebook.read(PACK / f"{name}.ipynb")


def test_pack_is_untagged_and_large_enough() -> None:
    assert len(NOTEBOOKS) >= 10
    for p in NOTEBOOKS:
        nb = read(p.stem)
        assert all(b.role == "other" for b in nb.code_blocks), p.name  # no tags at all


@pytest.mark.parametrize("path", MODELS, ids=lambda p: p.stem)
def test_every_model_notebook_has_a_fit_a_model_part_and_two_ablations(path: Path) -> None:
    nb = read(path.stem)
    a = analyze(nb)
    assert a.has_fit and not a.syntax_errors
    assert any(c.role == "model" for c in a.cells), [c.role for c in a.cells]
    study = UserCodeRefiner().ablation(nb, [])
    assert len(study.variants) >= 2, [v.name for v in study.variants]
    for v in study.variants:
        assert v.notebook.digest != nb.digest


def test_roles_of_a_notebook_written_cell_by_cell() -> None:
    a = analyze(read("bc_random_forest"))
    roles = [c.role for c in a.cells]
    assert roles == ["setup", "load", "subsample", "model", "evaluate", "predict"]
    assert a.target == "target"
    assert a.split is not None and a.split[1] == ("X_train", "X_valid", "y_train", "y_valid")
    assert [(e.var, e.cls) for e in a.estimators] == [("rf", "RandomForestClassifier")]
    assert [m.func for m in a.metrics] == ["roc_auc_score"]


def test_one_cell_notebook_is_split_into_parts() -> None:
    nb = read("bc_xgboost_one_cell")
    cell = analyze(nb).cells[0]
    assert cell.mixed
    assert [s.role for s in cell.segments] == [
        "load",
        "features",
        "subsample",
        "model",
        "train",
        "evaluate",
    ]
    parts = {p.role: p for p in user_code.parts(nb)}
    assert parts["model"].fragment is not None and "XGBClassifier(" in parts["model"].fragment
    assert "XGBClassifier" not in parts["features"].source


def test_tags_win_over_inference() -> None:
    nb = read("bc_random_forest")
    tagged = nb.copy()
    tagged.cell("b4").metadata["mlestar"]["role"] = "train"
    a = analyze(tagged)
    assert a.cell("b4").role == "train" and a.cell("b4").tagged
    assert a.cell("b2").role == "load" and not a.cell("b2").tagged
    out = tag_roles(tagged, a)
    assert out.block("b4").role == "train" and out.block("b2").role == "load"


@pytest.mark.parametrize(
    ("name", "task", "how"),
    [
        ("bc_random_forest", "breast-cancer", "_mlestar_score(rf, X_valid, y_valid)"),
        ("bc_logreg_no_validation", "breast-cancer", "StratifiedKFold"),
        ("diabetes_gbr_no_validation", "diabetes", "KFold(n_splits=3"),
        ("diabetes_torch_mlp", "diabetes", "np.asarray(y_val), np.asarray(val_pred)"),
    ],
)
def test_a_validation_cell_in_the_tasks_metric_is_added(name: str, task: str, how: str) -> None:
    t = load_task(ROOT / "example_notebooks" / "tasks" / task)
    prepared = prepare_user_notebook(read(name), t)
    assert prepared.understood and prepared.added_block
    added = prepared.notebook.block(prepared.added_block)
    assert how in added.source and "Final Validation Performance" in added.source
    idx = added.index
    assert "Added by MLE-STAR" in prepared.notebook.nb.cells[idx - 1].source  # said so
    assert added.role == "evaluate"


def test_a_notebook_without_a_fit_is_not_understood() -> None:
    t = load_task(ROOT / "example_notebooks" / "tasks" / "breast-cancer")
    prepared = prepare_user_notebook(read("bc_eda_only"), t)
    assert not prepared.understood
    assert prepared.reason.startswith("no model fit found")


def test_refinement_never_repeats_a_plan_on_a_block_and_paths_diverge() -> None:
    nb = read("bc_random_forest")
    firsts = []
    for seed in (0, 1):
        r = UserCodeRefiner(seed=seed, paths=2)
        summary = AblationSummary("", 0.9, (AblationResult("x", "b4", 0.8, 0.1),))
        target = r.extract(nb, summary, [])
        firsts.append(target.plan.strategy)
        seen = []
        plan = target.plan
        history: list[tuple[Plan, float | None]] = []
        for _ in range(20):
            if plan.strategy == "exhausted":
                break
            new = r.code(nb, target, plan)
            assert new != (target.fragment or nb.block(target.block_id).source)
            seen.append(plan.strategy)
            history.append((plan, None))
            plan = r.plan(nb, target, history)
        assert len(seen) == len(set(seen)) >= 3
        with pytest.raises(NothingToRefine):
            r.extract(nb, summary, [target.block_id])
    assert firsts[0] != firsts[1]


def test_model_strategies_edit_the_constructor_call() -> None:
    part = next(p for p in user_code.parts(read("wine_knn")) if p.role == "model")
    edits = dict((s.id, new) for s, new in user_code.applicable(part))
    assert (
        "make_pipeline(StandardScaler(with_mean=False), KNeighborsClassifier("
        in edits["standardize"]
    )
    assert (
        "n_neighbors=9" in edits["more_neighbors"]
        and 'weights="distance"' in edits["more_neighbors"]
    )
    part = next(p for p in user_code.parts(read("diabetes_torch_mlp")) if p.role == "model")
    edits = dict((s.id, new) for s, new in user_code.applicable(part))
    assert "EPOCHS = 180" in edits["more_epochs"]


def test_user_submission_is_written_under_final() -> None:
    out = user_code.final_outputs(read("bc_random_forest"))
    assert 'to_csv("final/submission.csv"' in out.source
    # Kaggle's working folder, pointed at the work folder (``agent.data_paths``)
    kaggle = SolutionNotebook.new([("code", 'sub.to_csv("./submission.csv", index=False)')])
    assert 'to_csv("final/submission.csv"' in user_code.final_outputs(kaggle).source


def test_an_ablation_that_did_better_is_adopted_first() -> None:
    nb = read("diabetes_gbr_no_validation")
    r = UserCodeRefiner(seed=0, paths=2)
    study = r.ablation(nb, [])
    names = [v.name for v in study.variants]
    defaults = next(n for n in names if n.endswith("model with default settings"))
    results = tuple(
        AblationResult(n, "b2", 60.0 if n == defaults else 70.0, -6.0 if n == defaults else 4.0)
        for n in names
    )
    target = r.extract(nb, AblationSummary("", 66.0, results), [])
    assert target.plan.strategy == "default_settings"
    assert "GradientBoostingRegressor(random_state=0)" in r.code(nb, target, target.plan)


@pytest.mark.parametrize("name", ["diabetes_gbr_no_validation", "diabetes_ridge_features"])
def test_an_ablation_that_did_worse_is_not_planned_as_a_refinement(name: str) -> None:
    """A telco notebook: the defaults ablation scored 0.805 against the user's 0.828, and the
    run still planned "Use the model's library defaults (the ablation measured them better)":
    untrue, and a rerun of the variant already scored.  Another dropped the user's
    ``pd.to_numeric`` feature lines at an equal score, which its ablation had measured."""
    nb = read(name)
    r = UserCodeRefiner(seed=0, paths=1)
    study = r.ablation(nb, [])
    results = tuple(AblationResult(v.name, v.block_id, 66.0, 0.0) for v in study.variants)
    assert ("ridge" in name) == any("feature group" in v.name for v in study.variants)
    summary = AblationSummary("", 66.0, results)
    planned, refined = [], []
    for _ in range(12):
        try:
            target = r.extract(nb, summary, refined)
        except NothingToRefine:
            break
        if target.plan.strategy == "exhausted":
            break
        planned.append(target.plan.strategy)
        r.code(nb, target, target.plan)
        refined.append(target.block_id)
    assert planned and not set(planned) & {s.id for s in user_code.ADOPT}, planned
    assert not set(planned) & set(user_code.ADOPT_ABLATION.values()), planned


def test_a_notebook_whose_one_model_cell_was_refined_is_refined_again() -> None:
    """An outsider's notebook (fit, predict and print in one cell, no features cell): its model
    part is the only refinable one.  Once it was refined, the next outer step refines it again
    with a strategy not applied yet (the run ended after one step, 8 s into a 90 s budget)."""
    nb = read("diabetes_rf_fit_in_one_cell")
    r = UserCodeRefiner(seed=0, paths=1)
    summary = AblationSummary("", 58.0, (AblationResult("x", "b4", 58.2, 0.2),))
    first = r.extract(nb, summary, [])
    r.code(nb, first, first.plan)
    again = r.extract(nb, summary, [first.block_id])
    assert again.block_id == first.block_id
    assert again.plan.strategy not in (None, "exhausted", first.plan.strategy)


def test_balanced_class_weights_are_for_classifiers_only() -> None:
    """``class_weight`` on a ``RandomForestRegressor`` raises ``TypeError``: never proposed."""
    regressor = next(
        p for p in user_code.parts(read("diabetes_rf_fit_in_one_cell")) if p.role == "model"
    )
    assert "RandomForestRegressor" in regressor.source
    assert "class_weight" not in {s.id for s, _ in user_code.applicable(regressor)}
    classifier = next(p for p in user_code.parts(read("bc_random_forest")) if p.role == "model")
    edits = {s.id: new for s, new in user_code.applicable(classifier)}
    assert 'class_weight="balanced"' in edits["class_weight"]


def test_a_model_fitted_where_it_is_built_is_known_by_its_name() -> None:
    """``clf = ExtraTreesClassifier(...).fit(xtr, ytr)``: the fitted model is ``clf`` (``fit``
    returns it), not the class; the added validation cell called
    ``ExtraTreesClassifier.predict_proba(xva)`` and the user's notebook gave no score."""
    from mlestar_jupyter.notebook.roles import analyze

    nb = SolutionNotebook.read(
        Path(__file__).parent / "files" / "outsider_notebooks" / "bc_data_folder_one_cell.ipynb"
    )
    (fit,) = analyze(nb).fits
    assert fit.var == "clf" and fit.args == ("xtr", "ytr")


def test_a_users_torch_loop_gets_optimizer_loss_batch_and_dropout_strategies() -> None:
    """A torch notebook had only epochs and the learning rate to vary, and a run on it ended with
    budget left (four strategies); the optimizer, the loss, the batch size and dropout are
    strategies now, each one keyword or number of the user's own code."""
    part = next(p for p in user_code.parts(read("diabetes_torch_mlp")) if p.role == "model")
    edits = dict((s.id, new) for s, new in user_code.applicable(part))
    assert "torch.optim.Adam(net.parameters(), lr=0.01, weight_decay=1e-4)" in edits["weight_decay"]
    assert "torch.optim.AdamW(net.parameters(), lr=0.01, weight_decay=0.01)" in edits["adamw"]
    assert "label_smoothing" not in edits  # a regression loss: nothing to smooth
    outsiders = Path(__file__).parent / "files" / "outsider_notebooks"
    cnn = SolutionNotebook.read(outsiders / "digits_cnn_kaggle_gpu.ipynb")
    loop = (
        cnn.code_blocks[2]
        .source.replace(
            "nn.ReLU(), nn.Linear(128, 10)", "nn.ReLU(), nn.Dropout(p=0.2), nn.Linear(128, 10)"
        )
        .replace("range(0, len(xt), 64)", "range(0, len(xt), BATCH_SIZE)")
    )
    loop = "BATCH_SIZE = 64\n" + loop
    part = user_code.Part("b3", "model", None, loop)
    edits = dict((s.id, new) for s, new in user_code.applicable(part))
    assert "cross_entropy(net(xt[idx]), yt[idx], label_smoothing=0.1)" in edits["label_smoothing"]
    assert "BATCH_SIZE = 32" in edits["smaller_batches"]
    assert "BATCH_SIZE = 128" in edits["larger_batches"]
    assert "nn.Dropout(p=0.3)" in edits["more_dropout"]
    assert "nn.Dropout(p=0.1)" in edits["less_dropout"]
    assert len(edits) >= 9  # with epochs, learning rate up and down


def test_a_model_fitted_inside_a_function_is_scored_by_its_metric_there_or_not_understood() -> None:
    """A student's notebook that does everything in ``main()``: a validation cell added after
    it cannot reach ``rf`` or ``X_va`` (a NameError in every run).  Its metric call in ``main()``
    keeps its values instead (a line after the call; the list starts anew as ``main()``'s first
    statement), and the added cell after ``main()``'s call scores them.  Without any metric call
    the notebook is not understood, saying why and what to change.  A torch loop inside a
    ``def fit`` whose metric is called at the top level is still measured from that call."""
    outsiders = Path(__file__).parent / "files" / "outsider_notebooks"
    diabetes = load_task(Path(__file__).parents[1] / "example_notebooks/tasks/diabetes")
    nb = SolutionNotebook.read(outsiders / "diabetes_student_functions_main.ipynb")
    prepared = prepare_user_notebook(nb, diabetes)
    assert prepared.understood and prepared.added_block is not None
    assert "in `main()` (`y_va`, `rf.predict(X_va)`)" in prepared.note
    main = next(b.source for b in prepared.notebook.code_blocks if "def main" in b.source)
    lines = [ln.strip() for ln in main.splitlines()]
    starts = lines.index(
        "globals()['_mlestar_folds'] = []  # added by MLE-STAR: the values of this call"
    )
    keeps = next(
        i
        for i, ln in enumerate(lines)
        if ln.startswith("_mlestar_folds.append((y_va, rf.predict(X_va)))")
    )
    assert lines[starts + 1].startswith("train, test = load()")
    assert lines[keeps - 1].startswith('print("rmse"') and lines[keeps + 1] == "rf.fit(X, y)"
    order = prepared.notebook.block_ids
    assert order.index(prepared.added_block) > order.index(nb.code_blocks[-1].id)
    silent = nb.replace_block(
        nb.code_blocks[0].id,
        "\n".join(ln for ln in nb.code_blocks[0].source.splitlines() if "print(" not in ln),
    )
    prepared = prepare_user_notebook(silent, diabetes)
    assert not prepared.understood and prepared.added_block is None
    assert "inside a function (main)" in prepared.reason
    assert "Final Validation Performance" in prepared.reason and "rmse" in prepared.reason
    analysis = analyze(nb)
    assert analysis.split is None and {f.scope for f in analysis.fits} == {"main"}
    cnn = SolutionNotebook.read(outsiders / "digits_cnn_kaggle_gpu.ipynb")
    classes = load_task(Path(__file__).parents[1] / "example_notebooks/tasks/breast-cancer")
    ok = prepare_user_notebook(cnn, classes)
    assert ok.understood and "from the values your metric uses" in ok.note


def test_a_cross_validated_linear_model_gets_swaps_and_expansions_and_imports_are_whole_lines() -> (
    None
):
    """A teacher's ``make_pipeline(StandardScaler(), RidgeCV(...))``: the "linear model instead"
    ablation put ``Ridge()`` in without its import (``import Ridge`` read as present inside
    ``import RidgeCV``: a NameError twice per run), and no swap applied to ``RidgeCV``, so the run
    ran out of strategies after one step with most of its budget left."""
    from mlestar_jupyter.offline.user_code.ablations import ablations
    from mlestar_jupyter.offline.user_code.syntax import with_imports

    src = "from sklearn.linear_model import RidgeCV\nm = RidgeCV()"
    assert with_imports(src, "from sklearn.linear_model import Ridge").startswith(
        "from sklearn.linear_model import Ridge\n"
    )
    outsiders = Path(__file__).parent / "files" / "outsider_notebooks"
    nb = SolutionNotebook.read(outsiders / "diabetes_teacher_ridge_cv.ipynb")
    part = next(p for p in user_code.parts(nb) if p.role == "model")
    assert "a linear model instead" not in [name for name, _ in ablations(part)]
    edits = dict((s.id, new) for s, new in user_code.applicable(part))
    assert {
        "swap_hist_gbm",
        "swap_random_forest",
        "spline_features",
        "pairwise_interactions",
    } <= set(edits)
    assert (
        "make_pipeline(StandardScaler(), make_pipeline(SplineTransformer("
        in edits["spline_features"]
    )
    assert edits["spline_features"].count("from sklearn.pipeline import make_pipeline") == 1
    assert "from sklearn.preprocessing import PolynomialFeatures" in edits["pairwise_interactions"]
    for new in edits.values():
        compile(new, "b4", "exec")


TITANIC_TUTORIAL = """from sklearn.ensemble import RandomForestClassifier

y = train_data["Survived"]

features = ["Pclass", "Sex", "SibSp", "Parch"]
X = pd.get_dummies(train_data[features])
X_test = pd.get_dummies(test_data[features])

model = RandomForestClassifier(n_estimators=100, max_depth=5, random_state=1)
model.fit(X, y)
predictions = model.predict(X_test)
"""


def _tutorial() -> SolutionNotebook:
    return SolutionNotebook.new(
        [
            (
                "other",
                'import pandas as pd\ntrain_data = pd.read_csv("input/train.csv")\n'
                'test_data = pd.read_csv("input/test.csv")',
            ),
            ("other", TITANIC_TUTORIAL),
        ]
    )


def test_a_mixed_cell_keeps_its_parts_once_its_roles_were_written_into_the_notebook() -> None:
    """Preparing a user's notebook writes the inferred roles into its cells (``tag_roles``);
    those are inferred again, not read as a person's tags: the Titanic tutorial's one cell kept
    only its model part, and its hand-picked feature list was never refined."""
    nb = tag_roles(_tutorial())
    assert nb.block("b2").role == "model"  # the role written in, marked as inferred
    roles = [(p.role, p.fragment is not None) for p in user_code.parts(nb)]
    assert ("preprocess", True) in roles and ("model", True) in roles
    assert not analyze(nb).cell("b2").tagged


def test_the_feature_list_gets_the_columns_it_leaves_out() -> None:
    from mlestar_jupyter.offline.user_code.column_edits import TableColumns, unused_columns

    columns = TableColumns(
        ("PassengerId", "Survived", "Pclass", "Name", "Sex", "Age", "SibSp", "Parch", "Fare"),
        ("Pclass", "Sex", "Age", "SibSp", "Parch", "Fare"),  # no id, target or names
        ("Pclass", "Age", "SibSp", "Parch", "Fare"),
    )
    strategy = unused_columns(columns)
    assert strategy is not None
    new = strategy.edit(TITANIC_TUTORIAL)
    assert new is not None
    assert 'features = ["Pclass", "Sex", "SibSp", "Parch", "Age", "Fare"]' in new
    # lists of numbers and of categories get their own kind; a drop list or an exclusion none
    typed = strategy.edit(
        'num_cols = ["Age"]\ncat_cols = ("Sex",)\ndrop_cols = ["Name"]\n'
        'X = df[[c for c in df if c not in ("PassengerId", "Survived")]]'
    )
    assert typed is not None
    assert 'num_cols = ["Age", "Pclass", "SibSp", "Parch", "Fare"]' in typed
    assert 'cat_cols = ("Sex",)' in typed  # Sex was the only text column
    assert 'drop_cols = ["Name"]' in typed and '("PassengerId", "Survived")' in typed
    assert strategy.edit('X = df.drop(columns=["Name", "Survived"])') is None


def test_a_part_the_ablation_could_not_study_goes_before_one_that_made_no_difference() -> None:
    from mlestar_jupyter.offline.user_code.column_edits import TableColumns, unused_columns

    strategy = unused_columns(TableColumns(("Pclass", "Sex", "SibSp", "Parch", "Age"), ("Age",)))
    assert strategy is not None
    nb = tag_roles(_tutorial())
    r = UserCodeRefiner(seed=0, paths=1, extra=(strategy,))
    study = r.ablation(nb, [])
    assert study.variants and all("(model" in v.name for v in study.variants)
    results = tuple(AblationResult(v.name, "b2", 0.8, 0.0) for v in study.variants)
    target = r.extract(nb, AblationSummary("", 0.8, results), [])
    assert target.plan.strategy == "unused_columns"
    assert '"Parch", "Age"]' in r.code(nb, target, target.plan)


@pytest.mark.parametrize(
    "model",
    [
        "RandomForestClassifier(random_state=0)",
        "ExtraTreesRegressor(random_state=0)",
        "GradientBoostingClassifier(random_state=0)",
        "HistGradientBoostingRegressor(random_state=0)",
        "LGBMClassifier(verbose=-1)",
        "XGBRegressor()",
        "DecisionTreeClassifier()",
        "KNeighborsRegressor()",
        "LogisticRegression(max_iter=500)",
        "SVC()",
        "LinearSVR(max_iter=5000)",
        "Ridge()",
    ],
)
def test_the_randomized_search_names_settings_each_family_has(model: str) -> None:
    """Every family's search space is made of its own parameters: the wrapped code runs."""
    import numpy as np

    from mlestar_jupyter.offline.user_code.search_edits import tuning

    classify = "Classifier" in model or model.startswith(("LogisticRegression", "SVC"))
    strategy = tuning("accuracy" if classify else "rmse")
    imports = (
        "from sklearn.ensemble import *\nfrom sklearn.tree import *\nfrom sklearn.neighbors import *\n"
        "from sklearn.linear_model import *\nfrom sklearn.svm import *\n"
        "from lightgbm import LGBMClassifier\nfrom xgboost import XGBRegressor\n"
    )
    new = strategy.edit(f"model = {model}")
    assert new is not None and "RandomizedSearchCV(" in new
    assert strategy.edit(new) is None  # searched already
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] > 0).astype(int) if classify else X[:, 0] * 2 + rng.normal(size=60)
    scope: dict = {}  # type: ignore[type-arg]
    exec(imports + new + "\nmodel.fit(X, y)\npred = model.predict(X)", {"X": X, "y": y}, scope)
    assert len(scope["pred"]) == 60


def test_the_randomized_search_comes_after_the_librarys_model_strategies() -> None:
    from mlestar_jupyter.offline.user_code.library import applicable
    from mlestar_jupyter.offline.user_code.search_edits import tuning

    part = user_code.Part("b1", "model", None, "model = RandomForestRegressor(n_estimators=100)")
    ids = [s.id for s, _ in applicable(part, (tuning("mae"),))]
    assert ids[-1] == "randomized_search" and len(ids) > 3
    assert 'scoring="neg_mean_absolute_error"' in applicable(part, (tuning("mae"),))[-1][1]
    features = user_code.Part("b1", "features", None, "X = df[['a', 'b']]")
    assert "randomized_search" not in [s.id for s, _ in applicable(features, (tuning("mae"),))]
    assert tuning("map@3").edit("m = SVC()") is not None  # no scorer: the model's own score
    assert "scoring" not in (tuning("map@3").edit("m = SVC()") or "")


def test_a_dict_of_models_compared_in_a_loop_is_the_model_part() -> None:
    nb = SolutionNotebook.new(
        [
            (
                "other",
                "models = {\n    'Tree': DecisionTreeClassifier(),\n    'SVM': SVC(),\n}\n"
                "for name, model in models.items():\n    model.fit(X_train, y_train)\n"
                "    print(name, accuracy_score(y_test, model.predict(X_test)))",
            )
        ]
    )
    parts = {p.role: p for p in user_code.parts(nb)}
    assert "models = {" in parts["model"].source
    new = dict(user_code.applicable(parts["model"]))
    assert any("StandardScaler" in src and "SVC()" in src for src in new.values())


def test_a_wider_search_triples_the_draws_of_the_randomized_search() -> None:
    from mlestar_jupyter.offline.user_code.library import applicable
    from mlestar_jupyter.offline.user_code.search_edits import tuning_strategies

    search, wider = tuning_strategies("accuracy")
    assert wider.edit("model = SVC()") is None  # no search yet: nothing to widen
    searched = search.edit("model = SVC()")
    assert searched is not None
    part = user_code.Part("b1", "model", None, searched)
    ids = [s.id for s, _ in applicable(part, (search, wider))]
    assert "randomized_search" not in ids and ids[-1] == "wider_search"
    widened = wider.edit(searched)
    assert widened is not None and "n_iter=18," in widened and "\n    SVC()," in widened


def test_a_loop_over_folds_that_builds_and_scores_a_model_is_the_model_part() -> None:
    """``for tr, va in kf.split(X): model = Ridge(); model.fit(...); scores.append(rmse(...))``
    was one *evaluate* statement (it calls a metric): the run found nothing to refine."""
    from mlestar_jupyter.offline.user_code.library import applicable
    from mlestar_jupyter.offline.user_code.parts import parts

    nb = SolutionNotebook.new(
        [
            ("other", c)
            for c in (
                "import numpy as np\nfrom sklearn.model_selection import KFold\n"
                "from sklearn.linear_model import Ridge\nfrom sklearn.metrics import mean_squared_error",
                "scores = []\nfor tr, va in KFold(5).split(X):\n    model = Ridge(alpha=1.0)\n"
                "    model.fit(X.iloc[tr], y.iloc[tr])\n"
                "    scores.append(mean_squared_error(y.iloc[va], model.predict(X.iloc[va])))\n"
                "print(np.mean(scores))",
                "for name, s in results.items():\n    print(name, mean_squared_error(s, y))",
            )
        ]
    )
    a = analyze(nb)
    assert [s.role for s in a.cell("b2").segments] == ["model"]
    assert a.cell("b3").role == "evaluate"  # a loop that only scores stays an evaluation
    (part,) = parts(nb)
    assert part.block_id == "b2" and applicable(part)


def test_a_compared_baseline_listed_last_is_not_the_model_refined() -> None:
    from mlestar_jupyter.offline.user_code.syntax import call_name, model_call

    src = "models = {'lr': LogisticRegression(C=1.0), 'dummy': DummyClassifier()}"
    call = model_call(src)
    assert call is not None and call_name(call) == "LogisticRegression"
    only = model_call("m = DummyRegressor()")
    assert only is not None and call_name(only) == "DummyRegressor"


def test_a_users_own_randomized_search_is_searched_wider() -> None:
    """``RandomizedSearchCV(GradientBoostingClassifier(), dist, n_iter=4)`` (hunt, session 23):
    its model is pinned (the search names that class's settings), and "wider_search" was left
    out with the swaps: one plan, then "no refinement strategy left" after 4 s of 60."""
    from mlestar_jupyter.offline.user_code.library import applicable
    from mlestar_jupyter.offline.user_code.pinned import pinned_by
    from mlestar_jupyter.offline.user_code.search_edits import tuning_strategies

    cell = (
        "param_dist = {'n_estimators': randint(20, 80), 'max_depth': randint(1, 4)}\n"
        "search = RandomizedSearchCV(GradientBoostingClassifier(random_state=0), param_dist, "
        "n_iter=4, cv=3, scoring='roc_auc', random_state=0)\nsearch.fit(X_tr, y_tr)"
    )
    assert pinned_by(cell, [cell])
    part = user_code.Part("b3", "model", None, cell, pinned=pinned_by(cell, [cell]))
    ids = [s.id for s, _ in applicable(part, tuning_strategies("roc_auc"))]
    assert "wider_search" in ids and "randomized_search" not in ids
    assert not {"swap_hist_gbm", "swap_random_forest"} & set(ids)  # still pinned
    _, wider = tuning_strategies("roc_auc")
    assert "n_iter=12," in (wider.edit(cell) or "")


def test_the_defaults_ablation_keeps_what_the_notebook_needs_of_the_model() -> None:
    """``XGBClassifier(..., early_stopping_rounds=30)`` with ``clf.best_iteration`` read later
    (hunt, session 23): the defaults ablation dropped the early stopping and failed, at every
    step of both paths (6 times); string categories need ``categorical_features`` likewise."""
    from mlestar_jupyter.offline.user_code.ablations import _default_model

    cell = (
        "clf = XGBClassifier(n_estimators=500, learning_rate=0.05, max_depth=4, "
        "early_stopping_rounds=30, eval_metric='mlogloss', random_state=0)\n"
        "clf.fit(X_tr, y_tr, eval_set=[(X_va, y_va)])"
    )
    out = _default_model(cell) or ""
    assert "n_estimators" not in out and "max_depth" not in out and "learning_rate" not in out
    assert "early_stopping_rounds=30" in out and "eval_metric='mlogloss'" in out
    hgb = "m = HistGradientBoostingRegressor(categorical_features='from_dtype', learning_rate=0.2)"
    kept = _default_model(hgb) or ""
    assert "categorical_features='from_dtype'" in kept and "learning_rate" not in kept


def test_the_final_folder_is_made_where_the_submission_is_written() -> None:
    """Hunt, session 24: ``%cd data`` ... ``%cd ..`` in the cell that writes the submission; the
    folder was made at the cell's top (in data/) and the write, from the work folder, failed."""
    cell = (
        "%cd data\ntest = pd.read_csv('test.csv')\n%cd ..\n"
        "if True:\n    sub.to_csv('submission.csv',\n               index=False)\n"
        "sub.to_csv('other.csv')"
    )
    out = user_code.final_outputs(SolutionNotebook.new([("code", cell)])).code_blocks[0].source
    assert out.split("\n") == [
        "import os",
        "",
        "%cd data",
        "test = pd.read_csv('test.csv')",
        "%cd ..",
        "if True:",
        '    os.makedirs("final", exist_ok=True)',
        "    sub.to_csv('final/submission.csv',",
        "               index=False)",
        'os.makedirs("final", exist_ok=True)',
        "sub.to_csv('final/other.csv')",
    ]
    one_line = "if ok: sub.to_csv('submission.csv')"
    out = user_code.final_outputs(SolutionNotebook.new([("code", one_line)])).code_blocks[0].source
    assert out.startswith('import os\n\nos.makedirs("final", exist_ok=True)\nif ok:')


def test_a_boosters_constructor_gets_its_regularisation_strategies() -> None:
    """Hunt, session 24: the classic out-of-fold loop with ``lgb.LGBMRegressor(...)`` got three
    plans (trees, learning rate, leaves) and its refinement ended after 5 s of 60."""
    cell = (
        "for fold, (tr, va) in enumerate(kf.split(train)):\n"
        "    model = lgb.LGBMRegressor(n_estimators=500, num_leaves=8, min_child_samples=20)\n"
        "    model.fit(X.iloc[tr], y.iloc[tr], eval_set=[(X.iloc[va], y.iloc[va])])\n"
        "    oof[va] = model.predict(X.iloc[va])"
    )
    nb = SolutionNotebook.new([("other", cell)])
    (part,) = [p for p in user_code.parts(nb) if p.role == "model"]
    edits = dict((s.id, new) for s, new in user_code.applicable(part))
    assert "num_leaves=4" in edits["fewer_leaves"]
    assert "min_child_samples=40" in edits["larger_leaves"]
    assert "subsample=0.8, subsample_freq=1, colsample_bytree=0.8" in edits["row_col_sampling"]
    assert "reg_lambda=5" in edits["l2_leaves"]
    for new in edits.values():
        compile(new, "cell", "exec")


STUDENT_CELLS = [
    "import pandas as pd\nfrom sklearn.model_selection import train_test_split",
    "df = pd.read_csv('data/train.csv')",
    "X = df[['mean_smoothness', 'mean_symmetry', 'texture_error']]\ny = df['diagnosis']\n"
    "X_train, X_val, y_train, y_val = train_test_split(X, y, test_size=0.25, random_state=42)",
    "features = ['Pclass', 'Sex', 'SibSp']\nX = df[features]",
    "drop_cols = ['id', 'Name']\ntarget_cols = ['a', 'b']\ny = df[['Survived']]",
]


def test_hand_picked_columns_are_the_features_part_even_beside_the_split() -> None:
    """A student's cell picks three columns and splits the rows: the pick is a features part of
    its own (before: the whole cell was the split, nothing the run could refine), so the
    strategy adding the columns left out reaches it.  A drop list, a target list and ``y`` are
    no features."""
    from mlestar_jupyter.offline.user_code.column_edits import TableColumns, unused_columns

    nb = SolutionNotebook.new([("other", s) for s in STUDENT_CELLS])
    cells = analyze(nb).cells
    split, named, other = cells[2], cells[3], cells[4]
    assert [s.role for s in split.segments] == ["features", "subsample"]
    assert named.role == "features"
    assert other.role == "other"
    part = next(p for p in user_code.parts(nb) if p.block_id == split.block_id)
    assert part.role == "features" and "train_test_split" not in part.source
    columns = TableColumns(
        ("mean_smoothness", "mean_symmetry", "texture_error", "mean_radius", "diagnosis"),
        ("mean_smoothness", "mean_symmetry", "texture_error", "mean_radius"),
        ("mean_smoothness", "mean_symmetry", "texture_error", "mean_radius"),
    )
    strategy = unused_columns(columns)
    assert strategy is not None
    changed = dict((s.id, new) for s, new in user_code.applicable(part, (strategy,)))
    assert "'mean_radius'" in changed["unused_columns"]


def test_a_model_after_its_pipelines_own_steps_is_not_given_another_scaler() -> None:
    """Hunt P: ``Pipeline([('pre', pre), ('model', LogisticRegression())])``, ``pre`` a column
    transformer with its own StandardScaler built in lines above: the plan "Standardize the
    features" was proposed for it, a refinement step spent on a scaler it has; a model alone, or
    a pipeline's only step, still gets one."""
    from mlestar_jupyter.offline.user_code.model_edits import MODEL_STRATEGIES

    standardize = next(s for s in MODEL_STRATEGIES if s.id == "standardize").edit
    assert standardize("clf = Pipeline([('pre', pre), ('model', LogisticRegression())])") is None
    assert standardize("clf = make_pipeline(pre, SVC(C=2))") is None
    alone = standardize("clf = Pipeline([('model', LogisticRegression())])")
    assert alone is not None and "StandardScaler(with_mean=False), LogisticRegression()" in alone
