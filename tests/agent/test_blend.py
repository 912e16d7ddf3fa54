"""The final blend: weights chosen on the run's validation rows by the harness's scorer, the
test predictions averaged by id, the notebook that reproduces the blended file in one kernel, and
which solution is the best one's partner."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import nbformat
import numpy as np
import pandas as pd
import pytest

from mlestar_jupyter.agent import blend
from mlestar_jupyter.agent.scoring import ValidationScorer, scorer_for
from mlestar_jupyter.agent.submission import blend_partner
from mlestar_jupyter.journal import Node
from mlestar_jupyter.task import Task, load_task


def _diabetes_task(root: Path) -> Task:
    """A regression task folder from scikit-learn's diabetes table (RMSE)."""
    from sklearn.datasets import load_diabetes

    data = load_diabetes(as_frame=True).frame.rename(columns={"target": "progression"})
    data.insert(0, "id", range(len(data)))
    (root / "input").mkdir(parents=True)
    data.iloc[:330].to_csv(root / "input" / "train.csv", index=False)
    test = data.iloc[330:]
    test.drop(columns=["progression"]).to_csv(root / "input" / "test.csv", index=False)
    test[["id"]].assign(progression=150.0).to_csv(
        root / "input" / "sample_submission.csv", index=False
    )
    (root / "task.json").write_text(
        json.dumps(
            {
                "goal_description": "Predict disease progression.",
                "metric": {"metric_name": "rmse"},
                "target_col": "progression",
                "id_col": "id",
            }
        )
    )
    return load_task(root)


@pytest.fixture
def regression(tmp_path: Path) -> tuple[Task, ValidationScorer, pd.Series]:
    task = _diabetes_task(tmp_path / "diabetes")
    scorer = scorer_for(task, seed=0, max_rows=None)  # a hold-out (no k-fold)
    assert scorer.split is not None
    train = pd.read_csv(task.input_dir / "train.csv")
    truth = train["progression"].iloc[list(scorer.split.rows)]
    return task, scorer, truth


def _val_file(path: Path, rows: pd.Index, values: np.ndarray) -> Path:
    pd.DataFrame({"row": rows, "progression": values}).to_csv(path, index=False)
    return path


def _lower(a: float, b: float) -> bool:
    return a < b


