"""Hunt R (session 35): outsiders' notebooks read without a kernel — a data folder taken from
an environment variable with a default, models compared by a function called in a loop, a cell
printing the task's metric beside another, a model's own ``.score`` of its validation rows,
metric functions imported under short names, and old calls in cells with IPython lines."""

from __future__ import annotations

import contextlib
import io
import shutil
from pathlib import Path

import pytest
from sklearn.metrics import mean_squared_error, roc_auc_score

from mlestar_jupyter.agent.changes import restore_paths
from mlestar_jupyter.agent.data_paths import point_to_input
from mlestar_jupyter.agent.old_calls import repair_old_calls
from mlestar_jupyter.agent.user_notebook import prepare_user_notebook
from mlestar_jupyter.importer.notebook_task import task_from_notebook
from mlestar_jupyter.notebook.roles import analyze
from mlestar_jupyter.offline.user_code.feature_edits import preprocessing_off
from mlestar_jupyter.offline.user_code.library import applicable
from mlestar_jupyter.offline.user_code.parts import parts
from mlestar_jupyter.task import load_task

from .notebooks import BREAST_CANCER
from .notebooks import code_notebook as _nb

READ = "train = pd.read_csv(os.path.join(DATA_DIR, 'train.csv'))"


@pytest.mark.parametrize(
    ("line", "pointed"),
    [
        (
            'DATA_DIR = os.getenv("BC_DATA", "/home/maria/projects/bc/data")',
            'DATA_DIR = os.getenv("BC_DATA", "input")',
        ),
        (
            "DATA_DIR = Path(os.environ.get('DATA_DIR', '../data/raw'))",
            "DATA_DIR = Path(os.environ.get('DATA_DIR', 'input'))",
        ),
    ],
)
def test_a_data_folder_read_from_the_environment_is_pointed_at_its_default(
    line: str, pointed: str
) -> None:
    """inputs/r8_datadir: ``os.getenv("BC_DATA", "/home/maria/...")`` became
    ``os.getenv("input", "/home/maria/...")``: the variable's name was taken for the folder,
    so the kernel read the author's folder and the notebook failed."""
    nb, changes = point_to_input(
        _nb(f"import os\nimport pandas as pd\n{line}", READ), BREAST_CANCER / "input"
    )
    assert nb.code_blocks[0].source.splitlines()[-1] == pointed
    assert [(c.old, c.new) for c in changes] == [(line.split(", ")[1].strip("'\")"), "input")]


LOAD = (
    "import pandas as pd\n"
    "from sklearn.linear_model import LogisticRegression\n"
    "from sklearn.tree import DecisionTreeClassifier\n"
    "from sklearn.model_selection import train_test_split\n"
    "from sklearn.preprocessing import StandardScaler\n"
    "from sklearn.pipeline import make_pipeline\n"
    "from sklearn.metrics import roc_auc_score, accuracy_score\n"
    "df = pd.read_csv('train.csv')\n"
    "X = df.drop(columns=['id', 'target']); y = df['target']\n"
    "X_train, X_val, y_train, y_val = train_test_split(X, y, test_size=0.25, random_state=1)"
)
# the metric the task grades by (AUC, of probabilities) first, then accuracy (of labels)
TRAIN_AND_EVALUATE = (
    "def train_and_evaluate(model, name):\n"
    "    model.fit(X_train, y_train)\n"
    "    probs = model.predict_proba(X_val)[:, 1]\n"
    "    auc = roc_auc_score(y_val, probs)\n"
    "    acc = accuracy_score(y_val, (probs > 0.5).astype(int))\n"
    "    print(f'{name}: AUC={auc:.4f} acc={acc:.4f}')\n"
    "    return auc"
)
COMPARE = (
    "models = {\n"
    "    'logreg': make_pipeline(StandardScaler(), LogisticRegression()),\n"
    "    'stump': DecisionTreeClassifier(max_depth=1, random_state=0),\n"
    "}\n"
    "results = {}\n"
    "for name, model in models.items():\n"
    "    results[name] = train_and_evaluate(model, name)\n"
    "best_name = max(results, key=results.get)"
)


