"""Metrics whose name carries a parameter, read from a metric's name: F-beta's beta ("F2",
"fbeta_score(beta=0.5)"), the pinball loss's quantile ("mean_pinball_loss(alpha=0.9)", "quantile
0.9 loss"), top-k accuracy's k ("top-3 accuracy"), and the Jaccard index's average ("jaccard
score (macro)"; "IoU" only where the words say it is of class labels).

``find_named`` reads a name already lower-cased, with ``_ - ( ) , / :`` as spaces
(``metrics._norm``); it says where each mention is and, where the words name no metric the
evaluator grades ("top-k accuracy" without its k, the IoU of segmentation masks), why, so the
refusal can say what to write instead.  ``metrics.get_metric`` turns a mention into its metric.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Family = Literal["fbeta", "fbeta_macro", "pinball", "top_k_accuracy", "jaccard", "jaccard_macro"]

_NUMBER = r"(\d*\.\d+|\d+)"
# F2, F0.5, "f 2 score": the short form is a metric's name when it is the whole name (with macro
# and score words) or is followed by "score"/"measure" ("column f2" is no metric)
_F_SHORT = re.compile(r"\bf ?" + _NUMBER + r"\b")
_F_WHOLE = re.compile(
    r"(?:macro (?:averaged )?)?(?:binary )?f ?[\d.]+(?: macro)?(?: averaged)?(?: score| measure)?"
)
_F_LONG = re.compile(r"\bf ?beta\b(?: score| measure)?")
_BETA = re.compile(
    r"^\s?(?:with )?(?:beta\s?=?\s?|=\s?)?" + _NUMBER + r"\b|\bbeta\s?=?\s?" + _NUMBER
)
_AVERAGE = re.compile(r"\baverage ?= ?'?\"?(\w+)")
_MACRO = re.compile(r"\bmacro\b")
# the pinball (quantile) loss: "pinball loss", "mean pinball loss", "quantile 0.9 loss"
_PINBALL = re.compile(
    r"\b(?:mean )?pinball(?: loss)?\b|\bquantile (?:regression )?loss\b|"
    r"\bquantile\b[^a-z]{1,14}\bloss\b"
)
_ALPHA_NUMBER = re.compile(
    r"(?<![a-oq-z\d.])(p)?" + _NUMBER + r"( ?%| ?percent(?:ile)?\b| ?th\b| ?st\b| ?nd\b| ?rd\b)?"
)
_ALPHA_NAMED = re.compile(r"(?:\b(?:alpha|quantile|tau|q)\s?=\s?|@\s?)" + _NUMBER)
# top-k accuracy: "top-3 accuracy", "top 5 categorization accuracy", "accuracy@3",
# "top_k_accuracy_score k=3"
_TOP_K = re.compile(
    r"\btop ?(\d+|k) (?:categori[sz]ation |classification )?acc(?:uracy)?\b(?: score)?|"
    r"\bacc(?:uracy)? ?@ ?(\d+|k)\b"
)
_K = re.compile(r"^[^a-z]{0,3}(?:with )?k ?=? ?(\d+)\b")
_JACCARD = re.compile(r"\bjaccard\b(?: similarity| index| coefficient)?(?: score)?")
_IOU = re.compile(r"\b(?:m ?iou|iou|intersection over union)\b")
_NOT_LABELS = re.compile(
    r"\b(?:masks?|segment\w*|pixels?|(?:bounding )?box(?:es)?|bbox\w*|objects?|detect\w*|"
    r"images?|polygons?|regions?|instances?)\b"
)
_LABELS = re.compile(r"\b(?:labels?|class(?:es)?|classification|categor\w*|multi ?class)\b")


@dataclass(frozen=True)
class Named:
    """A metric with a parameter mentioned in a name: its family, the parameter (beta, alpha or
    k; ``None``: the family's default), where in the name, and ``refusal``: why the words name no
    metric graded here (then the family is what they seemed to name)."""

    family: Family
    value: float | None
    start: int
    end: int
    refusal: str | None = None


def find_named(key: str) -> list[Named]:
    """Every mention of a metric with a parameter in ``key`` (a normalised name), in order."""
    found = [*_fbeta(key), *_pinball(key), *_top_k(key), *_jaccard(key)]
    return sorted(found, key=lambda n: (n.start, -(n.end - n.start)))


def _average(key: str, end: int, family: Family) -> tuple[Family, str | None]:
    """``family`` or its macro variant from the words after a mention (``average='macro'``);
    a refusal for an average not graded here (weighted, micro, samples)."""
    avg = _AVERAGE.search(key[end : end + 30])
    base = family.removesuffix("_macro")
    if avg and avg.group(1) == "macro":
        return ("fbeta_macro" if base == "fbeta" else "jaccard_macro"), None
    if avg and avg.group(1) not in ("binary", "none"):
        name = "F-beta" if base == "fbeta" else "the Jaccard index"
        return family, (
            f"the {avg.group(1)} average of {name} is not graded here: name the binary one "
            "(the positive class of two labels) or the macro average"
        )
    return family, None


def _near_macro(key: str, start: int, end: int) -> bool:
    return bool(_MACRO.search(key[max(0, start - 20) : end + 20]))


def _fbeta(key: str) -> list[Named]:
    out: list[Named] = []
    whole = _F_WHOLE.fullmatch(key) is not None
    for m in _F_SHORT.finditer(key):
        if not whole and not key[m.end() :].startswith((" score", " measure")):
            continue
        out.append(_fbeta_named(key, m.start(), m.end(), m.group(1)))
    for m in _F_LONG.finditer(key):
        beta = _BETA.search(key[m.end() : m.end() + 24])
        if beta is None:
            out.append(
                Named(
                    "fbeta",
                    None,
                    m.start(),
                    m.end(),
                    "F-beta needs its beta: write e.g. 'f2' (recall weighs twice precision), "
                    "'F0.5' or 'fbeta_score(beta=0.5)' (F1 is beta=1)",
                )
            )
            continue
        out.append(
            _fbeta_named(key, m.start(), m.end() + beta.end(), beta.group(1) or beta.group(2))
        )
    return out


def _fbeta_named(key: str, start: int, end: int, number: str) -> Named:
    beta = float(number)
    if beta <= 0:
        return Named("fbeta", beta, start, end, f"F-beta's beta must be above 0, not {number}")
    family: Family = "fbeta_macro" if _near_macro(key, start, end) else "fbeta"
    family, refusal = _average(key, end, family)
    return Named(family, beta, start, end, refusal)


def _pinball(key: str) -> list[Named]:
    """The pinball loss's mentions, each with its alpha: the one named (``alpha=0.9``,
    ``quantile=0.1``, ``@0.9``), else the fractions and percentiles next to it ("quantile 0.9
    loss", "90th percentile"; other numbers there are not its), else none (0.5)."""
    out: list[Named] = []
    for m in _PINBALL.finditer(key):
        window = key[max(0, m.start() - 20) : m.end() + 30]
        named = _ALPHA_NAMED.search(window)
        if named is not None:
            value = float(named.group(1))
            refusal = None if 0 < value < 1 else _alpha_refusal(named.group(1))
            out.append(Named("pinball", value, m.start(), m.end(), refusal))
            continue
        alphas: list[float] = []
        for n in _ALPHA_NUMBER.finditer(window):
            value = float(n.group(2))
            if n.group(1) or n.group(3):  # p90, 90%, 90th percentile
                value /= 100
            if 0 < value < 1 and value not in alphas:
                alphas.append(value)
        refusal = None
        if len(alphas) > 1:
            shown = ", ".join(f"{a:g}" for a in alphas)
            refusal = (
                f"the pinball loss of several quantiles ({shown}) is not graded here: name one, "
                "e.g. 'pinball loss (alpha=0.9)'"
            )
        out.append(Named("pinball", alphas[0] if alphas else None, m.start(), m.end(), refusal))
    return [_d2(key, n) for n in out if not _d2_of_the_median(key, n)]


# scikit-learn's d2_pinball_score: 1 - the pinball loss / that of the training quantile (higher
# is better); of the median it is d2_absolute_error_score (the registry's "d2 pinball score")
_D2 = re.compile(r"\bd ?(?:2|²) $")


def _d2_of_the_median(key: str, n: Named) -> bool:
    return bool(_D2.search(key[: n.start])) and n.refusal is None and n.value in (None, 0.5)


def _d2(key: str, n: Named) -> Named:
    """A pinball mention that is a D² score of another quantile: refused, from the "d2" on."""
    d2 = _D2.search(key[: n.start])
    if d2 is None:
        return n
    return Named(
        "pinball",
        n.value,
        d2.start(),
        n.end,
        "the D² pinball score is graded here only of the median (alpha 0.5: "
        "d2_absolute_error_score); name the pinball loss of that quantile instead, e.g. "
        "'pinball loss (alpha=0.9)'",
    )


def _alpha_refusal(number: str) -> str:
    return (
        f"the pinball loss's quantile (alpha) must be between 0 and 1, not {number}: write e.g. "
        "'pinball loss (alpha=0.9)'"
    )


def _top_k(key: str) -> list[Named]:
    out: list[Named] = []
    for m in _TOP_K.finditer(key):
        k = m.group(1) or m.group(2)
        end = m.end()
        if k == "k":
            given = _K.search(key[m.end() : m.end() + 16])
            k = given.group(1) if given else None
            end = m.end() + given.end() if given else end
        if k is None:
            refusal = (
                "top-k accuracy needs its k: write e.g. 'top-3 accuracy' (each submission "
                "cell lists k classes, most likely first, separated by spaces)"
            )
            out.append(Named("top_k_accuracy", None, m.start(), end, refusal))
        elif int(k) < 1:
            out.append(
                Named("top_k_accuracy", 0, m.start(), end, "top-k accuracy's k must be at least 1")
            )
        else:
            out.append(Named("top_k_accuracy", int(k), m.start(), end))
    return out


def _jaccard(key: str) -> list[Named]:
    out: list[Named] = []
    for m in _JACCARD.finditer(key):
        family: Family = "jaccard_macro" if _near_macro(key, m.start(), m.end()) else "jaccard"
        family, refusal = _average(key, m.end(), family)
        out.append(Named(family, None, m.start(), m.end(), refusal))
    if out:  # "Jaccard index (IoU)": the Jaccard index names it
        return out
    for m in _IOU.finditer(key):
        if _NOT_LABELS.search(key):
            refusal = (
                "the IoU of segmentation masks or boxes is not graded here (the evaluator grades "
                "a table of labels or values); for the Jaccard index of class labels write "
                "'jaccard' or 'macro jaccard'"
            )
        elif _LABELS.search(key):
            mean = re.search(r"\b(?:macro|mean|averaged?)\b|\bm ?iou\b", key)
            out.append(Named("jaccard_macro" if mean else "jaccard", None, m.start(), m.end()))
            continue
        else:
            refusal = (
                "IoU (intersection over union) is ambiguous: the IoU of segmentation masks or boxes is not "
                "graded here; for the Jaccard index of class labels write 'jaccard' (the "
                "positive class of two labels) or 'macro jaccard'"
            )
        out.append(Named("jaccard", None, m.start(), m.end(), refusal))
    return out


__all__ = ["Family", "Named", "find_named"]
