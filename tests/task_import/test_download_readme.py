"""A competition's tables with a README.md beside them that names the metric (hunt F, session
28): the folder describes itself, so it is read as a competition folder, not as a bare
download whose metric is guessed from the sample submission."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer

from mlestar_jupyter.importer.download_task import is_bare_download
from mlestar_jupyter.task import load_task


def _download(root: Path, readme: str | None) -> Path:
    df = load_breast_cancer(as_frame=True).frame.iloc[:, [0, 1, 2, 7, 30]]
    df.columns = ["radius", "texture", "perimeter", "concave_points", "target"]
    df["diagnosis"] = df.pop("target").map({0: "M", 1: "B"})
    df.insert(0, "case_id", range(100, 100 + len(df)))
    root.mkdir(parents=True)
    df.iloc[:450].to_csv(root / "train.csv", index=False)
    df.iloc[450:].drop(columns="diagnosis").to_csv(root / "test.csv", index=False)
    df.iloc[450:][["case_id"]].assign(diagnosis="B").to_csv(
        root / "sample_submission.csv", index=False
    )
    if readme is not None:
        (root / "README.md").write_text(readme)
    return root


@pytest.mark.parametrize(
    ("readme", "bare", "metric"),
    [
        (
            "# Breast mass diagnosis\n\nPredict the `diagnosis` of each case in test.csv: M or "
            "B.\n\nWe evaluate with the F1 score of the positive class (malignant, `M`).\n",
            False,
            "f1",
        ),
        ("# Breast masses\n\nColumns: radius, texture (mean of the cells).\n", True, None),
        (None, True, None),
    ],
)
def test_a_readme_naming_the_metric_makes_the_download_a_described_folder(
    tmp_path: Path, readme: str | None, bare: bool, metric: str | None
) -> None:
    root = _download(tmp_path / "dl", readme)
    assert is_bare_download(root) is bare
    if metric is not None:
        task = load_task(root)
        assert task.metric_name == metric and task.target_cols == ("diagnosis",)
        assert pd.read_csv(root / "train.csv")["diagnosis"].nunique() == 2
