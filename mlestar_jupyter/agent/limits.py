"""Ranges of the run's knobs and budget: what ``Budget`` and ``RunConfig`` accept.

Every limit must be a finite number above zero (a NaN, infinite or negative time limit is
refused, not run); the counts of the paper need at least one of each, except the ones whose
zero has a stated meaning: ``ensemble_rounds=0`` (no ensembling: the best of the L solutions is
submitted), ``outer_steps=0`` (no refinement) and ``debug_rounds=0`` (no debugger).  The CLI
and ``api.make_config`` also ask for ``outer_steps >= 1``: a search without refinement is not
MLE-STAR.  A value out of range raises ``InvalidConfig`` naming the CLI flag.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ..messages import quote
from .errors import InvalidConfig

if TYPE_CHECKING:
    from .config import Budget, RunConfig


def positive_number(value: Any, what: str, *, optional: bool = False) -> None:
    """``value`` is a finite real number > 0 (or ``None`` when ``optional``)."""
    if value is None and optional:
        return
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    if not ok or not math.isfinite(value) or value <= 0:
        raise InvalidConfig(f"{what} must be a finite positive number, got {quote(value)}")


EXEC_TIMEOUT_HELP = (
    "give a number of seconds > 0, or leave --exec-timeout out for the default "
    "min(600, max(30, time limit / 4)); 0 does not mean 'no limit': every execution also "
    "ends with its phase's share of --time-limit"
)


def exec_limit(value: Any) -> None:
    """``--exec-timeout``: ``None`` (the default) or a finite number of seconds > 0; 0 is refused
    with what to give instead (it is not a way to lift the limit)."""
    if value is None:
        return
    try:
        positive_number(value, "the time limit of one execution (--exec-timeout)")
    except InvalidConfig as e:
        raise InvalidConfig(f"{e}: {EXEC_TIMEOUT_HELP}") from None


def count(value: Any, what: str, *, least: int = 1, optional: bool = False) -> None:
    """``value`` is an integer >= ``least`` (or ``None`` when ``optional``)."""
    if value is None and optional:
        return
    if not isinstance(value, int) or isinstance(value, bool) or value < least:
        raise InvalidConfig(f"{what} must be a whole number >= {least}, got {quote(value)}")


def check_budget(b: Budget) -> None:
    """Raise ``InvalidConfig`` for a limit that is not finite and positive."""
    positive_number(b.wall_seconds, "the time limit in seconds (--time-limit)", optional=True)
    positive_number(b.exec_timeout, "the time limit of one execution (--exec-timeout)")
    count(b.max_llm_calls, "the LLM call limit (--max-llm-calls)", optional=True)
    count(b.max_tokens, "the token limit (--max-tokens)", optional=True)
    positive_number(b.max_cost_usd, "the LLM cost limit in USD (--max-cost)", optional=True)
    for phase, share in b.phase_shares.items():
        if not isinstance(share, int | float) or not math.isfinite(share) or share < 0:
            raise InvalidConfig(
                f"the budget share of phase {quote(phase)} must be a finite number >= 0"
            )


def check_config(c: RunConfig) -> None:
    """Raise ``InvalidConfig`` for a knob out of range (see the module docstring)."""
    count(c.num_models, "M, the models retrieved (--models/-M)")
    count(c.inner_steps, "K, the plans per refined block (--inner/-K)")
    count(c.outer_steps, "T, the refinement steps (--outer/-T)", least=0)
    count(c.parallel_solutions, "L, the solutions refined in parallel (--parallel/-L)")
    count(c.ensemble_rounds, "R, the ensemble rounds (--ensemble-rounds/-R)", least=0)
    count(c.debug_rounds, "the debugger rounds", least=0)
    count(c.max_train_rows, "the training rows a search candidate keeps (--max-train-rows)")
    count(c.max_parallel, "the kernels at once", optional=True)
    count(c.memory_limit_mb, "the memory cap per kernel in MB (--memory-limit)", optional=True)
