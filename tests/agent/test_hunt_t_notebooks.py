"""Hunt T (session 36): outsiders' notebooks read without a kernel — a ``DummyClassifier``
baseline beside the real model, a model whose class the notebook needs, cleanup cells dropping
columns, a split imported under a short name, a model fitted by the notebook's own function, a
metric helper with settings of its own, and the run's end when the notebook is too slow."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from mlestar_jupyter.agent.config import Budget, RunConfig
from mlestar_jupyter.agent.policy import AblationSummary
from mlestar_jupyter.agent.run import _end_status, run_mlestar
from mlestar_jupyter.agent.search import Solution
from mlestar_jupyter.agent.submission import FinalResult
from mlestar_jupyter.importer.notebook_task import call_metric
from mlestar_jupyter.journal import Node, RunJournal, read_events
from mlestar_jupyter.notebook.roles import analyze
from mlestar_jupyter.offline.user_code.feature_edits import passthrough_step
from mlestar_jupyter.offline.user_code.library import applicable
from mlestar_jupyter.offline.user_code.parts import parts
from mlestar_jupyter.offline.user_code.submission_cell import _model_fit
from mlestar_jupyter.offline.user_refiner import NothingToRefine, UserCodeRefiner
from mlestar_jupyter.task import load_task

from .notebooks import BREAST_CANCER
from .notebooks import code_notebook as _nb
from .scripted_policy import ScriptedPolicy

LOAD = (
    "import pandas as pd\n"
    "from sklearn.linear_model import LogisticRegression\n"
    "from sklearn.model_selection import train_test_split\n"
    "from sklearn.preprocessing import StandardScaler\n"
    "from sklearn.pipeline import make_pipeline\n"
    "df = pd.read_csv('train.csv')\n"
    "X = df.drop(columns=['id', 'target']); y = df['target']\n"
    "X_train, X_val, y_train, y_val = train_test_split(X, y, test_size=0.25, random_state=1)"
)
BASELINE = (
    "from sklearn.dummy import DummyClassifier\n"
    "dummy = DummyClassifier(strategy='most_frequent')\n"
    "dummy.fit(X_train, y_train)\n"
    "print('baseline acc', dummy.score(X_val, y_val))"
)
MODEL = (
    "clf = make_pipeline(StandardScaler(), LogisticRegression(C=1.0))\nclf.fit(X_train, y_train)"
)


@pytest.mark.parametrize(
    "baseline",
    [
        BASELINE,
        # built and fitted in one line, and fitted in a cell of its own
        "from sklearn.dummy import DummyClassifier\n"
        "base = DummyClassifier().fit(X_train, y_train)\nprint(base.score(X_val, y_val))",
    ],
)
def test_a_baseline_beside_the_real_model_is_no_part_to_refine(baseline: str) -> None:
    """Hunt R: a student's ``DummyClassifier`` fitted and scored as the reference before the
    real model was a refinable model part, and 3 of a run's 7 tries went to it (a better
    baseline is no better notebook)."""
    nb = _nb(LOAD, baseline, MODEL)
    assert {p.block_id for p in parts(nb) if p.role in ("model", "train")} == {"b3"}
    study = UserCodeRefiner().ablation(nb, [])
    assert study.variants and all(v.block_id != "b2" for v in study.variants)


def test_a_model_compared_first_and_set_aside_is_no_part_to_refine() -> None:
    """inputs/t5_knn_grid: ``gnb = GaussianNB().fit(...)`` scored in its own cell, then a
    KNN tuned by ``GridSearchCV`` that the notebook submits: the Naive Bayes cell was a model
    part (a linear model put in its place, an ablation of it), though nothing after it reads
    ``gnb``: its refinements change neither the score nor the submission."""
    compared = (
        "from sklearn.naive_bayes import GaussianNB\n"
        "gnb = GaussianNB().fit(X_train, y_train)\nprint('NB', gnb.score(X_val, y_val))"
    )
    submit = "pd.DataFrame({'pred': clf.predict(X_val)}).to_csv('submission.csv', index=False)"
    nb = _nb(LOAD, compared, MODEL, submit)
    assert {p.block_id for p in parts(nb) if p.role in ("model", "train")} == {"b3"}


def test_a_model_whose_settings_a_later_cell_reads_is_still_a_part() -> None:
    """Settings tried in a loop (``best_k`` read by the next cell), and a booster's parameters
    fitted by the last cell, which no cell after it reads: both stay parts."""
    loop = (
        "from sklearn.neighbors import KNeighborsClassifier\nscores = []\n"
        "for k in (1, 15):\n"
        "    knn = KNeighborsClassifier(k).fit(X_train, y_train)\n"
        "    scores.append(knn.score(X_val, y_val))\n"
        "best_k = (1, 15)[scores.index(max(scores))]"
    )
    final = "knn = KNeighborsClassifier(best_k)\nknn.fit(X_train, y_train)"
    assert {p.block_id for p in parts(_nb(LOAD, loop, final))} >= {"b2", "b3"}
    params = "import lightgbm as lgb\nparams = {'objective': 'binary', 'num_leaves': 15}"
    booster = (
        "model = lgb.train(params, lgb.Dataset(X_train, y_train), num_boost_round=50)\n"
        "print('Final Validation Performance:', model.predict(X_val).mean())"
    )
    assert {p.block_id for p in parts(_nb(LOAD, params, booster))} == {"b2", "b3"}


def test_a_baseline_alone_is_still_the_model_to_refine() -> None:
    """A notebook whose only model is the baseline: a better model is what a refinement gives."""
    assert {p.block_id for p in parts(_nb(LOAD, BASELINE))} == {"b2"}


PINNED = (
    "from sklearn.naive_bayes import GaussianNB\n"
    "nb_model = GaussianNB()\n"
    "nb_model.fit(X_train, y_train)",
    "print(nb_model.theta_[:, :3])",
)


def test_a_pinned_model_with_no_change_left_says_why_nothing_was_refined() -> None:
    """Hunt R: a model the rest of the notebook needs as the class it is (``nb.theta_``), with
    no change left that keeps the class: the run ended "nothing in your notebook could be
    refined: no cell builds a model", which its notebook plainly does."""
    nb = _nb(LOAD, *PINNED)
    with pytest.raises(NothingToRefine) as e:
        UserCodeRefiner().extract(nb, AblationSummary("", None), [])
    why = str(e.value)
    assert why.startswith("the model of b2 must stay a GaussianNB, as the notebook reads")
    task = load_task(BREAST_CANCER)
    user = Solution(nb, Node("user", None, "init", "user", "yours", None, "user", 0.9, True))
    final = FinalResult(True, "best", 0.9, Path("final/submission.csv"), None)
    status, reason = _end_status(task, final, [user], ("done", ""), "", False, 0, None, why)
    assert status == "no_improvement" and "no cell builds a model" not in reason
    assert reason == f"nothing in your notebook could be refined: {why}; your cells are unchanged"


