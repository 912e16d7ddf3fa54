"""A user's own ``cross_val_score(..., scoring="f1")`` (or precision, recall, average precision)
scores the task's positive class: scikit-learn's scorer scores the class 1, so on word labels
every fold failed (nan: "pos_label=1 is not a valid label") and with 0 named positive it scored
class 1."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
import pytest
from inprocess import exec_notebook
from sklearn.datasets import make_classification
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import average_precision_score, f1_score, make_scorer, recall_score
from sklearn.model_selection import StratifiedKFold, cross_val_score

from mlestar_jupyter.agent.changes import restore_paths
from mlestar_jupyter.agent.user_notebook import prepare_user_notebook
from mlestar_jupyter.notebook import SolutionNotebook
from mlestar_jupyter.task import Task


def _task(root: Path, labels: tuple[object, object], metric: str, **spec: object) -> Path:
    """A churn table as an outsider writes it: ``Churn`` holds two labels, imbalanced."""
    X, y = make_classification(300, 5, weights=[0.7], flip_y=0.05, random_state=3)
    frame = pd.DataFrame(X, columns=[f"x{i}" for i in range(5)])
    frame.insert(0, "id", range(len(frame)))
    frame["Churn"] = np.where(y == 1, labels[1], labels[0])
    (root / "input").mkdir(parents=True)
    frame.iloc[:240].to_csv(root / "input" / "train.csv", index=False)
    frame.iloc[240:].drop(columns="Churn").to_csv(root / "input" / "test.csv", index=False)
    body = {"name": "churn", "metric": metric, "target": "Churn", "id_column": "id"}
    (root / "task.json").write_text(json.dumps({**body, **spec}))
    return root


def _notebook(scoring: str) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(
            "import pandas as pd\n"
            "from sklearn.ensemble import RandomForestClassifier\n"
            "from sklearn.model_selection import StratifiedKFold, cross_val_score\n"
            "train = pd.read_csv('input/train.csv')\n"
            "X, y = train.drop(columns=['id', 'Churn']), train['Churn']"
        ),
        nbformat.v4.new_code_cell(
            "model = RandomForestClassifier(n_estimators=30, random_state=0)\n"
            "cv = StratifiedKFold(n_splits=4, shuffle=True, random_state=0)\n"
            f"scores = cross_val_score(model, X, y, cv=cv, scoring='{scoring}')\n"
            "print(scores)"
        ),
    ]
    return nb


def _expected(root: Path, scorer: object) -> float:
    train = pd.read_csv(root / "input" / "train.csv")
    X, y = train.drop(columns=["id", "Churn"]), train["Churn"]
    model = RandomForestClassifier(n_estimators=30, random_state=0)
    cv = StratifiedKFold(n_splits=4, shuffle=True, random_state=0)
    return float(np.mean(cross_val_score(model, X, y, cv=cv, scoring=scorer)))


@pytest.mark.parametrize(
    ("labels", "scoring", "spec", "scorer"),
    [
        (("No", "Yes"), "f1", {}, make_scorer(f1_score, pos_label="Yes")),
        (
            ("stayed", "churned"),
            "average_precision",
            {"positive_label": "churned"},
            make_scorer(
                average_precision_score, response_method="predict_proba", pos_label="churned"
            ),
        ),
        ((1, 0), "recall", {"positive_label": 0}, make_scorer(recall_score, pos_label=0)),
    ],
)
def test_the_users_cross_validation_scores_the_positive_class(
    tmp_path: Path, labels: tuple[object, object], scoring: str, spec: dict, scorer: object
) -> None:
    metric = {"average_precision": "average precision"}.get(scoring, scoring)
    root = _task(tmp_path / "task", labels, metric, **spec)
    prepared = prepare_user_notebook(SolutionNotebook(_notebook(scoring)), Task.load(root))
    assert prepared.understood, prepared.reason
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, printed = exec_notebook(prepared.notebook, root, tmp_path / "work")
    line = next(x for x in printed.splitlines() if x.startswith("Final Validation Performance"))
    assert float(line.split(":")[1]) == pytest.approx(_expected(root, scorer))
    code = "\n".join(b.source for b in prepared.notebook.code_blocks)
    assert f"scoring=positive_class_scorer('{scoring}', " in code  # the user's line, readable
    assert "positive class" in prepared.notebook.nb.cells[0].source + "".join(
        c.source for c in prepared.notebook.nb.cells if c.cell_type == "markdown"
    )


def test_labels_the_notebook_coded_as_numbers_keep_the_class_1(tmp_path: Path) -> None:
    """``y = train['Churn'].map({'No': 0, 'Yes': 1})``: the labels the scorer sees are 0 and 1,
    so scikit-learn's own F1 (of 1, the notebook's "Yes") is the score, not a failure."""
    root = _task(tmp_path / "task", ("No", "Yes"), "f1")
    nb = _notebook("f1")
    nb.cells[0].source += "\ny = y.map({'No': 0, 'Yes': 1})"
    prepared = prepare_user_notebook(SolutionNotebook(nb), Task.load(root))
    _, printed = exec_notebook(prepared.notebook, root, tmp_path / "work")
    line = next(x for x in printed.splitlines() if x.startswith("Final Validation Performance"))
    assert float(line.split(":")[1]) == pytest.approx(
        _expected(root, make_scorer(f1_score, pos_label="Yes"))
    )


def test_a_task_whose_positive_class_is_1_is_left_as_written(tmp_path: Path) -> None:
    root = _task(tmp_path / "task", (0, 1), "f1")
    prepared = prepare_user_notebook(SolutionNotebook(_notebook("f1")), Task.load(root))
    code = "\n".join(b.source for b in prepared.notebook.code_blocks)
    assert "scoring='f1'" in code and "positive_class_scorer" not in code


SCORINGS = {  # scoring= as written -> the keys cross_validate's results hold
    "['roc_auc', 'average_precision', 'f1']": ("roc_auc", "average_precision", "f1"),
    "(\n    'f1',\n    'roc_auc',\n)": ("f1", "roc_auc"),
    "{'auc': 'roc_auc', 'ap': 'average_precision', 'f1': 'f1'}": ("auc", "ap", "f1"),
}


@pytest.mark.parametrize("scoring", list(SCORINGS))
def test_a_list_or_dict_of_scorings_scores_the_positive_class(tmp_path: Path, scoring: str) -> None:
    """Hunt J: ``cross_validate(model, X, y, scoring=['roc_auc', 'average_precision', 'f1'])``
    on Yes/No labels: the one-class scorers were left as written, and their folds were nan."""
    root = _task(tmp_path / "task", ("No", "Yes"), "auc")
    nb = _notebook("f1")
    nb.cells[1].source = (
        "from sklearn.model_selection import cross_validate\n"
        "model = RandomForestClassifier(n_estimators=30, random_state=0)\n"
        "cv = StratifiedKFold(n_splits=4, shuffle=True, random_state=0)\n"
        f"res = cross_validate(model, X, y, cv=cv, scoring={scoring})\n"
        "for k in sorted(res):\n"
        "    if k.startswith('test_'):\n"
        "        print('MEAN', k, res[k].mean())"
    )
    prepared = prepare_user_notebook(SolutionNotebook(nb), Task.load(root))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, printed = exec_notebook(prepared.notebook, root, tmp_path / "work")
    means = {
        k[len("test_") :]: float(v)
        for _, k, v in (x.split() for x in printed.splitlines() if x.startswith("MEAN "))
    }
    assert set(means) == set(SCORINGS[scoring])  # the keys the user's code reads
    assert means["f1"] == pytest.approx(_expected(root, make_scorer(f1_score, pos_label="Yes")))
    assert all(np.isfinite(v) for v in means.values()), means
    ap = means.get("ap", means.get("average_precision"))
    if ap is not None:
        assert ap == pytest.approx(
            _expected(
                root,
                make_scorer(
                    average_precision_score, response_method="predict_proba", pos_label="Yes"
                ),
            )
        )
    changed = next(b for b in prepared.notebook.code_blocks if "cross_validate(" in b.source)
    assert "positive_class_scorer('f1', 'Yes')" in changed.source
    changes = tuple(c for c in prepared.data_paths if c.kind == "scoring")
    assert restore_paths(changed.source, changed.id, changes) == nb.cells[1].source


def test_a_scoring_held_in_a_variable_scores_the_positive_class(tmp_path: Path) -> None:
    """Hunt (session 32): ``SCORING = 'f1'`` in the settings cell, ``scoring=SCORING`` in the
    cross-validation: left as written, every fold was nan on Yes/No labels, and the run's score
    was a 3-fold cross-validation of its own instead of the notebook's folds."""
    root = _task(tmp_path / "task", ("No", "Yes"), "f1")
    nb = _notebook("f1")
    nb.cells[0].source = "SEED = 0\nSCORING = 'f1'\nN_FOLDS = 4\n" + nb.cells[0].source
    nb.cells[1].source = (
        "model = RandomForestClassifier(n_estimators=30, random_state=SEED)\n"
        "cv = StratifiedKFold(n_splits=N_FOLDS, shuffle=True, random_state=SEED)\n"
        "scores = cross_val_score(model, X, y, cv=cv, scoring=SCORING)\n"
        "print(f'CV {SCORING}: {scores.mean():.4f}')"
    )
    prepared = prepare_user_notebook(SolutionNotebook(nb), Task.load(root))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, printed = exec_notebook(prepared.notebook, root, tmp_path / "work")
    expected = _expected(root, make_scorer(f1_score, pos_label="Yes"))
    assert f"CV f1: {expected:.4f}" in printed  # the user's own line, its name kept
    line = next(x for x in printed.splitlines() if x.startswith("Final Validation Performance"))
    assert float(line.split(":")[1]) == pytest.approx(expected)  # the notebook's own folds
    changed = next(b for b in prepared.notebook.code_blocks if "cross_val_score(" in b.source)
    assert "scoring=positive_class_scorer(SCORING, 'Yes')" in changed.source
    changes = tuple(c for c in prepared.data_paths if c.kind == "scoring")
    assert restore_paths(changed.source, changed.id, changes) == nb.cells[1].source


