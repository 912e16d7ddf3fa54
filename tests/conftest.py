"""Shared fixtures: tiny real task folders built from scikit-learn's bundled datasets."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from mlestar_jupyter.agent.run import RunOutcome

pytest_plugins = ("pytest_jupyter.jupyter_server",)

# Two shared cores: keep every test process and the kernels it starts from oversubscribing.
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def _write_tabular_task(root: Path, *, fmt: str = "tam_bench", n: int | None = None) -> Path:
    import pandas as pd
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split

    data = load_breast_cancer(as_frame=True)
    df = data.frame.rename(columns=lambda c: c.replace(" ", "_"))
    df.insert(0, "id", range(len(df)))
    if n:
        df = df.iloc[:n]
    train, test = train_test_split(df, test_size=0.25, random_state=0, stratify=df["target"])
    inp = root / "input" if fmt != "mlebench" else root
    inp.mkdir(parents=True, exist_ok=True)
    train.to_csv(inp / "train.csv", index=False)
    test.drop(columns=["target"]).to_csv(inp / "test.csv", index=False)
    pd.DataFrame({"id": test["id"], "target": 0}).to_csv(inp / "sample_submission.csv", index=False)
    (root / "private").mkdir(exist_ok=True)
    test[["id", "target"]].to_csv(root / "private" / "answers.csv", index=False)
    if fmt == "tam_bench":
        (root / "task.json").write_text(
            json.dumps(
                {
                    "task_type": "classification",
                    "goal_description": "Predict whether a breast tumour is malignant (target=0) or benign (target=1) from cell-nucleus measurements.",
                    "metric": {"metric_name": "ROC AUC", "direction": "maximize"},
                    "target_col": "target",
                    "data_information": {
                        "data_type": "Tabular",
                        "train": {
                            "data_location": "train.csv",
                            "data_description": "30 numeric features, id and target",
                        },
                        "test": {
                            "data_location": "test.csv",
                            "data_description": "same features without target",
                        },
                    },
                    "output_format": "id,target\n0,0.5\n...",
                    "special_instructions": "1. Predict the probability of class 1.",
                },
                indent=2,
            )
        )
    else:
        (root / "description.md").write_text(
            "# Breast cancer\n\nPredict whether a tumour is benign (target=1).\n\nMetric: ROC AUC\n"
        )
    return root


@pytest.fixture
def tabular_task(tmp_path: Path) -> Path:
    """A TAM-Bench task folder (breast cancer, ROC AUC) in a temp dir."""
    return _write_tabular_task(tmp_path / "bc")


@pytest.fixture
def make_task(tmp_path: Path):
    """Factory: ``make_task(fmt='tam_bench'|'mlebench'|'description', n=None)``."""

    def make(fmt: str = "tam_bench", n: int | None = None, name: str = "task") -> Path:
        return _write_tabular_task(tmp_path / name, fmt=fmt, n=n)

    return make


SOIL_CLASSES = (
    "alluvial soil",
    "black soil",
    "clay soil",
    "laterite soil",
    "red soil",
    "sandy soil",
)


def _write_soil_task(root: Path, *, metric: str = "accuracy", per_class: bool = False) -> Path:
    """A 6-class tabular task whose classes are text ('red soil'); per_class: one column per class."""
    import numpy as np
    import pandas as pd
    from sklearn.datasets import make_classification

    X, y = make_classification(
        n_samples=480,
        n_features=8,
        n_informative=6,
        n_classes=6,
        n_clusters_per_class=1,
        class_sep=2.0,
        random_state=0,
    )
    df = pd.DataFrame(X, columns=[f"f{i}" for i in range(8)]).round(4)
    df.insert(0, "id", range(1000, 1000 + len(df)))
    df["soil_type"] = np.asarray(SOIL_CLASSES)[y]
    train, test = df.iloc[:360], df.iloc[360:]
    inp = root / "input"
    inp.mkdir(parents=True)
    (root / "private").mkdir()
    train.to_csv(inp / "train.csv", index=False)
    test.drop(columns=["soil_type"]).to_csv(inp / "test.csv", index=False)
    if per_class:
        sample = pd.DataFrame({"id": test["id"], **{c: 1 / 6 for c in SOIL_CLASSES}})
    else:
        sample = pd.DataFrame({"id": test["id"], "soil_type": "red soil"})
    sample.to_csv(inp / "sample_submission.csv", index=False)
    test[["id", "soil_type"]].to_csv(root / "private" / "answers.csv", index=False)
    (root / "task.json").write_text(
        json.dumps(
            {
                "task_type": "classification",
                "goal_description": "Predict the soil type of each field from 8 soil measurements.",
                "metric": {"metric_name": metric},
                "target_col": "soil_type",
                "id_col": "id",
                "data_information": {
                    "data_type": "Tabular",
                    "train": {
                        "data_location": "train.csv",
                        "data_description": "f0..f7, soil_type",
                    },
                    "test": {"data_location": "test.csv", "data_description": "f0..f7"},
                },
                "output_format": sample.head(2).to_csv(index=False),
            },
            indent=2,
        )
    )
    return root


@pytest.fixture
def soil_task(tmp_path: Path):
    """Factory: ``soil_task(metric='accuracy', per_class=False)``, a 6-class task with text labels."""

    def make(metric: str = "accuracy", per_class: bool = False, name: str = "soil") -> Path:
        return _write_soil_task(tmp_path / name, metric=metric, per_class=per_class)

    return make


SHORT_RUN = {
    "time_limit": 60,
    "models": 1,
    "inner": 1,
    "outer": 1,
    "parallel": 1,
    "ensemble_rounds": 0,
}


@pytest.fixture
def short_run(tmp_path: Path) -> Callable[..., RunOutcome]:
    """Factory: ``short_run(task_dir, **options)``, an offline ``api.run`` into ``tmp_path/run``
    of one model, one path, one refinement round and no ensemble in 60 s (``SHORT_RUN``);
    ``options`` (``out=``, ``time_limit=``, ``models=`` ...) override them."""

    def run(task_dir: Path, **options: Any) -> RunOutcome:
        from mlestar_jupyter import api

        return api.run(task_dir, **{"out": tmp_path / "run", **SHORT_RUN, **options})

    return run
