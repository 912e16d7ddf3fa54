"""A description naming several targets on its 'Target:' line and no sample submission
(hunt J: Linnerud's ``Targets: Weight, Waist, Pulse``): the line did not parse (no commas) and
the folder was refused ("sample_submission.csv missing and the description names no 'Target:
<column>' line")."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.layout import inspect_task

TARGETS = ["Weight", "Waist", "Pulse"]


def _linnerud(root: Path) -> pd.DataFrame:
    from sklearn.datasets import load_linnerud

    data = load_linnerud(as_frame=True)
    frame = pd.concat([data.data, data.target], axis=1)
    frame.insert(0, "athlete", range(100, 100 + len(frame)))
    frame = pd.concat([frame] * 4, ignore_index=True)  # 80 rows (ids made unique)
    frame["athlete"] = range(100, 100 + len(frame))
    root.mkdir(parents=True)
    frame.iloc[:64].to_csv(root / "train.csv", index=False)
    frame.iloc[64:].drop(columns=TARGETS).to_csv(root / "test.csv", index=False)
    (root / "description.md").write_text(
        "# Fitness\n\nPredict three body measurements from exercise counts.\n\n"
        "Targets: Weight, Waist, Pulse\n\nMetric: MCRMSE (the mean of the columns' RMSE).\n"
    )
    return frame


def test_a_target_line_naming_several_columns_is_a_multi_target_task(tmp_path: Path) -> None:
    _linnerud(tmp_path / "fitness")
    task = load_task(tmp_path / "fitness")
    assert task.target_cols == tuple(TARGETS) and task.task_type == "regression"
    layout = inspect_task(task)
    assert layout.submission_kind == "multi_target"


def test_a_run_hands_in_every_target_column(tmp_path: Path, short_run) -> None:  # type: ignore[no-untyped-def]
    frame = _linnerud(tmp_path / "fitness")
    out = short_run(tmp_path / "fitness")
    assert out.final.ok and out.final.submission is not None, out.stop_reason
    sub = pd.read_csv(out.final.submission)
    assert set(TARGETS) <= set(sub.columns) and len(sub) == len(frame) - 64
