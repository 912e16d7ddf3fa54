"""Helpers shared by the evaluator tests."""

from __future__ import annotations

from pathlib import Path

import pandas as pd


def answers_of(task_dir: Path) -> pd.DataFrame:
    return pd.read_csv(task_dir / "private" / "answers.csv", dtype=str)


def sample_of(task_dir: Path) -> pd.DataFrame:
    return pd.read_csv(task_dir / "input" / "sample_submission.csv", dtype=str)
