"""``Role``: one of MLE-STAR's roles as a template file plus the shape of its answer.

A role's template is ``prompts/<name>.j2`` (Jinja with ``StrictUndefined``: a missing variable
fails loudly).  ``answer`` says how a reply is read and ``schema`` what a JSON reply must match::

    answer   parse(reply)                                        request carries
    "code"   the Python code block (stray fence lines dropped)   -
    "json"   the JSON value, validated against ``schema``         schema as structured output
    "text"   the text itself (an empty reply is refused)          -

``parse`` raises ``ReplyFormatError`` carrying the raw reply, which the caller quotes back when it
re-asks.  A role whose replies need more (one word, a block id checked against the notebook)
subclasses ``Role`` or hands the caller its own parser.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any, Literal

import jinja2
from pydantic import TypeAdapter

from ...llm.code_answer import extract_code, final_answer
from ...llm.errors import ReplyFormatError
from ...llm.structured import validate_json

PROMPTS = Path(__file__).parent / "prompts"

AnswerKind = Literal["code", "json", "text"]


@dataclass(frozen=True)
class Role:
    """One role: its name (= template ``prompts/<name>.j2``) and the kind of answer it expects."""

    name: str
    answer: AnswerKind
    schema: Any = None  # a pydantic model (or list[...] of one): given for JSON answers only

    def render(self, **context: Any) -> str:
        """The prompt for ``context`` (every variable the template uses must be given)."""
        return _env().get_template(f"{self.name}.j2").render(**context).strip() + "\n"

    @cached_property
    def adapter(self) -> TypeAdapter[Any] | None:
        """The validator of a JSON answer (None for code and text)."""
        return TypeAdapter(self.schema) if self.schema is not None else None

    @property
    def request_schema(self) -> dict[str, Any] | None:
        """The JSON schema sent with the request (structured output), None for code and text."""
        return self.adapter.json_schema() if self.adapter is not None else None

    def parse(self, reply: str) -> Any:
        """The answer in ``reply``, or ``ReplyFormatError`` saying what is wrong with it."""
        if self.adapter is not None:
            return validate_json(reply, self.adapter)
        if self.answer == "code":
            return without_stray_fences(extract_code(reply))
        answer = final_answer(reply).strip()  # a reasoning model's thoughts left out
        if not answer:
            raise ReplyFormatError("the answer was empty", raw=reply)
        return answer


def without_stray_fences(code: str) -> str:
    """Code without lines that are only a Markdown fence (a model that opened a block twice)."""
    return "\n".join(ln for ln in code.splitlines() if not re.match(r"^\s*```[\w-]*\s*$", ln))


@lru_cache(maxsize=1)
def _env() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(PROMPTS)),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=False,
        autoescape=False,
    )
