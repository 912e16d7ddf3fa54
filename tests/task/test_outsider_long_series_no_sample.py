"""Series stored long in ``train_series.csv`` / ``test_series.csv`` (``series_id,t,value``) with
one label per series in ``train_labels.csv`` and no sample submission (hunt I, ``s2_long``):
the layout became a series task, but every series card failed at ``None.lower()`` reading the
test ids from the (missing) sample submission, and the baseline handed in one row per time
step; the test series' ids now come from the long test file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

README = (
    "# Gestures\n\n`train_series.csv` / `test_series.csv` hold `series_id,t,value`; "
    "`train_labels.csv` gives `series_id,label`. Predict the label of each test series.\n\n"
    "## Evaluation\n\nAccuracy.\n"
)


def _long(ids: list[str], labels: list[str], rs: np.random.RandomState) -> pd.DataFrame:
    rows = []
    for s, y in zip(ids, labels, strict=True):
        shape = np.sin(np.linspace(0, 3, 24)) * (2.0 if y == "gun" else -2.0)
        rows += [(s, t, float(v + 0.3 * rs.randn())) for t, v in enumerate(shape)]
    return pd.DataFrame(rows, columns=["series_id", "t", "value"])


def test_long_series_without_a_sample_submission_predict_one_row_per_series(
    tmp_path: Path,
    short_run,  # type: ignore[no-untyped-def]
) -> None:
    rs = np.random.RandomState(0)
    root = tmp_path / "gestures"
    root.mkdir()
    (root / "README.md").write_text(README)
    train = [f"s{k:03d}" for k in range(40)]
    test = [f"s{k:03d}" for k in range(40, 52)]
    y_train = [["gun", "point"][k % 2] for k in range(40)]
    y_test = [["gun", "point"][k % 2] for k in range(40, 52)]
    _long(train, y_train, rs).to_csv(root / "train_series.csv", index=False)
    _long(test, y_test, rs).to_csv(root / "test_series.csv", index=False)
    pd.DataFrame({"series_id": train, "label": y_train}).to_csv(
        root / "train_labels.csv", index=False
    )
    out = short_run(root)
    assert out.final.ok and out.final.submission is not None, out.stop_reason
    sub = pd.read_csv(out.final.submission)
    assert list(sub.columns) == ["series_id", "label"] and list(sub["series_id"]) == test
    assert (sub["label"] == pd.Series(y_test)).mean() > 0.8
