"""A small price table ($ per 1M tokens, input/output) to estimate a call's cost.

Prices are list prices at the time of writing and only an estimate; unknown models cost 0.
A versioned name (``gemini-2.5-flash-001``) takes the price of its longest known prefix.
"""

from __future__ import annotations

from collections.abc import Mapping

from .types import Usage

# model prefix -> (input $/1M tokens, output $/1M tokens)
DEFAULT_PRICES: Mapping[str, tuple[float, float]] = {
    "gemini-2.5-pro": (1.25, 10.0),
    "gemini-2.5-flash": (0.30, 2.50),
    "gemini-2.5-flash-lite": (0.10, 0.40),
    "gemini-2.0-flash": (0.10, 0.40),
    "gemini-2.0-flash-lite": (0.075, 0.30),
    "gpt-4.1": (2.0, 8.0),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4o": (2.50, 10.0),
    "gpt-4o-mini": (0.15, 0.60),
    "o4-mini": (1.10, 4.40),
}


def price_of(
    model: str, prices: Mapping[str, tuple[float, float]] = DEFAULT_PRICES
) -> tuple[float, float] | None:
    """The (input, output) price of ``model`` per 1M tokens, or None when unknown."""
    name = model.rsplit("/", 1)[-1].lower()  # "models/gemini-2.5-flash" -> "gemini-2.5-flash"
    best = max((p for p in prices if name.startswith(p)), key=len, default=None)
    return prices[best] if best else None


def estimate_cost(
    model: str, usage: Usage, prices: Mapping[str, tuple[float, float]] = DEFAULT_PRICES
) -> float:
    """Estimated cost in USD of one call (0.0 for unknown models, e.g. local ones)."""
    p = price_of(model, prices)
    if p is None:
        return 0.0
    return (usage.prompt_tokens * p[0] + usage.completion_tokens * p[1]) / 1_000_000
