"""Users' notebooks of hunt E (session 28), as task readers see them: what the notebook's
model is says what its target is, and probabilities it turns into labels are labels."""

from __future__ import annotations

from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_diabetes, load_wine

from mlestar_jupyter.importer.notebook_task import task_from_notebook
from mlestar_jupyter.notebook import SolutionNotebook


def _task(folder: Path, *cells: str):  # type: ignore[no-untyped-def]
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    nbformat.write(nb, folder / "nb.ipynb")
    return task_from_notebook(SolutionNotebook.read(folder / "nb.ipynb"), folder, "nb.ipynb")


def _train_and_test(folder: Path, frame: pd.DataFrame, n_train: int, label: str) -> None:
    """``frame``'s first ``n_train`` rows as ``train.csv``, the rest without ``label`` as
    ``test.csv``, beside the notebook as a user keeps them."""
    frame.iloc[:n_train].to_csv(folder / "train.csv", index=False)
    frame.iloc[n_train:].drop(columns=label).to_csv(folder / "test.csv", index=False)


def _wine_with_labels_apart(folder: Path) -> None:
    df = load_wine(as_frame=True).frame
    df.insert(0, "id", range(len(df)))
    df["cultivar"] = df.pop("target")  # 0, 1, 2: numbers, in a file of their own
    train, test = df.iloc[:140], df.iloc[140:]
    train.drop(columns="cultivar").to_csv(folder / "train.csv", index=False)
    train[["id", "cultivar"]].to_csv(folder / "train_labels.csv", index=False)
    test.drop(columns="cultivar").to_csv(folder / "test.csv", index=False)
    test[["id"]].assign(cultivar=0).to_csv(folder / "sample_submission.csv", index=False)


def test_a_classifier_s_score_is_accuracy_though_its_labels_lie_in_another_file(
    tmp_path: Path,
) -> None:
    """The labels sat in train_labels.csv, so the training table told nothing of them, and
    ``rf.score(Xva, yva)`` of a ``RandomForestClassifier`` was read as "scikit-learn's r2"."""
    _wine_with_labels_apart(tmp_path)
    task = _task(
        tmp_path,
        "import pandas as pd\nfrom sklearn.ensemble import RandomForestClassifier\n"
        "from sklearn.model_selection import train_test_split",
        "X = pd.read_csv('train.csv')\nlabels = pd.read_csv('train_labels.csv')\n"
        "test = pd.read_csv('test.csv')\ndf = X.merge(labels, on='id')",
        "feats = [c for c in X.columns if c != 'id']\n"
        "Xtr, Xva, ytr, yva = train_test_split(df[feats], df['cultivar'], random_state=0)\n"
        "rf = RandomForestClassifier(n_estimators=300, random_state=0).fit(Xtr, ytr)\n"
        "print('val accuracy', rf.score(Xva, yva))",
        "rf.fit(df[feats], df['cultivar'])\nsubmission = pd.read_csv('sample_submission.csv')\n"
        "submission['cultivar'] = rf.predict(test[feats])\n"
        "submission.to_csv('submission.csv', index=False)",
    )
    assert (task.metric_name, task.task_type) == ("accuracy", "classification")


def test_a_regressor_of_whole_ratings_is_graded_as_a_regression(tmp_path: Path) -> None:
    """Ratings 1–10 (few whole numbers) fitted by a ``RandomForestRegressor`` and scored by
    ``reg.score``: graded by accuracy before, and the run's own validation cell then failed
    on the regressor's fractions ("Classification metrics can't handle a mix")."""
    d = load_diabetes(as_frame=True).frame
    d["rating"] = np.clip(np.round(d.pop("target") / 35), 1, 10).astype(int)
    d.insert(0, "id", range(len(d)))
    _train_and_test(tmp_path, d, 350, "rating")
    task = _task(
        tmp_path,
        "import pandas as pd\nfrom sklearn.ensemble import RandomForestRegressor\n"
        "from sklearn.model_selection import train_test_split",
        "train = pd.read_csv('train.csv')\ntest = pd.read_csv('test.csv')",
        "X = train.drop(columns=['id', 'rating'])\ny = train['rating']\n"
        "X_train, X_val, y_train, y_val = train_test_split(X, y, test_size=0.2, random_state=0)\n"
        "reg = RandomForestRegressor(n_estimators=200, random_state=0)\n"
        "reg.fit(X_train, y_train)\nprint('R^2 on validation:', reg.score(X_val, y_val))",
        "reg.fit(X, y)\npd.DataFrame({'id': test['id'], 'rating': reg.predict(test[X.columns])})"
        ".to_csv('submission.csv', index=False)",
    )
    assert (task.metric_name, task.task_type) == ("r2", "regression")


@pytest.mark.parametrize(
    ("line", "metric"),
    [
        ("test_pred = (rf.predict_proba(test_df[X.columns])[:, 1] > 0.4).astype(int)", "f1"),
        ("test_pred = np.where(rf.predict_proba(test_df[X.columns])[:, 1] >= t, 1, 0)", "f1"),
        ("test_pred = rf.predict_proba(test_df[X.columns])[:, 1]", "roc_auc"),  # probabilities
    ],
)
def test_probabilities_made_labels_by_a_threshold_are_labels(
    tmp_path: Path, line: str, metric: str
) -> None:
    """``(proba[:, 1] > 0.4).astype(int)`` was read as a probability submission: the run
    graded the F1 notebook by ROC AUC and told the user to leave out ``.astype(int)``."""
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.normal(size=(300, 4)), columns=list("abcd"))
    df["churn"] = (df["a"] + rng.normal(size=300) > 1).astype(int)
    df.insert(0, "id", range(300))
    _train_and_test(tmp_path, df, 240, "churn")
    task = _task(
        tmp_path,
        "import numpy as np\nimport pandas as pd\nfrom sklearn.ensemble import RandomForestClassifier\n"
        "from sklearn.model_selection import train_test_split\nfrom sklearn.metrics import f1_score",
        "df = pd.read_csv('train.csv')\ntest_df = pd.read_csv('test.csv')\nt = 0.4\n"
        "X = df.drop(columns=['id', 'churn'])\ny = df['churn']\n"
        "X_train, X_val, y_train, y_val = train_test_split(X, y, stratify=y, random_state=0)",
        "rf = RandomForestClassifier(random_state=0)\nrf.fit(X_train, y_train)\n"
        "pred = (rf.predict_proba(X_val)[:, 1] > 0.4).astype(int)\nprint(f1_score(y_val, pred))",
        f"rf.fit(X, y)\n{line}\n"
        "pd.DataFrame({'id': test_df['id'], 'churn': test_pred}).to_csv('submission.csv', index=False)",
    )
    assert task.metric_name == metric


@pytest.mark.parametrize(
    ("line", "metric"),
    [
        ("acc = (gb.predict(val[cols]) == val['malignant']).mean()", "accuracy"),
        ("print(np.mean(model.predict(X_va[feats]) == y_va))", "accuracy"),
        ("acc = (net(x_va).argmax(dim=1) == y_va).float().mean().item()", "accuracy"),
        ("diff = (a == b).sum()", None),
        ("ok = (pred != y).mean()", None),  # the error rate: not accuracy
    ],
)
def test_a_hand_written_accuracy_with_calls_inside_is_read(line: str, metric: str | None) -> None:
    """Hunt E (session 28): ``(gb.predict(val[cols]) == val['malignant']).mean()`` was no
    metric (nested calls), so the notebook "computed no metric" and its hold-out was replaced."""
    from mlestar_jupyter.importer.notebook_task import hand_written_metric

    assert hand_written_metric(line) == metric
