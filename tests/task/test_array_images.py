"""Images given as ``.npy`` arrays the way people save them: grey (n, height, width) as Keras'
MNIST and scikit-learn's digits store them, and channels first (n, 3, h, w) as PyTorch does.

Hunt I's ``X_train.npy`` of shape (1347, 8, 8) was read as 8 series of 8 steps (MiniRocket,
accuracy 0.964 on the held-out digits); read as images the same folder scores 0.993."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.layout import inspect_task


def _folder(root: Path, x_train: np.ndarray, y: np.ndarray, x_test: np.ndarray) -> Path:
    root.mkdir(parents=True)
    (root / "README.md").write_text(
        "# Digits\n\n`X_train.npy` holds the pictures, `y_train.npy` their digit; predict the "
        "digit of each picture in `X_test.npy`.\n\n## Evaluation\n\nAccuracy.\n"
    )
    np.save(root / "X_train.npy", x_train)
    np.save(root / "y_train.npy", y)
    np.save(root / "X_test.npy", x_test)
    return root


@pytest.mark.parametrize(
    ("shape", "modality", "image_shape"),
    [
        ((30, 8, 8), "image", (8, 8, 1)),  # grey, square
        ((30, 28, 28), "image", (28, 28, 1)),
        ((30, 16, 16, 3), "image", (16, 16, 3)),  # channels last
        ((30, 3, 16, 16), "image", (16, 16, 3)),  # channels first
        ((30, 3, 50), "time_series", None),  # 3 channels of 50 steps
        ((30, 50), "time_series", None),
    ],
)
def test_the_arrays_shape_says_images_or_series(
    tmp_path: Path,
    shape: tuple[int, ...],
    modality: str,
    image_shape: tuple[int, int, int] | None,
) -> None:
    rs = np.random.RandomState(0)
    root = _folder(
        tmp_path / "arrays",
        rs.randint(0, 255, shape).astype(np.uint8),
        rs.randint(0, 3, shape[0]),
        rs.randint(0, 255, (10, *shape[1:])).astype(np.uint8),
    )
    layout = inspect_task(load_task(root))
    assert layout.modality == modality
    assert layout.image_shape == image_shape


def test_a_run_on_channels_first_images_hands_in_good_predictions(
    tmp_path: Path,
    short_run,  # type: ignore[no-untyped-def]
) -> None:
    """(n, 3, 8, 8) pictures: the image model's loader reshaped them as (n, 3, 8, 8 x ...) rows
    of one picture's channels; it now moves the channels last."""
    from sklearn.datasets import load_digits

    digits = load_digits()
    rgb = np.repeat(digits.images[:, None, :, :] * 15, 3, axis=1).astype(np.uint8)
    root = _folder(tmp_path / "digits", rgb[:400], digits.target[:400], rgb[400:480])
    out = short_run(root)
    assert out.final.ok and out.final.submission is not None, out.stop_reason
    sub = pd.read_csv(out.final.submission)
    assert list(sub.columns) == ["id", "label"] and len(sub) == 80
    assert (sub["label"].to_numpy() == digits.target[400:480]).mean() > 0.8
