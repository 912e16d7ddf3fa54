"""A task.json from another author that names its sample submission by a flat key or in its
``files`` object, under a file name that does not say "sample" (``format.csv``): the key was
"not read" and, with no target named, the task was refused ("cannot tell the target column")."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from mlestar_jupyter.task import load_task


def _folder(root: Path, spec: dict[str, object]) -> Path:
    data = root / "data"
    data.mkdir(parents=True)
    frame = pd.DataFrame(
        {
            "wine_id": range(40),
            "alcohol": [12.0 + k % 5 for k in range(40)],
            "cultivar": [k % 3 for k in range(40)],
        }
    )
    frame.iloc[:30].to_csv(data / "training_set.csv", index=False)
    frame.iloc[30:].drop(columns="cultivar").to_csv(data / "holdout.csv", index=False)
    frame.iloc[30:][["wine_id", "cultivar"]].assign(cultivar=0).to_csv(
        data / "format.csv", index=False
    )
    (root / "task.json").write_text(json.dumps(spec, indent=2))
    return root


@pytest.mark.parametrize(
    "files",
    [
        {
            "files": {
                "train": "data/training_set.csv",
                "test": "data/holdout.csv",
                "sample_submission": "data/format.csv",
            }
        },
        {
            "train_path": "data/training_set.csv",
            "test_path": "data/holdout.csv",
            "submission_format_path": "data/format.csv",
        },
        {
            "train_file": "training_set.csv",
            "test_file": "holdout.csv",
            "sample_submission_file": "format.csv",
        },
    ],
)
def test_the_sample_submission_named_by_another_authors_key_is_read(
    tmp_path: Path, files: dict[str, object]
) -> None:
    spec = {
        "name": "Wine",
        "description": "Classify each wine's cultivar.",
        "metric": "accuracy",
        **files,
    }
    task = load_task(_folder(tmp_path / "wine", spec))
    assert task.target_cols == ("cultivar",) and task.id_col == "wine_id"
    roles = {f.path: f.role for f in task.files}
    assert roles["format.csv"] == "sample_submission"
    assert not any("not read" in n and "format" in n for n in task.notices)
