"""MAP@k for a user's own notebook: the added validation cell lists each row's k most likely
classes from the model's probabilities and scores them the way the grader does.  Before, a
notebook task graded by MAP@3 was "not understood" (the metric could not be computed), and the
notebook's own ``accuracy_score`` values (one label per row) are not what MAP@k reads."""

from __future__ import annotations

from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
import pytest
from kernel import run_notebook
from sklearn.datasets import load_digits

from mlestar_jupyter.agent import user_notebook
from mlestar_jupyter.agent.user_notebook import prepare_user_notebook
from mlestar_jupyter.importer.notebook_task import task_from_notebook
from mlestar_jupyter.metrics import get_metric
from mlestar_jupyter.notebook import SolutionNotebook


def test_the_ranked_expression_is_the_registrys_map_at_k() -> None:
    rng = np.random.RandomState(0)
    classes = np.array(["a", "b", "c", "d", "e"])
    y = rng.choice(classes, 40)
    top = np.array([rng.permutation(classes)[:3] for _ in y])
    got = eval(user_notebook._RANKED_EXPR, {"np": np, "_y": y, "_p": top})
    want = get_metric("MAP@3")(y, [list(r) for r in top])
    assert 0 < want < 1 and got == pytest.approx(want)


def _digits_notebook(folder: Path) -> SolutionNotebook:
    """Written the way a course notebook is: its own split, a forest, accuracy printed."""
    d = load_digits()
    df = pd.DataFrame(d.data, columns=[f"px{i}" for i in range(64)])
    df["digit"] = [f"d{v}" for v in d.target]
    folder.mkdir(parents=True, exist_ok=True)
    df.iloc[:1200].to_csv(folder / "train.csv", index=False)
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(c)
        for c in (
            "import pandas as pd\n"
            "from sklearn.model_selection import train_test_split\n"
            "from sklearn.ensemble import RandomForestClassifier\n"
            "from sklearn.metrics import accuracy_score",
            "df = pd.read_csv('train.csv')\n"
            "X = df.drop(columns=['digit'])\n"
            "y = df['digit']\n"
            "X_train, X_val, y_train, y_val = train_test_split(X, y, random_state=3)",
            "clf = RandomForestClassifier(n_estimators=30, max_depth=4, random_state=0)\n"
            "clf.fit(X_train, y_train)\n"
            "print('accuracy', accuracy_score(y_val, clf.predict(X_val)))",
        )
    ]
    nbformat.write(nb, folder / "digits.ipynb")
    return SolutionNotebook.read(folder / "digits.ipynb")


def test_a_user_notebook_graded_by_map_at_3_gets_a_validation_cell_that_ranks(
    tmp_path: Path,
) -> None:
    nb = _digits_notebook(tmp_path / "course")
    task = task_from_notebook(nb, tmp_path / "course", "digits.ipynb", metric="MAP@3")
    assert task.metric_name == "map@3"
    prepared = prepare_user_notebook(nb, task)
    assert prepared.understood, prepared.reason
    assert "on your validation split (`X_val`, `y_val`)" in prepared.note
    ran = run_notebook(prepared.notebook, task.root, tmp_path / "work")
    accuracy = float(ran.output.split("accuracy ")[1].split()[0])
    # the same forest, its top-3 classes: at least its accuracy (rank 1 counts 1), at most 1
    assert ran.score is not None and accuracy < ran.score <= 1.0
    df = pd.read_csv(tmp_path / "course" / "train.csv")
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.model_selection import train_test_split

    X, y = df.drop(columns=["digit"]), df["digit"]
    X_tr, X_va, y_tr, y_va = train_test_split(X, y, random_state=3)
    clf = RandomForestClassifier(n_estimators=30, max_depth=4, random_state=0).fit(X_tr, y_tr)
    order = np.argsort(-clf.predict_proba(X_va), axis=1, kind="stable")[:, :3]
    want = get_metric("map@3")(y_va.to_numpy(), [list(r) for r in clf.classes_[order]])
    assert ran.score == pytest.approx(want)
