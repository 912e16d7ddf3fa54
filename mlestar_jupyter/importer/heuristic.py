"""The offline extractor: reads the pages and the data without an LLM.

- metric: the first metric named in an evaluation section (else anywhere), by ``task.vocabulary``;
  its direction from the evaluator's registry;
- id and target: the sample submission's header versus the training and test tables' columns
  (a prediction column missing from train.csv is matched to the one column only train has);
  a target the pages name explicitly is checked against them;
- modality from the file types, goal from the overview, rules from rule-like sections and
  sentences ("no external data", "must", "not allowed").

Each field it inferred rather than read gets a reason in ``Reading.guessed``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import pandas as pd

from ..metrics import get_metric, is_classification_metric
from ..task.vocabulary import MetricMatch, find_formula, find_metrics
from .data import DataSurvey
from .errors import Problem
from .pages import Page, Section
from .schema import MetricSpec, TaskDraft, TaskKind

EVAL_HEADING = re.compile(r"evaluat|metric|scor|judg|assess", re.I)
GOAL_HEADING = re.compile(
    r"overview|descri|goal|task|problem|challenge|introduc|about|summary", re.I
)
RULE_HEADING = re.compile(r"rule|constraint|requirement|restriction|guideline|policy|allowed", re.I)
RULE_WORDS = re.compile(
    r"\b(?:external data|must(?: not)?|do not|don't|not (?:be )?allowed|prohibited|forbidden|"
    r"only use|may not|not permitted|no more than|at most|limited to|required to)\b",
    re.I,
)
# Ways pages name the target column explicitly: quoted, or on a "Target: x" line (prose such as
# "our target is to reduce churn" must not count).
TARGET_STATED = (
    r"\btarget(?:\s+(?:column|variable|label))?\s*(?:is|:|=)\s*(?:the\s+)?(?:column\s+)?"
    r"[`'\"“](?P<a>[A-Za-z_][\w.-]*)[`'\"”]",
    r"(?m)^\s*[-*]?\s*target(?:\s+column)?\s*:\s*(?P<d>[A-Za-z_][\w.-]*)\s*$",
    r"[`'\"“](?P<b>[A-Za-z_][\w.-]*)[`'\"”]\s+(?:column\s+)?(?:is|as)\s+(?:the\s+)?target",
    r"\b(?:predict(?:ing)?|for)\s+(?:the\s+)?(?:value\s+of\s+(?:the\s+)?)?[`'\"“]"
    r"(?P<c>[A-Za-z_][\w.-]*)[`'\"”]\s+(?:column|variable|field)",
)
# a later, more specific reading of the same family wins ("F1 … averaged over all classes")
REFINES = {"f1": "f1_macro", "rmse": "rmsle", "accuracy": "balanced_accuracy"}


@dataclass
class Reading:
    """The offline reading: a draft, why each guessed field was guessed, and what is missing."""

    draft: TaskDraft
    guessed: dict[str, str] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)


def read_task(pages: list[Page], data: DataSurvey, *, target: str | None = None) -> Reading:
    """Extract a ``TaskDraft`` from ``pages`` and ``data``; ``target`` overrides the target column."""
    sections = [s for p in pages for s in p.sections]
    text = "\n\n".join(p.text for p in pages)
    guessed: dict[str, str] = {}
    problems: list[Problem] = []

    metric = find_metric(sections, text)
    if metric is None:
        problems.append(
            Problem(
                "metric",
                "the pages name no metric the evaluator grades",
                "add the competition's Evaluation page, or a line 'Metric: <name>' to a page "
                f"(one of: {', '.join(_names())})",
            )
        )
    else:
        guessed["metric.direction"] = (
            f"{metric.metric_name} is {metric.direction}d (the evaluator's metric registry)"
        )

    id_col, id_reason = find_id(data)
    if id_reason:
        guessed["id_col"] = id_reason
    if target:
        targets, t_reason, t_problems = [target], "", list[Problem]()
    else:
        targets, t_reason, t_problems = find_target(data, id_col, stated_targets(text))
    problems += t_problems
    if t_reason:
        guessed["target_col"] = t_reason

    task_type = _task_type(metric, data, targets)
    guessed["task_type"] = f"{task_type} (from the metric and the target's values)"
    guessed["data_information.data_type"] = f"{data.modality} (from the file types)"
    goal = find_goal(sections, text)
    if not goal:
        problems.append(
            Problem(
                "goal_description",
                "no overview paragraph found in the pages",
                "add the competition's Overview page",
            )
        )
    draft = TaskDraft(
        task_type=task_type,
        goal_description=goal or "",
        metric=metric,
        target_col=targets,
        id_col=id_col,
        data_type=data.modality,  # type: ignore[arg-type]
        train_files=list(data.train),
        test_files=list(data.test),
        train_description=describe_file(text, data.train),
        test_description=describe_file(text, data.test),
        special_instructions=find_rules(sections, text),
        guessed=sorted(guessed),
    )
    return Reading(draft, guessed, problems)


# --------------------------------------------------------------------------- metric
def _names() -> list[str]:
    from ..metrics import metric_names

    return metric_names()


def find_metric(sections: list[Section], text: str) -> MetricSpec | None:
    """The metric of the first evaluation section that names one, else the first named anywhere."""
    for s in sections:
        if EVAL_HEADING.search(s.heading):
            found = find_metrics(s.text)
            if found:
                return _spec(_refined(found), find_formula(s.text))
    explicit = re.search(r"(?im)^\s*[-*]?\s*(?:evaluation\s+)?metric\s*:\s*(.+?)\s*$", text)
    found = find_metrics(explicit.group(1)) if explicit else []
    found = found or find_metrics(text)
    return _spec(_refined(found), find_formula(text)) if found else None


def _refined(found: list[MetricMatch]) -> str:
    first = found[0].name
    names = {m.name for m in found}
    return REFINES[first] if REFINES.get(first) in names else first


def _spec(name: str, formula: str) -> MetricSpec:
    m = get_metric(name)
    return MetricSpec(metric_name=m.name, direction=m.direction, metric_formula=formula)


# --------------------------------------------------------------------------- id and target
def find_id(data: DataSurvey) -> tuple[str | None, str]:
    """The id column (and why): the sample submission's first column when the test table has it."""
    sample = data.sample_table
    test_cols = data.test_table.columns if data.test_table else ()
    if sample is not None and len(sample.columns) > 1:
        first = sample.columns[0]
        if not test_cols or first in test_cols:
            return first, f"the sample submission's first column ({data.sample})"
    for c in test_cols:
        if re.fullmatch(r"(?i)id|.*_id|.*Id|index", c):
            return c, f"an id-like column of {data.test_table.path if data.test_table else ''}"
    return None, ""


