"""The LLM extractor: the pages and a listing of the data in, a validated ``TaskDraft`` out.

The answer is asked as structured output (the ``TaskDraft`` schema).  An answer that does not
validate, or that names files or columns the data does not have, is sent back with the problems
quoted (``llm.structured.ask_until_valid``), at most ``max_reasks`` times.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2
from pydantic import TypeAdapter

from ..llm.errors import ReplyFormatError
from ..llm.structured import Completer, as_request, ask_until_valid, validate_json
from ..metrics import get_metric, metric_names
from .data import DataSurvey
from .errors import Problem, TaskImportError
from .pages import Page
from .schema import TaskDraft

PROMPTS = Path(__file__).parent / "prompts"
PAGE_CHARS = 12000  # per page: the overview, data, evaluation and rules pages fit


@lru_cache(maxsize=1)
def _env() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(PROMPTS)),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
    )


def render_prompt(pages: list[Page], data: DataSurvey) -> str:
    """The extraction prompt (``prompts/extract_task.j2``)."""
    return (
        _env()
        .get_template("extract_task.j2")
        .render(
            pages=[
                {"title": p.title, "name": p.path.name, "text": p.text[:PAGE_CHARS]} for p in pages
            ],
            listing=data.listing(),
            metric_names=", ".join(metric_names()),
        )
        .strip()
        + "\n"
    )


def data_problems(draft: TaskDraft, data: DataSurvey) -> list[str]:
    """What in the answer names files or columns the data does not have."""
    out = []
    for part, names in (("train_files", draft.train_files), ("test_files", draft.test_files)):
        for n in names:
            if not (data.input_dir / n).exists():
                out.append(f"{part}: '{n}' is not one of the listed files")
    if draft.metric is not None:
        registry = get_metric(draft.metric.metric_name).direction
        if draft.metric.direction != registry:
            out.append(
                f"metric.direction: {draft.metric.metric_name} is {registry}d, "
                f"not {draft.metric.direction}d"
            )
    train, test = data.train_table, data.test_table
    for t in draft.target_col:
        if train is not None and t not in train.columns:
            out.append(f"target_col: '{t}' is not a column of {train.path}")
        if test is not None and t in test.columns:
            out.append(f"target_col: '{t}' is also a column of {test.path}, so not the target")
    return out


def extract_with_llm(
    client: Completer, pages: list[Page], data: DataSurvey, *, max_reasks: int = 2
) -> TaskDraft:
    """The client's reading of the pages, validated against the schema and the data."""
    adapter = TypeAdapter(TaskDraft)

    def parse(text: str) -> TaskDraft:
        draft = validate_json(text, adapter)
        problems = data_problems(draft, data)
        if problems:
            raise ReplyFormatError(
                "the answer does not match the files: " + "; ".join(problems),
                raw=text,
                hint="use only the listed file names and the training table's columns",
            )
        return draft

    req = as_request(render_prompt(pages, data), role="task_import", temperature=0.0)
    req = replace(req, json_schema=adapter.json_schema())
    try:
        return ask_until_valid(client, req, parse, max_reasks=max_reasks)
    except ReplyFormatError as e:
        raise TaskImportError(
            [Problem("llm", e.problem, "try again, another model, or --backend offline")],
            "the LLM gave no usable task description",
        ) from None


def llm_guesses(draft: TaskDraft) -> dict[str, Any]:
    """The fields the model says it inferred, each with its reason."""
    return {f: "inferred by the LLM (not stated in the pages)" for f in draft.guessed}
