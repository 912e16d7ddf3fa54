"""A two-class probability metric (average precision, ROC AUC, Gini, log loss, Brier) scores the
task's positive class: the added validation cell of a user's notebook read
``predict_proba(X)[:, 1]`` and scikit-learn's ``pos_label=1``, which failed on word labels
("pos_label=1 is not a valid label") and scored the other class when the positive one sorts
first ("churned" before "stayed", 0 named positive)."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
import pytest
from inprocess import exec_notebook
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import average_precision_score, brier_score_loss, roc_auc_score
from sklearn.model_selection import train_test_split

from mlestar_jupyter.agent.user_notebook import prepare_user_notebook
from mlestar_jupyter.notebook import SolutionNotebook
from mlestar_jupyter.task import Task

_NOTEBOOK = (
    "import pandas as pd\n"
    "from sklearn.linear_model import LogisticRegression\n"
    "from sklearn.model_selection import train_test_split\n"
    "df = pd.read_csv('input/train.csv')\n"
    "X, y = df.drop(columns=['customer', 'status']), df['status']\n"
    "X_tr, X_va, y_tr, y_va = train_test_split(X, y, test_size=0.3, random_state=1)\n"
    "clf = LogisticRegression(max_iter=1000).fit(X_tr, y_tr)\n"
)


def _churn_task(root: Path, labels: tuple[object, object], metric: str, **spec: object) -> Path:
    """A churn table as an outsider writes it: ``status`` holds two labels, imbalanced."""
    X, y = make_classification(400, 6, weights=[0.75], flip_y=0.1, random_state=0)
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(6)])
    frame.insert(0, "customer", range(len(frame)))
    frame["status"] = np.where(y == 1, labels[1], labels[0])
    (root / "input").mkdir(parents=True)
    frame.iloc[:320].to_csv(root / "input" / "train.csv", index=False)
    frame.iloc[320:].drop(columns="status").to_csv(root / "input" / "test.csv", index=False)
    body = {"name": "churn", "metric": metric, "target": "status", "id_column": "customer"}
    (root / "task.json").write_text(json.dumps({**body, **spec}))
    return root


def _expected(root: Path, positive: object, metric: str) -> float:
    """The metric of the notebook's model on its split, with ``positive`` the positive class."""
    df = pd.read_csv(root / "input" / "train.csv")
    X, y = df.drop(columns=["customer", "status"]), df["status"]
    X_tr, X_va, y_tr, y_va = train_test_split(X, y, test_size=0.3, random_state=1)
    clf = LogisticRegression(max_iter=1000).fit(X_tr, y_tr)
    column = [str(c) for c in clf.classes_].index(str(positive))
    p, truth = clf.predict_proba(X_va)[:, column], (y_va.astype(str) == str(positive)).astype(int)
    if metric == "average_precision":
        return float(average_precision_score(truth, p))
    if metric == "brier":
        return float(brier_score_loss(truth, p))
    return float(roc_auc_score(truth, p))


def _validated(root: Path, tmp_path: Path) -> float:
    task = Task.load(root)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(_NOTEBOOK)]
    prepared = prepare_user_notebook(SolutionNotebook(nb), task)
    assert prepared.added_block is not None, prepared.reason
    _, printed = exec_notebook(prepared.notebook, root, tmp_path / "work")
    line = next(x for x in printed.splitlines() if x.startswith("Final Validation Performance"))
    return float(line.split(":")[1])


@pytest.mark.parametrize(
    ("labels", "metric", "named", "positive"),
    [
        (("no", "yes"), "average_precision", None, "yes"),  # words: pos_label=1 failed
        (("stayed", "churned"), "PR AUC", "churned", "churned"),  # named, sorts first
        ((1, 0), "average_precision", 0, 0),  # 0 named positive: AP of class 1 was read
        (("stayed", "churned"), "brier", "churned", "churned"),  # words: pos_label failed
        (("stayed", "churned"), "roc_auc", "churned", "churned"),
        (("no", "yes"), "gini", "yes", "yes"),
    ],
)
def test_the_added_cell_scores_the_positive_class(
    tmp_path: Path, labels: tuple[object, object], metric: str, named: object, positive: object
) -> None:
    extra = {"positive_label": named} if named is not None else {}
    root = _churn_task(tmp_path / "task", labels, metric, **extra)
    got = _validated(root, tmp_path)
    want = _expected(root, positive, "average_precision" if metric == "PR AUC" else metric)
    if metric == "gini":
        want = 2 * want - 1
    assert got == pytest.approx(want)


