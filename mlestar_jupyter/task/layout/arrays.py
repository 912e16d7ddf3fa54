"""Data that is not one table: ``.npy`` arrays, ``.ts`` files, and series stored long (one row
per id and step) beside a table of labels."""

from __future__ import annotations

from pathlib import Path

from .tables import read_head


def npy_files(inp: Path) -> dict[str, str]:
    """``X_train`` / ``y_train`` / ``X_test`` arrays by role (empty unless all three are there)."""
    found: dict[str, str] = {}
    for p in sorted(inp.glob("*.npy")):
        n = p.stem.lower()
        split = "train" if "train" in n else "test" if "test" in n else None
        if split is None:
            continue
        kind = (
            "y"
            if any(w in n for w in ("label", "target")) or n.startswith("y") or n.endswith("_y")
            else "X"
        )
        found.setdefault(f"{kind}_{split}", p.name)
    if "y_train" not in found:
        found.update(_named_by_shape(inp))
    return found if {"X_train", "y_train", "X_test"} <= found.keys() else {}


def _named_by_shape(inp: Path) -> dict[str, str]:
    """Two training arrays whose names say nothing of which is which (``train_images.npy``
    beside ``train_values.npy``): the one named like the test array (``test_images.npy``) is
    ``X``, else the one of more dimensions; the other, one value per row, is ``y``."""
    import numpy as np

    train = sorted(p for p in inp.glob("*.npy") if "train" in p.stem.lower())
    test = sorted(p for p in inp.glob("*.npy") if "test" in p.stem.lower())
    if len(train) != 2 or len(test) != 1:
        return {}
    try:
        shapes = [np.load(p, mmap_mode="r", allow_pickle=False).shape for p in train]
    except (OSError, ValueError):
        return {}
    twin = test[0].stem.lower().replace("test", "train")
    named = [i for i, p in enumerate(train) if p.stem.lower() == twin]
    x = named[0] if named else max((0, 1), key=lambda i: len(shapes[i]))
    y = 1 - x
    if len(shapes[y]) > 2 or shapes[y][:1] != shapes[x][:1] or len(shapes[y]) > len(shapes[x]):
        return {}  # not one value (or one row of values) per training example
    return {"X_train": train[x].name, "y_train": train[y].name, "X_test": test[0].name}


def ts_files(inp: Path) -> tuple[str, str] | None:
    """The train and test ``.ts`` files (sktime's format, read by ``ts_format``), when there
    are both."""
    tr = sorted(p.name for p in inp.glob("*.ts") if "train" in p.name.lower())
    te = sorted(p.name for p in inp.glob("*.ts") if "test" in p.name.lower())
    return (tr[0], te[0]) if tr and te else None


def long_series(
    inp: Path, id_col: str, exclude: set[str | None]
) -> tuple[tuple[str, str], str | None, tuple[str, ...]] | None:
    """Train and test CSVs holding series in long form (``id``, step, values: an id on many rows),
    with the step column (or None: file order) and the value columns."""
    found: dict[str, str] = {}
    order: str | None = None
    values: tuple[str, ...] = ()
    for p in sorted(inp.glob("*.csv")):
        if p.name in exclude:
            continue
        head = read_head(p, n=200)
        if id_col not in head.columns or not head[id_col].duplicated().any():
            continue
        split = "train" if "train" in p.name.lower() else "test" if "test" in p.name.lower() else ""
        if not split or split in found:
            continue
        found[split] = p.name
        numeric = [c for c in head.select_dtypes("number").columns if c != id_col]
        steps = [c for c in numeric if c.lower() in ("t", "time", "step", "timestamp", "index")]
        order = steps[0] if steps else None
        values = tuple(c for c in numeric if c != order)
    if {"train", "test"} <= found.keys() and values:
        return (found["train"], found["test"]), order, values
    return None
