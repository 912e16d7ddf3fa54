"""A notebook that computes no metric, beside a README (or description) that names the grading
metric: a course assignment's folder, a team project's repository.  The task read from the
notebook is graded by the metric the README names, where it fits the target; the notebook's own
metric, when it computes one, still wins."""

from __future__ import annotations

from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
import pytest

from mlestar_jupyter.importer.notebook_task import task_from_notebook
from mlestar_jupyter.notebook import SolutionNotebook

IMPORTS = "import pandas as pd\nfrom sklearn.linear_model import LogisticRegression, Ridge"
READ = "train = pd.read_csv('data/train.csv')\ntest = pd.read_csv('data/test.csv')"
CLASSIFY = (
    "X = train.drop(columns=['wine_id', 'cultivar'])\ny = train['cultivar']\n"
    "clf = LogisticRegression(max_iter=1000).fit(X, y)"
)
SUBMIT_LABELS = (
    "pd.DataFrame({'wine_id': test['wine_id'], 'cultivar': clf.predict(test.drop(columns="
    "['wine_id']))}).to_csv('submission.csv', index=False)"
)
ASSIGNMENT = (
    "# Assignment 3: wine cultivars\n\nPredict `cultivar` for every wine in data/test.csv.\n\n"
    "## Evaluation\n\nSubmissions are graded by macro-averaged F1 score.\n"
)


def _tables(folder: Path, *, classes: int = 3) -> None:
    rng = np.random.default_rng(0)
    rows = 90
    df = pd.DataFrame(
        {
            "wine_id": range(rows),
            "alcohol": rng.normal(13, 1, rows).round(2),
            "hue": rng.normal(1, 0.2, rows).round(3),
            "cultivar": rng.choice([f"class_{i}" for i in range(classes)], rows),
            "price": rng.normal(20, 5, rows).round(2),
        }
    )
    (folder / "data").mkdir(parents=True)
    df.iloc[:70].to_csv(folder / "data" / "train.csv", index=False)
    df.iloc[70:].drop(columns=["cultivar", "price"]).to_csv(folder / "data/test.csv", index=False)


def _notebook(folder: Path, *cells: str) -> SolutionNotebook:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    nbformat.write(nb, folder / "homework.ipynb")
    return SolutionNotebook.read(folder / "homework.ipynb")


def _task(folder: Path, *cells: str):  # type: ignore[no-untyped-def]
    return task_from_notebook(_notebook(folder, *cells), folder, "homework.ipynb")


def test_a_readme_beside_the_notebook_names_the_grading_metric(tmp_path: Path) -> None:
    """Before: accuracy ("the notebook computes no metric; a label target"), though the README
    says macro F1."""
    _tables(tmp_path)
    (tmp_path / "README.md").write_text(ASSIGNMENT)
    task = _task(tmp_path, IMPORTS, READ, CLASSIFY, SUBMIT_LABELS)
    assert (task.metric_name, task.direction) == ("f1_macro", "maximize")
    assert "README.md names it" in task.notices[0]


def test_a_description_in_the_data_folder_names_a_regression_metric(tmp_path: Path) -> None:
    _tables(tmp_path)
    (tmp_path / "data" / "description.md").write_text("Predict the price.\n\nMetric: MAE\n")
    regress = (
        "X = train[['alcohol', 'hue']]\ny = train['price']\nreg = Ridge().fit(X, y)\n"
        "pd.DataFrame({'wine_id': test['wine_id'], 'price': reg.predict(test[['alcohol', "
        "'hue']])}).to_csv('submission.csv', index=False)"
    )
    task = _task(tmp_path, IMPORTS, READ, regress)
    assert (task.target_cols, task.metric_name, task.direction) == (("price",), "mae", "minimize")


@pytest.mark.parametrize(
    ("readme", "cells", "metric"),
    [
        # a README metric for another kind of target is not this task's: the default stands
        ("## Evaluation\n\nRoot mean squared error.\n", (CLASSIFY, SUBMIT_LABELS), "accuracy"),
        # the notebook computes its own metric: that one, not the README's
        (
            ASSIGNMENT,
            (
                CLASSIFY + "\nfrom sklearn.metrics import balanced_accuracy_score\n"
                "print(balanced_accuracy_score(y, clf.predict(X)))",
                SUBMIT_LABELS,
            ),
            "balanced_accuracy",
        ),
        # a README that names no metric
        ("# Wine\n\nSome wines.\n", (CLASSIFY, SUBMIT_LABELS), "accuracy"),
    ],
)
def test_the_notebooks_own_metric_and_the_targets_kind_come_first(
    tmp_path: Path, readme: str, cells: tuple[str, ...], metric: str
) -> None:
    _tables(tmp_path)
    (tmp_path / "README.md").write_text(readme)
    assert _task(tmp_path, IMPORTS, READ, *cells).metric_name == metric


def test_probabilities_submitted_are_graded_by_the_readmes_probability_metric(
    tmp_path: Path,
) -> None:
    """Two classes, the notebook writes the probability of one: before, ROC AUC (the default for
    probabilities of two classes), though the README says log loss."""
    _tables(tmp_path, classes=2)
    (tmp_path / "README.md").write_text("## Evaluation\n\nSubmissions are scored on log loss.\n")
    proba = (
        "pd.DataFrame({'wine_id': test['wine_id'], 'cultivar': clf.predict_proba(test.drop("
        "columns=['wine_id']))[:, 1]}).to_csv('submission.csv', index=False)"
    )
    task = _task(tmp_path, IMPORTS, READ, CLASSIFY, proba)
    assert task.metric_name == "log_loss"
