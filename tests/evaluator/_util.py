"""Helpers shared by the evaluator tests."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from mlestar_jupyter.task.loaders import answers_folder


def answers_of(task_dir: Path) -> pd.DataFrame:
    """A task's answers: beside the task folder (a pack) or in its ``private/`` (older)."""
    outside = answers_folder(task_dir) / "answers.csv"
    path = outside if outside.is_file() else task_dir / "private" / "answers.csv"
    return pd.read_csv(path, dtype=str)


def sample_of(task_dir: Path) -> pd.DataFrame:
    return pd.read_csv(task_dir / "input" / "sample_submission.csv", dtype=str)
