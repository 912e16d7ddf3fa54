"""Getting usable answers: text, validated JSON, Python code and web-grounded text.

Each helper takes anything with ``complete(LLMRequest) -> LLMResponse`` (an ``LLMClient`` or a
bare backend).  When the model's answer is unusable it re-asks, quoting its answer and the error
(smolagents' "error as observation"), at most ``max_reasks`` times, then raises
``ReplyFormatError`` carrying the raw reply.  A truncated answer is re-asked the same way with a
request to be shorter.  Infrastructure errors (``Unavailable``, ``AuthFailed`` …) propagate at once.
Code and plain text are read out of an answer by ``code_answer``; JSON is read here.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, NamedTuple, Protocol, TypeVar

from pydantic import TypeAdapter, ValidationError

from .code_answer import FENCE, check_syntax, extract_code, final_answer, only_reasoning
from .errors import ReplyFormatError, Truncated
from .types import LLMRequest, LLMResponse, Message, Source

T = TypeVar("T")


class Completer(Protocol):
    """Anything that answers a request (``LLMClient``, any ``Backend``)."""

    def complete(self, req: LLMRequest) -> LLMResponse:
        """Send ``req`` and return the answer; failures raise the errors of ``llm.errors``."""
        ...


# ----------------------------------------------------------------------------- parsing


def parse_json(text: str, model: Any = None) -> Any:
    """The JSON value in a model's answer (its reasoning left out: ``final_answer``): the whole
    text, a ```json block, or the largest ``{…}`` / ``[…]`` embedded in prose; written loosely
    as small models and servers ignoring ``response_format`` do (raw newlines in strings,
    trailing commas, a Python dict with ``'quotes'`` and ``True``) too.  Raises
    ``ReplyFormatError`` when there is none.  With ``model`` (a type or ``TypeAdapter``) the
    value is validated too (see ``validate_json``)."""
    if model is not None:
        return validate_json(text, model)
    if only_reasoning(text):
        raise ReplyFormatError(
            "the answer holds only reasoning (a <think> block and no answer after it)",
            raw=text,
            hint="after your reasoning, answer with one JSON value",
        )
    s = final_answer(text).strip()
    found = _loads(s)
    if found is not _NOTHING:
        return found
    for _, _lang, body in sorted(FENCE.findall(s), key=lambda b: -len(b[2])):
        found = _loads(body)
        if found is not _NOTHING:
            return found
    decoder = json.JSONDecoder(strict=False)
    best: tuple[int, Any] | None = None
    for m in re.finditer(r"[\[{]", s):
        try:
            value, end = decoder.raw_decode(s, m.start())
        except json.JSONDecodeError:
            continue
        if best is None or end - m.start() > best[0]:
            best = (end - m.start(), value)
    if best is not None:
        return best[1]
    for m in re.finditer(r"[\[{]", s):  # loosely written: the first that reads, to its end
        found = _loads(s[m.start() : s.rfind("}" if s[m.start()] == "{" else "]") + 1])
        if found is not _NOTHING:
            return found
    raise ReplyFormatError(
        "no JSON value found in the answer",
        raw=text,
        hint="answer with one JSON value only, no prose around it",
    )


_NOTHING = object()


def _loads(s: str) -> Any:
    """``s`` read as JSON, leniently: raw control characters in strings, trailing commas, a
    Python literal (``{'a': True}``); ``_NOTHING`` when it is none of them."""
    s = s.strip()
    if not s:
        return _NOTHING
    try:
        return json.loads(s, strict=False)
    except json.JSONDecodeError:
        pass
    no_trailing = re.sub(r",\s*([}\]])", r"\1", s)
    try:
        return json.loads(no_trailing, strict=False)
    except json.JSONDecodeError:
        pass
    if s[0] in "{[":
        try:
            value = ast.literal_eval(no_trailing)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return _NOTHING
        if isinstance(value, dict | list):
            return value
    return _NOTHING


def _adapter(model: type[T] | TypeAdapter[T]) -> TypeAdapter[T]:
    return model if isinstance(model, TypeAdapter) else TypeAdapter(model)


def _reshaped(data: Any) -> list[Any]:
    """What an answer that does not validate may have meant, in the shapes small models and
    JSON-object-only servers produce:

    - the schema's shape copied with the values under ``properties``
      (``{"properties": {"leakage": true}, "required": [...], "type": "object"}``);
    - a list wrapped in an object (``{"items": [...]}``: the server only allows objects);
    - one object where a list of them was asked for.
    """
    if not isinstance(data, dict):
        return []
    out: list[Any] = []
    if isinstance(data.get("properties"), dict) and {"type", "required", "title"} & data.keys():
        out.append(data["properties"])
    lists = [v for v in data.values() if isinstance(v, list)]
    if len(lists) == 1:
        out.append(lists[0])
    out.append([data])
    return out


def validate_json(text: str, model: type[T] | TypeAdapter[T]) -> T:
    """``parse_json`` then validation against ``model``; errors become ``ReplyFormatError``."""
    return validate_value(parse_json(text), model, raw=text)


def validate_value(data: Any, model: type[T] | TypeAdapter[T], *, raw: str = "") -> T:
    """``data`` (a JSON value already read from the reply ``raw``) validated against ``model``,
    in the shapes ``_reshaped`` knows too; errors become ``ReplyFormatError`` carrying ``raw``."""
    adapter = _adapter(model)
    try:
        return adapter.validate_python(data)
    except ValidationError as e:
        for meant in _reshaped(data):
            try:
                return adapter.validate_python(meant)
            except ValidationError:
                continue
        problems = "; ".join(
            f"{'.'.join(map(str, err['loc'])) or '(root)'}: {err['msg']}" for err in e.errors()[:8]
        )
        raise ReplyFormatError(
            f"the JSON does not match the expected schema: {problems}",
            raw=raw,
            hint="answer again with JSON that matches the schema",
        ) from None


# ----------------------------------------------------------------------------- asking


def as_request(
    messages: str | Sequence[Message] | LLMRequest, *, system: str | None = None, **fields: Any
) -> LLMRequest:
    """An ``LLMRequest`` from a prompt string, a list of messages, or a request (fields override)."""
    if isinstance(messages, LLMRequest):
        return replace(messages, **fields) if fields else messages
    if isinstance(messages, str):
        return LLMRequest.of(messages, system=system, **fields)
    msgs = ((Message("system", system),) if system else ()) + tuple(messages)
    return LLMRequest(messages=msgs, **fields)


def ask_until_valid(
    client: Completer, req: LLMRequest, parse: Callable[[str], T], *, max_reasks: int = 2
) -> T:
    """Ask, ``parse`` the text; on ``ReplyFormatError`` or ``Truncated`` re-ask with the problem
    quoted (from the original request, so only the latest failure is shown), up to ``max_reasks``
    times.  Then raise ``ReplyFormatError`` (or the last ``Truncated``) carrying the raw reply."""
    current = req
    for attempt in range(max_reasks + 1):
        last = attempt == max_reasks
        try:
            resp = client.complete(current)
        except Truncated as e:
            if last:
                raise
            partial = e.response.text if isinstance(e.response, LLMResponse) else ""
            current = req.extend(
                Message("assistant", _clip(partial) + "\n[… cut off]"),
                Message(
                    "user",
                    "Your answer was cut off at the length limit. Answer again, "
                    "complete but more concise.",
                ),
            )
            continue
        try:
            return parse(resp.text)
        except ReplyFormatError as e:  # (parsers leave a reasoning model's thoughts out)
            if last:
                raise ReplyFormatError(
                    f"{e.problem} (still, after {max_reasks} re-asks)", raw=resp.text, hint=e.hint
                ) from e
            current = req.extend(  # salted: the same bad answer twice is asked again, not
                Message("assistant", _clip(resp.text)),  # answered from the cache
                Message("user", f"Your answer could not be used: {e.problem}. {e.hint}."),
                salt=f"{req.salt}|re-ask {attempt + 1}".lstrip("|"),
            )
    raise AssertionError("unreachable")  # pragma: no cover


def _clip(text: str, limit: int = 8000) -> str:
    return text if len(text) <= limit else text[:limit] + "\n[…]"


def generate_text(
    client: Completer,
    messages: str | Sequence[Message] | LLMRequest,
    *,
    system: str | None = None,
    **fields: Any,
) -> str:
    """The model's text answer (``fields``: temperature, max_tokens, role, salt …).
    An empty answer raises ``ReplyFormatError``."""
    resp = client.complete(as_request(messages, system=system, **fields))
    answer = final_answer(resp.text).strip()
    if not answer:
        raise ReplyFormatError("the model answered with empty text", raw=resp.text)
    return answer


def generate_json(
    client: Completer,
    request: str | Sequence[Message] | LLMRequest,
    model: type[T] | TypeAdapter[T],
    *,
    max_reasks: int = 2,
    system: str | None = None,
    **fields: Any,
) -> T:
    """An answer validated as ``model`` (a pydantic model class, any type, or a ``TypeAdapter``).

    The schema goes out as structured output (Gemini ``response_schema``; OpenAI ``json_schema``
    with the backend's own fallbacks), unless the request already carries one."""
    adapter = _adapter(model)
    req = as_request(request, system=system, **fields)
    if req.json_schema is None:
        req = replace(req, json_schema=adapter.json_schema())
    return ask_until_valid(
        client, req, lambda text: validate_json(text, adapter), max_reasks=max_reasks
    )


def generate_code(
    client: Completer,
    request: str | Sequence[Message] | LLMRequest,
    *,
    max_reasks: int = 2,
    syntax_check: bool = True,
    system: str | None = None,
    **fields: Any,
) -> str:
    """The Python code of the answer (``extract_code``), re-asking when there is none or (with
    ``syntax_check``) when it does not parse."""

    def parse(text: str) -> str:
        code = extract_code(text)
        if syntax_check:
            check_syntax(code)
        return code

    return ask_until_valid(
        client, as_request(request, system=system, **fields), parse, max_reasks=max_reasks
    )


class SearchAnswer(NamedTuple):
    """A web-grounded answer and the pages it cites (empty when the server sent no grounding).
    A named tuple: ``text, sources = generate_with_search(...)`` works."""

    text: str
    sources: tuple[Source, ...]


def generate_with_search(
    client: Completer,
    request: str | Sequence[Message] | LLMRequest,
    *,
    system: str | None = None,
    **fields: Any,
) -> SearchAnswer:
    """Ask with web search (Gemini's google_search tool).  Backends without search raise
    ``SearchUnavailable``: fall back to the local model catalog."""
    resp = client.complete(as_request(request, system=system, search=True, **fields))
    if not resp.text.strip():
        raise ReplyFormatError("the model answered with empty text", raw=resp.text)
    return SearchAnswer(text=resp.text, sources=resp.sources)
