"""Fixtures for the offline policy's tests: one tiny task folder per modality, built once per session."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # kernel.py and tasks.py beside this file

import tasks  # noqa: E402

from mlestar_jupyter.agent.config import RunConfig  # noqa: E402
from mlestar_jupyter.offline import OfflinePolicy  # noqa: E402
from mlestar_jupyter.task import load_task  # noqa: E402


@pytest.fixture(scope="session")
def task_dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Task folders by name: tabular (breast cancer, ROC AUC), regression, wine (class-probability columns), text, image, image_folders, image_regression (the digit as a number, RMSE), audio, time_series, time_series_long (PLAID-style long form)."""
    base = tmp_path_factory.mktemp("offline_tasks")
    return {
        "tabular": tasks.tabular_task(base / "tabular"),
        "regression": tasks.regression_task(base / "regression"),
        "wine": tasks.wine_task(base / "wine"),
        "text": tasks.text_task(base / "text"),
        "image": tasks.image_task(base / "image"),
        "image_folders": tasks.image_task(base / "image_folders", n=200, class_folders=True),
        "image_regression": tasks.image_task(base / "image_regression", regression=True),
        "audio": tasks.audio_task(base / "audio"),
        "time_series": tasks.time_series_task(base / "time_series"),
        "time_series_long": tasks.long_series_task(base / "time_series_long"),
    }


@pytest.fixture(scope="session")
def policies(task_dirs: dict[str, Path]) -> dict[str, OfflinePolicy]:
    return {name: OfflinePolicy(load_task(root), RunConfig()) for name, root in task_dirs.items()}
