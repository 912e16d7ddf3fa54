"""The strategy library per role, and the strategies that change a given part."""

from __future__ import annotations

from .ablations import ADOPT
from .booster_edits import BOOSTER_STRATEGIES
from .compared import only_entry_changed
from .feature_edits import FEATURE_STRATEGIES, PREPROCESS_STRATEGIES
from .model_edits import MODEL_STRATEGIES
from .number_edits import NUMBER_STRATEGIES
from .parts import Part
from .pinned import CLASS_CHANGES
from .strategy import Strategy
from .syntax import focused, parse
from .torch_edits import TORCH_STRATEGIES


def strategies(role: str) -> tuple[Strategy, ...]:
    """The strategy library for a part of this role, in the order they are tried (the ablation's
    own changes come last: the refiner moves one forward when the ablation measured it better)."""
    if role == "model":
        return MODEL_STRATEGIES + BOOSTER_STRATEGIES + NUMBER_STRATEGIES + TORCH_STRATEGIES + ADOPT
    if role == "train":
        return BOOSTER_STRATEGIES + NUMBER_STRATEGIES + TORCH_STRATEGIES + MODEL_STRATEGIES + ADOPT
    if role == "features":
        return FEATURE_STRATEGIES + PREPROCESS_STRATEGIES + ADOPT
    return PREPROCESS_STRATEGIES + FEATURE_STRATEGIES + ADOPT


def applicable(part: Part, extra: tuple[Strategy, ...] = ()) -> list[tuple[Strategy, str]]:
    """Every strategy that changes ``part``, with the part's new source; ``extra``: strategies
    built for the task (``column_edits``, ``search_edits``), for the roles they name, before
    the library's own or (``last``) after them."""
    out = []
    mine = [s for s in extra if not s.roles or part.role in s.roles]
    first, after = [s for s in mine if not s.last], [s for s in mine if s.last]
    for s in (*first, *strategies(part.role), *after):
        if part.pinned and s.id in CLASS_CHANGES:  # the notebook needs the model's class
            continue
        if part.logged_target and s.id == "target_transform":  # its target is a log already
            continue
        if part.stops_early and s.id == "more_estimators":  # it stops before the trees it has
            continue
        try:
            with focused(part.compares, part.kept):  # the compared model the run kept
                new = s.edit(part.source)
        except (SyntaxError, ValueError, IndexError):
            new = None
        if new is None or new.strip() == part.source.strip() or parse(new) is None:
            continue
        if part.kept and not only_entry_changed(part.source, new, part.compares, part.kept):
            continue  # it changed another of the compared models than the one kept
        out.append((s, new))
    return out
