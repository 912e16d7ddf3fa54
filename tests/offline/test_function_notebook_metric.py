"""A notebook built of functions is scored by the metric it computes inside one (outsider hunt,
session 21, finding 2).

``def train(X, y)``, ``def validate(X, y)`` with a ``KFold`` loop computing the RMSE of every
fold, and a ``main()`` calling both and writing the submission: every name lives in a function,
so no cell added after them could reach a model or validation rows.  The run ended
``not_understood`` and handed in the notebook's own file unrefined.  The metric's values are now
kept at every pass of the loop inside ``validate()`` and the added cell after ``main()``'s call
scores them: the notebook's own 5-fold RMSE becomes the run's score, and its ``train()`` is
refined.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_diabetes
from sklearn.linear_model import Ridge
from sklearn.metrics import mean_squared_error
from sklearn.model_selection import KFold
from test_outsider_hunt_s21 import _folder, run_notebook_folder

CELLS = (
    "import numpy as np\nimport pandas as pd\nfrom sklearn.linear_model import Ridge\n"
    "from sklearn.model_selection import KFold\nfrom sklearn.metrics import mean_squared_error\n\n"
    "INPUT = '../input/'\nTARGET = 'progression'",
    "def load():\n    return pd.read_csv(INPUT + 'train.csv'), pd.read_csv(INPUT + 'test.csv')",
    "def build_features(df):\n    return df.drop(columns=['ID', TARGET], errors='ignore')",
    "def train(X, y):\n    model = Ridge(alpha=0.1)\n    model.fit(X, y)\n    return model",
    'def validate(X, y):\n    """5-fold RMSE."""\n'
    "    kf = KFold(n_splits=5, shuffle=True, random_state=0)\n    rmses = []\n"
    "    for tr_idx, va_idx in kf.split(X):\n"
    "        m = train(X.iloc[tr_idx], y.iloc[tr_idx])\n"
    "        p = m.predict(X.iloc[va_idx])\n"
    "        rmses.append(np.sqrt(mean_squared_error(y.iloc[va_idx], p)))\n"
    "    print('CV RMSE:', np.mean(rmses))\n    return np.mean(rmses)",
    "def main():\n    train_df, test_df = load()\n    X = build_features(train_df)\n"
    "    y = train_df[TARGET]\n    validate(X, y)\n    model = train(X, y)\n"
    "    pd.DataFrame({'ID': test_df['ID'], TARGET: model.predict(build_features(test_df))})"
    ".to_csv('submission.csv', index=False)\n\nmain()",
)


def _own_cv_rmse() -> float:
    """What the notebook's ``validate()`` prints, computed here."""
    frame = load_diabetes(as_frame=True, scaled=False).frame.iloc[:350]
    X, y = frame.drop(columns="target"), frame["target"]
    folds = KFold(n_splits=5, shuffle=True, random_state=0).split(X)
    return float(
        np.mean(
            [
                np.sqrt(
                    mean_squared_error(
                        y.iloc[va], Ridge(alpha=0.1).fit(X.iloc[tr], y.iloc[tr]).predict(X.iloc[va])
                    )
                )
                for tr, va in folds
            ]
        )
    )


@pytest.mark.slow
def test_a_notebook_of_functions_is_scored_by_its_own_fold_loop_and_refined(
    tmp_path: Path,
) -> None:
    root = _folder(tmp_path / "functions", CELLS)
    out = run_notebook_folder(root, tmp_path / "run")
    assert out.status != "not_understood", out.stop_reason
    events = [json.loads(line) for line in (tmp_path / "run" / "events.jsonl").open()]
    user = next(e["data"] for e in events if e["type"] == "candidate" and e["data"]["id"] == "user")
    assert user["score"] == pytest.approx(_own_cv_rmse(), rel=1e-9)
    refined = [
        e["data"]
        for e in events
        if e["type"] == "candidate" and e["data"]["id"] != "user" and e["data"].get("score")
    ]
    assert refined, "no refinement of the notebook was scored"
    assert out.final.ok and out.final.submission is not None
    sub = pd.read_csv(out.final.submission)
    assert list(sub.columns) == ["ID", "progression"] and len(sub) == 92
    assert sub["progression"].nunique() > 50  # a model's predictions, not a constant