def test_a_list_of_scorings_held_in_a_variable_keeps_its_keys(tmp_path: Path) -> None:
    """``METRICS = ['f1', 'roc_auc']`` then ``cross_validate(..., scoring=METRICS)``: the
    results keep ``test_f1`` and ``test_roc_auc``, the F1 of the class Yes."""
    root = _task(tmp_path / "task", ("No", "Yes"), "auc")
    nb = _notebook("f1")
    nb.cells[0].source = "METRICS = ['f1', 'roc_auc']\n" + nb.cells[0].source
    nb.cells[1].source = (
        "from sklearn.model_selection import cross_validate\n"
        "model = RandomForestClassifier(n_estimators=30, random_state=0)\n"
        "cv = StratifiedKFold(n_splits=4, shuffle=True, random_state=0)\n"
        "res = cross_validate(model, X, y, cv=cv, scoring=METRICS)\n"
        "for m in METRICS:\n"
        "    print('MEAN', m, res[f'test_{m}'].mean())"
    )
    prepared = prepare_user_notebook(SolutionNotebook(nb), Task.load(root))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, printed = exec_notebook(prepared.notebook, root, tmp_path / "work")
    means = {
        k: float(v) for _, k, v in (x.split() for x in printed.splitlines() if x[:5] == "MEAN ")
    }
    assert means["f1"] == pytest.approx(_expected(root, make_scorer(f1_score, pos_label="Yes")))
    assert np.isfinite(means["roc_auc"])
