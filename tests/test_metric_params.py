"""Metrics outsiders' task.json files and notebooks name that were refused as unknown: F-beta
("F2", "fbeta_score(beta=0.5)", "macro f2"), the Jaccard index (binary of the positive class,
"macro jaccard"; "IoU" only of class labels), Hamming loss, max error, the pinball (quantile)
loss with its alpha, and top-k accuracy with its k.  Each one's value is scikit-learn's; the
notebooks' metric code, the validation cell added to a user's notebook and the grader agree."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn import metrics as skm

from mlestar_jupyter.evaluator.submission import GradingSpec, check_submission, score_aligned
from mlestar_jupyter.metrics import UnknownMetricError, get_metric
from mlestar_jupyter.offline.metric_code import metric_source
from mlestar_jupyter.task.spec_keys import metric_fields


@pytest.mark.parametrize(
    ("name", "canon", "direction"),
    [
        ("f2", "f2", "maximize"),
        ("F2 score", "f2", "maximize"),
        ("f-beta (beta=2)", "f2", "maximize"),
        ("fbeta_score(beta=0.5)", "f0.5", "maximize"),
        ("F0.5", "f0.5", "maximize"),
        ("macro f2", "f2_macro", "maximize"),
        ("F2 (macro)", "f2_macro", "maximize"),
        ("fbeta_score(beta=2, average='macro')", "f2_macro", "maximize"),
        ("F-beta score with beta = 1", "f1", "maximize"),  # F1 is beta = 1
        ("jaccard", "jaccard", "maximize"),
        ("Jaccard score", "jaccard", "maximize"),
        ("Jaccard Index", "jaccard", "maximize"),
        ("Jaccard index (IoU)", "jaccard", "maximize"),
        ("IoU of the predicted class labels", "jaccard", "maximize"),
        ("macro jaccard", "jaccard_macro", "maximize"),
        ("jaccard_score(average='macro')", "jaccard_macro", "maximize"),
        ("hamming loss", "hamming_loss", "minimize"),
        ("hamming_loss", "hamming_loss", "minimize"),
        ("max error", "max_error", "minimize"),
        ("max_error", "max_error", "minimize"),
        ("Maximum Absolute Error", "max_error", "minimize"),
        ("pinball loss", "pinball@0.5", "minimize"),
        ("quantile loss", "pinball@0.5", "minimize"),
        ("mean_pinball_loss(alpha=0.9)", "pinball@0.9", "minimize"),
        ("quantile 0.9 loss", "pinball@0.9", "minimize"),
        ("Pinball loss (alpha = 0.1)", "pinball@0.1", "minimize"),
        ("90th percentile quantile loss", "pinball@0.9", "minimize"),
        ("quantile loss (tau = 0.25) over 2 years", "pinball@0.25", "minimize"),
        ("top-3 accuracy", "top3_accuracy", "maximize"),
        ("top 5 accuracy", "top5_accuracy", "maximize"),
        ("top_k_accuracy_score k=3", "top3_accuracy", "maximize"),
        ("Top-1 accuracy", "accuracy", "maximize"),
    ],
)
def test_names_outsiders_write_resolve(name: str, canon: str, direction: str) -> None:
    m = get_metric(name)
    assert (m.name, m.direction) == (canon, direction)
    again = get_metric(m.name)  # the canonical name a run writes reads back the same
    assert (again.name, again.beta, again.alpha, again.k) == (m.name, m.beta, m.alpha, m.k)


def test_the_parameters_and_kinds() -> None:
    f2, f05 = get_metric("f2"), get_metric("F0.5")
    assert (f2.beta, f2.positive_class, f2.kind) == (2.0, True, "label")
    assert (f05.beta, get_metric("macro f2").positive_class) == (0.5, False)
    q = get_metric("quantile 0.9 loss")
    assert (q.alpha, q.kind) == (0.9, "regression")
    top = get_metric("top-3 accuracy")
    assert (top.kind, top.k) == ("ranked", 3)
    assert get_metric("jaccard").positive_class and not get_metric("macro jaccard").positive_class


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("IoU", "IoU (intersection over union) is ambiguous"),
        ("mean IoU", "is ambiguous"),
        ("IoU of the segmentation masks", "segmentation masks or boxes is not graded here"),
        ("bounding box IoU", "is not graded here"),
        ("top-k accuracy", "top-k accuracy needs its k: write e.g. 'top-3 accuracy'"),
        ("top_k_accuracy_score", "needs its k"),
        ("f-beta", "F-beta needs its beta: write e.g. 'f2'"),
        ("F-beta score", "needs its beta"),
        ("fbeta_score(beta=2, average='weighted')", "weighted average of F-beta is not graded"),
        ("quantile loss (0.1, 0.5, 0.9)", "several quantiles (0.1, 0.5, 0.9)"),
        ("pinball loss alpha=1.5", "between 0 and 1"),
    ],
)
def test_ambiguous_names_are_refused_saying_what_to_write(name: str, says: str) -> None:
    with pytest.raises(UnknownMetricError, match=None) as e:
        get_metric(name)
    assert says in str(e.value)


@pytest.mark.parametrize("name", ["weighted jaccard", "samples jaccard", "weighted quantile loss"])
def test_a_qualified_name_is_still_refused(name: str) -> None:
    with pytest.raises(UnknownMetricError, match="expected one of"):
        get_metric(name)


def test_a_metric_object_with_its_parameter() -> None:
    """task.json's ``{"name": "fbeta", "beta": 2}`` is F2 (the name alone: refused)."""
    for spec, canon in (
        ({"name": "fbeta", "beta": 2}, "f2"),
        ({"name": "F-beta", "beta": 0.5, "average": "macro"}, "f0.5_macro"),
        ({"name": "pinball_loss", "alpha": 0.9}, "pinball@0.9"),
        ({"metric_name": "quantile loss", "quantile": 0.1}, "pinball@0.1"),
        ({"name": "top_k_accuracy", "k": 3}, "top3_accuracy"),
    ):
        name, _ = metric_fields(spec)
        assert name is not None and get_metric(name).name == canon, spec


