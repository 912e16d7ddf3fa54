"""A README (no sample submission, no ``Target:`` line) that names the submission's columns:
"Submit `rec,bird` (rec = file name without `.wav`)" beside ``train/*.wav`` and
``train_labels.csv`` (``rec,bird``) (hunt K a_auc_chirp, ROC AUC).  The target was taken to be
``label`` and the id ``id``, so ``rec`` was taken for the label and no column named the files:
the folder was refused.  Arrays likewise: "Submit `id,value`" was written as ``id,label``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from scipy.io import wavfile

from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.layout import inspect_task
from mlestar_jupyter.task.layout.tables import submission_columns


def _recordings(root: Path) -> Path:
    for split in ("train", "test"):
        (root / split).mkdir(parents=True)
    rs = np.random.RandomState(0)
    rows = []
    for k in range(12):
        split = "train" if k < 9 else "test"
        wavfile.write(
            root / split / f"rec{k:03d}.wav", 8000, (rs.randn(800) * 3000).astype(np.int16)
        )
        if split == "train":
            rows.append((f"rec{k:03d}", k % 2))
    pd.DataFrame(rows, columns=["rec", "bird"]).to_csv(root / "train_labels.csv", index=False)
    (root / "README.md").write_text(
        "# Bird call detection\n\n`train/*.wav` are field recordings; `train_labels.csv` says "
        "whether each holds a bird call (`bird` = 1) or only noise (0).\nFor each recording in "
        "`test/`, predict the probability that it holds a call.\n\nScored by ROC AUC. Submit "
        "`rec,bird` (rec = file name without `.wav`).\n"
    )
    return root


def test_the_columns_the_readme_names_are_the_id_and_target(tmp_path: Path) -> None:
    task = load_task(_recordings(tmp_path / "birds"))
    assert (task.id_col, task.target_cols, task.metric_name) == ("rec", ("bird",), "roc_auc")
    layout = inspect_task(task)
    assert layout.modality == "audio" and layout.label_col == "bird"
    media = layout.train_media
    assert (media.table, media.column, media.prefix, media.suffix) == (
        "train_labels.csv",
        "rec",
        "train",
        ".wav",
    )
    assert layout.test_media.folder == "test"
    assert submission_columns(task) == ("bird",)


def test_arrays_are_submitted_under_the_names_the_readme_gives(tmp_path: Path) -> None:
    root = tmp_path / "meters"
    root.mkdir()
    np.save(root / "X_train.npy", np.zeros((20, 8, 8)))
    np.save(root / "y_train.npy", np.arange(20.0))
    np.save(root / "X_test.npy", np.zeros((5, 8, 8)))
    (root / "README.md").write_text(
        "# Meter readings\n\nPredict the reading of each picture in `X_test.npy`. RMSE.\n"
        "Submit `id,value` with id the row index.\n"
    )
    task = load_task(root)
    assert (task.id_col, task.target_cols) == ("id", ("value",))