def stated_targets(text: str) -> list[str]:
    """Column names the pages explicitly call the target ("Target: price", "the `y` column is
    the target", "predict the `y` variable"); quoted values such as `True` are left out."""
    out: list[str] = []
    for pat in TARGET_STATED:
        for m in re.finditer(pat, text, re.I):
            name = next(g for g in m.groups() if g).rstrip(".-")
            if name.lower() not in ("true", "false", "none", "null", "yes", "no"):
                out.append(name)
    return list(dict.fromkeys(out))


def find_target(
    data: DataSurvey, id_col: str | None, stated: list[str]
) -> tuple[list[str], str, list[Problem]]:
    """(target columns, why, problems) from the tables and what the pages state."""
    train = data.train_table.columns if data.train_table else ()
    test = data.test_table.columns if data.test_table else ()
    sample_cols = [
        c for c in (data.sample_table.columns if data.sample_table else ()) if c != id_col
    ]
    only_train = [c for c in train if c not in test and c != id_col] if test else []
    train_name = data.train_table.path if data.train_table else "the training table"
    test_name = data.test_table.path if data.test_table else "the test table"
    by_lower = {c.lower(): c for c in train}
    for s in stated:
        col = by_lower.get(s.lower())
        if col is not None and col in test:
            return (
                [],
                "",
                [
                    Problem(
                        "target_col",
                        f"the pages name '{col}' as the target, but {test_name} has that column too",
                        "check the pages and the files, then pass --target COLUMN",
                    )
                ],
            )
        if col is not None:
            return [col], "", []
        if s in sample_cols or s.lower() in (c.lower() for c in sample_cols):
            continue  # the submission's name for it: resolved from the tables below
        if train:
            return (
                [],
                "",
                [
                    Problem(
                        "target_col",
                        f"the pages name '{s}' as the target, but {train_name} has no such column "
                        f"(columns only in {train_name}: {', '.join(only_train) or 'none'})",
                        "fix the page or pass --target COLUMN",
                    )
                ],
            )
    in_train = [c for c in sample_cols if c in train]
    if in_train:
        return in_train, f"the sample submission's column(s) found in {train_name}", []
    if len(only_train) == 1:
        named = (
            f"; the sample submission calls it '{', '.join(sample_cols)}'" if sample_cols else ""
        )
        return only_train, f"the one column of {train_name} not in {test_name}{named}", []
    if not train and sample_cols:
        return sample_cols, f"the sample submission's prediction column(s) ({data.sample})", []
    labels = [c for c in only_train if re.fullmatch(r"(?i)target|label|class|y|outcome", c)]
    if len(labels) == 1:
        return labels, f"the column of {train_name} named like a target", []
    return (
        [],
        "",
        [
            Problem(
                "target_col",
                "cannot tell the target column"
                + (
                    f" (columns only in {train_name}: {', '.join(only_train)})"
                    if only_train
                    else ""
                ),
                "name it in the pages ('Target: <column>') or pass --target COLUMN",
            )
        ],
    )