def test_values_are_scikit_learns() -> None:
    y = np.array(["yes", "no", "yes", "no", "no", "yes", "yes", "no"])
    p = np.array(["yes", "no", "no", "no", "yes", "yes", "no", "no"])
    assert get_metric("f2")(y, p) == pytest.approx(skm.fbeta_score(y, p, beta=2, pos_label="yes"))
    assert get_metric("F0.5")(y, p) == pytest.approx(
        skm.fbeta_score(y, p, beta=0.5, pos_label="yes")
    )
    assert get_metric("f2")(y, p) != pytest.approx(get_metric("f1")(y, p))
    assert get_metric("jaccard")(y, p) == pytest.approx(skm.jaccard_score(y, p, pos_label="yes"))
    three, three_p = np.array([0, 1, 2, 1, 0, 2, 2]), np.array([0, 1, 1, 1, 0, 0, 2])
    assert get_metric("macro f2")(three, three_p) == pytest.approx(
        skm.fbeta_score(three, three_p, beta=2, average="macro")
    )
    assert get_metric("f2")(three, three_p) == pytest.approx(  # more than two: their mean
        skm.fbeta_score(three, three_p, beta=2, average="macro")
    )
    assert get_metric("macro jaccard")(three, three_p) == pytest.approx(
        skm.jaccard_score(three, three_p, average="macro")
    )
    assert get_metric("hamming loss")(three, three_p) == pytest.approx(
        1 - skm.accuracy_score(three, three_p)
    )
    rng = np.random.RandomState(0)
    yr, pr = rng.rand(40) * 10, rng.rand(40) * 10
    assert get_metric("max error")(yr, pr) == pytest.approx(skm.max_error(yr, pr))
    assert get_metric("mean_pinball_loss(alpha=0.9)")(yr, pr) == pytest.approx(
        skm.mean_pinball_loss(yr, pr, alpha=0.9)
    )
    assert get_metric("pinball loss")(yr, pr) == pytest.approx(skm.mean_absolute_error(yr, pr) / 2)
    proba = rng.dirichlet(np.ones(5), 60)
    classes = np.array(list("abcde"))
    truth = classes[rng.randint(0, 5, 60)]
    top = classes[np.argsort(-proba, axis=1)[:, :3]]
    assert get_metric("top-3 accuracy")(truth, [" ".join(r) for r in top]) == pytest.approx(
        skm.top_k_accuracy_score(truth, proba, k=3, labels=classes)
    )


_PARAMETRIC = ["f2", "f0.5", "f2_macro", "pinball@0.9", "pinball@0.5", "top3_accuracy"]


