"""A notebook organised in functions (``load_data``, ``preprocess``, ``train_model``,
``evaluate``) whose top level calls them: ``model = train_model(X_tr, tr["cultivar"])`` then
``evaluate(model, X_va, va["cultivar"])``.  It was refused after 2 s ("the model is fitted inside
a function ..."), though the model and the validation rows are the top level's.  Its metric was
read as accuracy (the last call in ``evaluate``) while it hands in probabilities."""

from __future__ import annotations

from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
import pytest
from kernel import run_notebook
from sklearn.datasets import load_wine

from mlestar_jupyter.agent.user_notebook import prepare_user_notebook
from mlestar_jupyter.importer.notebook_task import task_from_notebook
from mlestar_jupyter.notebook import SolutionNotebook
from mlestar_jupyter.notebook.roles import analyze

CELLS = (
    "import pandas as pd\nimport numpy as np\nfrom sklearn.preprocessing import StandardScaler\n"
    "from sklearn.linear_model import LogisticRegression\n"
    "from sklearn.model_selection import train_test_split\n"
    "from sklearn.metrics import log_loss, accuracy_score",
    "def load_data(path='.'):\n    return pd.read_csv(f'{path}/train.csv'), pd.read_csv(f'{path}/test.csv')\n\n\n"
    "def preprocess(df, scaler=None):\n    feats = [c for c in df.columns if c not in ('id', 'cultivar')]\n"
    "    if scaler is None:\n        scaler = StandardScaler().fit(df[feats])\n"
    "    return pd.DataFrame(scaler.transform(df[feats]), columns=feats), scaler\n\n\n"
    "def train_model(X, y, C=1.0):\n    model = LogisticRegression(C=C, max_iter=2000)\n"
    "    model.fit(X, y)\n    return model\n\n\n"
    "def evaluate(model, X, y):\n    ll = log_loss(y, model.predict_proba(X), labels=model.classes_)\n"
    "    acc = accuracy_score(y, model.predict(X))\n    print(f'logloss={ll:.4f} acc={acc:.4f}')\n"
    "    return ll",
    "train, test = load_data()\n"
    "tr, va = train_test_split(train, test_size=0.25, random_state=7, stratify=train['cultivar'])\n"
    "X_tr, scaler = preprocess(tr)\nX_va, _ = preprocess(va, scaler)\n"
    "model = train_model(X_tr, tr['cultivar'])\nscore = evaluate(model, X_va, va['cultivar'])",
    "X_all, scaler = preprocess(train)\nX_te, _ = preprocess(test, scaler)\n"
    "final_model = train_model(X_all, train['cultivar'])\n"
    "sub = pd.DataFrame(final_model.predict_proba(X_te), columns=final_model.classes_)\n"
    "sub.insert(0, 'id', test['id'].values)\nsub.to_csv('submission.csv', index=False)",
)


def _folder(root: Path) -> Path:
    df = load_wine(as_frame=True).frame.sample(frac=1.0, random_state=0)
    df = df.rename(columns={"target": "cultivar"})
    df["cultivar"] = "class_" + df["cultivar"].astype(str)
    df.insert(0, "id", range(len(df)))
    root.mkdir(parents=True)
    df.iloc[:130].to_csv(root / "train.csv", index=False)
    df.iloc[130:].drop(columns="cultivar").to_csv(root / "test.csv", index=False)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in CELLS]
    nbformat.write(nb, root / "nb.ipynb")
    return root


def test_a_model_returned_by_the_notebooks_function_is_a_top_level_fit() -> None:
    nb = SolutionNotebook.new([("other", c) for c in CELLS])
    returned = [(f.var, f.args, f.returned_by) for f in analyze(nb).fits if f.returned_by]
    assert returned == [
        ("model", ("X_tr", "tr['cultivar']"), "train_model"),
        ("final_model", ("X_all", "train['cultivar']"), "train_model"),
    ]


def test_it_is_scored_on_the_rows_the_notebook_gives_its_evaluate(tmp_path: Path) -> None:
    root = _folder(tmp_path / "wine")
    nb = SolutionNotebook.read(root / "nb.ipynb")
    task = task_from_notebook(nb, root, "nb.ipynb")
    assert task.metric_name == "log_loss", task.notices[0]  # it hands in probabilities
    prepared = prepare_user_notebook(nb, task)
    assert prepared.understood, prepared.reason
    assert "on the rows your cell gives `evaluate` (`X_va`, `va['cultivar']`)" in prepared.note
    ran = run_notebook(prepared.notebook, task.root, tmp_path / "work")
    printed = float(ran.output.split("logloss=")[1].split()[0])
    assert ran.score == pytest.approx(printed, abs=1e-4)  # the notebook's own number
    assert np.isfinite(ran.score)
    assert pd.read_csv(tmp_path / "work" / "submission.csv").shape[1] == 4  # id + 3 classes