def _score_fn(metric: str, positive: str | None) -> object:
    from mlestar_jupyter.offline.metric_code import metric_source

    head, body = metric_source(metric, "classification", positive)
    namespace: dict[str, object] = {}
    exec("import numpy as np\n" + head + "\n" + body, namespace)  # noqa: S102 - our own code
    return namespace["score_predictions"]


@pytest.mark.parametrize(
    ("classes", "named", "positive"),
    [
        (np.array(["no", "yes"]), None, "yes"),  # words, no name: failed (pos_label=1)
        (np.array([0.0, 1.0]), "0", 0.0),  # a float target, 0 named: read class 1's column
    ],
)
def test_the_searched_notebooks_metric_reads_the_positive_column(
    classes: np.ndarray, named: str | None, positive: object
) -> None:
    rng = np.random.default_rng(0)
    y = rng.choice(classes, 80, p=[0.7, 0.3])
    p_pos = np.clip((y == positive) * 0.4 + rng.uniform(0, 0.6, 80), 0, 1)
    pred = np.column_stack([p_pos, 1 - p_pos] if positive == classes[0] else [1 - p_pos, p_pos])
    got = _score_fn("average_precision", named)(y, pred, classes)  # type: ignore[operator]
    assert got == pytest.approx(average_precision_score(y == positive, p_pos))


def test_the_added_submission_cell_writes_the_positive_class_probability(tmp_path: Path) -> None:
    """A notebook that writes no submission, graded by ROC AUC of "churned" (named positive,
    first in order): the cell MLE-STAR appends writes P(churned) (was: P(stayed), the second
    column, which the grader reads as churned's: an AUC of 1 - the model's)."""
    from mlestar_jupyter.offline.user_code.submission_cell import with_submission_cell

    root = _churn_task(
        tmp_path / "task", ("stayed", "churned"), "roc_auc", positive_label="churned"
    )
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(_NOTEBOOK)]
    written = with_submission_cell(SolutionNotebook(nb), Task.load(root))
    scope, _ = exec_notebook(written, root, tmp_path / "work")
    sub = pd.read_csv(tmp_path / "work" / "final" / "submission.csv")
    test = pd.read_csv(root / "input" / "test.csv").drop(columns="customer")
    model = scope["_model"]
    churned = list(model.classes_).index("churned")
    assert np.allclose(sub["status"], model.predict_proba(test)[:, churned])


def test_labels_written_become_the_named_first_class_probability(tmp_path: Path) -> None:
    """0/1 labels, 0 named positive, ROC AUC: the notebook's ``clf.predict(test)`` written to its
    submission becomes P(0) (was: P(1), ``predict_proba(X)[:, 1]``, for the grader's class 0)."""
    from mlestar_jupyter.offline.user_code.proba_submission import probabilities_written

    root = _churn_task(tmp_path / "task", (1, 0), "roc_auc", positive_label=0)
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(_NOTEBOOK),
        nbformat.v4.new_code_cell(
            "test = pd.read_csv('input/test.csv')\n"
            "out = pd.DataFrame({'customer': test.customer, 'status': clf.predict(test.drop(columns='customer'))})\n"
            "out.to_csv('submission.csv', index=False)\n"
        ),
    ]
    written = probabilities_written(SolutionNotebook(nb), Task.load(root))
    scope, _ = exec_notebook(written, root, tmp_path / "work")
    sub = pd.read_csv(tmp_path / "work" / "submission.csv")
    test = pd.read_csv(root / "input" / "test.csv").drop(columns="customer")
    clf = scope["clf"]
    assert np.allclose(sub["status"], clf.predict_proba(test)[:, list(clf.classes_).index(0)])