@pytest.mark.parametrize("name", _PARAMETRIC)
def test_the_notebooks_metric_code_agrees(name: str) -> None:
    rng = np.random.RandomState(1)
    metric = get_metric(name)
    ns: dict = {"np": np}
    if metric.kind == "regression":
        y = rng.rand(50) * 10
        pred = y + rng.randn(50)
        imp, body = metric_source(name, "regression")
        exec(imp + "\n" + body, ns)  # noqa: S102 - the notebooks' metric code
        assert ns["score_predictions"](y, pred) == pytest.approx(metric(y, pred))
        return
    classes = np.array(
        ["benign", "malignant", "other"] if "macro" in name or "top" in name else ["no", "yes"]
    )
    proba = rng.dirichlet(np.ones(len(classes)), 80)
    y = classes[rng.randint(0, len(classes), 80)]
    imp, body = metric_source(name, "classification")
    exec(imp + "\n" + body, ns)  # noqa: S102
    ours = ns["score_predictions"](y, proba, classes)
    if metric.kind == "ranked":
        top = classes[np.argsort(-proba, axis=1, kind="stable")[:, : metric.k]]
        ref = metric(y, [" ".join(r) for r in top])
    else:
        ref = metric(y, classes[proba.argmax(1)])
    assert ours == pytest.approx(ref)


def test_the_notebooks_f2_scores_the_task_s_positive_class() -> None:
    classes = np.array(["benign", "malignant"])
    y = np.array(["benign"] * 6 + ["malignant"] * 4)
    labels = np.array(["benign"] * 4 + ["malignant"] * 5 + ["benign"])
    proba = (labels[:, None] == classes[None, :]).astype(float)
    ns: dict = {"np": np}
    imp, body = metric_source("f2", "classification", "benign")
    exec(imp + "\n" + body, ns)  # noqa: S102
    assert ns["score_predictions"](y, proba, classes) == pytest.approx(
        skm.fbeta_score(y, labels, beta=2, pos_label="benign")
    )


@pytest.mark.parametrize(
    "name", [*_PARAMETRIC, "jaccard", "jaccard_macro", "hamming_loss", "max_error"]
)
def test_the_user_validation_cell_agrees(name: str) -> None:
    from mlestar_jupyter.agent.user_notebook import _expr_of, _imports

    metric = get_metric(name)
    expr = _expr_of(metric)
    assert expr is not None
    ns: dict = {}
    exec(_imports(expr), ns)  # noqa: S102 - the helpers the cell defines
    rng = np.random.RandomState(2)
    if metric.kind == "regression":
        y = rng.rand(50) * 10
        p = y + rng.randn(50)
        ref = metric(y, p)
    elif metric.kind == "ranked":
        classes = np.array(list("abcd"))
        y = classes[rng.randint(0, 4, 50)]
        p = classes[np.argsort(-rng.rand(50, 4), axis=1)[:, : metric.k]]
        ref = metric(y, [" ".join(r) for r in p])
    else:
        y = np.where(rng.rand(50) > 0.5, "Yes", "No")
        p = np.where(rng.rand(50) > 0.4, y, np.where(y == "Yes", "No", "Yes"))
        ref = metric(y, p)
    got = eval(expr, {**ns, "_skm": skm, "_sps": stats, "np": np, "_y": y, "_p": p})  # noqa: S307
    assert float(got) == pytest.approx(ref)


def _grading(metric: str, answers: pd.DataFrame, labels: tuple[str, ...] = ()) -> GradingSpec:
    mode = "regression" if get_metric(metric).kind == "regression" else "label"
    mode = "ranked" if get_metric(metric).kind == "ranked" else mode
    return GradingSpec(
        "t", metric, get_metric(metric).direction, mode, "id", ("id", "y"), ("y",), ("y",),
        labels, positive_label="yes" if mode == "label" else None,
    )  # fmt: skip


def test_the_grader_scores_them() -> None:
    """The evaluator's label, ranked and regression modes: F2 and Jaccard of the positive class
    ('yes'), top-3 accuracy of ranked cells, the pinball loss of numbers."""
    ans = pd.DataFrame({"id": ["1", "2", "3", "4", "5"], "y": ["yes", "no", "yes", "no", "yes"]})
    sub = ans.assign(y=["yes", "yes", "no", "no", "yes"])
    y, p = ans["y"].to_numpy(), sub["y"].to_numpy()
    for name, want in (
        ("f2", skm.fbeta_score(y, p, beta=2, pos_label="yes")),
        ("jaccard", skm.jaccard_score(y, p, pos_label="yes")),
        ("hamming_loss", 2 / 5),
    ):
        spec = _grading(name, ans, ("no", "yes"))
        assert check_submission(sub, spec, ans) is None
        assert score_aligned(sub, spec, ans) == pytest.approx(want), name
    ranked = ans.assign(y=["no yes", "yes no", "no no", "yes", "no"])
    spec = _grading("top-3 accuracy", ans, ("no", "yes"))
    assert score_aligned(ranked, spec, ans) == pytest.approx(2 / 5)  # rows 1 and 2 list it
    num = pd.DataFrame({"id": ["1", "2", "3"], "y": ["1.0", "2.0", "3.0"]})
    guess = num.assign(y=["2.0", "2.0", "1.0"])
    spec = _grading("pinball@0.9", num)
    want = skm.mean_pinball_loss([1.0, 2.0, 3.0], [2.0, 2.0, 1.0], alpha=0.9)
    assert score_aligned(guess, spec, num) == pytest.approx(want)
    assert score_aligned(guess, _grading("max_error", num), num) == pytest.approx(2.0)


