"""The harness measures every candidate's validation score itself (real kernels, a scripted policy).

The task is the 6-class soil task (accuracy).  An honest logistic regression competes with a
weak tree whose notebook prints a score that is not its validation accuracy: the largest
predicted probability, a constant 1.0, or the accuracy on the training rows.  Printed, each of
them beats the honest model; measured from ``val_predictions.csv``, none does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import pytest

from mlestar_jupyter.agent.config import Budget, RunConfig
from mlestar_jupyter.agent.policy import ModelCard, Plan, RefineTarget
from mlestar_jupyter.agent.run import run_mlestar
from mlestar_jupyter.execution import Executor
from mlestar_jupyter.journal import RunJournal, read_events
from mlestar_jupyter.notebook import SolutionNotebook
from mlestar_jupyter.task import load_task

from .scripted_policy import ScriptedPolicy

pytestmark = pytest.mark.slow

LOAD = """import numpy as np
import pandas as pd
df = pd.read_csv("input/train.csv")
X = df.drop(columns=["id", "soil_type"])
y = df["soil_type"]
val_rows = pd.read_csv("val_index.csv")["row"].to_numpy()  # the run's validation rows
is_val = np.isin(np.arange(len(y)), val_rows)
X_tr, X_val, y_tr, y_val = X[~is_val], X[is_val], y[~is_val], y[is_val]"""

# validates on rows of its own choosing, and writes their predictions
OWN_SPLIT = """import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split
df = pd.read_csv("input/train.csv")
X = df.drop(columns=["id", "soil_type"])
y = df["soil_type"]
X_tr, X_val, y_tr, y_val = train_test_split(X, y, test_size=0.3, random_state=1)"""

HONEST = """from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
model = make_pipeline(StandardScaler(), LogisticRegression(C=0.01, max_iter=300))
model.fit(X_tr, y_tr)"""


def _tree(depth: int | None) -> str:
    return f"""from sklearn.tree import DecisionTreeClassifier
model = DecisionTreeClassifier(max_depth={depth}, random_state=0)
model.fit(X_tr, y_tr)"""


WRITE = """
pd.DataFrame({"row": X_val.index, "soil_type": val_pred}).to_csv("val_predictions.csv", index=False)"""
ACCURACY = """val_pred = model.predict(X_val)
print(f"Final Validation Performance: {(val_pred == y_val).mean()}")"""

# what the weak candidate does: (model, load cell, evaluate cell)
CHEATS = {
    "honest": (_tree(2), LOAD, ACCURACY + WRITE),
    "proba_max": (  # the small model's print: the largest predicted probability
        _tree(2),
        LOAD,
        """proba = model.predict_proba(X_val)
val_pred = model.predict(X_val)
print(f"Final Validation Performance: {proba.max()}")"""
        + WRITE,
    ),
    "constant": (
        _tree(1),
        LOAD,
        'val_pred = model.predict(X_val)\nprint("Final Validation Performance: 1.0")' + WRITE,
    ),
    "train_rows": (
        _tree(None),
        LOAD,
        """val_pred = model.predict(X_val)
