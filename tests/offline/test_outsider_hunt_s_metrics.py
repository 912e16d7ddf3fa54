"""An outsider's task.json naming scikit-learn's ``roc_auc_ovo`` as "one-vs-one AUC" (hunt S,
session 35): before, the run validated and the grader graded the one-vs-rest AUC; now a short
offline run validates in the one-vs-one AUC (no score mismatch) and ends on a submission of
class probabilities the grader grades one-vs-one."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import load_wine
from sklearn.metrics import roc_auc_score

from mlestar_jupyter.agent.run import RunOutcome
from mlestar_jupyter.evaluator.grading import grade_submission
from mlestar_jupyter.journal import RunJournal
from mlestar_jupyter.task import load_task

_CLASSES = ["barbera", "barolo", "grignolino"]


def _wine_folder(root: Path) -> Path:
    """Wine cultivars by name, a sample submission of a probability column per class, the test
    answers in private/, and a task.json naming the metric in words."""
    frame = load_wine(as_frame=True).frame.rename(columns={"target": "cultivar"})
    frame["cultivar"] = np.array(["barolo", "grignolino", "barbera"])[frame["cultivar"]]
    frame = frame.sample(frac=1.0, random_state=0).reset_index(drop=True)
    frame.insert(0, "row_id", np.arange(len(frame)) + 1000)
    inp = root / "input"
    inp.mkdir(parents=True)
    frame.iloc[:130].to_csv(inp / "train.csv", index=False)
    test = frame.iloc[130:]
    test.drop(columns="cultivar").to_csv(inp / "test.csv", index=False)
    pd.DataFrame({"row_id": test["row_id"], **{c: 1 / 3 for c in _CLASSES}}).to_csv(
        inp / "sample_submission.csv", index=False
    )
    (root / "private").mkdir()
    test[["row_id", "cultivar"]].to_csv(root / "private" / "answers.csv", index=False)
    spec = {"metric": "one-vs-one AUC", "target": "cultivar", "id_column": "row_id"}
    (root / "task.json").write_text(json.dumps(spec))
    return root


def test_a_one_vs_one_auc_task_is_validated_and_graded_one_vs_one(
    tmp_path: Path, short_run: Callable[..., RunOutcome]
) -> None:
    root = _wine_folder(tmp_path / "wine")
    task = load_task(root)
    assert (task.metric_name, task.direction) == ("roc_auc_ovo", "maximize")
    out = short_run(root)
    assert out.status == "done", out.stop_reason
    events = RunJournal.open(out.run_dir).events
    assert not [e.data for e in events if e.type == "score_mismatch"]
    notebooks = [p.read_text() for p in Path(out.run_dir).rglob("*.ipynb")]
    assert any('multi_class=\\"ovo\\"' in nb for nb in notebooks)  # validated one-vs-one
    path = Path(out.run_dir) / "final" / "submission.csv"
    graded = grade_submission(task, path)
    assert graded.valid_submission, graded.invalid_reason
    answers = pd.read_csv(root / "private" / "answers.csv")
    submitted = pd.read_csv(path).set_index("row_id").loc[answers["row_id"], _CLASSES]
    proba = submitted.to_numpy() / submitted.to_numpy().sum(axis=1, keepdims=True)
    want = roc_auc_score(answers["cultivar"], proba, multi_class="ovo", labels=_CLASSES)
    assert graded.score is not None and abs(graded.score - want) < 1e-9
