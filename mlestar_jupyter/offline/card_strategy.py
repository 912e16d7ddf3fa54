"""A refinement strategy for a catalog block: param updates for one role of a card's template.

``strategies.LIBRARY`` lists them (``feature_strategies``, ``model_strategies``); a strategy
applies to a block when its card's template understands every param it sets and ``when`` holds
for the task's data.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..task.layout import DataLayout


@dataclass(frozen=True)
class Strategy:
    """One change a practitioner tries on a block of ``role``, as an update of its params."""

    id: str
    role: str
    group: str  # strategies of a group are steps along one direction
    text: str
    params: dict[str, Any]
    when: Callable[[DataLayout], bool] = field(default=lambda layout: True)


def classification(layout: DataLayout) -> bool:
    """Whether the task is a classification."""
    return layout.is_classification


def single_regression(layout: DataLayout) -> bool:
    """Whether the task is a regression of one target."""
    return not layout.is_classification and layout.submission_kind != "multi_target"


def forecast_regression(layout: DataLayout) -> bool:
    """Whether the task forecasts one number for days after every training row's
    (``DataLayout.forecast_col``)."""
    return single_regression(layout) and bool(layout.forecast_col)
