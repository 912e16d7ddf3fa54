"""A task that names its positive class (task.json's ``positive_label``) is searched on that
class's F1, as the evaluator grades it (was: the last label in sorted order, 'malignant')."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.metrics import average_precision_score, f1_score

from mlestar_jupyter.agent.roles.context import system_prompt
from mlestar_jupyter.agent.run import RunOutcome
from mlestar_jupyter.agent.user_notebook import prepare_user_notebook
from mlestar_jupyter.journal import RunJournal
from mlestar_jupyter.notebook import SolutionNotebook
from mlestar_jupyter.offline.metric_code import metric_source
from mlestar_jupyter.task import Task


def _outsider_task(root: Path, rows: int = 569, **fields: object) -> Path:
    """A task folder as another author writes one: breast cancer with string labels."""
    data = load_breast_cancer(as_frame=True)
    frame = data.frame.rename(columns=lambda c: c.replace(" ", "_"))
    frame["diagnosis"] = np.where(data.target == 1, "benign", "malignant")
    frame = frame.drop(columns="target").iloc[:rows]
    frame.insert(0, "patient", range(len(frame)))
    inp = root / "input"
    inp.mkdir(parents=True)
    cut = int(len(frame) * 0.8)
    frame.iloc[:cut].to_csv(inp / "train.csv", index=False)
    frame.iloc[cut:].drop(columns="diagnosis").to_csv(inp / "test.csv", index=False)
    frame.iloc[cut:][["patient"]].assign(diagnosis="benign").to_csv(
        inp / "sample_submission.csv", index=False
    )
    spec = {
        "name": "cancer-screen",
        "goal": "Flag the benign tumours.",
        "metric": "f1",
        "target": "diagnosis",
        "id_column": "patient",
        "positive_label": "benign",
        **fields,
    }
    (root / "task.json").write_text(json.dumps(spec))
    return root


def _score_fn(metric: str, positive: str | None) -> object:
    head, body = metric_source(metric, "classification", positive)
    namespace: dict[str, object] = {}
    exec("import numpy as np\n" + head + "\n" + body, namespace)  # noqa: S102 - our own code
    return namespace["score_predictions"]


def test_the_task_names_its_positive_class(tmp_path: Path) -> None:
    assert Task.load(_outsider_task(tmp_path / "a")).positive_label == "benign"
    aliased = _outsider_task(tmp_path / "b", positive_label=None, positive_class="benign")
    assert Task.load(aliased).positive_label == "benign"
    aliased = _outsider_task(tmp_path / "c", positive_label=None, pos_label=1.0)
    assert Task.load(aliased).positive_label == "1"


def test_validation_f1_scores_the_named_class() -> None:
    classes = np.array(["benign", "malignant"])
    y = np.array(["benign"] * 6 + ["malignant"] * 4)
    labels = np.array(["benign"] * 4 + ["malignant"] * 2 + ["malignant"] * 3 + ["benign"])
    pred = (labels[:, None] == classes[None, :]).astype(float)
    named = _score_fn("f1", "benign")(y, pred, classes)  # type: ignore[operator]
    assert named == pytest.approx(f1_score(y, labels, pos_label="benign"))
    assert named != pytest.approx(f1_score(y, labels, pos_label="malignant"))
    default = _score_fn("f1", None)(y, pred, classes)  # type: ignore[operator]
    assert default == pytest.approx(f1_score(y, labels, pos_label="malignant"))


def test_binary_probability_metric_reads_the_named_column() -> None:
    classes = np.array(["benign", "malignant"])
    rng = np.random.default_rng(0)
    y = rng.choice(classes, 50)
    p_benign = np.clip((y == "benign") * 0.6 + rng.uniform(0, 0.5, 50), 0, 1)
    pred = np.column_stack([p_benign, 1 - p_benign])
    got = _score_fn("average_precision", "benign")(y, pred, classes)  # type: ignore[operator]
    assert got == pytest.approx(average_precision_score(y == "benign", p_benign))


def test_the_system_prompt_states_the_positive_class(tmp_path: Path) -> None:
    prompt = system_prompt(Task.load(_outsider_task(tmp_path / "t")))
    assert 'positive class (pos_label="benign"' in prompt
    assert "benign" in Task.load(tmp_path / "t").describe()


def test_the_search_validates_on_the_named_class(
    tmp_path: Path, short_run: Callable[..., RunOutcome]
) -> None:
    task = _outsider_task(tmp_path / "task", rows=300)
    out = short_run(task)
    events = RunJournal.open(out.run_dir).events
    mismatches = [e.data for e in events if e.type == "score_mismatch"]
    assert not mismatches, mismatches  # printed (the notebook's F1) == measured (benign's F1)
    notebooks = [p.read_text() for p in Path(out.run_dir).rglob("*.ipynb")]
    assert any("in ('benign',)" in nb and "pos_label=positive" in nb for nb in notebooks)


def test_a_users_notebook_is_validated_on_the_named_class(tmp_path: Path) -> None:
    """A notebook the user brings, without a score line: the validation cell MLE-STAR adds
    scores F1 of 'benign' (was: of 'malignant', the last in sorted order)."""
    task = Task.load(_outsider_task(tmp_path / "t"))
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(
            "import pandas as pd\n"
            "from sklearn.linear_model import LogisticRegression\n"
            "from sklearn.model_selection import train_test_split\n"
            "df = pd.read_csv('input/train.csv')\n"
            "X, y = df.drop(columns=['patient', 'diagnosis']), df['diagnosis']\n"
            "X_tr, X_va, y_tr, y_va = train_test_split(X, y, random_state=0)\n"
            "model = LogisticRegression(max_iter=2000).fit(X_tr, y_tr)\n"
        )
    ]
    prepared = prepare_user_notebook(SolutionNotebook(nb), task)
    assert prepared.added_block is not None, prepared.reason
    code = prepared.notebook.block(prepared.added_block).source
    assert "_mlestar_positive(_y, _p, 'benign')" in code
    namespace: dict[str, object] = {}
    exec(code.split("\nprint(")[0], namespace)  # noqa: S102 - the helpers it defines
    positive = namespace["_mlestar_positive"]
    y = np.array(["benign", "malignant", "benign"])
    assert positive(y, y, "benign") == {"pos_label": "benign"}  # type: ignore[operator]


def test_a_binary_probability_is_submitted_for_the_named_class(
    tmp_path: Path, short_run: Callable[..., RunOutcome]
) -> None:
    """log loss graded on P('benign'): the candidates write and validate that column (was:
    P('malignant'), the second in sorted order, which the harness measured far worse)."""
    task = _outsider_task(tmp_path / "task", rows=300, metric="log_loss")
    sample = tmp_path / "task" / "input" / "sample_submission.csv"
    pd.read_csv(sample).assign(diagnosis=0.5).to_csv(sample, index=False)
    out = short_run(task)
    events = RunJournal.open(out.run_dir).events
    mismatches = [e.data for e in events if e.type == "score_mismatch"]
    assert not mismatches, mismatches
    answers = load_breast_cancer().target[240:300] == 1  # benign
    submitted = pd.read_csv(Path(out.run_dir) / "final" / "submission.csv")["diagnosis"]
    assert np.mean(np.where(answers, submitted, 1 - submitted)) > 0.8
