"""A user's notebook that fits and scores a model but predicts no test rows: the final notebook
wrote no submission and the run ended ``failed`` with no notebook at all (a real Kaggle-style
notebook whose validation score the run had raised).  The final notebook now gets a cell that
predicts the test table with the notebook's model and writes the submission the task asks for."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from kernel import run_notebook
from user_runs import code_notebook as _nb

from mlestar_jupyter.agent.submission import submission_problems
from mlestar_jupyter.agent.user_notebook import prepare_user_notebook
from mlestar_jupyter.evaluator.grading import grade_submission
from mlestar_jupyter.offline.user_code.submission_cell import ORIGIN, with_submission_cell
from mlestar_jupyter.task import load_task

BREAST_CANCER = Path(__file__).parents[2] / "example_notebooks" / "tasks" / "breast-cancer"


FIT_RF = (  # a forest fitted on a split of the notebook's own
    "from sklearn.model_selection import train_test_split\n"
    "from sklearn.ensemble import RandomForestClassifier\n"
    "X_tr, X_va, y_tr, y_va = train_test_split(X, y, random_state=0)\n"
    "rf = RandomForestClassifier(n_estimators=50, random_state=0)\n"
    "rf.fit(X_tr, y_tr)"
)


READ = (
    "import pandas as pd\n"
    "train = pd.read_csv('input/train.csv')\ntest = pd.read_csv('input/test.csv')\n"
    "X = train.drop(columns=['id', 'target']); y = train['target']"
)


def test_a_split_and_a_forest_give_a_probability_submission_graded_like_any(
    tmp_path: Path,
) -> None:
    """ROC AUC with a sample submission (id, target): the second class's probability."""
    task = load_task(BREAST_CANCER)
    nb = _nb(
        READ,
        FIT_RF,
    )
    final = with_submission_cell(nb, task)
    assert final.code_blocks[-1].origin == ORIGIN and "`rf`" in final.code_blocks[-1].source
    ran = run_notebook(final, BREAST_CANCER, tmp_path)
    assert submission_problems(task, ran.submission) == []
    sub = pd.read_csv(ran.submission)
    assert list(sub.columns) == ["id", "target"] and sub["target"].between(0, 1).all()
    assert grade_submission(task, ran.submission).score > 0.95


def test_a_model_of_the_split_is_refitted_on_the_training_and_validation_rows(
    tmp_path: Path,
) -> None:
    """The final solution trains on all labelled rows: a copy of the split's model, with its
    settings, fitted on both parts (numpy arrays here); a model that cannot be copied predicts
    as it was trained."""
    from sklearn.linear_model import LogisticRegression

    task = load_task(BREAST_CANCER)
    split = (
        "from sklearn.model_selection import train_test_split\n"
        "from sklearn.linear_model import LogisticRegression\n"
        "Xa, ya = X.to_numpy(), y.to_numpy()\n"
        "X_tr, X_va, y_tr, y_va = train_test_split(Xa, ya, test_size=0.5, random_state=0)\n"
    )
    nb = _nb(READ, split + "lr = LogisticRegression(C=0.01, max_iter=5000)\nlr.fit(X_tr, y_tr)")
    ran = run_notebook(with_submission_cell(nb, task), BREAST_CANCER, tmp_path / "lr")
    train = pd.read_csv(BREAST_CANCER / "input" / "train.csv")
    assert f"refitted on {len(train)} rows (training and validation)" in ran.output
    assert "feature names" not in ran.output  # fitted on arrays, it predicts arrays
    test = pd.read_csv(BREAST_CANCER / "input" / "test.csv")
    X = train.drop(columns=["id", "target"])
    every = LogisticRegression(C=0.01, max_iter=5000).fit(X.to_numpy(), train["target"])
    want = every.predict_proba(test[X.columns].to_numpy())[:, 1]
    sub = pd.read_csv(ran.submission)
    assert np.abs(sub["target"].to_numpy() - want).max() < 1e-3  # rows in another order
    from sklearn.model_selection import train_test_split

    X_tr, _, y_tr, _ = train_test_split(
        X.to_numpy(), train["target"].to_numpy(), test_size=0.5, random_state=0
    )
    half = LogisticRegression(C=0.01, max_iter=5000).fit(X_tr, y_tr)
    assert np.abs(half.predict_proba(test[X.columns].to_numpy())[:, 1] - want).max() > 0.01
    # a model without scikit-learn's get_params: the one the notebook trained
    own = _nb(
        READ,
        split + "class Mean:\n    def fit(self, X, y):\n        self.m = float(np.mean(y))\n"
        "        return self\n    def predict(self, X):\n        return np.full(len(X), self.m)\n"
        "import numpy as np\nm = Mean()\nm.fit(X_tr, y_tr)",
    )
    ran = run_notebook(with_submission_cell(own, task), BREAST_CANCER, tmp_path / "own")
    assert "refitted" not in ran.output and ran.submission is not None


def test_a_notebook_that_only_cross_validates_is_fitted_before_it_predicts(
    tmp_path: Path,
) -> None:
    task = load_task(BREAST_CANCER)
    nb = prepare_user_notebook(
        _nb(
            READ,
            "from sklearn.model_selection import cross_val_score\n"
            "from sklearn.linear_model import LogisticRegression\n"
            "print(cross_val_score(LogisticRegression(max_iter=5000), X, y, cv=3).mean())",
        ),
        task,
    ).notebook
    ran = run_notebook(with_submission_cell(nb, task), BREAST_CANCER, tmp_path)
    assert "submission: " in ran.output and submission_problems(task, ran.submission) == []
    assert grade_submission(task, ran.submission).score > 0.95