@pytest.mark.parametrize(
    ("cell", "role"),
    [
        ("train = train.drop(columns=['Name', 'Ticket', 'Cabin'])", "features"),
        ("df = df.drop(['PassengerId'], axis=1)", "features"),
        ("df.drop('Cabin', axis=1, inplace=True)", "features"),
        (
            "train.drop(columns=DROP, inplace=True)\ntest.drop(columns=DROP, inplace=True)",
            "features",
        ),
        ("for d in (train, test):\n    d.drop(columns=['Name'], inplace=True)", "features"),
        ("train = train.drop(train[train.GrLivArea > 4000].index)", "preprocess"),
    ],
)
def test_a_cleanup_cell_dropping_columns_is_feature_work(cell: str, role: str) -> None:
    """Hunt R: ``train = train.drop(columns=[...])`` had the role ``other``: a choice of the
    features (columns dropped) or a cleaning of the rows (rows dropped)."""
    a = analyze(_nb("import pandas as pd\ntrain = pd.read_csv('train.csv')", cell))
    assert a.cell("b2").role == role


def test_features_taken_from_a_table_are_no_cleanup() -> None:
    """``X = df.drop(columns=["target"])`` takes the features out of a table: not a cleanup."""
    a = analyze(_nb("X = df.drop(columns=['target'])"))
    assert a.cell("b1").role == "other"


