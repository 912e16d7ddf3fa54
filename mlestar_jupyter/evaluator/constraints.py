"""Constraint pass: does the final solution code obey each special instruction?

TAM-Bench's rule: the pass rate is passed / *all* constraints, judged on the final code, and a
judge that finds no evidence answers "No".  Each instruction is judged in this order:

1. an LLM judge, when a ``judge(prompt) -> str`` callable is given: it decides.  It answers the
   prompt in ``prompts/constraint_judge.j2`` (JSON ``{"verdict": "pass"|"fail", ...}``, or the
   paper's ``Answer: Yes/No`` lines); no evidence in the code means "fail";
2. a static rule, when there is no judge (or it gave no readable answer) and one recognises the
   instruction ("must use MFCC features" -> the code calls something named mfcc; "do not use
   external data" -> no URL, download call or dataset hub);
3. otherwise the instruction is ``not_judged``, which counts as not passed.

The static rules read the code with comments and string contents removed
(:func:`code_without_comments`), so a keyword that only sits in a comment or a string is never
evidence that an instruction is followed.  Strings still count as evidence of a *violation* (a URL
in a string is how code fetches outside data).  The judge is any callable; this module knows
nothing about LLM backends.
"""

from __future__ import annotations

import io
import json
import re
import tokenize
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from ..llm.errors import INFRASTRUCTURE_ERRORS

Judge = Callable[[str], str]
Verdict = Literal["pass", "fail", "not_judged"]
PROMPT_DIR = Path(__file__).parent / "prompts"


class ConstraintVerdict(BaseModel):
    """The verdict on one special instruction."""

    instruction: str
    verdict: Verdict
    method: Literal["static", "llm", "none"]
    reason: str


@dataclass(frozen=True)
class Technique:
    """A technique an instruction can require or forbid, and the code patterns that show it."""

    name: str
    words: str  # regex over the instruction (lower-cased)
    code: str  # regex over the code (case-insensitive)


TECHNIQUES: tuple[Technique, ...] = (
    Technique("MFCC features", r"\bmfccs?\b|mel[- ]frequency cepstral", r"mfcc"),
    Technique("spectrograms", r"spectrogram", r"spectrogram|\bstft\b|specgram"),
    Technique("PyTorch", r"pytorch|\btorch\b", r"^\s*(import torch|from torch\b)"),
    Technique(
        "TensorFlow/Keras",
        r"tensorflow|\bkeras\b",
        r"^\s*(import (tensorflow|keras)|from (tensorflow|keras)\b)",
    ),
    Technique("LightGBM", r"lightgbm|\blgbm\b", r"lightgbm|\blgb\."),
    Technique("XGBoost", r"xgboost", r"xgboost|\bxgb\."),
    Technique("CatBoost", r"catboost", r"catboost"),
    Technique(
        "gradient boosting",
        r"gradient[- ]boost",
        r"lightgbm|xgboost|catboost|GradientBoosting|HistGradientBoosting",
    ),
    Technique(
        "a convolutional network",
        r"convolutional|\bcnns?\b",
        r"Conv[123]d|Conv[123]D|conv2d|resnet|efficientnet",
    ),
    Technique("TF-IDF features", r"tf-?idf", r"tfidf|TfidfVectorizer|TfidfTransformer"),
    Technique(
        "cross-validation",
        r"cross[- ]validation|k-?fold",
        r"KFold|cross_val|GroupKFold|StratifiedKFold|GridSearchCV|RandomizedSearchCV",
    ),
    Technique(
        "a fixed random seed",
        r"random seed|fixed seed|reproducib",
        r"random_state\s*=|seed\s*\(|manual_seed|np\.random\.seed|seed\s*=",
    ),
)

EXTERNAL_DATA = re.compile(
    r"https?://|urlretrieve|urlopen|requests\.(get|post)|wget |curl |kaggle (datasets|competitions)|"
    r"hf_hub_download|snapshot_download|load_dataset\(|fetch_openml|fetch_[a-z0-9_]+\(|download\s*=\s*True",
    re.IGNORECASE,
)
PRETRAINED = re.compile(
    r"pretrained\s*=\s*True|from_pretrained|weights\s*=\s*['\"]?(imagenet|DEFAULT|IMAGENET)|"
    r"_Weights\.|torch\.hub\.load|timm\.create_model\([^)]*pretrained\s*=\s*True|sentence_transformers|hf_hub_download",
    re.IGNORECASE,
)
NEGATION = re.compile(r"\b(do not|don't|must not|never|avoid|without|no)\b")


MAGIC_LINE = re.compile(r"^[ \t]*[%!].*$", re.MULTILINE)
NAIVE_STRING = re.compile(r"(\'\'\'|\"\"\")[\s\S]*?\1|'[^'\n]*'|\"[^\"\n]*\"")