def test_labels_come_from_the_notebooks_own_prepared_test_table(tmp_path: Path) -> None:
    """The notebook adds a column to both tables: the cell predicts from the notebook's test
    table (which has it), not from the file's columns (which lack it)."""
    folder = tmp_path / "task"
    (folder / "input").mkdir(parents=True)
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"id": range(200), "a": rng.normal(size=200), "b": rng.normal(size=200)})
    df["label"] = np.where(df.a + df.b > 0, "yes", "no")
    df.iloc[:150].to_csv(folder / "input" / "train.csv", index=False)
    df.iloc[150:].drop(columns="label").to_csv(folder / "input" / "test.csv", index=False)
    (folder / "task.json").write_text(
        '{"id": "t", "goal": "yes or no", "metric": "accuracy", "task_type": "classification",'
        ' "target_cols": ["label"], "id_col": "id"}'
    )
    task = load_task(folder)
    nb = _nb(
        "import pandas as pd\nfrom sklearn.tree import DecisionTreeClassifier\n"
        "train = pd.read_csv('input/train.csv'); test = pd.read_csv('input/test.csv')",
        "for t in (train, test):\n    t['s'] = t['a'] + t['b']",
        "clf = DecisionTreeClassifier(max_depth=1).fit(train[['s']], train['label'])",
    )
    ran = run_notebook(with_submission_cell(nb, task), folder, tmp_path / "work")
    sub = pd.read_csv(ran.submission)
    assert list(sub.columns) == ["id", "label"]
    assert (sub["label"].to_numpy() == df.iloc[150:]["label"].to_numpy()).mean() > 0.9


def test_a_notebook_that_writes_its_own_file_or_has_no_test_table_is_left_alone() -> None:
    task = load_task(BREAST_CANCER)
    own = _nb(READ, "m.fit(X, y)\npd.DataFrame({'id': test.id}).to_csv('sub.csv')")
    assert with_submission_cell(own, task) is own
    no_model = _nb(READ)
    assert with_submission_cell(no_model, task) is no_model


def _european(root: Path) -> Path:
    """The breast-cancer task as a European author writes it: every table ``;``-separated with
    decimal commas (``0,5`` in the sample submission), the answers too, beside the folder."""
    (root / "input").mkdir(parents=True)
    for name in ("train", "test", "sample_submission"):
        frame = pd.read_csv(BREAST_CANCER / "input" / f"{name}.csv")
        frame.to_csv(root / "input" / f"{name}.csv", sep=";", decimal=",", index=False)
    (root / "task.json").write_text((BREAST_CANCER / "task.json").read_text())
    answers = root.parent / "answers" / root.name
    answers.mkdir(parents=True)
    frame = pd.read_csv(BREAST_CANCER.parent / "answers" / "breast-cancer" / "answers.csv")
    frame.to_csv(answers / "answers.csv", sep=";", decimal=",", index=False)
    return root


def test_a_european_task_gets_its_submission_written_as_its_sample_is(tmp_path: Path) -> None:
    """The author's notebook reads with ``sep=";", decimal=","``; the added cell reads the test
    table and the sample the same way and writes ``id;target`` with decimal commas, which the
    author's grader (reading the submission as it reads the sample) scores."""
    root = _european(tmp_path / "euro-bc")
    task = load_task(root)
    nb = _nb(
        "import pandas as pd\n"
        "train = pd.read_csv('input/train.csv', sep=';', decimal=',')\n"
        "X = train.drop(columns=['id', 'target']); y = train['target']",
        FIT_RF,
    )
    final = with_submission_cell(nb, task)
    cell = final.code_blocks[-1].source
    assert 'pd.read_csv(\'input/test.csv\', sep=";", decimal=",")' in cell
    assert 'index=False, sep=";", decimal=","' in cell
    ran = run_notebook(final, root, tmp_path / "work")
    assert ran.submission.read_text().startswith("id;target\n")
    sub = pd.read_csv(ran.submission, sep=";", decimal=",")
    assert sub["target"].dtype.kind == "f" and sub["target"].between(0, 1).all()
    assert sub["target"].nunique() > 5  # probabilities, written with decimal commas
    assert submission_problems(task, ran.submission) == []
    assert grade_submission(task, ran.submission).score > 0.95
    # a comma-separated file, as a plain to_csv writes it, is not what that grader reads
    plain = tmp_path / "plain.csv"
    sub.to_csv(plain, index=False)
    report = grade_submission(task, plain)
    assert not report.valid_submission
    assert "separated by ',', the sample submission separated by ';'" in str(report.invalid_reason)


def test_a_plain_tasks_submission_cell_is_unchanged() -> None:
    """No keyword is added for plain CSVs: the cell reads and writes as before."""
    nb = _nb(
        READ,
        "from sklearn.linear_model import LogisticRegression\n"
        "lr = LogisticRegression()\nlr.fit(X, y)",
    )
    cell = with_submission_cell(nb, load_task(BREAST_CANCER)).code_blocks[-1].source
    assert "_raw = pd.read_csv('input/test.csv')\n" in cell
    assert "pd.read_csv(_sample, nrows=1).columns" in cell
    assert '"final/submission.csv", index=False\n)' in cell
