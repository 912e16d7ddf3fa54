"""Refinement strategies: per role, the changes a Kaggle practitioner tries, as param updates.

A strategy applies to a block when its card's template understands every param it sets (the
card lists the param among its defaults for that role) and the task suits it (e.g. class weights
only for classification).  ``next_plan`` walks them guided by the scores so far: after a change
that helped, it tries the next step in the same direction on top of it; after one that did not,
it moves on to another kind of change.  A plan is never repeated on a block.  Parallel path
``i`` of ``L`` takes the kinds of change ``i, i + L, ...`` of the order first (its ``lane``), so
that the paths try different changes rather than the same ones side by side.
"""

from __future__ import annotations

from typing import Any

from ..agent.policy import Plan
from ..metrics import Direction, Score
from ..task.layout import DataLayout
from .card_strategy import Strategy
from .feature_strategies import FEATURE_STRATEGIES, PREPROCESS_STRATEGIES
from .model_strategies import MODEL_STRATEGIES, TRAIN_STRATEGIES

# every strategy, in the order they are tried: features, preprocess, model, train
LIBRARY: tuple[Strategy, ...] = (
    FEATURE_STRATEGIES + PREPROCESS_STRATEGIES + MODEL_STRATEGIES + TRAIN_STRATEGIES
)


def _apply(current: dict[str, Any], update: dict[str, Any]) -> dict[str, Any]:
    """``current`` with ``update``; "x4" / "/10" scale the current number."""
    out = dict(current)
    for k, v in update.items():
        if (
            isinstance(v, str)
            and v[:1] in "x/"
            and v[1:].replace(".", "").isdigit()
            and isinstance(current.get(k), int | float)
        ):
            factor = float(v[1:])
            value = current[k] * factor if v[0] == "x" else current[k] / factor
            out[k] = (
                int(value)
                if isinstance(current[k], int) and not isinstance(current[k], bool)
                else round(value, 6)
            )
        else:
            out[k] = v
    return out


CATEGORICAL_PARAMS = {"encoding", "frequency"}
MISSING_PARAMS = {"impute", "missing_count"}


def relevant(params: dict[str, Any], layout: DataLayout) -> bool:
    """Whether changing ``params`` can matter for this data (no encoding changes without categories)."""
    if (
        layout.modality == "tabular"
        and layout.n_categorical == 0
        and set(params) & CATEGORICAL_PARAMS
    ):
        return False
    return not (
        layout.modality == "tabular" and not layout.has_missing and set(params) & MISSING_PARAMS
    )


def applicable(
    role: str, defaults: dict[str, Any], current: dict[str, Any], layout: DataLayout
) -> list[Strategy]:
    """Strategies for ``role`` that this card's template understands and that change ``current``."""
    return [
        s
        for s in LIBRARY
        if s.role == role
        and set(s.params) <= set(defaults)
        and s.when(layout)
        and relevant(s.params, layout)
        and _apply(current, s.params) != current
    ]


def _better(a: float, b: float | None, higher: bool) -> bool:
    direction: Direction = "maximize" if higher else "minimize"
    return Score(a, direction).better_than(Score(b, direction))


def next_plan(
    role: str,
    defaults: dict[str, Any],
    current: dict[str, Any],
    layout: DataLayout,
    history: list[tuple[Plan, float | None]],
    baseline: float | None,
    higher: bool,
    prefer: str | None = None,
    skip: frozenset[str] = frozenset(),
    lane: tuple[int, int] = (0, 1),
    ruled_out: frozenset[str] = frozenset(),
) -> Plan | None:
    """The next untried plan for a block (``None`` when every strategy has been tried);
    ``prefer`` names a strategy the data asks for, tried before any other; ``skip`` names
    strategies not to propose now (unlike a tried one, a skipped one leaves the order of the
    others as it was); ``lane`` = (i, L): path i of L parallel ones, which takes every L-th
    kind of change from the i-th first wherever the scores leave a choice; ``ruled_out`` names
    strategies that cannot run on this block (too few rows to search, timed out here): counted
    as tried, and left out of the lanes."""
    tried_ids = {part for p, _ in history for part in str(p.strategy).split("+")} | ruled_out
    tried_params = [p.params.get("role_params") for p, _ in history]
    best: tuple[Plan, float] | None = None
    for p, s in history:
        if (
            s is not None
            and _better(s, baseline, higher)
            and (best is None or _better(s, best[1], higher))
        ):
            best = (p, s)
    base = best[0].params.get("role_params", current) if best else current
    # the lane is drawn on every strategy that can run here, so that a path keeps its kinds of
    # change as strategies get tried
    possible = [s for s in applicable(role, defaults, current, layout) if s.id not in ruled_out]
    ordered = _lane_first(possible, lane)
    cands = [s for s in ordered if s.id not in tried_ids | skip]
    if best:  # a change helped: next try a further step in its direction, on top of it
        best_groups = {s.group for s in LIBRARY if s.id in str(best[0].strategy).split("+")}
        cands.sort(key=lambda s: s.group not in best_groups)
    else:  # nothing helped yet: prefer kinds of change not tried at all
        tried_groups = {s.group for s in LIBRARY if s.id in tried_ids}
        cands.sort(key=lambda s: s.group in tried_groups)
    cands.sort(key=lambda s: s.id != prefer)  # (stable sorts: the lane's order is kept within)
    for strat in cands:
        params = _apply(base, strat.params)
        if params == base or params in tried_params or params == current:
            continue
        on_top = f" (on top of the best plan so far: {best[0].text})" if best else ""
        sid = f"{best[0].strategy}+{strat.id}" if best else strat.id
        return Plan(f"{strat.text}{on_top}", sid, {"role": role, "role_params": params})
    return None


def _lane_first(cands: list[Strategy], lane: tuple[int, int]) -> list[Strategy]:
    """``cands`` with path i of L's kinds of change (groups i, i + L, ... in order of first
    appearance) first, each part in its order: a path's first plan is the head of a group, not a
    further step of a change another path is trying."""
    i, every = lane[0], max(1, lane[1])
    groups = list(dict.fromkeys(c.group for c in cands))
    mine = set(groups[i % every :: every])
    return [c for c in cands if c.group in mine] + [c for c in cands if c.group not in mine]
