"""Strategies for a user's own PyTorch training code, found by the calls it makes: weight decay
on the optimizer, label smoothing on a cross-entropy loss, another batch size, more or less
dropout.  Each changes one call's keyword arguments (or one named number); the network and the
loop stay the user's.  A notebook with a torch loop had only its epochs and learning rate to
vary before, and a run on it ended with budget left."""

from __future__ import annotations

import ast
import re

from .strategy import Edit, Strategy
from .syntax import call_name, keywords, number_value, parse, with_keywords

OPTIMIZERS = ("Adam", "AdamW", "SGD", "RMSprop", "NAdam", "RAdam", "Adagrad")
CROSS_ENTROPY = ("CrossEntropyLoss", "cross_entropy")


def _calls(src: str, names: tuple[str, ...]) -> list[ast.Call]:
    """The calls in ``src`` to any of ``names`` (by the called name), last first."""
    tree = parse(src)
    if tree is None:
        return []
    found = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and call_name(n) in names]
    return sorted(found, key=lambda c: (c.lineno, c.col_offset), reverse=True)


def _set_once(names: tuple[str, ...], param: str, value: str) -> Edit:
    """``param=value`` added to the last call to one of ``names`` that does not set it."""

    def edit(src: str) -> str | None:
        for call in _calls(src, names):
            if param in keywords(call) or any(k.arg is None for k in call.keywords):
                continue  # set already (or passed in **kwargs)
            return with_keywords(src, call, {param: value})
        return None

    return edit


def _adamw(src: str) -> str | None:
    """Adam with L2 folded into its gradient made AdamW with decoupled weight decay 0.01."""
    for call in _calls(src, ("Adam",)):
        if "weight_decay" in keywords(call):
            continue
        new = with_keywords(src, call, {"weight_decay": "0.01"})
        head = new[: new.find("(", _offset(new, call))]
        return new[: len(head) - len("Adam")] + "AdamW" + new[len(head) :]
    return None


def _offset(src: str, node: ast.expr) -> int:
    """Where ``node`` starts in ``src`` (its column counted in characters of an ASCII line)."""
    lines = src.splitlines(keepends=True)
    return sum(len(s) for s in lines[: node.lineno - 1]) + node.col_offset


def _dropout(factor: float, cap: float) -> Edit:
    """Every ``Dropout(p)`` (or ``Dropout(p=...)``) literal rate scaled, capped."""

    def edit(src: str) -> str | None:
        out, changed = src, False
        for call in _calls(src, ("Dropout", "Dropout1d", "Dropout2d", "dropout")):
            node = keywords(call).get("p") or (call.args[0] if call.args else None)
            if call_name(call) == "dropout" and "p" not in keywords(call):
                node = call.args[1] if len(call.args) > 1 else None
            p = number_value(node)
            if p is None or p <= 0:
                continue
            new = round(min(p * factor, cap), 3)
            if new == p:
                continue
            assert node is not None
            seg = ast.get_source_segment(out, node)
            start = _offset(out, node)
            if seg is None or out[start : start + len(seg)] != seg:
                continue
            out, changed = out[:start] + f"{new:g}" + out[start + len(seg) :], True
        return out if changed else None

    return edit


def _batch(factor: float) -> Edit:
    """A named batch size (``batch_size = 64``, ``BATCH_SIZE=32``) scaled, 8 to 4096."""
    rx = re.compile(r"\bbatch_size\s*=\s*(\d+)\b", re.IGNORECASE)

    def edit(src: str) -> str | None:
        m = rx.search(src)
        if m is None:
            return None
        new = int(min(4096, max(8, int(m.group(1)) * factor)))
        if new == int(m.group(1)):
            return None
        return src[: m.start(1)] + str(new) + src[m.end(1) :]

    return edit


TORCH_STRATEGIES: tuple[Strategy, ...] = (
    Strategy(
        "weight_decay",
        "Add weight decay (1e-4) to the optimizer.",
        _set_once(OPTIMIZERS, "weight_decay", "1e-4"),
    ),
    Strategy(
        "label_smoothing",
        "Label smoothing 0.1 in the cross-entropy loss.",
        _set_once(CROSS_ENTROPY, "label_smoothing", "0.1"),
    ),
    Strategy("smaller_batches", "Half the batch size (more updates per epoch).", _batch(0.5)),
    Strategy("adamw", "AdamW: decoupled weight decay 0.01 instead of Adam.", _adamw),
    Strategy("more_dropout", "More dropout (rates x1.5, at most 0.6).", _dropout(1.5, 0.6)),
    Strategy("larger_batches", "Twice the batch size.", _batch(2)),
    Strategy("less_dropout", "Less dropout (rates halved).", _dropout(0.5, 1.0)),
)

__all__ = ["TORCH_STRATEGIES"]