def test_a_page_names_them_with_their_parameter() -> None:
    from mlestar_jupyter.task.vocabulary import find_metrics

    assert [m.name for m in find_metrics("Submissions are scored on the F2 score.")] == ["f2"]
    found = find_metrics("Evaluation: the mean pinball loss at the 0.9 quantile.")
    assert [m.name for m in found] == ["pinball@0.9"]
    assert find_metrics("We report top-k accuracy.") == []  # no k: none


@pytest.mark.parametrize(
    ("call", "canon"),
    [
        ("fbeta_score(y_va, model.predict(X_va), beta=2, pos_label='benign')", "f2"),
        ("fbeta_score(y_va, model.predict(X_va), beta=0.5, average='macro')", "f0.5_macro"),
        ("jaccard_score(y_va, model.predict(X_va), pos_label='benign')", "jaccard"),
        ("hamming_loss(y_va, model.predict(X_va))", "hamming_loss"),
        ("top_k_accuracy_score(y_va, model.predict_proba(X_va), k=3)", "top3_accuracy"),
    ],
)
def test_a_users_notebook_s_metric_call_is_read(tmp_path, call: str, canon: str) -> None:  # type: ignore[no-untyped-def]
    """A notebook that computes ``fbeta_score(..., beta=2)`` is a task graded by F2 (was: the
    call went unread, 'the notebook computes no metric')."""
    import nbformat

    from mlestar_jupyter.importer.notebook_task import task_from_notebook
    from mlestar_jupyter.notebook import SolutionNotebook

    rng = np.random.default_rng(0)
    df = pd.DataFrame({"a": rng.normal(size=80), "b": rng.normal(size=80)})
    df["diagnosis"] = np.where(df["a"] + rng.normal(size=80) > 0, "benign", "malignant")
    df.to_csv(tmp_path / "train.csv", index=False)
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(
            "import pandas as pd\nfrom sklearn import metrics\n"
            "from sklearn.metrics import *\n"
            "from sklearn.linear_model import LogisticRegression\n"
            "from sklearn.model_selection import train_test_split\n"
            "df = pd.read_csv('train.csv')\n"
            "X, y = df.drop(columns='diagnosis'), df['diagnosis']\n"
            "X_tr, X_va, y_tr, y_va = train_test_split(X, y, random_state=0)\n"
            "model = LogisticRegression().fit(X_tr, y_tr)\n"
            f"print({call})\n"
        )
    ]
    nbformat.write(nb, tmp_path / "screen.ipynb")
    task = task_from_notebook(SolutionNotebook.read(tmp_path / "screen.ipynb"), tmp_path)
    assert task.metric_name == canon


def test_the_system_prompt_says_how_scikit_learn_computes_it(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """'f2' or 'pinball@0.9' alone may not tell a model what to compute: the prompt quotes the
    scikit-learn call."""
    from mlestar_jupyter.agent.roles.context import _sklearn_call

    assert (
        _sklearn_call("f2") == "fbeta_score(y_true, y_pred, beta=2, pos_label=<the positive class>)"
    )
    assert _sklearn_call("pinball@0.9").startswith("mean_pinball_loss(y_true, y_pred, alpha=0.9)")
    assert "k=3" in _sklearn_call("top3_accuracy")
    assert _sklearn_call("rmse") == ""


def test_model_written_code_calling_them_gets_its_import() -> None:
    from mlestar_jupyter.codecheck.static_checks import repair_imports

    fixed = repair_imports("score = mean_pinball_loss(y_va, pred, alpha=0.9)\n")
    assert fixed.startswith("from sklearn.metrics import mean_pinball_loss\n")
    assert "import fbeta_score" in repair_imports("print(fbeta_score(y, p, beta=2))\n")
