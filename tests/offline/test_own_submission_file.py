"""A user's notebook that writes its submission under a name of its own (``my_submission.csv``,
as the Kaggle Titanic tutorial does, or ``output/preds.csv``).  The run looked for
``./final/submission.csv`` only, found nothing, and handed in the prior-only baseline: a constant.
The file the notebook wrote is now handed in when it passes the submission check."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pandas as pd
import pytest
from test_user_notebook_runs import _run

from mlestar_jupyter.agent.own_submission import adopt_own_submission, written_csvs

pytestmark = pytest.mark.slow

CELLS = (
    "import os\nimport pandas as pd\nfrom sklearn.ensemble import RandomForestClassifier\n"
    "from sklearn.model_selection import train_test_split\nfrom sklearn.metrics import roc_auc_score",
    "train = pd.read_csv('input/train.csv')\ntest = pd.read_csv('input/test.csv')\n"
    "X = train.drop(columns=['id', 'target']); y = train['target']\n"
    "X_tr, X_va, y_tr, y_va = train_test_split(X, y, random_state=0)",
    "rf = RandomForestClassifier(n_estimators=50, random_state=0)\nrf.fit(X_tr, y_tr)\n"
    "print('AUC', roc_auc_score(y_va, rf.predict_proba(X_va)[:, 1]))",
)


@pytest.mark.parametrize(
    "write",
    [
        "pd.DataFrame({'id': test.id, 'target': rf.predict_proba(test[X.columns])[:, 1]})"
        ".to_csv('my_submission.csv', index=False)",
        "os.makedirs('output', exist_ok=True)\nout = test[['id']].copy()\n"
        "out['target'] = rf.predict_proba(test[X.columns])[:, 1]\n"
        "out.to_csv('output/preds.csv', index=False)",
        # hunt, session 24: a Kaggle habit; the run handed in the prior-only baseline (AUC 0.5)
        "pd.DataFrame({'id': test.id, 'target': rf.predict_proba(test[X.columns])[:, 1]})"
        ".to_csv('submission.csv.gz', index=False, compression='gzip')",
    ],
)
def test_the_notebooks_own_file_is_handed_in(write: str, tmp_path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in (*CELLS, write)]
    nbformat.write(nb, tmp_path / "kaggle.ipynb")
    out, evs = _run(tmp_path / "kaggle.ipynb", tmp_path, t=1, k=1)
    final = next(e.data for e in evs if e.type == "final")
    assert final["valid"] and final["rung"] != "baseline", final
    sub = pd.read_csv(tmp_path / "run" / final["submission"])
    assert sub["target"].nunique() > 10  # the forest's probabilities, not a constant
    said = [e.data["message"] for e in evs if e.type == "warning" and "-own-file" in e.key]
    assert said and "passed the submission check and is handed in" in said[0]


def test_only_a_file_that_passes_the_check_is_adopted(tmp_path: Path) -> None:
    (tmp_path / "input").mkdir()
    (tmp_path / "input" / "sample_submission.csv").write_text("id,target\n1,0\n")
    for name in ("val_index.csv", "oof.csv", "my_sub.csv"):
        (tmp_path / name).write_text(f"{name}\n")
    assert [p.name for p in written_csvs(tmp_path)] == ["my_sub.csv", "oof.csv"]
    assert adopt_own_submission(tmp_path, lambda p: ["wrong columns"]) is None
    assert not (tmp_path / "final" / "submission.csv").exists()
    own, final = adopt_own_submission(tmp_path, lambda p: [] if p.name == "oof.csv" else ["x"])  # type: ignore[misc]
    assert own.name == "oof.csv" and final.read_text() == "oof.csv\n"
    assert adopt_own_submission(tmp_path, lambda p: []) is None  # there is one now


def test_a_compressed_file_is_handed_in_unpacked(tmp_path: Path) -> None:
    import gzip
    import zipfile

    (tmp_path / "input").mkdir()
    with gzip.open(tmp_path / "submission.csv.gz", "wt") as fh:
        fh.write("id,target\n1,0.5\n")
    with zipfile.ZipFile(tmp_path / "preds.csv.zip", "w") as z:
        z.writestr("preds.csv", "id,target\n1,0.25\n")
    (tmp_path / "broken.csv.gz").write_bytes(b"not gzip")
    assert {p.name for p in written_csvs(tmp_path)} == {
        "submission.csv.gz",
        "preds.csv.zip",
        "broken.csv.gz",
    }
    zipped = lambda p: [] if "0.25" in p.read_text() else ["not this one"]  # noqa: E731
    own, final = adopt_own_submission(tmp_path, zipped)  # type: ignore[misc]
    assert own.name == "preds.csv.zip" and final.read_text() == "id,target\n1,0.25\n"
    final.unlink()
    gzipped = lambda p: [] if "0.5\n" in p.read_text() else ["not this one"]  # noqa: E731
    own, final = adopt_own_submission(tmp_path, gzipped)  # type: ignore[misc]
    assert own.name == "submission.csv.gz" and final.read_text() == "id,target\n1,0.5\n"
    assert not list((tmp_path / "final").glob("*.gz"))
