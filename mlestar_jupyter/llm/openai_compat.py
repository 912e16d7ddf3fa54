"""OpenAI's chat-completions API through the ``openai`` SDK: OpenAI itself, or any compatible
server (Ollama, vLLM, llama.cpp's ``llama-server``, ``llama_cpp.server``).

Structured output degrades gracefully: ``json_schema`` response format first; when the server
refuses it (llama-cpp-python answers HTTP 500), ``json_object`` with the schema in the prompt;
when that is refused too, the schema in the prompt alone.  The caller validates either way.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from collections.abc import Mapping
from typing import Any, ClassVar

from .backend import Backend, schema_instruction
from .errors import (
    AuthFailed,
    LLMError,
    MalformedReply,
    SearchUnavailable,
    Unavailable,
    error_for_status,
)
from .settings import LLMSettings
from .types import LLMRequest, LLMResponse, Usage

AUTH_HINT = "set OPENAI_API_KEY (any non-empty value for a local server) or settings.api_key_env"
JSON_MODES = ("json_schema", "json_object", "prompt")
_REFUSAL_STATUSES = (400, 404, 422, 500, 501)


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
        )
    if isinstance(exc, openai.APIResponseValidationError | json.JSONDecodeError):
        return MalformedReply(f"{where} sent an unreadable answer: {str(exc)[:300]}")
    if isinstance(exc, openai.APIError):  # an error object in a 200 stream (llama.cpp, vLLM)
        return Unavailable(f"{where} answered with an error: {str(exc.message)[:300]}")
    return None


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

    def complete_until(self, req: LLMRequest, cancelled: threading.Event) -> LLMResponse:
        """A streamed completion that stops reading once ``cancelled`` is set and closes the
        connection, so a local server (llama.cpp, vLLM, Ollama) stops generating for a call
        nobody waits for any more (unless ``settings.stream`` is explicitly False)."""
        return self._complete(req, cancelled)

    def _complete(self, req: LLMRequest, cancelled: threading.Event | None) -> LLMResponse:
        import openai

        if req.search:
            raise SearchUnavailable(f"the {self.id} backend cannot search the web")
        t0 = time.monotonic()
        mode = self.json_mode if req.json_schema is not None else None
        # Until a structured mode has worked once, its first try is a probe: sent without SDK
        # retries, so a server's refusal (llama-cpp-python: HTTP 500) degrades at once.
        probing = mode is not None and mode != JSON_MODES[-1] and mode not in self._confirmed
        while True:
            client = self._client.with_options(max_retries=0) if probing else self._client
            try:
                stream = bool(self.settings.stream) or (
                    cancelled is not None and self.settings.stream is None
                )
                result = self._send(client, self._params(req, mode, stream), cancelled)
                break
            except openai.APIStatusError as e:
                if not probing:
                    raise self._mapped(e) from e
                if e.status_code in _REFUSAL_STATUSES:
                    mode = self._degrade(mode)
                    probing = mode != JSON_MODES[-1] and mode not in self._confirmed
                else:  # 429/503 …: not a refusal; send again with the SDK's retries
                    probing = False
            except openai.APIConnectionError as e:
                if not probing:
                    raise self._mapped(e) from e
                probing = False
            except Exception as e:  # noqa: BLE001 - one mapper: SDK failures become LLM errors, the rest re-raised
                mapped = self._mapped(e)
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

    def _degrade(self, mode: str | None) -> str:
        """The next structured-output mode after ``mode`` was refused (remembered for later calls)."""
        nxt = JSON_MODES[JSON_MODES.index(mode or JSON_MODES[0]) + 1]
        with self._lock:
            if JSON_MODES.index(nxt) > JSON_MODES.index(self.json_mode) and not self._confirmed:
                self.json_mode = nxt
        return nxt

    def _mapped(self, e: Exception) -> Exception:
        return map_openai_error(e, where=self._where(), timeout_s=self.settings.timeout_s) or e

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