def _blank(text: str, keep_quotes: bool) -> str:
    """``text`` with every character but newlines made a space (``""`` first for a string)."""
    out = re.sub(r"[^\n]", " ", text)
    return '""' + out[2:] if keep_quotes and len(out) >= 2 else out


def code_without_comments(code: str, strings: bool = True) -> str:
    """``code`` with comments (and, with ``strings``, string contents) blanked out.

    Notebook magics (``%pip``, ``!wget``) are blanked too.  Lines and columns are kept, so a
    pattern anchored at a line start still works.  Code that does not tokenize falls back to a
    line-wise regex.
    """
    code = MAGIC_LINE.sub(lambda m: _blank(m.group(0), False), code)
    starts = [0]
    for line in code.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    kinds = {tokenize.COMMENT}
    if strings:
        kinds |= {tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)}
    spans: list[tuple[int, int, bool]] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(code).readline):
            if tok.type in kinds:
                a = starts[tok.start[0] - 1] + tok.start[1]
                b = starts[tok.end[0] - 1] + tok.end[1]
                spans.append((a, b, tok.type == tokenize.STRING))
    except (tokenize.TokenError, SyntaxError):
        text = re.sub(r"#.*$", "", code, flags=re.MULTILINE)
        return NAIVE_STRING.sub('""', text) if strings else text
    out, last = [], 0
    for a, b, quoted in spans:
        out += [code[last:a], _blank(code[a:b], quoted)]
        last = b
    return "".join(out) + code[last:]


def _static(instruction: str, code: str) -> ConstraintVerdict | None:
    """A verdict from the static rules, or ``None`` when no rule settles the instruction.

    Evidence of compliance is looked for in the code without comments and strings; evidence of a
    violation in the code without comments.
    """
    text = instruction.lower()
    bare = code_without_comments(code)
    code = code_without_comments(code, strings=False)
    negated = bool(NEGATION.search(text))
    if (
        re.search(r"external data|outside data|additional data|external (datasets?|sources?)", text)
        and negated
    ):
        m = EXTERNAL_DATA.search(code)
        if m:
            return ConstraintVerdict(
                instruction=instruction,
                verdict="fail",
                method="static",
                reason=f"the code fetches data from outside the task: {m.group(0).strip()!r}",
            )
        if not re.search(r"pre-?trained", text):
            return ConstraintVerdict(
                instruction=instruction,
                verdict="pass",
                method="static",
                reason="no URL, download call or dataset hub in the code",
            )
    if re.search(r"pre-?trained", text) and negated:
        m = PRETRAINED.search(code)
        if m:
            return ConstraintVerdict(
                instruction=instruction,
                verdict="fail",
                method="static",
                reason=f"the code loads pretrained weights: {m.group(0).strip()!r}",
            )
        m = EXTERNAL_DATA.search(code)
        if m:
            return ConstraintVerdict(
                instruction=instruction,
                verdict="fail",
                method="static",
                reason=f"the code fetches data from outside the task: {m.group(0).strip()!r}",
            )
        return ConstraintVerdict(
            instruction=instruction,
            verdict="pass",
            method="static",
            reason="no pretrained weights, model hub or download in the code",
        )
    named = [t for t in TECHNIQUES if re.search(t.words, text)]
    if not named:
        return None
    found = [t for t in named if re.search(t.code, bare, re.IGNORECASE | re.MULTILINE)]
    violating = [t for t in named if re.search(t.code, code, re.IGNORECASE | re.MULTILINE)]
    if negated and re.search(r"\b(do not|don't|must not|never|avoid)\s+(use|using|rely)", text):
        if violating:
            return ConstraintVerdict(
                instruction=instruction,
                verdict="fail",
                method="static",
                reason=f"the code uses {violating[0].name}, which the instruction forbids",
            )
        return ConstraintVerdict(
            instruction=instruction,
            verdict="pass",
            method="static",
            reason=f"the code does not use {', '.join(t.name for t in named)}",
        )
    if negated:
        return None  # "without X", "no X" in a longer sentence: too subtle for a pattern
    if re.search(r"\b(must|should|required?|use|using|only)\b", text):
        if found:
            return ConstraintVerdict(
                instruction=instruction,
                verdict="pass",
                method="static",
                reason=f"the code uses {', '.join(t.name for t in found)}",
            )
        return ConstraintVerdict(
            instruction=instruction,
            verdict="fail",
            method="static",
            reason=f"the code (comments and strings aside) shows no sign of {' or '.join(t.name for t in named)}",
        )
    return None


