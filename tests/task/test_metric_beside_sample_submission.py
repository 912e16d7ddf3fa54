"""A README that names its metric in the sentence pointing at the sample submission: "Scored by
multi-class log loss; see `sample_submission.csv`." (hunt K: pictures in ``train/`` and
``test/``, labels in train.csv as words, one probability column per class in the sample).  The
word "sample" next to "log loss" was read as the "samples" average that makes a metric another
one, so the folder was refused: "names no metric"."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from PIL import Image

from mlestar_jupyter.metrics import qualified_away
from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.infer import metric_from_text

WORDS = ["zero", "one", "two"]


def _digit_folder(root: Path, readme: str) -> Path:
    (root / "train").mkdir(parents=True)
    (root / "test").mkdir()
    for i in range(12):
        Image.new("L", (8, 8), color=20 * i).save(
            root / ("train" if i < 9 else "test") / f"{i:04d}.png"
        )
    pd.DataFrame(
        {"id": [f"{i:04d}" for i in range(9)], "digit": [WORDS[i % 3] for i in range(9)]}
    ).to_csv(root / "train.csv", index=False)
    sample = pd.DataFrame({"id": [f"{i:04d}" for i in range(9, 12)]})
    for w in WORDS:
        sample[w] = 1 / 3
    sample.to_csv(root / "sample_submission.csv", index=False)
    (root / "README.md").write_text(readme)
    return root


def test_log_loss_beside_the_sample_submission_is_read(tmp_path: Path) -> None:
    readme = (
        "# Digit probabilities\n\n`train/<id>.png` with labels in `train.csv` (`id,digit`).\n"
        "Predict a probability for each digit for the images in `test/`.\n\n"
        "Scored by multi-class log loss; see `sample_submission.csv`.\n"
    )
    task = load_task(_digit_folder(tmp_path / "digits", readme))
    assert (task.metric_name, task.direction) == ("log_loss", "minimize")
    assert task.target_cols == tuple(WORDS)


@pytest.mark.parametrize(
    ("text", "metric"),
    [
        (
            "## Evaluation\n\nMulti-class log loss. See `sample_submission.csv` for the format.",
            "log_loss",
        ),
        ("Submissions are scored by RMSE (see the sample submission file).", "rmse"),
        ("ROC AUC; the sample_submission.csv shows the format.", "roc_auc"),
    ],
)
def test_a_metric_named_next_to_the_sample_is_that_metric(
    tmp_path: Path, text: str, metric: str
) -> None:
    assert metric_from_text(tmp_path, text)[0] == metric


def test_samples_averaged_f1_is_still_not_plain_f1() -> None:
    # the qualifier still works where it means the average over rows
    text = "Scored by F1 (samples average)."
    assert qualified_away(text, text.index("F1"), text.index("F1") + 2, "f1")
