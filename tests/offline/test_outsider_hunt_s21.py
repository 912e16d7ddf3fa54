"""A notebook the run cannot score still hands in the user's own predictions (outsider hunt,
session 21).

A notebook of functions (``def load()``, ``def build_features(df)``, ``def train(X, y)``, a
``main()`` cell) fits its model inside a function, where no added cell can score it: the run
ends ``not_understood``, as it should, but its submission was the prior-only baseline (a
constant: test RMSE 8.79 on an outsider's Boston notebook, whose own file scored 3.14).  The
final ladder now runs the notebook as written first and keeps the file it writes (rung
``yours``) when it passes the submission check.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_diabetes

from mlestar_jupyter import api
from mlestar_jupyter.agent.run import RunOutcome

CELLS = (
    "import numpy as np\nimport pandas as pd\nfrom sklearn.linear_model import Ridge\n"
    "TARGET = 'progression'",
    "def load():\n    return pd.read_csv('input/train.csv'), pd.read_csv('input/test.csv')",
    "def build_features(df):\n    return df.drop(columns=['ID', TARGET], errors='ignore')",
    "def train(X, y):\n    return Ridge(alpha=0.1).fit(X, y)",
    "def main():\n    tr, te = load()\n    model = train(build_features(tr), tr[TARGET])\n"
    "    pd.DataFrame({'ID': te['ID'], TARGET: model.predict(build_features(te))})"
    ".to_csv('submission.csv', index=False)\n\nmain()",
)


def _folder(root: Path, cells: tuple[str, ...] = CELLS) -> Path:
    """Diabetes with an ``ID`` column (350 training rows, 92 test rows, a sample) under
    ``root/input`` and the notebook of ``cells`` as ``root/functions.ipynb``."""
    frame = load_diabetes(as_frame=True, scaled=False).frame.rename(
        columns={"target": "progression"}
    )
    frame.insert(0, "ID", range(1000, 1000 + len(frame)))
    inp = root / "input"
    inp.mkdir(parents=True)
    frame.iloc[:350].to_csv(inp / "train.csv", index=False)
    frame.iloc[350:].drop(columns="progression").to_csv(inp / "test.csv", index=False)
    frame.iloc[350:][["ID", "progression"]].assign(progression=0.0).to_csv(
        inp / "sample_submission.csv", index=False
    )
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    nbformat.write(nb, root / "functions.ipynb")
    return root


def run_notebook_folder(root: Path, out: Path) -> RunOutcome:
    """A short offline run from ``root/functions.ipynb`` (one path, no ensemble)."""
    return api.run(
        root,
        notebook=root / "functions.ipynb",
        out=out,
        time_limit=60,
        parallel=1,
        ensemble_rounds=0,
    )


@pytest.mark.slow
def test_a_notebook_the_run_cannot_score_hands_in_its_own_file(tmp_path: Path) -> None:
    root = _folder(tmp_path / "boston")
    out = run_notebook_folder(root, tmp_path / "run")
    assert out.status == "not_understood", out.stop_reason
    assert "fitted inside a function" in out.stop_reason
    assert out.final.ok and out.final.rung == "yours", out.final
    sub = pd.read_csv(out.final.submission)
    assert list(sub.columns) == ["ID", "progression"] and len(sub) == 92
    assert sub["progression"].nunique() > 50  # the user's model, not a constant
    frame = load_diabetes(as_frame=True, scaled=False).frame
    from sklearn.linear_model import Ridge

    X = frame.drop(columns="target")
    want = Ridge(alpha=0.1).fit(X.iloc[:350], frame["target"][:350]).predict(X.iloc[350:])
    assert np.allclose(sub["progression"], want, rtol=1e-6)


@pytest.mark.slow
def test_when_the_notebook_as_written_fails_the_catalog_comes_before_a_constant(
    tmp_path: Path,
) -> None:
    """A statsmodels notebook on a machine without statsmodels (hunt, session 22): not
    understood, and its own run fails.  The offline backend had no catalog rung, so the run
    handed in the prior (worse than the mean) or nothing; the catalog's first model now comes
    first, and why the user's file is not it is told."""
    cells = (CELLS[0] + "\nimport mlestar_no_such_module as sm", *CELLS[1:])
    root = _folder(tmp_path / "boston", cells)
    out = run_notebook_folder(root, tmp_path / "run")
    assert out.status == "not_understood", out.stop_reason
    assert out.final.ok and out.final.rung == "catalog", out.final
    sub = pd.read_csv(out.final.submission)
    assert list(sub.columns) == ["ID", "progression"] and sub["progression"].nunique() > 50
    from mlestar_jupyter.journal.summary import summarise_run

    summary = summarise_run(tmp_path / "run")
    assert any("No module named 'mlestar_no_such_module'" in m for m in summary.told)
