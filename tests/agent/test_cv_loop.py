"""A notebook that only evaluates, comparing models by cross-validation in a loop over a list
(hunt M's ``eval_only``): the validation cell read the scores left by the *last* pass (the
forest's), and the run's submission predicted with the last model, where the printout's best
was the other one.  Each pass's mean score and model are now kept, and the best is the
notebook's model."""

from __future__ import annotations

import contextlib
import io
import os

import pytest

from mlestar_jupyter.agent.changes import restore_paths
from mlestar_jupyter.agent.cv_loop import keep_each_model
from mlestar_jupyter.agent.user_notebook import prepare_user_notebook
from mlestar_jupyter.offline import user_code
from mlestar_jupyter.task import load_task

from .notebooks import BREAST_CANCER
from .notebooks import code_notebook as _nb

LOAD = (
    "import pandas as pd\n"
    "from sklearn.dummy import DummyClassifier\n"
    "from sklearn.linear_model import LogisticRegression\n"
    "from sklearn.pipeline import make_pipeline\n"
    "from sklearn.preprocessing import StandardScaler\n"
    "from sklearn.model_selection import cross_val_score\n"
    "train = pd.read_csv('train.csv')\n"
    "X = train.drop(columns=['id', 'target']); y = train['target']"
)
# the better model first: the last one (a constant) is what the old cell scored
LOOP = (
    "for name, model in [('logreg', make_pipeline(StandardScaler(), LogisticRegression())), "
    "('dummy', DummyClassifier())]:\n"
    "    s = cross_val_score(model, X, y, cv=3, scoring='roc_auc')\n"
    "    print(f'{name}: {s.mean():.4f}')"
)


def test_the_best_model_of_a_loop_is_scored_and_kept() -> None:
    task = load_task(BREAST_CANCER)
    prepared = prepare_user_notebook(_nb(LOAD, LOOP), task)
    assert prepared.understood
    namespace: dict[str, object] = {}
    here = os.getcwd()
    out = io.StringIO()
    try:
        os.chdir(BREAST_CANCER)
        with contextlib.redirect_stdout(out):
            for b in prepared.notebook.code_blocks:
                exec(compile(b.source, b.id, "exec"), namespace)
    finally:
        os.chdir(here)
    score = float(out.getvalue().split("Final Validation Performance: ")[1].split()[0])
    assert score > 0.9  # the logistic regression's, not the constant's (0.5)
    assert type(namespace["model"]).__name__ == "Pipeline"  # the model a submission predicts with
    loop = next(b for b in prepared.notebook.code_blocks if "cross_val_score(model" in b.source)
    # given back as written, but for the list of models named above the loop (``cv_models``)
    assert restore_paths(loop.source, loop.id, prepared.data_paths) == _named(LOOP)


def test_a_loop_scored_in_another_metric_keeps_its_own_best_and_is_measured_in_the_tasks() -> None:
    """Hunt (session 32): the same loop scored by accuracy in a task graded by ROC AUC: the
    cell a run adds measured ``model`` after the loop, the last one listed (the constant:
    0.5), and the submission predicted with it.  Now the best by the loop's own accuracy is
    kept, and measured in ROC AUC."""
    task = load_task(BREAST_CANCER)
    assert task.metric_name.replace(" ", "_").lower() in ("roc_auc", "auc")
    loop = LOOP.replace("scoring='roc_auc'", "scoring='accuracy'")
    prepared = prepare_user_notebook(_nb(LOAD, loop), task)
    assert prepared.understood
    namespace: dict[str, object] = {}
    here = os.getcwd()
    out = io.StringIO()
    try:
        os.chdir(BREAST_CANCER)
        with contextlib.redirect_stdout(out):
            for b in prepared.notebook.code_blocks:
                exec(compile(b.source, b.id, "exec"), namespace)
    finally:
        os.chdir(here)
    printed = out.getvalue()
    accuracy = float(printed.split("logreg: ")[1].split()[0])
    score = float(printed.split("Final Validation Performance: ")[1].split()[0])
    assert score > 0.98 and score != accuracy  # the logistic regression's, in ROC AUC
    assert type(namespace["model"]).__name__ == "Pipeline"
    assert "not in the task's metric" in prepared.note
    cell = next(b for b in prepared.notebook.code_blocks if "cross_val_score(model" in b.source)
    assert restore_paths(cell.source, cell.id, prepared.data_paths) == _named(loop)


def _named(loop: str) -> str:
    """``loop`` with its header's list of models named above it, as a run prepares it."""
    header, body = loop.split(":\n", 1)
    listed = header.split(" in ", 1)[1]
    return f"models = {listed}\n{header.split(' in ', 1)[0]} in models:\n{body}"


def test_models_listed_in_the_loops_header_are_a_part_the_run_refines() -> None:
    """Hunt (session 32): ``for name, model in [('logreg', ...), ('dummy', ...)]:``, the list in
    the loop's header, was no part of the notebook the offline refiner could change (none of
    its strategies applied); it is now the collection ``models``, one model of it changed."""
    task = load_task(BREAST_CANCER)
    prepared = prepare_user_notebook(_nb(LOAD, LOOP), task)
    part = next(p for p in user_code.parts(prepared.notebook) if p.role == "model")
    assert part.compares == "models" and part.source.startswith("models = [")
    _, new = next((s, n) for s, n in user_code.applicable(part) if s.id == "swap_random_forest")
    refined = user_code.apply(prepared.notebook, part, new, "offline:refine")
    namespace: dict[str, object] = {}
    here = os.getcwd()
    out = io.StringIO()
    try:
        os.chdir(BREAST_CANCER)
        with contextlib.redirect_stdout(out):
            for b in refined.code_blocks:
                exec(compile(b.source, b.id, "exec"), namespace)
    finally:
        os.chdir(here)
    assert "RandomForest" in new and "Final Validation Performance: " in out.getvalue()


@pytest.mark.parametrize(
    "cell",
    [
        # a loop over folds: its passes are no models
        "for tr, va in kf.split(X, y):\n    s = cross_val_score(model, X.iloc[tr], y.iloc[tr])",
        # the model is not the loop's element
        "for k in [3, 5]:\n    s = cross_val_score(model, X, y, cv=k)",
        # the scores are assigned deeper than the loop's own body
        "for m in models:\n    if m:\n        s = cross_val_score(m, X, y)",
    ],
)
def test_other_loops_are_left_alone(cell: str) -> None:
    line = next(i for i, ln in enumerate(cell.split("\n"), 1) if "cross_val_score" in ln)
    model = "m" if "for m in" in cell else "model"
    assert keep_each_model(cell, line, "s", model) is None
