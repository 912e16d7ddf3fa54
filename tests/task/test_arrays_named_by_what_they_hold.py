"""``.npy`` arrays named by what they hold, not ``X``/``y``: ``train_images.npy`` (n, 8, 8),
``train_values.npy`` (a reading per picture), ``test_images.npy`` (hunt K n_reg, a meter's
reading from its picture, RMSE).  Neither training array's name said "label" or "target" or
began with ``y``, so both were taken for ``X`` and the folder was refused: "no training table
(train.csv) found; add one, or .npy arrays named like X_train.npy / y_train.npy"."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.layout import inspect_task
from mlestar_jupyter.task.layout.arrays import npy_files


def _folder(root: Path, names: tuple[str, str, str]) -> Path:
    root.mkdir(parents=True)
    rs = np.random.RandomState(0)
    x_name, y_name, test_name = names
    np.save(root / x_name, rs.randint(0, 255, (40, 8, 8)).astype(np.uint8))
    np.save(root / y_name, rs.rand(40) * 90)
    np.save(root / test_name, rs.randint(0, 255, (10, 8, 8)).astype(np.uint8))
    (root / "README.md").write_text(
        "# Meter readings\n\n`train_images.npy` (n, 8, 8) pictures of a meter's digit; "
        "`train_values.npy` the reading (a float). Predict the reading for each picture in "
        "`test_images.npy`. RMSE. Submit `id,value` with id the row index.\n"
    )
    return root


@pytest.mark.parametrize(
    "names",
    [
        ("train_images.npy", "train_values.npy", "test_images.npy"),
        ("images_train.npy", "readings_train.npy", "images_test.npy"),
        ("train_x.npy", "train_scores.npy", "test_x.npy"),
    ],
)
def test_the_array_named_like_the_test_array_is_x(
    tmp_path: Path, names: tuple[str, str, str]
) -> None:
    root = _folder(tmp_path / "meters", names)
    assert npy_files(root) == {"X_train": names[0], "y_train": names[1], "X_test": names[2]}
    task = load_task(root)
    layout = inspect_task(task)
    assert (task.metric_name, layout.task_type, layout.modality) == ("rmse", "regression", "image")


def test_two_arrays_of_pictures_are_not_taken_for_features_and_labels(tmp_path: Path) -> None:
    root = tmp_path / "pairs"
    root.mkdir()
    for name in ("train_left.npy", "train_right.npy"):
        np.save(root / name, np.zeros((5, 8, 8)))
    np.save(root / "test_pairs.npy", np.zeros((2, 8, 8)))
    assert npy_files(root) == {}
