"""OpenAI's chat-completions API through the ``openai`` SDK: OpenAI itself, or any compatible
server (Ollama, vLLM, llama.cpp's ``llama-server``, ``llama_cpp.server``).

Structured output degrades gracefully: ``json_schema`` response format first; when the server
refuses it (llama-cpp-python answers HTTP 500 naming the format, others 400/422), ``json_object``
with the schema in the prompt; when that is refused too, the schema in the prompt alone.  The
caller validates either way.  Only an answer that names the format is a refusal: a plain 5xx or
a timeout is the server's fault, retried and reported as ``Unavailable``, and the next call asks
for ``json_schema`` again.

Retries: the SDK's own (408/409/429/5xx, connection errors), except for a call with a deadline
(``complete_until(..., timeout_s=...)``, a run's calls): then each try and each pause (the
server's ``Retry-After`` honoured) ends by the deadline, and a wait that would not is not made.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from collections.abc import Mapping
from typing import Any, ClassVar

from .backend import Backend, backoff_s, retry_after_s, schema_instruction, send_within
from .errors import (
    AuthFailed,
    LLMError,
    MalformedReply,
    SearchUnavailable,
    Unavailable,
    error_for_status,
    transport_error,
)
from .settings import LLMSettings
from .types import LLMRequest, LLMResponse, Usage

AUTH_HINT = "set OPENAI_API_KEY (any non-empty value for a local server) or settings.api_key_env"
JSON_MODES = ("json_schema", "json_object", "prompt")
_REFUSAL_STATUSES = (400, 404, 415, 422, 500, 501)
_NAMES_THE_FORMAT = re.compile(
    r"response[_ ]?format|json[_ ]?schema|json[_ ]?object|structured output|guided_json|grammar",
    re.IGNORECASE,
)


def refuses_format(exc: BaseException) -> bool:
    """Whether ``exc`` is a server's refusal of the structured-output mode asked for: HTTP 501,
    or 400/404/415/422/500 whose error names it (llama-cpp-python: 500 "... response_format ...
    json_schema ..."; TGI 422; OpenAI 400 "response_format ... not supported with this model").
    A 5xx that names nothing is the server's fault, not a refusal."""
    import openai

    if not isinstance(exc, openai.APIStatusError) or exc.status_code not in _REFUSAL_STATUSES:
        return False
    if exc.status_code == 501:
        return True
    said = f"{exc.message} {json.dumps(exc.body, default=str) if exc.body is not None else ''}"
    return bool(_NAMES_THE_FORMAT.search(said))


def is_transient(exc: BaseException) -> bool:
    """Whether sending again may help: 408/409/429/5xx, a timeout or a connection failure."""
    import openai

    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in (408, 409, 429) or exc.status_code >= 500
    return isinstance(exc, openai.APIConnectionError)


def map_openai_error(
    exc: BaseException, *, where: str = "the OpenAI-compatible server", timeout_s: float = 0.0
) -> LLMError | None:
    """The LLM error for an exception raised by the openai SDK (None: not an SDK failure)."""
    import openai

    if isinstance(exc, LLMError):
        return exc
    if isinstance(exc, openai.APITimeoutError):
        return Unavailable(f"no answer from {where} within {timeout_s:g}s")
    if isinstance(exc, openai.APIConnectionError):
        return Unavailable(f"cannot reach {where}: {exc}")
    if isinstance(exc, openai.APIStatusError):
        return error_for_status(
            exc.status_code,
            f"{where} answered HTTP {exc.status_code}: {exc.message}",
            auth_hint=AUTH_HINT,
            retry_after_s=retry_after_s(exc.response.headers) if exc.status_code == 429 else None,
        )
    if isinstance(exc, openai.APIResponseValidationError | json.JSONDecodeError):
        return MalformedReply(f"{where} sent an unreadable answer: {str(exc)[:300]}")
    if isinstance(exc, openai.APIError):  # an error object in a 200 stream (llama.cpp, vLLM)
        return Unavailable(f"{where} answered with an error: {str(exc.message)[:300]}")
    # a stream read that timed out or lost its connection midway (outside the SDK's own mapping)
    return transport_error(exc, where, timeout_s)


class OpenAIBackend(Backend):
    """Chat completions over the OpenAI wire format."""

    id: ClassVar[str] = "openai"
    label: ClassVar[str] = "OpenAI-compatible (OpenAI, Ollama, vLLM, llama.cpp)"
    key_env_var: ClassVar[str | None] = "OPENAI_API_KEY"
    default_model: ClassVar[str] = "gpt-4o-mini"
    BASE_URL_ENV: ClassVar[str] = "OPENAI_BASE_URL"

    def __init__(
        self, settings: LLMSettings | None = None, *, env: Mapping[str, str] | None = None
    ) -> None:
        import openai

        env = os.environ if env is None else env
        s = settings or LLMSettings(backend=self.id)
        self.settings = s
        self.model = s.model or self.default_model
        self.base_url = s.base_url or env.get(self.BASE_URL_ENV) or None
        key = s.resolve_key(("OPENAI_API_KEY",), env)
        if not key:
            if self.base_url is None:
                raise AuthFailed("no OpenAI API key found", hint=AUTH_HINT)
            key = "not-needed"  # local servers ignore it; the SDK insists on one
        self._client = openai.OpenAI(
            base_url=self.base_url, api_key=key, timeout=s.timeout_s, max_retries=s.retries
        )
        self._lock = threading.Lock()
        self._confirmed: set[str] = set()  # structured modes this server has accepted
        self.json_mode = JSON_MODES[0]
        """The structured-output mode this server accepts (degrades on refusal, for this instance's life)."""

    def _where(self) -> str:
        return f"OpenAI-compatible server ({self.base_url or 'api.openai.com'})"

    # ------------------------------------------------------------------ request building

    def _params(self, req: LLMRequest, mode: str | None, stream: bool = False) -> dict[str, Any]:
        messages = [{"role": m.role, "content": m.content} for m in req.messages]
        p: dict[str, Any] = {"model": self.model, "messages": messages}
        temperature = req.temperature if req.temperature is not None else self.settings.temperature
        if temperature is not None:
            p["temperature"] = temperature
        max_tokens = req.max_tokens or self.settings.max_tokens
        if max_tokens:
            p["max_tokens"] = max_tokens
        if req.json_schema is not None and mode is not None:
            if mode == "json_schema":
                name = re.sub(
                    r"[^A-Za-z0-9_-]", "_", str(req.json_schema.get("title") or "answer")
                )[:64]
                p["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {"name": name, "schema": req.json_schema, "strict": False},
                }
            else:
                if mode == "json_object":
                    p["response_format"] = {"type": "json_object"}
                # appended to the last user turn: some chat templates refuse two user turns in a row
                if messages[-1]["role"] == "user":
                    messages[-1] = {
                        "role": "user",
                        "content": messages[-1]["content"]
                        + "\n\n"
                        + schema_instruction(req.json_schema),
                    }
                else:
                    messages.append(
                        {"role": "user", "content": schema_instruction(req.json_schema)}
                    )
        if stream:
            p["stream"] = True
            p["stream_options"] = {"include_usage": True}
        return p

    # ------------------------------------------------------------------ call

    def complete(self, req: LLMRequest) -> LLMResponse:
        """One chat completion; structured requests degrade json_schema → json_object → prompt."""
        return self._complete(req, None)

    def complete_until(
        self, req: LLMRequest, cancelled: threading.Event, timeout_s: float | None = None
    ) -> LLMResponse:
        """A streamed completion that stops reading once ``cancelled`` is set and closes the
        connection, so a local server (llama.cpp, vLLM, Ollama) stops generating for a call
        nobody waits for any more (unless ``settings.stream`` is explicitly False); with
        ``timeout_s``, no try or retry of it goes on past that many seconds."""
        return self._complete(req, cancelled, timeout_s)

    def _complete(
        self, req: LLMRequest, cancelled: threading.Event | None, timeout_s: float | None = None
    ) -> LLMResponse:
        import openai

        if req.search:
            raise SearchUnavailable(f"the {self.id} backend cannot search the web")
        t0 = time.monotonic()
        deadline = None if timeout_s is None else t0 + timeout_s
        stream = bool(self.settings.stream) or (
            cancelled is not None and self.settings.stream is None
        )
        mode = self.json_mode if req.json_schema is not None else None
        while True:
            # until a structured mode has worked once, a refusal of it degrades to the next mode
            probing = mode is not None and mode != JSON_MODES[-1] and mode not in self._confirmed
            try:
                params = self._params(req, mode, stream)
                result = self._send_retried(params, cancelled, deadline, probing)
                break
            except openai.APIStatusError as e:
                if probing and refuses_format(e):
                    mode = self._degrade(mode)
                    continue
                raise self._mapped(e, timeout_s) from e
            except Exception as e:  # noqa: BLE001 - one mapper: SDK failures become LLM errors, the rest re-raised
                mapped = self._mapped(e, timeout_s)
                if mapped is e:
                    raise
                raise mapped from e
        if mode is not None:
            with self._lock:
                self._confirmed.add(mode)
        text, finish, usage, model = result
        return LLMResponse(
            text=text,
            usage=usage,
            model=model or self.model,
            finish_reason=finish,
            latency_s=time.monotonic() - t0,
        )

    def _send_retried(
        self,
        params: dict[str, Any],
        cancelled: threading.Event | None,
        deadline: float | None,
        probing: bool,
    ) -> tuple[str, str, Usage, str]:
        """``_send`` with retries: the SDK's without a deadline, ``send_within``'s with one.  A
        probe (a structured mode not confirmed yet) is first sent once, so that a refusal of
        the mode degrades at once instead of being retried as a server fault."""
        import openai

        if deadline is None:
            if probing:
                try:
                    return self._send(self._client.with_options(max_retries=0), params, cancelled)
                except (openai.APIStatusError, openai.APIConnectionError) as e:
                    if refuses_format(e) or not is_transient(e):
                        raise
            return self._send(self._client, params, cancelled)  # not a refusal: the SDK retries

        def once(timeout: float) -> tuple[str, str, Usage, str]:
            client = self._client.with_options(timeout=timeout, max_retries=0)
            return self._send(client, params, cancelled)

        s = self.settings
        return send_within(
            once,
            deadline=deadline,
            retries=s.retries,
            cap_s=s.timeout_s,
            cancelled=cancelled,
            pause_for=lambda e, n: self._pause(e, n, probing),
        )

    def _pause(self, e: Exception, attempt: int, probing: bool) -> float | None:
        """Seconds to wait before trying again after ``e`` (None: not worth another try): what
        the server asked for (``Retry-After``), else a backoff; never after a refusal of a probe."""
        import openai

        if not is_transient(e) or (probing and refuses_format(e)):
            return None
        asked = retry_after_s(e.response.headers) if isinstance(e, openai.APIStatusError) else None
        s = self.settings
        return (
            asked
            if asked is not None
            else backoff_s(attempt, s.retry_initial_delay_s, s.retry_max_delay_s)
        )

    def _degrade(self, mode: str | None) -> str:
        """The next structured-output mode after ``mode`` was refused (remembered for later calls)."""
        nxt = JSON_MODES[JSON_MODES.index(mode or JSON_MODES[0]) + 1]
        with self._lock:
            if JSON_MODES.index(nxt) > JSON_MODES.index(self.json_mode) and not self._confirmed:
                self.json_mode = nxt
        return nxt

    def _mapped(self, e: Exception, timeout_s: float | None = None) -> Exception:
        """``e`` as an LLM error (``timeout_s``: the seconds the call had, when a deadline set them)."""
        waited = (
            self.settings.timeout_s
            if timeout_s is None
            else min(self.settings.timeout_s, timeout_s)
        )
        return map_openai_error(e, where=self._where(), timeout_s=waited) or e

    def _send(
        self, client: Any, params: dict[str, Any], cancelled: threading.Event | None = None
    ) -> tuple[str, str, Usage, str]:
        """(text, finish_reason, usage, model) of one call, streamed or not; a stream stops (and
        its connection closes) as soon as ``cancelled`` is set."""
        r = client.chat.completions.create(**params)
        if not params.get("stream"):
            if not hasattr(r, "choices"):  # a web page where the API should be
                raise MalformedReply(self._not_the_api(str(r)))
            if not r.choices:
                raise MalformedReply(f"{self._where()} answered with no choices")
            c = r.choices[0]
            u = r.usage
            usage = Usage(u.prompt_tokens or 0, u.completion_tokens or 0) if u else Usage()
            text = c.message.content or ""
            if not text and getattr(c.message, "reasoning_content", None):
                raise MalformedReply(self._only_reasoning())
            return text, (c.finish_reason or "stop"), usage, r.model or ""
        parts: list[str] = []
        finish, usage, model = "", Usage(), ""
        pieces = 0  # content chunks: one token each on llama.cpp, vLLM and Ollama
        answered = thought = False  # a chunk with choices came; one with reasoning only
        for chunk in r:
            if not hasattr(chunk, "choices"):  # a web page where the API should be
                raise MalformedReply(self._not_the_api(str(chunk)))
            if cancelled is not None and cancelled.is_set():
                r.close()  # the server sees the client go and stops generating
                raise Unavailable(
                    f"{self._where()}: call abandoned after {len(parts)} chunks (the run's time is up, or it was stopped)"
                )
            model = chunk.model or model
            if chunk.usage:
                usage = Usage(chunk.usage.prompt_tokens or 0, chunk.usage.completion_tokens or 0)
            for c in chunk.choices or ():
                answered = True
                if c.delta is not None and c.delta.content:
                    parts.append(c.delta.content)
                    pieces += 1
                elif c.delta is not None and getattr(c.delta, "reasoning_content", None):
                    thought = True
                if c.finish_reason:
                    finish = c.finish_reason
        if not answered:
            raise MalformedReply(self._not_the_api("a stream without any answer chunk"))
        if not parts and thought:
            raise MalformedReply(self._only_reasoning())
        if usage.total_tokens == 0 and pieces:  # a server that streams no usage (llama-cpp-python)
            prompt_chars = sum(len(str(m.get("content") or "")) for m in params["messages"])
            usage = Usage(-(-prompt_chars // 4), pieces)  # the prompt estimated at 4 chars a token
        return "".join(parts), finish or "stop", usage, model

    def _not_the_api(self, got: str) -> str:
        return (
            f"{self._where()} did not answer as a chat-completions API ({got[:80]!r}): check the "
            "base URL (it ends in /v1 for Ollama, vLLM and llama.cpp's server)"
        )

    def _only_reasoning(self) -> str:
        return (
            f"{self._where()}: the model answered only in its reasoning (reasoning_content), "
            "with no answer: give it more max_tokens, or turn its thinking off"
        )

    def close(self) -> None:
        """Close the SDK's HTTP connections."""
        self._client.close()