print(f"Final Validation Performance: {(model.predict(X_tr) == y_tr).mean()}")"""
        + WRITE,
    ),
    "other_rows": (  # scores, and writes the predictions of, the training rows of its own split
        _tree(None),
        OWN_SPLIT,
        ACCURACY.replace("X_val)", "X_tr)").replace("== y_val", "== y_tr")
        + WRITE.replace("X_val.index", "X_tr.index"),
    ),
    "implausible": (_tree(1), LOAD, 'print("Final Validation Performance: 0.995")'),  # no k/72
}

PREDICT = """import os
test = pd.read_csv("input/test.csv")
model.fit(X, y)
os.makedirs("final", exist_ok=True)
pd.DataFrame({"id": test["id"], "soil_type": model.predict(test[X.columns])}).to_csv("final/submission.csv", index=False)"""


@dataclass
class ClaimsPolicy(ScriptedPolicy):
    """An honest model and a weak one whose printed score is ``cheat``'s kind of wrong."""

    cheat: str = "honest"
    plans: tuple[str, ...] = ("C=1.0",)
    heard: list[str] = field(default_factory=list)
    debugged: list[str] = field(default_factory=list)

    def retrieve(self, m):  # type: ignore[no-untyped-def]
        return [ModelCard("logreg", "honest"), ModelCard("weak", self.cheat)][:m]

    def init_solution(self, card):  # type: ignore[no-untyped-def]
        if card.name == "logreg":
            cells = [("load", LOAD), ("model", HONEST), ("evaluate", ACCURACY + WRITE)]
        else:
            model, load, evaluate = CHEATS[self.cheat]
            cells = [("load", load), ("model", model), ("evaluate", evaluate)]
        return SolutionNotebook.new(cells, origin=card.name)

    def extract(self, solution, summary, refined):  # type: ignore[no-untyped-def]
        block = solution.blocks_by_role("model")[0]
        return RefineTarget(block.id, Plan(self.plans[0]), "C=0.01")

    def debug(self, solution, error, failed_block):  # type: ignore[no-untyped-def]
        self.debugged.append(error)
        return solution  # changes nothing: the candidate stays without a score

    def hear_score_feedback(self, message: str) -> None:
        self.heard.append(message)

    def make_submission(self, solution):  # type: ignore[no-untyped-def]
        return solution.append_block("predict", PREDICT, origin="submission")


@pytest.fixture(scope="module")
def executor():  # type: ignore[no-untyped-def]
    with Executor(timeout=60, max_parallel=1, pool_size=1) as ex:
        yield ex


def _run(soil_task, tmp_path: Path, executor, cheat: str):  # type: ignore[no-untyped-def]
    root = soil_task()
    task = load_task(root)
    policy = ClaimsPolicy(cheat=cheat)
    config = RunConfig(
        num_models=2,
        inner_steps=1,
        outer_steps=1,
        parallel_solutions=1,
        ensemble_rounds=0,
        debug_rounds=1,
        budget=Budget(wall_seconds=600, exec_timeout=60),
    )
    journal = RunJournal.create(tmp_path / "run", {"task_dir": str(root)})
    out = run_mlestar(task, config, journal, executor, lambda i: policy)
    events = read_events(journal.events_path)
    cands = {e.data["id"]: e.data for e in events if e.type == "candidate"}
    return out, events, cands, policy, journal


def _split_recorded_once(events, journal: RunJournal) -> None:  # type: ignore[no-untyped-def]
    splits = [e.data for e in events if e.type == "validation_split"]
    assert len(splits) == 1 and splits[0]["rows"] == 72 and splits[0]["n_labelled"] == 360
    rows = pd.read_csv(journal.dir / "val_index.csv")["row"]
    assert len(rows) == 72 and rows.is_monotonic_increasing


def _honest_is_best(out, cands) -> None:  # type: ignore[no-untyped-def]
    honest = [c["score"] for i, c in cands.items() if c["ok"] and "weak" not in c["label"]]
    assert out.best_score == pytest.approx(max(honest))
    assert out.final.ok and out.final.rung == "best"
    assert "LogisticRegression" in Path(out.final.notebook).read_text()


@pytest.mark.parametrize("cheat", ["proba_max", "constant", "train_rows"])
def test_a_wrong_printed_score_is_replaced_by_the_measured_one(
    cheat: str, soil_task, tmp_path: Path, executor
) -> None:  # type: ignore[no-untyped-def]
    out, events, cands, policy, journal = _run(soil_task, tmp_path, executor, cheat)
    weak = cands["init-m2"]
    # the printed value would have beaten every honest candidate; the measured one does not
    assert weak["printed_score"] > max(c["score"] for c in cands.values() if c["score"] is not None)
    assert weak["ok"] and weak["score_status"] == "mismatch"
    assert weak["score"] < weak["printed_score"] - 0.1
    truth = pd.read_csv(journal.dir / "work" / "init-m2" / "val_predictions.csv")
    assert len(truth) == 72  # measured on the run's 72 validation rows
    mismatch = [e.data for e in events if e.type == "score_mismatch"]
    assert [m["node_id"] for m in mismatch] == ["init-m2"]
    assert mismatch[0]["printed"] == pytest.approx(weak["printed_score"])
    assert mismatch[0]["measured"] == pytest.approx(weak["score"])
    assert policy.heard and "measured" in policy.heard[0]  # the policy was told
    _split_recorded_once(events, journal)
    _honest_is_best(out, cands)


