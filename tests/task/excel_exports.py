"""Tables the way outsiders' Excel exports hold them, shared by the encoding tests."""

from __future__ import annotations

import numpy as np
import pandas as pd

NAMES = ("Müller", "Straße", "café", "Crème brûlée €")


def accented_frames(n: int, n_train: int, target: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``n_train`` training rows (``id``, an accented ``name``, a number ``x``, the number
    ``target``) and the other ``n - n_train`` rows as the test rows (no target)."""
    rng = np.random.default_rng(0)
    df = pd.DataFrame(
        {
            "id": range(n),
            "name": [NAMES[i % len(NAMES)] for i in range(n)],
            "x": rng.normal(size=n).round(3) + 0.001,  # never whole: a decimal mark shows
            target: rng.normal(10, 2, size=n).round(2) + 0.01,
        }
    )
    return df.iloc[:n_train], df.iloc[n_train:].drop(columns=target)