def render_judge_prompt(instruction: str, code: str, task_goal: str = "") -> str:
    """The judge prompt for one instruction (``prompts/constraint_judge.j2``)."""
    import jinja2

    env = jinja2.Environment(
        undefined=jinja2.StrictUndefined, keep_trailing_newline=True, autoescape=False
    )
    tmpl = env.from_string((PROMPT_DIR / "constraint_judge.j2").read_text(encoding="utf-8"))
    return tmpl.render(instruction=instruction, code=code, task_goal=task_goal or "(not given)")


PAPER_ANSWER = re.compile(r"^\W*answer\W*:?\W*(yes|no)\b", re.IGNORECASE | re.MULTILINE)
PAPER_REASON = re.compile(r"^\W*reason\W*:\s*(.*)", re.IGNORECASE | re.MULTILINE | re.DOTALL)


def parse_judge_reply(instruction: str, reply: str) -> ConstraintVerdict:
    """Read the judge's answer (JSON, or the paper's ``Answer: Yes/No`` + ``Reason:`` lines).

    An unreadable answer leaves the instruction not judged (which counts as not passed).
    """
    a = PAPER_ANSWER.search(reply)
    if a and not re.search(r"\{.*\}", reply, re.DOTALL):
        r = PAPER_REASON.search(reply)
        return ConstraintVerdict(
            instruction=instruction,
            verdict="pass" if a.group(1).lower() == "yes" else "fail",
            method="llm",
            reason=r.group(1).strip() if r else "",
        )
    m = re.search(r"\{.*\}", reply, re.DOTALL)
    try:
        d = json.loads(m.group(0)) if m else None
    except json.JSONDecodeError:
        d = None
    if not isinstance(d, dict) or str(d.get("verdict", "")).lower() not in ("pass", "fail"):
        return ConstraintVerdict(
            instruction=instruction,
            verdict="not_judged",
            method="llm",
            reason=f"judge reply is not JSON with verdict pass|fail: {reply[:200]!r}",
        )
    verdict: Verdict = "pass" if str(d["verdict"]).lower() == "pass" else "fail"
    return ConstraintVerdict(
        instruction=instruction, verdict=verdict, method="llm", reason=str(d.get("reason", ""))
    )


def judge_constraints(
    instructions: Sequence[str],
    code: str,
    judge: Judge | None = None,
    task_goal: str = "",
    prefer_judge: bool = True,
) -> list[ConstraintVerdict]:
    """One verdict per instruction: ``judge`` when given, else a static rule, else not judged.

    The judge decides (as in TAM-Bench); the static rules only fill in when it gives no readable
    answer.  ``prefer_judge=False`` asks the judge only where no static rule applies (cheaper).
    """
    out: list[ConstraintVerdict] = []
    for ins in instructions:
        static = _static(ins, code)
        verdict: ConstraintVerdict | None = None if prefer_judge and judge else static
        if verdict is None and judge is not None:
            try:
                verdict = parse_judge_reply(ins, judge(render_judge_prompt(ins, code, task_goal)))
            except INFRASTRUCTURE_ERRORS:
                raise  # a refused key or a dead server: no later instruction would fare better
            except Exception as e:  # noqa: BLE001 - any judge (a plain callable) failing leaves it unjudged
                verdict = ConstraintVerdict(
                    instruction=ins,
                    verdict="not_judged",
                    method="llm",
                    reason=f"judge failed: {type(e).__name__}: {e}",
                )
            if verdict.verdict == "not_judged" and static is not None:
                verdict = static
        out.append(
            verdict
            or ConstraintVerdict(
                instruction=ins,
                verdict="not_judged",
                method="none",
                reason="no static rule applies and no judge was given",
            )
        )
    return out


def pass_rate(verdicts: Sequence[ConstraintVerdict]) -> float | None:
    """Passed / all constraints, as TAM-Bench defines it: an unjudged one is not a pass.

    ``None`` only when there are no constraints at all.
    """
    return sum(v.verdict == "pass" for v in verdicts) / len(verdicts) if verdicts else None


def method_counts(verdicts: Sequence[ConstraintVerdict]) -> dict[str, int]:
    """How many constraints were judged statically, by the judge, and not at all."""
    return {
        "static": sum(v.method == "static" and v.verdict != "not_judged" for v in verdicts),
        "judge": sum(v.method == "llm" and v.verdict != "not_judged" for v in verdicts),
        "not judged": sum(v.verdict == "not_judged" for v in verdicts),
    }


def read_code(path: str | Path) -> str:
    """The code of a solution: a notebook's code cells joined, or a source file's text."""
    p = Path(path)
    text = p.read_text(encoding="utf-8", errors="replace")
    if p.suffix == ".ipynb":
        nb = json.loads(text)
        cells = [c for c in nb.get("cells", []) if c.get("cell_type") == "code"]
        return "\n\n".join(
            "".join(c["source"]) if isinstance(c.get("source"), list) else str(c.get("source", ""))
            for c in cells
        )
    return text
