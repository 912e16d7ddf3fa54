"""What a pack task's builder returns, and helpers shared by the builders."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .ladder import ReferenceData

SEED = 0


@dataclass
class Built:
    """A task's files written under ``input/``; what is left to write, and the reference features."""

    spec: dict[str, Any]  # task.json, without difficulty
    answers: pd.DataFrame  # id + target(s); goes to <out>/answers/<task>/answers.csv
    sample: pd.DataFrame  # goes to input/sample_submission.csv
    ref: ReferenceData


@dataclass(frozen=True)
class PackTask:
    """One task of the pack: a name, a modality, whether it is tiny, and how to build it."""

    name: str
    modality: str
    tiny: bool
    requires: str  # the package(s) that ship the data, named in "skipped" messages
    build: Callable[[Path], Built]  # writes input files into the given input/ folder


def task_spec(
    *,
    task_type: str,
    goal: str,
    metric: str,
    direction: str,
    target: str | list[str],
    data_type: str,
    train: tuple[str, str],
    test: tuple[str, str],
    output_format: str,
    instructions: Sequence[str],
    **extra: Any,
) -> dict[str, Any]:
    """A ``task.json`` record in the TAM-Bench schema (plus ``id_col`` and any extra fields)."""
    return {
        "task_type": task_type,
        "goal_description": goal,
        "metric": {"metric_name": metric, "direction": direction, "metric_formula": ""},
        "target_col": target,
        "data_information": {
            "data_type": data_type,
            "train": {"data_location": train[0], "data_description": train[1]},
            "test": {"data_location": test[0], "data_description": test[1]},
            "inference": {"data_location": "", "data_description": ""},
        },
        "output_format": output_format,
        "special_instructions": " ".join(f"{i + 1}. {s}" for i, s in enumerate(instructions)),
        **extra,
    }


def shuffled_ids(n: int, seed: int = SEED, start: int = 0) -> np.ndarray:
    """``n`` distinct integer ids in a fixed random order (row order then says nothing)."""
    return np.random.default_rng(seed).permutation(n) + start


def split(
    df: pd.DataFrame, target: str | None, test_size: float = 0.25, seed: int = SEED
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A fixed train/test split, stratified on ``target`` when it is a class label."""
    from sklearn.model_selection import train_test_split

    strat = df[target] if target is not None else None
    train, test = train_test_split(df, test_size=test_size, random_state=seed, stratify=strat)
    return train.sort_values(train.columns[0]).reset_index(drop=True), test.sort_values(
        test.columns[0]
    ).reset_index(drop=True)


def head_text(df: pd.DataFrame, n: int = 3) -> str:
    """The first rows of a frame as CSV text, for ``output_format``."""
    return df.head(n).to_csv(index=False) + "..."


def tabular_built(
    inp: Path,
    df: pd.DataFrame,
    *,
    id_col: str,
    target: str,
    classification: bool,
    spec_fields: dict[str, Any],
    constant: Any,
    test_size: float = 0.25,
) -> Built:
    """Write train.csv / test.csv for a one-table task and return the rest of it."""
    train, test = split(df, target if classification else None, test_size)
    train.to_csv(inp / "train.csv", index=False)
    test.drop(columns=[target]).to_csv(inp / "test.csv", index=False)
    sample = pd.DataFrame({id_col: test[id_col], target: constant})
    answers = test[[id_col, target]].reset_index(drop=True)
    feats = [c for c in df.columns if c not in (id_col, target)]
    y = train[target].astype(str).to_numpy() if classification else train[target].to_numpy(float)
    ref = ReferenceData("frame", train[feats], y, test[feats], test[id_col].astype(str).tolist())
    spec = task_spec(output_format=head_text(sample), id_col=id_col, **spec_fields)
    return Built(spec, answers, sample, ref)
