"""A training table split into its features and its labels, as course assignments hand them out:
``X_train.csv``, ``y_train.csv`` and ``X_test.csv`` (scikit-learn's names), no id column, the
submission one prediction per row of ``X_test.csv`` in its order.

Found by task folders of other authors (hunt O): such a folder with a README was refused, "no
training data found: add train.csv".  :func:`features_and_labels` finds the three tables and
the columns the labels table holds (its header, or ``label`` when it has none);
:func:`training_table` puts the features and the labels side by side (the run reads that as
``train.csv``: ``importer.table_parts``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from .numbers import is_number
from .text_format import TEXT_TABLE_EXT, read_args

# X_train.csv, x-train.tsv, X_test.csv, y_train.csv (Y_train.csv); also train_X / train_y
_NAME = re.compile(
    r"^(?:(?P<xy>[xy])[_\-. ]?(?P<role>train|test)|(?P<role2>train|test)[_\-. ]?(?P<xy2>[xy]))"
    r"(?P<ext>\.[a-z.]+)$",
    re.IGNORECASE,
)
_UNNAMED = re.compile(r"^(?:Unnamed: 0|index|)$")


@dataclass(frozen=True)
class FeaturesLabels:
    """The three tables (names in the input folder) and the label columns ``y_train`` holds."""

    x_train: str
    y_train: str
    x_test: str
    targets: tuple[str, ...]  # y_train's header, else ``label``

    @property
    def notice(self) -> str:
        """What a reader tells the user it made of the three tables."""
        return (
            f"{self.x_train} and {self.y_train} are read as one training table (features, "
            f"then the labels: {', '.join(self.targets)}), row by row; {self.x_test} as the "
            "rows to predict"
        )


def features_and_labels(input_dir: Path) -> FeaturesLabels | None:
    """The features/labels tables of ``input_dir`` (``X_train``, ``y_train``, ``X_test`` text
    tables), or ``None``: not all three, a ``train``/``test`` table beside them, or a labels
    table of another length than the features'."""
    if not input_dir.is_dir():
        return None
    found: dict[tuple[str, str], str] = {}
    for p in sorted(input_dir.iterdir()):
        m = _NAME.match(p.name)
        if not p.is_file() or m is None or not p.name.lower().endswith(TEXT_TABLE_EXT):
            continue
        xy = (m["xy"] or m["xy2"]).lower()
        role = (m["role"] or m["role2"]).lower()
        found.setdefault((xy, role), p.name)
    names = [found.get(k) for k in (("x", "train"), ("y", "train"), ("x", "test"))]
    if any(n is None for n in names) or any(
        p.name.lower().split(".")[0] in ("train", "test") for p in input_dir.iterdir()
    ):
        return None
    x_train, y_train, x_test = (str(n) for n in names)
    try:
        rows = len(_rows(input_dir / x_train))
        labels = _labels(input_dir / y_train, rows)
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    if labels is None or labels.shape[1] == 0:
        return None
    named = not all(is_number(str(c)) for c in labels.columns)
    targets = tuple(str(c) for c in labels.columns) if named else ("label",)
    if not named and len(targets) != labels.shape[1]:
        targets = tuple(f"label_{i}" for i in range(labels.shape[1]))
    return FeaturesLabels(x_train, y_train, x_test, targets)


def training_table(input_dir: Path, split: FeaturesLabels) -> pd.DataFrame:
    """The features of ``X_train`` with the labels of ``y_train`` beside them, row by row."""
    features = _without_index(
        pd.read_csv(input_dir / split.x_train, **read_args(input_dir / split.x_train))
    )
    labels = _labels(input_dir / split.y_train, len(features))
    if labels is None:
        raise ValueError(f"{split.y_train} has not one row per row of {split.x_train}")
    labels.columns = list(split.targets)
    return pd.concat([features.reset_index(drop=True), labels.reset_index(drop=True)], axis=1)


def test_table(input_dir: Path, split: FeaturesLabels) -> pd.DataFrame:
    """The features of ``X_test``, without a saved pandas index."""
    path = input_dir / split.x_test
    return _without_index(pd.read_csv(path, **read_args(path)))


def _labels(path: Path, rows: int) -> pd.DataFrame | None:
    """The labels table, one row per row of the features (``rows``): its columns but a saved
    pandas index, read with its header, or without one when its first row is numbers and so
    it has ``rows`` rows (``np.savetxt``'s); ``None`` when neither has ``rows`` rows."""
    args = read_args(path)
    frame = _without_index(pd.read_csv(path, **args))
    if len(frame) == rows:
        return frame
    if all(is_number(str(c)) for c in frame.columns):
        bare = _without_index(pd.read_csv(path, header=None, **args))
        return bare if len(bare) == rows else None
    return None


def _without_index(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` without a first column pandas wrote as its index (``Unnamed: 0``) when others
    are there."""
    first = str(frame.columns[0]) if len(frame.columns) else "x"
    return frame.iloc[:, 1:] if len(frame.columns) > 1 and _UNNAMED.match(first) else frame


def _rows(path: Path) -> pd.Series:
    """The first column of a text table (its header as the header): one value per row."""
    return pd.read_csv(path, usecols=[0], **read_args(path)).iloc[:, 0]


__all__ = ["FeaturesLabels", "features_and_labels", "test_table", "training_table"]