@pytest.mark.parametrize(
    ("imports", "call"),
    [
        ("from sklearn.model_selection import train_test_split as tts", "tts"),
        ("import sklearn.model_selection as ms", "ms.train_test_split"),
    ],
)
def test_a_split_under_a_short_name_is_the_split(imports: str, call: str) -> None:
    """Hunt R: only metric functions were read through their import's alias; ``tts(X, y)`` was
    no split, so the run cross-validated the model instead of scoring the notebook's rows."""
    cell = (
        f"import pandas as pd\n{imports}\ndf = pd.read_csv('train.csv')\n"
        f"X_tr, X_va, y_tr, y_va = {call}(df.drop(columns=['target']), df['target'])"
    )
    a = analyze(_nb(cell))
    assert a.split == ("b1", ("X_tr", "X_va", "y_tr", "y_va"))
    assert a.target == "target" and a.cell("b1").role == "subsample"


TRAIN_MODEL = (
    "from sklearn.ensemble import RandomForestClassifier\n"
    "def train_model(X, y):\n"
    "    m = RandomForestClassifier(n_estimators=50, random_state=0)\n"
    "    m.fit(X, y)\n"
    "    return m"
)


def test_fits_are_in_reading_order() -> None:
    """Hunt R: a fit made by the notebook's own function (``base = train_model(X, y)``) sat at
    the end of the fits, after the model fitted in a later cell, so the submission cell took
    ``base``, not the model the notebook ends with, as the last fit."""
    nb = _nb(LOAD, TRAIN_MODEL, "base = train_model(X_train, y_train)", MODEL)
    fits = [(f.block_id, f.var) for f in analyze(nb).fits if not f.scope]
    assert fits == [("b3", "base"), ("b4", "clf")]
    fit = _model_fit(nb)
    assert fit is not None and fit.var == "clf"


def test_a_loops_fit_comes_before_a_later_line_of_its_cell() -> None:
    """``for c in (0.1, 1.0): m = LogisticRegression(C=c).fit(...)`` then ``final.fit(...)``
    below it: the loop's fit was listed after the later line's (the syntax tree is walked
    breadth first)."""
    cell = (
        "for c in (0.1, 1.0):\n"
        "    m = LogisticRegression(C=c)\n"
        "    m.fit(X_train, y_train)\n"
        "final = LogisticRegression(C=1.0)\n"
        "final.fit(X_train, y_train)"
    )
    assert [f.var for f in analyze(_nb(LOAD, cell)).fits] == ["m", "final"]


@pytest.mark.parametrize(
    ("helper", "metric"),
    [
        ("def score(y, p):\n    return f1_score(y, p, average='macro')", "f1_macro"),
        ("def score(y_true, y_pred):\n    return f1_score(y_true, y_pred)", "f1"),
        (
            "def rmse(y, p):\n    return mean_squared_error(y, p, squared=False)",
            "rmse",
        ),
    ],
)
def test_a_metric_helper_with_settings_is_the_metric_it_computes(helper: str, metric: str) -> None:
    """Hunt R: ``def score(y, p): return f1_score(y, p, average='macro')`` was no metric helper
    (its settings were refused), so its call was not seen; read with them, macro F1, not the
    binary F1."""
    fit = (
        "from sklearn.metrics import f1_score, mean_squared_error\n"
        "clf = LogisticRegression().fit(X_train, y_train)\n"
        f"print({helper.split()[1].split('(')[0]}(y_val, clf.predict(X_val)))"
    )
    nb = _nb(LOAD, helper, fit)
    calls = [m for m in analyze(nb).metrics if not m.scope]
    assert [m.args for m in calls] == [("y_val", "clf.predict(X_val)")]
    assert call_metric(calls[0], nb) == metric