@pytest.mark.parametrize("cheat", ["other_rows", "implausible"])
def test_an_untrusted_score_cannot_become_the_best(
    cheat: str, soil_task, tmp_path: Path, executor
) -> None:  # type: ignore[no-untyped-def]
    out, events, cands, policy, journal = _run(soil_task, tmp_path, executor, cheat)
    weak = cands["init-m2"]
    assert weak["ok"] is False and weak["score"] is None and weak["score_status"] == "untrusted"
    assert weak["printed_score"] == pytest.approx(1.0 if cheat == "other_rows" else 0.995)
    flagged = [e.data for e in events if e.type == "score_untrusted"]
    assert [f["node_id"] for f in flagged] == ["init-m2"]
    reason = "validation rows" if cheat == "other_rows" else "multiple of 1/72"
    assert reason in flagged[0]["message"] and "not trusted" in weak["error"]
    assert policy.debugged and "not trusted" in policy.debugged[0]  # the debugger was told
    _honest_is_best(out, cands)


def test_agreeing_scores_pass_unchanged(soil_task, tmp_path: Path, executor) -> None:  # type: ignore[no-untyped-def]
    out, events, cands, policy, journal = _run(soil_task, tmp_path, executor, "honest")
    assert not [e for e in events if e.type in ("score_mismatch", "score_untrusted")]
    assert not policy.heard and not policy.debugged
    for c in cands.values():
        if c["ok"] and c["score"] is not None:
            assert c["score_status"] == "measured"
            assert c["score"] == pytest.approx(c["printed_score"])
    assert cands["init-m2"]["score"] == pytest.approx(32 / 72)  # depth-2 tree, 32 of 72 right
    _split_recorded_once(events, journal)
    _honest_is_best(out, cands)


@pytest.mark.parametrize("per_class", [False, True])
def test_offline_templates_write_predictions_the_harness_measures(
    per_class: bool, soil_task, tmp_path: Path, executor
) -> None:  # type: ignore[no-untyped-def]
    from mlestar_jupyter.agent.candidates import Candidate, CandidateRunner
    from mlestar_jupyter.agent.clock import RunClock
    from mlestar_jupyter.offline import OfflinePolicy

    root = soil_task(metric="log_loss" if per_class else "accuracy", per_class=per_class)
    task = load_task(root)
    # the hold-out (k-fold off: 360 rows would otherwise all be predicted out of fold)
    config = RunConfig(budget=Budget(wall_seconds=600, exec_timeout=60), kfold_rows=0)
    journal = RunJournal.create(tmp_path / "run", {"task_dir": str(root)})
    runner = CandidateRunner(task, journal, executor, RunClock(config.budget), config)
    policy = OfflinePolicy(task, config)
    cards = policy.retrieve(2)
    first, second = (policy.init_solution(c) for c in cards)
    for node_id, nb in (("init-m1", first), ("merge", policy.merge(first, second))):
        cand = Candidate(nb, node_id, "init", node_id, path="init", debug=False)
        node = runner.evaluate(cand, policy).node
        assert node.ok and node.score_status == "measured", node.error
        assert node.score == pytest.approx(node.printed_score)
        rows = pd.read_csv(journal.dir / "work" / node_id / "val_predictions.csv")
        assert len(rows) == 72 and list(rows.columns[:1]) == ["row"]
