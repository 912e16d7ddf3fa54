"""MLE-STAR's roles as prompt templates (``prompts/*.j2``) plus the shape of each answer.

A role is small: a name, its template, how its answer is parsed (code, JSON validated against a
pydantic model, or plain text).  ``render`` fails loudly on a missing variable (StrictUndefined).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import jinja2
from pydantic import BaseModel, Field

PROMPTS = Path(__file__).parent / "prompts"


class RetrievedModel(BaseModel):
    model_name: str
    example_code: str = ""
    source_url: str = ""  # the page the model was found on (grounded search)


class AblationAnswer(BaseModel):
    class Item(BaseModel):
        name: str
        score: float | None = None

    summary: str
    results: list[Item] = Field(default_factory=list)


class ExtractAnswer(BaseModel):
    block_id: str = ""
    code_block: str
    plan: str


class LeakageAnswer(BaseModel):
    leakage: bool
    code_block: str = ""
    reason: str = ""


@dataclass(frozen=True)
class Role:
    """One role: its prompt template and the kind of answer it expects."""

    name: str
    answer: Literal["code", "json", "text"]
    schema: Any = None  # a pydantic model (or list[...] of one) for JSON answers

    def render(self, **context: Any) -> str:
        return _env().get_template(f"{self.name}.j2").render(**context).strip() + "\n"


@lru_cache(maxsize=1)
def _env() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(PROMPTS)),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=False,
        autoescape=False,
    )


ROLES: dict[str, Role] = {
    r.name: r
    for r in (
        Role("system", "text"),
        Role("retriever", "json", list[RetrievedModel]),
        Role("init", "code"),
        Role("merger", "code"),
        Role("ablation", "code"),
        Role("summarize", "json", AblationAnswer),
        Role("extractor", "json", ExtractAnswer),
        Role("coder", "code"),
        Role("planner", "text"),
        Role("ens_planner", "text"),
        Role("ensembler", "code"),
        Role("debugger", "code"),
        Role("leakage_detect", "json", LeakageAnswer),
        Role("leakage_fix", "code"),
        Role("data_usage", "text"),
        Role("submission", "code"),
        Role("novelty", "text"),
    )
}

__all__ = ["ROLES", "AblationAnswer", "ExtractAnswer", "LeakageAnswer", "RetrievedModel", "Role"]
