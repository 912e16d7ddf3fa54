"""Strategies that scale a number written in the code: a torch loop's epochs, hidden sizes,
learning rate, an iteration cap (found by name, not by the syntax tree)."""

from __future__ import annotations

import re

from .strategy import Edit, Strategy

EPOCHS = r"\b(?:n_|num_)?epochs\s*=\s*(\d+)"
HIDDEN = r"\bhidden\w*\s*=\s*(\d+)"
LEARNING_RATE = r"\blr\s*=\s*([0-9.]+(?:e-?\d+)?)"


def number(pattern: str, factor: float, cap: float | None = None) -> Edit:
    """Multiply the first number matching ``pattern`` (group 1 is the number), case-insensitive."""
    rx = re.compile(pattern, re.IGNORECASE)

    def edit(src: str) -> str | None:
        m = rx.search(src)
        if m is None:
            return None
        text = m.group(1)
        value = float(text)
        new = value * factor if cap is None else min(value * factor, cap)
        if new == value:
            return None
        out = str(int(new)) if re.fullmatch(r"\d+", text) else f"{new:.4g}"
        return src[: m.start(1)] + out + src[m.end(1) :]

    return edit


NUMBER_STRATEGIES: tuple[Strategy, ...] = (
    Strategy("more_epochs", "Train for three times as many epochs.", number(EPOCHS, 3, cap=2000)),
    Strategy("wider_network", "A wider network (hidden units x4).", number(HIDDEN, 4, cap=1024)),
    Strategy("lower_lr", "A third of the learning rate.", number(LEARNING_RATE, 1 / 3)),
    Strategy("higher_lr", "Three times the learning rate.", number(LEARNING_RATE, 3, cap=0.1)),
    Strategy(
        "more_iterations",
        "Three times the iterations (max_iter x3).",
        number(r"\bmax_iter\s*=\s*(\d+)", 3, cap=5000),
    ),
)