def test_two_models_with_independent_errors_blend_better(regression, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _, scorer, truth = regression
    rng = np.random.default_rng(0)
    y = truth.to_numpy(dtype=float)
    a = _val_file(tmp_path / "a.csv", truth.index, y + rng.normal(0, 30, len(y)))
    b = _val_file(tmp_path / "b.csv", truth.index, y + rng.normal(0, 40, len(y)))
    choice = blend.choose_weights(scorer, (a, b), tmp_path / "scratch", _lower)
    assert choice is not None
    assert 0.0 < choice.weight < 1.0 and choice.weight >= 0.5  # the better model weighs more
    assert choice.score < min(choice.alone)
    alone_a = scorer.measure(a)[0]
    assert choice.alone[0] == pytest.approx(alone_a)
    # the chosen weight, applied by hand, scores what the choice says
    mixed = _val_file(
        tmp_path / "m.csv",
        truth.index,
        choice.weights[0] * pd.read_csv(a)["progression"]
        + choice.weights[1] * pd.read_csv(b)["progression"],
    )
    assert scorer.measure(mixed)[0] == pytest.approx(choice.score)


def test_validation_predictions_written_as_a_european_sample_are_blended(  # type: ignore[no-untyped-def]
    regression, tmp_path: Path
) -> None:
    """A solution that writes its validation predictions "in the submission's format" for a
    ``;`` sample with decimal commas: read so (as the scorer reads them), not as one column."""
    _, scorer, truth = regression
    rng = np.random.default_rng(0)
    y = truth.to_numpy(dtype=float)
    a = _val_file(tmp_path / "a.csv", truth.index, y + rng.normal(0, 30, len(y)))
    b = tmp_path / "b.csv"
    frame = pd.DataFrame({"row": truth.index, "progression": y + rng.normal(0, 40, len(y))})
    frame.to_csv(b, index=False, sep=";", decimal=",", encoding="cp1252")
    assert scorer.measure(b)[0] is not None
    choice = blend.choose_weights(scorer, (a, b), tmp_path / "scratch", _lower)
    assert choice is not None and 0.0 < choice.weight < 1.0


@pytest.mark.parametrize("case", ["same", "worse", "labels", "other_rows"])
def test_no_blend_when_it_cannot_help_or_cannot_be_made(
    regression, tmp_path: Path, case: str
) -> None:  # type: ignore[no-untyped-def]
    _, scorer, truth = regression
    y = truth.to_numpy(dtype=float)
    rng = np.random.default_rng(1)
    good = y + rng.normal(0, 20, len(y))
    a = _val_file(tmp_path / "a.csv", truth.index, good)
    if case == "same":
        b = _val_file(tmp_path / "b.csv", truth.index, good)
    elif case == "worse":  # a model whose errors are the first's, larger: no mean beats the first
        b = _val_file(tmp_path / "b.csv", truth.index, y + 3 * (good - y))
    elif case == "labels":
        pd.DataFrame({"row": truth.index, "progression": ["low"] * len(y)}).to_csv(
            tmp_path / "b.csv", index=False
        )
        b = tmp_path / "b.csv"
    else:
        b = _val_file(tmp_path / "b.csv", truth.index + 1000, good)
    assert blend.choose_weights(scorer, (a, b), tmp_path / "scratch", _lower) is None


def test_submissions_are_averaged_by_id(tmp_path: Path) -> None:
    a = pd.DataFrame({"id": [3, 1, 2], "p": [10.0, 20.0, 30.0]})
    b = pd.DataFrame({"id": [1, 2, 3], "p": [0.0, 0.0, 100.0]})  # another row order
    a.to_csv(tmp_path / "a.csv", index=False)
    b.to_csv(tmp_path / "b.csv", index=False)
    out = blend.blend_submissions(
        (tmp_path / "a.csv", tmp_path / "b.csv"), (0.75, 0.25), "id", tmp_path / "o.csv"
    )
    got = pd.read_csv(out)
    assert got["id"].tolist() == [3, 1, 2]
    assert got["p"].tolist() == pytest.approx([0.75 * 10 + 25, 15.0, 22.5])


@pytest.mark.parametrize(
    ("sep", "decimal", "encoding"),
    [(",", ".", "utf-8"), (";", ",", "utf-8"), ("\t", ".", "utf-16"), (";", ",", "cp1252")],
    ids=["plain", "utf8-semicolon", "unicode-text", "as-the-sample"],
)
def test_each_solutions_file_is_read_as_it_is_written(
    tmp_path: Path, sep: str, decimal: str, encoding: str
) -> None:
    """A cp1252 ``;`` sample with decimal commas: a solution whose notebook wrote its file
    otherwise (a plain ``to_csv``: UTF-8 and commas) is read as written, not as the sample is
    (one column ``name,p``; ``MÃ¼ller`` for ``Müller``), and the blend is written as the
    sample is."""
    names = ["Müller", "Straße", "café"]
    args = {"sep": ";", "decimal": ",", "encoding": "cp1252"}
    a = pd.DataFrame({"name": names, "p": [1.5, 2.5, 3.5]})
    b = pd.DataFrame({"name": names[::-1], "p": [30.5, 20.5, 10.5]})
    a.to_csv(tmp_path / "a.csv", index=False, **args)
    b.to_csv(tmp_path / "b.csv", index=False, sep=sep, decimal=decimal, encoding=encoding)
    out = blend.blend_submissions(
        (tmp_path / "a.csv", tmp_path / "b.csv"), (0.5, 0.5), "name", tmp_path / "o.csv", args
    )
    assert out.read_bytes().startswith(b"name;p\nM\xfcller;6,0\n")
    got = pd.read_csv(out, **args)
    assert got["name"].tolist() == names
    assert got["p"].tolist() == pytest.approx([6.0, 11.5, 17.0])


def _writer(values: list[float]) -> nbformat.NotebookNode:
    """A solution notebook that writes ./final/submission.csv (ids 1..3, in reverse for b)."""
    nb = nbformat.v4.new_notebook()
    ids = [1, 2, 3] if values[0] < 50 else [3, 2, 1]
    nb.cells = [
        nbformat.v4.new_code_cell("import pandas as pd\nfrom pathlib import Path"),
        # the first solution leaves a variable behind; the second must not see it
        nbformat.v4.new_code_cell(
            "leftover = 1" if values[0] < 50 else 'assert "leftover" not in globals()'
        ),
        nbformat.v4.new_code_cell(
            'Path("final").mkdir(exist_ok=True)\n'
            f'pd.DataFrame({{"id": {ids}, "p": {values}}}).to_csv("final/submission.csv", index=False)'
        ),
    ]
    return nb


def test_the_blend_notebook_reproduces_the_blended_file(tmp_path: Path) -> None:
    from nbclient import NotebookClient

    paths = (tmp_path / "one.ipynb", tmp_path / "two.ipynb")
    nbformat.write(_writer([1.0, 2.0, 3.0]), str(paths[0]))
    nbformat.write(_writer([60.0, 70.0, 80.0]), str(paths[1]))
    choice = blend.BlendChoice(0.3, 1.0, (2.0, 3.0))
    nb = blend.blend_notebook(paths, ("one", "two"), choice, "id")
    nbformat.validate(nb)
    assert len({c["id"] for c in nb.cells}) == len(nb.cells)
    work = tmp_path / "work"
    work.mkdir()
    NotebookClient(nb, timeout=120, resources={"metadata": {"path": str(work)}}).execute()
    got = pd.read_csv(work / "final" / "submission.csv")
    assert sorted(p.name for p in (work / "final").iterdir()) == ["submission.csv"]
    # the harness's own blend of the two files the solutions write
    firsts = tmp_path / "f1.csv", tmp_path / "f2.csv"
    pd.DataFrame({"id": [1, 2, 3], "p": [1.0, 2.0, 3.0]}).to_csv(firsts[0], index=False)
    pd.DataFrame({"id": [3, 2, 1], "p": [60.0, 70.0, 80.0]}).to_csv(firsts[1], index=False)
    want = pd.read_csv(blend.blend_submissions(firsts, choice.weights, "id", tmp_path / "w.csv"))
    pd.testing.assert_frame_equal(got, want)
    assert got["p"].tolist() == pytest.approx(
        [0.3 * 1 + 0.7 * 80, 0.3 * 2 + 0.7 * 70, 0.3 * 3 + 0.7 * 60]
    )


_RUNS = Path(tempfile.mkdtemp(prefix="blend-partner-"))  # the search runs' work folders


def _sol(
    node_id: str,
    path: str,
    *,
    phase: str = "refine",
    duration: float = 10.0,
    digest: str = "",
    val_file: bool = True,
) -> Any:
    """A ranked solution whose search run wrote ``val_predictions.csv`` (``val_file``)."""
    work = _RUNS / node_id
    (work / "final").mkdir(parents=True, exist_ok=True)
    (work / "val_predictions.csv").unlink(missing_ok=True)
    if val_file:
        (work / "val_predictions.csv").write_text("row,target\n0,1.0\n")
    node = Node(
        node_id,
        None,
        phase,
        path,
        node_id,
        None,
        digest or node_id,
        1.0,
        True,
        submission=str(work / "final" / "submission.csv"),
        duration=duration,
    )
    return SimpleNamespace(node=node)


def _ctx(
    remaining: float = 30.0, parallel: int = 2, mode: str = "autopilot", metric: str = "rmse"
) -> Any:
    runner = SimpleNamespace(
        clock=SimpleNamespace(remaining=lambda: remaining),
        executor=SimpleNamespace(max_parallel=parallel),
    )
    kind = "regression" if metric == "rmse" else "classification"
    task = SimpleNamespace(task_type=kind, metric_name=metric)
    journal = SimpleNamespace(path=lambda *parts: _RUNS.joinpath(*parts))
    return SimpleNamespace(
        runner=runner, config=SimpleNamespace(mode=mode), task=task, journal=journal
    )


def test_the_partner_is_the_best_of_another_path() -> None:
    ranked = [
        _sol("p1-t0k0", "p1"),
        _sol("p1-init", "p1"),
        _sol("p0-t0k1", "p0"),
        _sol("p0-x", "p0"),
    ]
    assert blend_partner(_ctx(), ranked).node.id == "p0-t0k1"
    assert blend_partner(_ctx(), ranked[:2]) is None  # one path only
    assert blend_partner(_ctx(parallel=1), ranked) is None  # the refits would queue
    assert blend_partner(_ctx(remaining=0), ranked) is None  # past the budget
    assert blend_partner(_ctx(mode="step"), ranked) is None  # the user accepts each step
    assert blend_partner(_ctx(metric="accuracy"), ranked) is None  # labels: nothing to average
    assert blend_partner(_ctx(metric="f1_macro"), ranked) is None
    assert blend_partner(_ctx(metric="roc_auc"), ranked).node.id == "p0-t0k1"  # probabilities
    assert blend_partner(_ctx(metric="log_loss"), ranked).node.id == "p0-t0k1"
    ens = [_sol("ens-r1", "ensemble", phase="ensemble"), *ranked]
    assert blend_partner(_ctx(), ens) is None  # the ensemble already combines the paths
    slow = [ranked[0], _sol("p0-slow", "p0", duration=40.0)]
    assert blend_partner(_ctx(), slow) is None  # its refit would hold the final phase up
    twin = [ranked[0], _sol("p0-twin", "p0", digest="p1-t0k0")]
    assert blend_partner(_ctx(), twin) is None  # the same code
    # initial solutions carry path "init": their path is their id's prefix (none: path 0)
    inits = [_sol("p1-init-m1", "init"), _sol("p1-init-m2", "init"), _sol("init-m1", "init")]
    assert blend_partner(_ctx(), inits).node.id == "init-m1"
    assert blend_partner(_ctx(), [inits[2], _sol("p0-merge1", "p0")]) is None
    # a user's own cells write no validation predictions: nothing to weigh a blend on
    mine = [_sol("p1-mine", "p1", val_file=False), _sol("p0-mine", "p0", val_file=False)]
    assert blend_partner(_ctx(), mine) is None
    assert blend_partner(_ctx(), [ranked[0], mine[1], ranked[2]]).node.id == "p0-t0k1"


# --------------------------------------------------------------------------- a whole run
LOAD_SPLIT = """import numpy as np
import pandas as pd
df = pd.read_csv("input/train.csv")
X = df.drop(columns=["id", "target"])
y = df["target"]
val_rows = pd.read_csv("val_index.csv")["row"].to_numpy()  # the run's validation rows
fit_rows = np.setdiff1d(np.arange(len(y)), val_rows)
X_tr, X_val, y_tr, y_val = X.iloc[fit_rows], X.iloc[val_rows], y.iloc[fit_rows], y.iloc[val_rows]"""

HALF_MODEL = """from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
columns = list(X.columns)[{part}]  # each path's model sees half of the columns
model = make_pipeline(StandardScaler(), LogisticRegression(C=0.01, max_iter=500))
model.fit(X_tr[columns], y_tr)"""

EVAL_FILE = """from sklearn.metrics import roc_auc_score
val_pred = model.predict_proba(X_val[columns])[:, 1]
pd.DataFrame({"row": val_rows, "target": val_pred}).to_csv("val_predictions.csv", index=False)
print(f"Final Validation Performance: {roc_auc_score(y_val, val_pred):.6f}")"""

PREDICT_ALL = """import os
test = pd.read_csv("input/test.csv")
model.fit(X[columns], y)
os.makedirs("final", exist_ok=True)
pd.DataFrame({"id": test["id"], "target": model.predict_proba(test[columns])[:, 1]}).to_csv("final/submission.csv", index=False)"""


def _half_policy(part: str) -> Any:
    from mlestar_jupyter.notebook import SolutionNotebook

    from .scripted_policy import ScriptedPolicy

    class HalfPolicy(ScriptedPolicy):
        def init_solution(self, card):  # type: ignore[no-untyped-def]
            blocks = [
                ("load", LOAD_SPLIT),
                ("model", HALF_MODEL.format(part=part)),
                ("evaluate", EVAL_FILE),
            ]
            return SolutionNotebook.new(blocks, origin=card.name)

        def make_submission(self, solution):  # type: ignore[no-untyped-def]
            return solution.append_block("predict", PREDICT_ALL, origin="submission")

    return HalfPolicy(models=("logreg",))


@pytest.mark.slow
def test_a_run_with_two_paths_submits_their_blend(tabular_task: Path, tmp_path: Path) -> None:
    """Two paths whose models each see half of the columns: their mean validates better than
    either, so the run submits it, and the final notebook reproduces the file in one kernel."""
    from nbclient import NotebookClient

    from mlestar_jupyter.agent.config import Budget, RunConfig
    from mlestar_jupyter.agent.run import run_mlestar
    from mlestar_jupyter.execution import Executor
    from mlestar_jupyter.journal import RunJournal, read_events

    task = load_task(tabular_task)
    config = RunConfig(
        num_models=1,
        inner_steps=1,
        outer_steps=0,
        parallel_solutions=2,
        ensemble_rounds=0,
        budget=Budget(wall_seconds=600, exec_timeout=60),
    )
    journal = RunJournal.create(tmp_path / "run", {"task_dir": str(tabular_task)})
    policies = [_half_policy(":15"), _half_policy("15:")]
    with Executor(timeout=60, max_parallel=2, pool_size=2) as ex:
        out = run_mlestar(task, config, journal, ex, lambda i: policies[i])
    assert out.final.ok and out.final.rung == "blend"
    events = read_events(journal.events_path)
    pick = next(e.data for e in events if e.type == "ensemble_pick" and e.data["kind"] == "blend")
    assert pick["score"] > max(pick["best_single_score"], 0.5)
    final = next(e.data for e in events if e.type == "final")
    assert final["rung"] == "blend" and final["score"] == pick["score"]
    # the submission is the weighted mean of the two refits' files
    w0 = float(pick["label"].split(" × ")[0].split()[-1])
    parts = [
        pd.read_csv(tmp_path / "run" / "work" / n / "final" / "submission.csv")
        for n in ("final-0", "final-blend")
    ]
    got = pd.read_csv(tmp_path / "run" / "final" / "submission.csv")
    second = parts[1].set_index("id").loc[parts[0]["id"], "target"].to_numpy()
    assert got["target"].to_numpy() == pytest.approx(
        w0 * parts[0]["target"].to_numpy() + (1 - w0) * second
    )
    # final/solution.ipynb, run on its own in a fresh folder, writes the same file
    work = tmp_path / "again"
    work.mkdir()
    (work / "input").symlink_to(task.input_dir, target_is_directory=True)
    (work / "val_index.csv").write_bytes((tmp_path / "run" / "val_index.csv").read_bytes())
    nb = nbformat.read(str(tmp_path / "run" / "final" / "solution.ipynb"), as_version=4)
    NotebookClient(nb, timeout=120, resources={"metadata": {"path": str(work)}}).execute()
    again = pd.read_csv(work / "final" / "submission.csv")
    pd.testing.assert_frame_equal(again, got)
