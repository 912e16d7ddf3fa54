"""A user's notebook that validates on probabilities and writes labels for a metric computed
from probabilities (Titanic-style ``rf.predict(test)`` for an AUC): the final notebook writes
the positive class's probability instead; labels the notebook also scores are left alone."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from kernel import run_notebook
from test_submission_cell import BREAST_CANCER, READ, _nb

from mlestar_jupyter.agent.config import RunConfig
from mlestar_jupyter.agent.submission import submission_problems
from mlestar_jupyter.agent.submission_warnings import labels_for_probabilities
from mlestar_jupyter.offline import OfflinePolicy
from mlestar_jupyter.offline.user_code.proba_submission import HELPER, probabilities_written
from mlestar_jupyter.task import load_task

FIT = (
    "from sklearn.model_selection import train_test_split\n"
    "from sklearn.ensemble import RandomForestClassifier\n"
    "from sklearn.metrics import roc_auc_score\n"
    "X_tr, X_va, y_tr, y_va = train_test_split(X, y, test_size=0.2, random_state=42)\n"
    "rf = RandomForestClassifier(n_estimators=50, max_depth=5, random_state=42)\n"
    "rf.fit(X_tr, y_tr)\n"
    "print('AUC:', roc_auc_score(y_va, rf.predict_proba(X_va)[:, 1]))"
)
WRITE = (
    "rf.fit(X, y)\n"
    "predictions = rf.predict(test.drop(columns=['id']))\n"
    "output = pd.DataFrame({'id': test.id, 'target': predictions.astype(int)})\n"
    "output.to_csv('submission.csv', index=False)\n"
    'print("Your submission was successfully saved!")'
)


@pytest.mark.parametrize(
    ("cells", "now"),
    [
        (  # the prediction inside the written table, with .astype(int) around it
            (
                "rf.fit(X, y)",
                "pd.DataFrame({'id': t.id, 'target': rf.predict(t[f]).astype(int)}).to_csv('s.csv')",
            ),
            "pd.DataFrame({'id': t.id, 'target': _positive_proba(rf, t[f])}).to_csv('s.csv')",
        ),
        (  # a name made in an earlier cell, shown, then put in the sample's column
            (
                "rf.fit(X, y)\npreds = rf.predict(t[f])",
                "print(preds[:5])",
                "sub = pd.read_csv('s.csv')\nsub['target'] = preds.astype(int)\nsub.to_csv('o.csv')",
            ),
            "sub = pd.read_csv('s.csv')\nsub['target'] = preds\nsub.to_csv('o.csv')",
        ),
    ],
)
def test_predictions_that_reach_the_submission_become_probabilities(
    cells: tuple[str, ...], now: str
) -> None:
    out = probabilities_written(_nb(*cells), load_task(BREAST_CANCER))
    assert out.code_blocks[-1].source == HELPER + now
    assert "_positive_proba(rf, t[f])" in "".join(b.source for b in out.code_blocks)


@pytest.mark.parametrize(
    "cells",
    [
        # the labels are scored too: they stay labels (the run warns about the file instead)
        (
            "rf.fit(X, y)\npreds = rf.predict(X_va)\nprint(accuracy_score(y_va, preds))",
            "pd.DataFrame({'id': t.id, 'target': preds}).to_csv('s.csv')",
        ),
        # probabilities already
        (
            "rf.fit(X, y)",
            "pd.DataFrame({'id': t.id, 'target': rf.predict_proba(t)[:, 1]}).to_csv('s.csv')",
        ),
        # a model the notebook does not fit (a loaded one): not known to have predict_proba
        (
            "m = joblib.load('m.pkl')",
            "pd.DataFrame({'id': t.id, 'target': m.predict(t)}).to_csv('s.csv')",
        ),
    ],
)
def test_labels_that_are_used_or_already_probabilities_are_left_alone(
    cells: tuple[str, ...],
) -> None:
    nb = _nb(*cells)
    assert probabilities_written(nb, load_task(BREAST_CANCER)).source == nb.source


def test_an_accuracy_task_keeps_its_labels(tmp_path: Path) -> None:
    """The same cells for a metric on labels are not touched (the diabetes example is a
    regression: not a two-class probability task either)."""
    nb = _nb("rf.fit(X, y)", "pd.DataFrame({'id': t.id, 'target': rf.predict(t)}).to_csv('s.csv')")
    diabetes = BREAST_CANCER.parent / "diabetes"
    assert probabilities_written(nb, load_task(diabetes)).source == nb.source


def test_the_final_notebook_of_a_titanic_style_notebook_hands_in_probabilities(
    tmp_path: Path,
) -> None:
    """In a kernel: the final notebook the offline policy makes of the user's notebook writes
    fractions for the AUC, graded like any file, and no warning about labels is due."""
    task = load_task(BREAST_CANCER)
    policy = OfflinePolicy(task, RunConfig())
    final = policy.make_submission(_nb(READ, FIT, WRITE))
    assert "_positive_proba(rf, test.drop(columns=['id']))" in final.source
    ran = run_notebook(final, BREAST_CANCER, tmp_path)
    assert "Your submission was successfully saved!" in ran.output
    assert submission_problems(task, ran.submission) == []
    values = pd.read_csv(ran.submission)["target"]
    assert values.nunique() > 10 and values.between(0, 1).all()
    assert labels_for_probabilities(task, ran.submission) is None
