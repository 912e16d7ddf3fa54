"""Finding the metric in a page: the names, phrases and formulas of the metrics the evaluator grades.

Every name and alias of ``metrics``' registry is matched, plus how pages state a metric in prose
("the percentage of passengers you correctly predict") or in a formula (``\\sqrt{\\frac{1}{n}
\\sum (\\log(p_i + 1) - \\log(a_i + 1))^2}``).  Of overlapping matches the longest wins ("RMSE
between the logarithm of …" is rmsle, not rmse); of the rest, the first in the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..metric_params import find_named
from ..metrics import get_metric, metric_names, named_metric, qualified_away
from .metric_words import FOREIGN_PHRASES

# (canonical name, pattern): prose and formulas, beyond the registry's names and aliases.
PHRASES: tuple[tuple[str, str], ...] = (
    (
        "rmsle",
        r"(?:root[- ]mean[- ]squared?[- ]error|rmse)\W{0,3}(?:\(rmse\)\s*)?"
        r"(?:between|of|on|computed on)\s+the\s+(?:natural\s+)?log(?:arithm)?s?",
    ),
    ("rmsle", r"root[- ]mean[- ]squared?[- ]log(?:arithmic)?[- ]error"),
    # a root over squared differences of logs: the rest of the formula is taken, so it outranks rmse
    ("rmsle", r"\\sqrt\s*\{[^$]{0,200}?\\log\s*\\?\(?\s*[^$]{0,60}?\+\s*1[^$]*"),
    ("rmsle", r"\\sqrt\s*\{[^$]{0,200}?\\log\s*\\?\(?\s*1\s*\+[^$]*"),
    ("mcrmse", r"mean\s+column[- ]?wise\s+root\s+mean\s+squared?\s+error"),
    (
        "rmse",
        r"square\s+root\s+of\s+the\s+(?:mean|average)\s+(?:of\s+the\s+)?squared\s+"
        r"(?:differences?|errors?)",
    ),
    ("rmse", r"\\sqrt\s*\{\s*\\frac\s*\{\s*1\s*\}\s*\{\s*[nN]\s*\}\s*\\sum[^$]{0,200}?\^\s*\{?2"),
    ("mse", r"(?:mean|average)\s+(?:of\s+the\s+)?squared\s+(?:differences?|errors?)"),
    ("mae", r"(?:mean|average)\s+(?:of\s+the\s+)?absolute\s+(?:differences?|errors?|deviations?)"),
    ("mae", r"\\frac\s*\{\s*1\s*\}\s*\{\s*[nN]\s*\}\s*\\sum[^$]{0,80}?(?:\\left)?\s*\|\s*\\?\w"),
    ("log_loss", r"logarithmic\s+loss|log[- ]loss|(?:multi[- ]?class|binary)?\s*cross[- ]entropy"),
    ("log_loss", r"-\s*\\frac\s*\{\s*1\s*\}\s*\{\s*[nN]\s*\}\s*\\sum[^$]{0,200}?\\log"),
    (
        "log_loss",
        r"(?:average|mean)\s+(?:of\s+)?(?:the\s+)?negative\s+log(?:arithm)?s?\s+of\s+the\s+"
        r"(?:predicted\s+)?probabilit|negative\s+log[- ]likelihood",
    ),
    ("roc_auc", r"area\s+under\s+the\s+(?:roc|receiver\s+operating\s+characteristic)\s+curve"),
    ("roc_auc", r"\bauc\b|\bauroc\b|\broc[- ]auc\b"),
    ("f1_macro", r"macro[- ]?(?:averaged\s+)?f[- ]?1(?:[- ]score)?"),
    (
        "f1_macro",
        r"f[- ]?1(?:[- ]score)?[^.]{0,80}?(?:averaged|mean|average)\s+(?:over|across)\s+"
        r"(?:all\s+|the\s+)?(?:classes|labels|categories)",
    ),
    (
        "f1_macro",
        r"harmonic\s+mean\s+of\s+(?:the\s+)?precision\s+and\s+recall[^.]{0,80}?"
        r"(?:averaged|mean|average)\s+(?:over|across)\s+(?:all\s+|the\s+)?(?:classes|labels)",
    ),
    ("f1", r"harmonic\s+mean\s+of\s+(?:the\s+)?precision\s+and\s+recall|\bf[- ]?score\b"),
    (
        "accuracy",
        r"(?:percentage|proportion|fraction|share)\s+of\s+(?:the\s+)?[\w\s]{0,40}?"
        r"(?:correctly\s+(?:predict|classif|identif|label)\w*|correct\s+predictions)",
    ),
    ("accuracy", r"(?:number|count)\s+of\s+correct\s+predictions\s+divided\s+by"),
    ("qwk", r"quadratic(?:ally)?\s+weighted\s+(?:cohen'?s\s+)?kappa"),
    ("cohen_kappa", r"cohen'?s\s+kappa"),
    ("mcc", r"matthews\s+correlation"),
    ("r2", r"coefficient\s+of\s+determination|\br\s*\^\s*\{?2\}?|\br[- ]squared\b"),
    ("balanced_accuracy", r"balanced\s+accuracy|(?:average|mean)\s+recall\s+(?:over|across)"),
    *FOREIGN_PHRASES,  # the common metrics named in German, Spanish, French, Italian, Portuguese
)


@dataclass(frozen=True)
class MetricMatch:
    """A metric found in a text: its canonical name and the words that named it."""

    name: str
    evidence: str
    start: int


def _alias_pattern(alias: str) -> str:
    words = [re.escape(w) for w in re.split(r"[\s_\-]+", alias.strip()) if w]
    return r"\b" + r"[\s_\-]+".join(words) + r"\b"


def _patterns() -> list[tuple[str, re.Pattern[str]]]:
    pats = [(name, re.compile(p, re.I)) for name, p in PHRASES]
    for m in (get_metric(n) for n in metric_names()):
        for alias in (m.name, *m.aliases):
            pats.append((m.name, re.compile(_alias_pattern(alias), re.I)))
    return pats


# MAP@k names its k: "Mean Average Precision @ 3 (MAP@3)", "MAP at 5"
_MAP_AT_K = re.compile(r"\b(?:mean\s+average\s+precision|MAP)\s*(?:@|at)\s*(\d+)\b", re.I)


def find_metrics(text: str) -> list[MetricMatch]:
    """Every metric named in ``text``, in order, each span kept only where no longer match covers it."""
    spans: list[tuple[int, int, str]] = []
    for name, pat in _patterns():
        spans += [(m.start(), m.end(), name) for m in pat.finditer(text)]
    spans += [(m.start(), m.end(), f"map@{m.group(1)}") for m in _MAP_AT_K.finditer(text)]
    spans += _parametric_spans(text)
    spans.sort(key=lambda s: (s[0], -(s[1] - s[0])))
    kept: list[tuple[int, int, str]] = []
    for s in sorted(spans, key=lambda s: -(s[1] - s[0])):
        if not any(k[0] <= s[0] < k[1] or s[0] <= k[0] < s[1] for k in kept):
            kept.append(s)
    kept.sort()
    # "Mean Average Precision @ 3" names MAP@3, not average precision: such a match is dropped
    kept = [k for k in kept if not qualified_away(text, k[0], k[1], k[2])]
    return [MetricMatch(get_metric(n).name, text[a:b], a) for a, b, n in kept]


def _parametric_spans(text: str) -> list[tuple[int, int, str]]:
    """F2, "F-beta with beta = 0.5", the pinball loss of a quantile, top-5 accuracy: spans of
    ``text`` naming a metric with its parameter (one without it, e.g. "top-k accuracy", names
    none; the Jaccard index is the registry's names)."""
    flat = re.sub(r"[\s_\-(),/:]", " ", text.lower())  # as metrics' names are read, same length
    spans = []
    for n in find_named(flat):
        if n.refusal is None and not n.family.startswith("jaccard"):
            spans.append((n.start, n.end, named_metric(n).name))
    return spans


def find_formula(text: str) -> str:
    """The first TeX formula (``$$…$$`` or ``$…$``) holding a sum, a fraction or a root."""
    for m in re.finditer(r"\$\$(.+?)\$\$|\$([^$\n]+?)\$", text, re.S):
        body = (m.group(1) or m.group(2) or "").strip()
        if re.search(r"\\(?:sum|frac|sqrt|log)", body):
            return re.sub(r"\s+", " ", body)
    return ""