def _run(
    nb: object, monkeypatch: pytest.MonkeyPatch, task: Path = BREAST_CANCER
) -> tuple[dict[str, object], str]:
    """The namespace and the printed text of the notebook's code blocks run in order, in the
    task's folder (its data in ``input/``)."""
    namespace: dict[str, object] = {}
    out = io.StringIO()
    monkeypatch.chdir(task)
    with contextlib.redirect_stdout(out):
        for b in nb.code_blocks:  # type: ignore[attr-defined]
            exec(compile(b.source, b.id, "exec"), namespace)
    return namespace, out.getvalue()


def _score(printed: str) -> float:
    return float(printed.split("Final Validation Performance: ")[1].split()[0])


def test_models_compared_by_a_function_called_in_a_loop_are_scored_by_the_best(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """inputs/r1_loop: ``train_and_evaluate(model, name)`` called for each model of a dict, the
    best picked by ``max(results, key=results.get)``: the run averaged the three models' values
    as if they were folds, and took the accuracy's (labels) for the task's AUC.  The added cell
    now scores each model of ``models`` on the split and keeps the best, as the notebook does."""
    prepared = prepare_user_notebook(
        _nb(LOAD, TRAIN_AND_EVALUATE, COMPARE), load_task(BREAST_CANCER)
    )
    assert prepared.understood
    cell = next(b for b in prepared.notebook.code_blocks if b.origin == "mlestar:validation")
    assert "_mlestar_models(models)" in cell.source and "_mlestar_folds" not in cell.source
    namespace, printed = _run(prepared.notebook, monkeypatch)
    results = namespace["results"]
    assert isinstance(results, dict)
    assert _score(printed) == pytest.approx(max(results.values()))


def test_the_metric_call_in_the_tasks_metric_is_scored_not_the_last_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A model fitted on scaled rows (so the split's names do not reach it) and a cell printing
    ``roc_auc_score(y_val, proba)`` then ``accuracy_score(y_val, pred)``: the run scored the
    AUC of ``pred``, the labels (0.93 for the notebook's 0.99)."""
    fit = (
        "sc = StandardScaler().fit(X_train)\n"
        "X_tr_s, X_va_s = sc.transform(X_train), sc.transform(X_val)\n"
        "clf = LogisticRegression().fit(X_tr_s, y_train)"
    )
    evaluate = (
        "proba = clf.predict_proba(X_va_s)[:, 1]\n"
        "pred = (proba > 0.5).astype(int)\n"
        "print('AUC', roc_auc_score(y_val, proba))\n"
        "print('Accuracy', accuracy_score(y_val, pred))"
    )
    prepared = prepare_user_notebook(_nb(LOAD, fit, evaluate), load_task(BREAST_CANCER))
    cell = next(b for b in prepared.notebook.code_blocks if b.origin == "mlestar:validation")
    assert "np.asarray(proba)" in cell.source
    namespace, printed = _run(prepared.notebook, monkeypatch)
    assert _score(printed) == pytest.approx(
        roc_auc_score(namespace["y_val"], namespace["proba"])  # type: ignore[arg-type]
    )


def test_a_models_own_score_of_the_validation_rows_is_where_it_is_scored(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """inputs/r7_score: a k-NN fitted on scaled rows, ``print("val acc", knn.score(X_val_s,
    y_val))``: the run cross-validated ``knn`` on its training rows instead (its note said "by
    3-fold cross-validation of `knn` on `X_train_s`"), not on the rows the notebook validates
    on.  Its training score (``knn.score(X_train_s, y_train)``) is no validation."""
    scaled = (
        "from sklearn.neighbors import KNeighborsClassifier\n"
        "from sklearn.preprocessing import MinMaxScaler\n"
        "mm = MinMaxScaler()\n"
        "X_train_s = mm.fit_transform(X_train)\n"
        "X_val_s = mm.transform(X_val)"
    )
    fit = (
        "knn = KNeighborsClassifier(n_neighbors=7)\n"
        "knn.fit(X_train_s, y_train)\n"
        "print('train acc', knn.score(X_train_s, y_train))\n"
        "print('val acc', knn.score(X_val_s, y_val))"
    )
    prepared = prepare_user_notebook(_nb(LOAD, scaled, fit), load_task(BREAST_CANCER))
    assert "`knn.score` (`X_val_s`, `y_val`)" in prepared.note
    namespace, printed = _run(prepared.notebook, monkeypatch)
    knn, x_val_s = namespace["knn"], namespace["X_val_s"]
    expected = roc_auc_score(namespace["y_val"], knn.predict_proba(x_val_s)[:, 1])  # type: ignore[attr-defined, arg-type]
    assert _score(printed) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("function", "call", "fitted_on"),
    [
        (TRAIN_AND_EVALUATE, "train_and_evaluate(model, name)", ("X_train", "y_train")),
        (  # its parameters are the call's rows
            TRAIN_AND_EVALUATE.replace("(model, name)", "(model, name, Xa=None, ya=None)").replace(
                "fit(X_train, y_train)", "fit(Xa, ya)"
            ),
            "train_and_evaluate(model, name, X_train, ya=y_train)",
            ("X_train", "y_train"),
        ),
        (  # rows of the function's own loop over folds: no cell after the loop can name them
            TRAIN_AND_EVALUATE.replace(
                "    model.fit(X_train, y_train)\n",
                "    for tr, va in KFold(3).split(X):\n        model.fit(X.iloc[tr], y.iloc[tr])\n",
            ),
            "train_and_evaluate(model, name)",
            None,
        ),
    ],
)
def test_a_model_fitted_by_the_function_a_loop_calls_is_fitted_on_the_callers_rows(
    function: str, call: str, fitted_on: tuple[str, str] | None
) -> None:
    """The loop's models are fitted where the caller's names reach: a parameter is read from
    the call; a name of the function's own is out of a later cell's reach."""
    compare = COMPARE.replace("train_and_evaluate(model, name)", call)
    fits = analyze(_nb(LOAD, function, compare)).fits
    looped = [f for f in fits if f.over == "models" and not f.scope]
    assert [f.args for f in looped] == ([fitted_on] if fitted_on else [])


def test_models_compared_by_their_own_score_are_each_scored_on_those_rows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``for name, model in models.items(): model.fit(X_tr_s, y_train); print(name,
    model.score(X_va_s, y_val))``: every model is scored on the rows its score is given and
    the best is kept, not the loop's last (the stump)."""
    scaled = (
        "sc = StandardScaler().fit(X_train)\n"
        "X_tr_s, X_va_s = sc.transform(X_train), sc.transform(X_val)\n"
        "models = {'logreg': LogisticRegression(),\n"
        "          'stump': DecisionTreeClassifier(max_depth=1, random_state=0)}"
    )
    loop = (
        "for name, model in models.items():\n"
        "    model.fit(X_tr_s, y_train)\n"
        "    print(name, model.score(X_va_s, y_val))"
    )
    prepared = prepare_user_notebook(_nb(LOAD, scaled, loop), load_task(BREAST_CANCER))
    assert "for each model of `models`" in prepared.note
    namespace, printed = _run(prepared.notebook, monkeypatch)
    x_va_s, y_val = namespace["X_va_s"], namespace["y_val"]
    best = max(
        roc_auc_score(y_val, m.predict_proba(x_va_s)[:, 1])  # type: ignore[arg-type]
        for m in namespace["models"].values()  # type: ignore[attr-defined]
    )
    assert _score(printed) == pytest.approx(best)


DIABETES = BREAST_CANCER.parent / "diabetes"
ALIASED = (
    "import pandas as pd\n"
    "from sklearn.ensemble import RandomForestRegressor\n"
    "from sklearn.metrics import mean_squared_error as mse, mean_absolute_error as mae\n"
    "df = pd.read_csv('train.csv')\n"
    "features = [c for c in df.columns if c not in ('id', 'progression')]\n"
    "train_df, valid_df = df.iloc[:260], df.iloc[260:]",
    "rf = RandomForestRegressor(n_estimators=20, random_state=0)\n"
    "rf.fit(train_df[features].values, train_df['progression'])",
    "pred = rf.predict(valid_df[features].values)\n"
    "print('MAE', mae(valid_df['progression'], pred))\n"
    "print('RMSE', mse(valid_df['progression'], pred) ** 0.5)",
)


def test_a_metric_imported_under_a_short_name_is_the_notebooks_metric_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``from sklearn.metrics import mean_squared_error as mse`` and a split by rows
    (``df.iloc[:260]``): the calls were not seen, so the run cross-validated ``rf`` on its
    training rows instead of scoring the rows the notebook validates on."""
    prepared = prepare_user_notebook(_nb(*ALIASED), load_task(DIABETES))
    assert "`valid_df['progression']`, `pred`" in prepared.note
    namespace, printed = _run(prepared.notebook, monkeypatch, DIABETES)
    expected = mean_squared_error(namespace["valid_df"]["progression"], namespace["pred"]) ** 0.5  # type: ignore[index]
    assert _score(printed) == pytest.approx(expected)


def test_the_metric_of_a_call_under_a_short_name_is_the_tasks(tmp_path: Path) -> None:
    """The same notebook printing only ``mae(valid_df['progression'], pred)``, in a folder with
    no task.json: its task was graded by RMSE (the default for numbers), not MAE."""
    for name in ("train.csv", "test.csv"):
        shutil.copy(DIABETES / "input" / name, tmp_path / name)
    only_mae = ALIASED[2].split("\nprint('RMSE'")[0]
    task = task_from_notebook(_nb(ALIASED[0], ALIASED[1], only_mae), tmp_path, "mine.ipynb")
    assert task.metric_name == "mae"


@pytest.mark.parametrize(
    "cell",
    [
        "%%time\nmodel.fit(X_train, y_train)\n"
        "rmse = mean_squared_error(y_val, model.predict(X_val), squared=False)",
        "%matplotlib inline\nrmse = mean_squared_error(y_val, model.predict(X_val), squared=False)",
        "rmse = mean_squared_error(y_val, model.predict(X_val), squared=False)\n!nvidia-smi",
    ],
)
def test_a_cell_with_ipython_lines_gets_its_old_calls_repaired(cell: str) -> None:
    """inputs/r9_drops with ``%%time`` above its training cell (Kaggle's habit): a cell with an
    IPython line did not parse, so its ``squared=False`` (gone in scikit-learn 1.6) was left as
    written and the notebook failed at it.  The cell magic stays first, the import below it."""
    nb, changes = repair_old_calls(_nb(cell))
    source = nb.code_blocks[0].source
    assert "squared=False" not in source and "root_mean_squared_error(y_val" in source
    if cell.startswith("%%"):  # a cell magic is the cell's first line, or it is no magic
        assert source.split("\n")[0] == "%%time"
    assert [line for line in cell.split("\n") if line[:1] in "%!"] == [
        line for line in source.split("\n") if line[:1] in "%!"
    ]
    assert restore_paths(source, "b1", changes) == cell


HELPER = (
    "import numpy as np\n"
    "from sklearn.metrics import mean_squared_error\n"
    "from sklearn.preprocessing import StandardScaler\n"
    "def rmse(y_true, y_pred):\n"
    '    """Root mean squared error."""\n'
    "    return np.sqrt(mean_squared_error(y_true, y_pred))",
    "sc = StandardScaler().fit(train_df[features])\n"
    "rf.fit(sc.transform(train_df[features]), train_df['progression'])\n"
    "print('train', rmse(train_df['progression'], rf.predict(sc.transform(train_df[features]))))\n"
    "pred = rf.predict(sc.transform(valid_df[features]))\n"
    "print('valid', rmse(valid_df['progression'], pred))",
)


def test_a_metric_helper_of_the_notebook_is_its_metric_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """House Prices' ``def rmse(y, y_pred): return np.sqrt(mean_squared_error(y, y_pred))``,
    called on the training rows and then on the validation rows: the run cross-validated the
    model on its training rows instead of scoring the rows the notebook validates on."""
    cells = (ALIASED[0], HELPER[0], ALIASED[1].split("\n")[0], HELPER[1])
    prepared = prepare_user_notebook(_nb(*cells), load_task(DIABETES))
    assert "`valid_df['progression']`, `pred`" in prepared.note
    namespace, printed = _run(prepared.notebook, monkeypatch, DIABETES)
    expected = mean_squared_error(namespace["valid_df"]["progression"], namespace["pred"]) ** 0.5  # type: ignore[index]
    assert _score(printed) == pytest.approx(expected)


def test_a_method_named_like_a_metric_helper_is_no_metric_call() -> None:
    """``def score(y, p): return roc_auc_score(y, p)`` beside ``model.score(X_val, y_val)``:
    only the helper's own calls are metric calls (the method's rows are no labels)."""
    helper = "def score(y, p):\n    return roc_auc_score(y, p)"
    fit = (
        "clf = LogisticRegression().fit(X_train, y_train)\n"
        "print(clf.score(X_val, y_val), score(y_val, clf.predict_proba(X_val)[:, 1]))"
    )
    calls = [m for m in analyze(_nb(LOAD, helper, fit)).metrics if not m.scope]
    assert [(m.func, m.args[0]) for m in calls] == [("roc_auc_score", "y_val")]


@pytest.mark.parametrize(
    ("first", "final", "model"),
    [
        (  # a baseline first, then the model the notebook submits
            "from sklearn.dummy import DummyClassifier\n"
            "dummy = DummyClassifier(strategy='most_frequent').fit(X_train, y_train)\n"
            "print('baseline acc', dummy.score(X_val, y_val))",
            "clf = make_pipeline(StandardScaler(), LogisticRegression())\nclf.fit(X_train, y_train)",
            "clf",
        ),
        (  # settings tried in a loop, then the best one fitted
            "from sklearn.neighbors import KNeighborsClassifier\n"
            "scores = []\n"
            "for k in (1, 15):\n"
            "    knn = KNeighborsClassifier(k).fit(X_train, y_train)\n"
            "    scores.append(knn.score(X_val, y_val))\n"
            "best_k = (1, 15)[scores.index(max(scores))]",
            "knn = KNeighborsClassifier(best_k)\nknn.fit(X_train, y_train)",
            "knn",
        ),
    ],
)
def test_the_model_the_notebook_ends_with_is_scored_not_the_first_one(
    first: str, final: str, model: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A student's ``DummyClassifier`` baseline fitted on the split before the real model: the
    run scored (and refined) the baseline, AUC 0.5, while the notebook submits the model."""
    submit = (
        "test = pd.read_csv('test.csv')\n"
        f"pd.DataFrame({{'id': test.id, 'target': {model}.predict_proba(test[X.columns])[:, 1]}})"
        ".to_csv('submission.csv', index=False)"
    )
    prepared = prepare_user_notebook(_nb(LOAD, first, final, submit), load_task(BREAST_CANCER))
    cell = next(b for b in prepared.notebook.code_blocks if b.origin == "mlestar:validation")
    assert f"_mlestar_score({model}, X_val, y_val)" in cell.source
    blocks = [b.source for b in prepared.notebook.code_blocks if "to_csv" not in b.source]
    namespace, printed = _run(_nb(*blocks), monkeypatch)
    fitted = namespace[model]
    expected = roc_auc_score(namespace["y_val"], fitted.predict_proba(namespace["X_val"])[:, 1])  # type: ignore[attr-defined, arg-type]
    assert _score(printed) == pytest.approx(expected)


def test_a_loop_storing_what_the_notebooks_fitting_function_returns_is_training() -> None:
    """inputs/r1_loop: ``results[name] = train_and_evaluate(model, name)`` looked like a new
    column (``df["col"] = ...``): the loop was a feature part, which the ablation and the
    "drop the engineered feature group" plan took out, so every such candidate failed at
    ``max(results, ...)`` (``max() arg is an empty sequence``)."""
    a = analyze(_nb(LOAD, TRAIN_AND_EVALUATE, COMPARE))
    roles = {s.role for s in a.cell("b3").segments}
    assert "train" in roles and "features" not in roles


def test_preprocessing_switched_off_passes_the_other_rows_through_too() -> None:
    """inputs/r6_torch: ``X_tr = scaler.fit_transform(X_tr)``, ``X_val = scaler.transform(X_val)``
    and ``X_test = scaler.transform(test[cols].values)`` in one cell: the ablation and the plan
    "Skip this preprocessing step" took out the first two only, and every such candidate failed
    with ``NotFittedError`` (six of the run's candidates)."""
    cell = (
        "scaler = StandardScaler()\n"
        "X_tr = scaler.fit_transform(X_tr)\n"
        "X_val = scaler.transform(X_val)\n"
        "X_test = scaler.transform(test[feature_cols].values.astype(np.float32))\n"
        "X_both = np.vstack([scaler.transform(X_a), scaler.transform(X_b)])"
    )
    assert preprocessing_off(cell) == (
        "scaler = StandardScaler()\n"
        "X_test = test[feature_cols].values.astype(np.float32)\n"
        "X_both = np.vstack([X_a, X_b])"
    )


def test_a_linear_model_a_search_tunes_by_name_gets_no_basis_pipeline_in_its_place() -> None:
    """inputs/r14_search: ``GridSearchCV(model, {"regressor__ridge__alpha": ...})`` around a
    ``TransformedTargetRegressor`` of ``Pipeline([("sc", ...), ("ridge", Ridge())])``: the
    plans putting ``make_pipeline(SplineTransformer(), Ridge())`` (or ``PolynomialFeatures``) in
    Ridge's place all failed, ``Invalid parameter 'alpha' for estimator Pipeline``."""
    cells = (
        "import numpy as np\nimport pandas as pd\n"
        "from sklearn.compose import TransformedTargetRegressor\n"
        "from sklearn.linear_model import Ridge\nfrom sklearn.pipeline import Pipeline\n"
        "from sklearn.preprocessing import StandardScaler\n"
        "from sklearn.model_selection import GridSearchCV\n"
        "df = pd.read_csv('train.csv')\n"
        "X, y = df.drop(columns=['id', 'progression']), df['progression']",
        "model = TransformedTargetRegressor(\n"
        "    regressor=Pipeline([('sc', StandardScaler()), ('ridge', Ridge())]),\n"
        "    func=np.log, inverse_func=np.exp)\n"
        "search = GridSearchCV(model, {'regressor__ridge__alpha': [0.1, 1.0]}, cv=3,\n"
        "                      scoring='neg_root_mean_squared_error')\n"
        "search.fit(X, y)",
    )
    model_parts = [p for p in parts(_nb(*cells)) if p.role == "model"]
    assert model_parts and all(p.pinned for p in model_parts)
    tried = {s.id for p in model_parts for s, _ in applicable(p)}
    assert not tried & {"spline_features", "pairwise_interactions"}
