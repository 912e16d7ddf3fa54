"""A user's notebook that runs past the run's time limit (hunt, session 25: a sweep cell with
``time.sleep(90)`` four times, ``--time-limit 60``, train.csv and test.csv beside it, no
sample).  The notebook was given the whole budget, was killed at the limit, and the run ended
``failed`` with no file at all: no time was left for the catalog, and the prior-only baseline
refused for want of a sample submission.  Now the notebook leaves the time a catalog solution
and the submission need, and the run hands in the catalog's file."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer

from mlestar_jupyter import api
from mlestar_jupyter.journal import read_events

CELLS = (
    "import pandas as pd, time\nfrom sklearn.ensemble import RandomForestClassifier\n"
    "from sklearn.model_selection import train_test_split\n"
    "from sklearn.metrics import accuracy_score\n"
    "train = pd.read_csv('train.csv'); test = pd.read_csv('test.csv')\n"
    "X = train.drop(columns=['id', 'target']); y = train.target\n"
    "X_tr, X_va, y_tr, y_va = train_test_split(X, y, random_state=0)",
    "best = None\nfor n in [100, 200]:\n"
    "    m = RandomForestClassifier(n_estimators=n, random_state=0).fit(X_tr, y_tr)\n"
    "    time.sleep(90)  # a long job\n"
    "    acc = accuracy_score(y_va, m.predict(X_va)); print(n, acc)\n"
    "    if best is None or acc > best[0]: best = (acc, m)\n"
    "print('Best validation accuracy', best[0]); model = best[1]",
    "model.fit(X, y)\npd.DataFrame({'id': test.id, 'target': "
    "model.predict(test.drop(columns=['id']))}).to_csv('submission.csv', index=False)",
)


@pytest.mark.slow
def test_a_notebook_past_the_time_limit_leaves_time_for_a_file(tmp_path: Path) -> None:
    frame = load_breast_cancer(as_frame=True).frame.sample(frac=1.0, random_state=0)
    frame.insert(0, "id", range(len(frame)))
    root = tmp_path / "slow"
    root.mkdir()
    frame.iloc[:450].to_csv(root / "train.csv", index=False)
    frame.iloc[450:].drop(columns="target").to_csv(root / "test.csv", index=False)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in CELLS]
    nbformat.write(nb, root / "slow.ipynb")

    out = api.run(
        root,
        notebook=root / "slow.ipynb",
        out=tmp_path / "run",
        time_limit=45,
        parallel=1,
        ensemble_rounds=0,
    )
    assert out.final.ok, out.final.reason
    sub = pd.read_csv(out.final.submission)
    assert list(sub.columns) == ["id", "target"] and len(sub) == len(frame) - 450
    truth = frame.iloc[450:]["target"].to_numpy()
    assert (sub["target"].to_numpy() == truth).mean() > 0.9  # a model, not the prior
    # the user is told their notebook gave no score, and why (hunt M: a run stopped by the
    # budget right after the notebook timed out said only "time budget reached")
    said = [
        e.data["message"]
        for e in read_events(tmp_path / "run" / "events.jsonl")
        if e.type == "warning"
    ]
    assert any(m.startswith("your notebook gave no validation score (") for m in said), said