def _task_type(metric: MetricSpec | None, data: DataSurvey, targets: list[str]) -> TaskKind:
    if metric is not None:
        return "classification" if is_classification_metric(metric.metric_name) else "regression"
    if data.train_table is not None and targets and targets[0] in data.train_table.columns:
        y = data.train_table.head[targets[0]]
        numeric = pd.api.types.is_float_dtype(y) and y.nunique() > 20
        return "regression" if numeric else "classification"
    return "other"


# --------------------------------------------------------------------------- prose
def _paragraphs(text: str) -> list[str]:
    return [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]


def _is_prose(p: str) -> bool:
    return (
        len(p.split()) >= 6
        and not p.startswith(("#", "```", "|", "- ", "* "))
        and not re.fullmatch(r"[\s\S]*\$\$[\s\S]*", p)
    )


def find_goal(sections: list[Section], text: str) -> str:
    """The overview's first paragraph (preferring one that says what to predict), ≤ 600 chars."""
    candidates = [
        p for s in sections if GOAL_HEADING.search(s.heading) for p in _paragraphs(s.text)
    ] + [p for p in _paragraphs(text)]
    prose = [p for p in candidates if _is_prose(p)]
    aim = re.compile(
        r"\b(predict|classif|forecast|estimat|identif|detect|determin|goal|task)", re.I
    )
    best = next((p for p in prose if aim.search(p)), prose[0] if prose else "")
    best = re.sub(r"\s+", " ", best)
    return best if len(best) <= 600 else best[:600].rsplit(". ", 1)[0] + "."


def find_rules(sections: list[Section], text: str) -> list[str]:
    """Rules and constraints: the items of rule-like sections, and rule-like sentences anywhere."""
    out: list[str] = []
    for s in sections:
        if RULE_HEADING.search(s.heading):
            for line in s.text.splitlines():
                item = re.sub(r"^\s*(?:[-*•]|\d+[.)])\s*", "", line).strip()
                if len(item.split()) >= 3:
                    out += _sentences(item) if len(item) > 300 else [item]
    for sentence in _sentences(text):
        if RULE_WORDS.search(sentence) and len(sentence) <= 300:
            out.append(sentence)
    seen: set[str] = set()
    unique = []
    for r in out:
        key = re.sub(r"\W+", " ", r.lower()).strip()
        if key and key not in seen:
            seen.add(key)
            unique.append(r.strip())
    return unique[:12]


def _sentences(text: str) -> list[str]:
    flat = re.sub(r"\s+", " ", re.sub(r"(?m)^\s*(?:[-*•#]+|\d+[.)])\s*", "\n", text))
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+(?=[A-Z])|\n", flat) if s.strip()]


def describe_file(text: str, names: tuple[str, ...]) -> str:
    """What the pages say about these files ("train.csv - the training set, with …")."""
    out = []
    for n in names:
        m = re.search(
            rf"(?im)^\s*[-*]?\s*`?{re.escape(n)}`?\s*(?:[-–—:]|\bis\b|\bcontains\b)\s*(.+)$", text
        )
        if m:
            out.append(m.group(1).strip())
    return " ".join(out)