class _TooSlow:
    """An executor whose every notebook runs past its limit (no kernel is started)."""

    def run(self, nb, *, input_dir, workdir, timeout):  # type: ignore[no-untyped-def]
        return SimpleNamespace(
            ok=False,
            score=None,
            error=f"timed out after {timeout:g}s in block b2; the kernel was killed",
            timed_out=True,
            duration=float(timeout),
            notebook=None,
        )


def test_a_notebook_that_outruns_its_time_limit_ends_timed_out(tmp_path: Path) -> None:
    """Hunt R: a notebook that ran past the execution's limit ended ``not_understood``; it was
    understood, it was too slow: the run ends ``timed_out``, its reason saying how to give it
    more time."""
    task = load_task(BREAST_CANCER)
    config = RunConfig(
        num_models=1,
        inner_steps=1,
        outer_steps=1,
        parallel_solutions=1,
        ensemble_rounds=0,
        debug_rounds=0,
        budget=Budget(wall_seconds=120, exec_timeout=5),
    )
    journal = RunJournal.create(tmp_path / "run", {"task_dir": str(BREAST_CANCER)})
    start = _nb(
        LOAD,
        MODEL,
        "from sklearn.metrics import roc_auc_score\n"
        "print(roc_auc_score(y_val, clf.predict_proba(X_val)[:, 1]))",
    )
    out = run_mlestar(
        task, config, journal, _TooSlow(), lambda i: ScriptedPolicy(), start_notebook=start
    )
    journal.close()
    assert out.status == "timed_out"
    assert "it ran past the time limit of one execution: timed out after" in out.stop_reason
    assert "--exec-timeout" in out.stop_reason
    finished = next(e for e in read_events(journal.events_path) if e.type == "run_finished")
    assert finished.data["status"] == "timed_out"


@pytest.mark.parametrize(
    ("model", "after"),
    [
        (
            "make_pipeline(SimpleImputer(strategy='median'), StandardScaler(), Ridge(alpha=1.0))",
            "make_pipeline(SimpleImputer(strategy='median'), \"passthrough\", Ridge(alpha=1.0))",
        ),
        ("make_pipeline(SimpleImputer(), Ridge())", None),
        ("Pipeline([('fill', KNNImputer()), ('m', Ridge())])", None),
    ],
)
def test_the_pipeline_step_switched_off_is_no_imputer(model: str, after: str | None) -> None:
    """inputs/t2_homework_pipeline: the ablation "pipeline step off" took the pipeline's
    ``SimpleImputer`` out of a table with missing values, and each such variant (4 of the
    run's 21 candidates) failed, "Input X contains NaN"."""
    src = f"model = {model}\nmodel.fit(X_train, y_train)"
    new = passthrough_step(src)
    assert new == (f"model = {after}\nmodel.fit(X_train, y_train)" if after else None)


LGBM = (
    "import lightgbm as lgb\n"
    "reg = lgb.LGBMRegressor(n_estimators=400, learning_rate=0.05, num_leaves=15, verbose=-1)\n"
    "reg.fit(X_train, y_train, eval_set=[(X_val, y_val)], eval_metric='l1'{stop})"
)


@pytest.mark.parametrize(
    ("stop", "more_trees"),
    [
        (", callbacks=[lgb.early_stopping(30, verbose=False)]", False),
        (", early_stopping_rounds=30", False),
        ("", True),
    ],
)
def test_more_trees_is_no_plan_for_a_booster_stopped_early(stop: str, more_trees: bool) -> None:
    """inputs/t4_lgbm_early: an ``LGBMRegressor`` of 400 rounds stopped early at its best
    iteration: "Three times as many trees" scored what the notebook did, one candidate spent
    on it by each path (its learning rate cut by three, with the trees, is a change)."""
    nb = _nb(LOAD, LGBM.format(stop=stop))
    model = next(p for p in parts(nb) if p.role == "model")
    tried = [s.id for s, _ in applicable(model)]
    assert ("more_estimators" in tried) == more_trees and "slower_learning" in tried
