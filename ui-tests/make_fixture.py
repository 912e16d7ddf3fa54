"""Write the UI test's task folder: a small breast-cancer task and a starting notebook.

    python ui-tests/make_fixture.py OUT_DIR [--rows N]

OUT_DIR/bc/ gets task.json, input/{train,test,sample_submission}.csv and
solution.ipynb (the answers go to OUT_DIR/answers/bc/answers.csv, outside the task folder, as
``mlestar bench prepare`` lays them out): four blocks (load, model, evaluate, submission) on five weak features, with a deliberately small
random forest (so the offline backend's generic plans — more trees, deeper trees — really improve
it); the evaluate block prints
``Final Validation Performance: <auc>``, so ``mlestar run --notebook`` refines it directly.
The notebook's ``metadata.mlestar.task`` is ``.`` (its own folder), which the dialog offers.

OUT_DIR/outsider/ is a folder as a student leaves it: ``data/train.csv`` and ``data/test.csv``
(a ``diagnosis`` column of M/B, a ``patient_id``), no task.json, no README, and
``analysis.ipynb``: plain cells with no MLE-STAR metadata, a weak forest on three features,
scored by ``print('accuracy:', ...)`` rather than the line a run reads.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import nbformat

from mlestar_jupyter.notebook import SolutionNotebook

BLOCKS = [
    (
        "load",
        """import pandas as pd
from sklearn.model_selection import train_test_split
train = pd.read_csv("input/train.csv")
test = pd.read_csv("input/test.csv")
features = ["mean_smoothness", "mean_symmetry", "mean_fractal_dimension", "texture_error", "smoothness_error"]
X_tr, X_va, y_tr, y_va = train_test_split(train[features], train["target"], test_size=0.25, random_state=0, stratify=train["target"])""",
    ),
    (
        "model",
        """from sklearn.ensemble import RandomForestClassifier
model = RandomForestClassifier(n_estimators=3, max_depth=1, random_state=0)
model.fit(X_tr, y_tr)""",
    ),
    (
        "evaluate",
        """from sklearn.metrics import roc_auc_score
score = roc_auc_score(y_va, model.predict_proba(X_va)[:, 1])
print(f"Final Validation Performance: {score}")""",
    ),
    (
        "submission",
        """import os
os.makedirs("final", exist_ok=True)
pd.DataFrame({"id": test["id"], "target": model.predict_proba(test[features])[:, 1]}).to_csv("final/submission.csv", index=False)""",
    ),
]


def write_task(root: Path, rows: int) -> Path:
    """The task folder (TAM-Bench layout) with ``rows`` rows of breast-cancer data."""
    import pandas as pd
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split

    df = load_breast_cancer(as_frame=True).frame.rename(columns=lambda c: c.replace(" ", "_"))
    df.insert(0, "id", range(len(df)))
    df = df.sample(n=min(rows, len(df)), random_state=0)
    train, test = train_test_split(df, test_size=0.25, random_state=0, stratify=df["target"])
    (root / "input").mkdir(parents=True, exist_ok=True)
    answers = root.parent / "answers" / root.name  # task.loaders.answers_folder's layout
    answers.mkdir(parents=True, exist_ok=True)
    train.to_csv(root / "input" / "train.csv", index=False)
    test.drop(columns=["target"]).to_csv(root / "input" / "test.csv", index=False)
    pd.DataFrame({"id": test["id"], "target": 0}).to_csv(
        root / "input" / "sample_submission.csv", index=False
    )
    test[["id", "target"]].to_csv(answers / "answers.csv", index=False)
    task = {
        "task_type": "classification",
        "goal_description": "Predict whether a breast tumour is benign (target=1) from cell-nucleus measurements.",
        "metric": {"metric_name": "ROC AUC", "direction": "maximize"},
        "target_col": "target",
        "data_information": {
            "data_type": "Tabular",
            "train": {
                "data_location": "train.csv",
                "data_description": "30 numeric features, id and target",
            },
            "test": {
                "data_location": "test.csv",
                "data_description": "same features without target",
            },
        },
        "output_format": "id,target\n0,0.5\n...",
        "special_instructions": "1. Predict the probability of class 1.",
    }
    (root / "task.json").write_text(json.dumps(task, indent=2))
    return root


def write_notebook(root: Path) -> Path:
    """``solution.ipynb``: the starting solution, with nbformat cell ids and block ids."""
    nb = SolutionNotebook.new(BLOCKS, title="# Breast cancer: starting solution").nb
    nb.metadata["mlestar"] = {"task": "."}
    nb.nbformat, nb.nbformat_minor = 4, 5
    for cell in nb.cells:
        cell.setdefault("id", nbformat.v4.new_code_cell().id)
    path = root / "solution.ipynb"
    nbformat.write(nbformat.from_dict(nb), path)
    return path


OUTSIDER_CELLS = [
    "import pandas as pd\nfrom sklearn.model_selection import train_test_split\n"
    "from sklearn.ensemble import RandomForestClassifier\nfrom sklearn.metrics import accuracy_score",
    "df = pd.read_csv('data/train.csv')\ntest = pd.read_csv('data/test.csv')\ndf.head()",
    "X = df[['mean_smoothness', 'mean_symmetry', 'texture_error']]\ny = df['diagnosis']\n"
    "X_train, X_val, y_train, y_val = train_test_split(X, y, test_size=0.25, random_state=42)",
    "model = RandomForestClassifier(n_estimators=3, max_depth=1, random_state=0)\n"
    "model.fit(X_train, y_train)",
    "preds = model.predict(X_val)\nprint('accuracy:', accuracy_score(y_val, preds))",
    "sub = pd.DataFrame({'patient_id': test['patient_id'], 'diagnosis': model.predict(test[X.columns])})\n"
    "sub.to_csv('submission.csv', index=False)",
]


def write_outsider(root: Path, rows: int) -> Path:
    """A user's own folder: tables in ``data/`` and an untagged notebook; the notebook's path."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split

    df = load_breast_cancer(as_frame=True).frame.rename(columns=lambda c: c.replace(" ", "_"))
    df = df.sample(n=min(rows, len(df)), random_state=1)
    df.insert(0, "patient_id", range(1000, 1000 + len(df)))
    df["diagnosis"] = df.pop("target").map({0: "M", 1: "B"})
    train, test = train_test_split(df, test_size=0.2, random_state=1, stratify=df["diagnosis"])
    (root / "data").mkdir(parents=True, exist_ok=True)
    train.to_csv(root / "data" / "train.csv", index=False)
    test.drop(columns=["diagnosis"]).to_csv(root / "data" / "test.csv", index=False)
    nb = nbformat.v4.new_notebook()  # nbformat 4.5: every cell has an id, nothing else of ours
    nb.cells = [nbformat.v4.new_code_cell(src) for src in OUTSIDER_CELLS]
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    path = root / "analysis.ipynb"
    nbformat.write(nb, path)
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--rows", type=int, default=240)
    args = ap.parse_args()
    root = write_task(args.out / "bc", args.rows)
    print(write_notebook(root))
    print(write_outsider(args.out / "outsider", args.rows))


if __name__ == "__main__":
    main()
