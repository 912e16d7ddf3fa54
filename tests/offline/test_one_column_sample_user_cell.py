"""A user's notebook on an outsider's folder whose sample submission has one column
(``id,cultivar``) while the metric is log loss of three cultivars: the submission cell the run
adds wrote the class columns, then kept only the sample's columns present, so the file held the
ids alone.  It now writes the task's header, one probability column per class (``id,0,1,2``,
``Task.class_columns``), which the grader scores."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pandas as pd
from kernel import run_notebook
from sklearn.datasets import load_wine
from sklearn.metrics import log_loss

from mlestar_jupyter.agent.submission import submission_problems
from mlestar_jupyter.evaluator.grading import grade_submission
from mlestar_jupyter.notebook import SolutionNotebook
from mlestar_jupyter.offline.user_code.submission_cell import with_submission_cell
from mlestar_jupyter.task import load_task

NOTEBOOK = (
    "import pandas as pd\n"
    "from sklearn.linear_model import LogisticRegression\n"
    "from sklearn.pipeline import make_pipeline\n"
    "from sklearn.preprocessing import StandardScaler\n"
    "train = pd.read_csv('input/train.csv')\n"
    "X = train.drop(columns=['id', 'cultivar']); y = train['cultivar']\n"
    "model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=500))\n"
    "model.fit(X, y)"
)


def test_the_cell_writes_a_column_per_class(tmp_path: Path) -> None:
    df = load_wine(as_frame=True).frame.rename(columns={"target": "cultivar"})
    df.insert(0, "id", range(len(df)))
    df = df.sample(frac=1.0, random_state=0)
    root = tmp_path / "wine"
    root.mkdir()
    df.iloc[:130].to_csv(root / "train.csv", index=False)
    test = df.iloc[130:]
    test.drop(columns="cultivar").to_csv(root / "test.csv", index=False)
    pd.DataFrame({"id": test.id, "cultivar": 0}).to_csv(root / "sample_submission.csv", index=False)
    (root / "README.md").write_text("# Wine\n\nPredict the cultivar.\n\nMetric: log loss\n")
    (tmp_path / "answers" / "wine").mkdir(parents=True)
    test[["id", "cultivar"]].to_csv(tmp_path / "answers" / "wine" / "answers.csv", index=False)
    task = load_task(root)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(NOTEBOOK)]
    ran = run_notebook(with_submission_cell(SolutionNotebook(nb), task), root, tmp_path / "work")
    sub = pd.read_csv(ran.submission)
    assert list(sub.columns) == ["id", "0", "1", "2"]
    assert submission_problems(task, ran.submission) == []
    report = grade_submission(task, ran.submission)
    assert report.valid_submission, report.invalid_reason
    expected = log_loss(test.cultivar, sub[["0", "1", "2"]].to_numpy(), labels=[0, 1, 2])
    assert report.score is not None and abs(report.score - expected) < 1e-9
