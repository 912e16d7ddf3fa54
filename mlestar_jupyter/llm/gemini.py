"""Gemini through the ``google-genai`` SDK (API key, custom base URL, or Vertex AI).

Timeouts are given to the SDK in milliseconds; retries (408/429/5xx, timeouts, connection
errors) are switched on through ``HttpRetryOptions`` — the SDK retries nothing otherwise.  A
call with a deadline (``complete_until(..., timeout_s=...)``, a run's calls) is retried here
instead, each try and pause ending by the deadline, and the wait a 429 asks for (its
``RetryInfo.retryDelay``, or ``Retry-After``) is honoured when it fits.
"""

from __future__ import annotations

import copy
import json
import os
import threading
import time
from collections.abc import Mapping
from typing import Any, ClassVar

from .backend import Backend, backoff_s, retry_after_s, schema_instruction, send_within
from .errors import (
    AuthFailed,
    BadRequest,
    ConfigError,
    LLMError,
    MalformedReply,
    Unavailable,
    error_for_status,
    transport_error,
)
from .settings import LLMSettings
from .types import LLMRequest, LLMResponse, Source, Usage

AUTH_HINT = "set GEMINI_API_KEY (or GOOGLE_API_KEY) to a key from https://aistudio.google.com/apikey, or use Vertex AI (vertex=True, project, location)"
RETRY_STATUS_CODES = [408, 429, 500, 502, 503, 504]
_FINISH = {
    "STOP": "stop",
    "MAX_TOKENS": "length",
    "SAFETY": "content_filter",
    "RECITATION": "content_filter",
    "BLOCKLIST": "content_filter",
    "PROHIBITED_CONTENT": "content_filter",
    "SPII": "content_filter",
}


def retry_delay_s(exc: BaseException) -> float | None:
    """The wait a Gemini error asks for: ``RetryInfo.retryDelay`` in its details (``"37s"``),
    else a ``Retry-After`` header; None when it names none."""
    details = getattr(exc, "details", None)
    err = details.get("error", details) if isinstance(details, dict) else None
    for d in (err.get("details") if isinstance(err, dict) else None) or ():
        if isinstance(d, dict) and str(d.get("@type", "")).endswith("RetryInfo"):
            try:
                delay = float(str(d.get("retryDelay", "")).rstrip("s"))
            except ValueError:
                break
            if delay > 0:
                return delay
    response = getattr(exc, "response", None)
    return retry_after_s(getattr(response, "headers", None))


def map_gemini_error(
    exc: BaseException, *, where: str = "Gemini", timeout_s: float = 0.0
) -> LLMError | None:
    """The LLM error for an exception raised by the google-genai SDK (None: not an SDK failure)."""
    from google.genai import errors as gerr

    if isinstance(exc, LLMError):
        return exc
    if isinstance(exc, gerr.APIError):
        msg = f"{where} answered HTTP {exc.code} {exc.status or ''}: {exc.message or exc.details}".replace(
            "  ", " "
        )
        text = f"{exc.status} {exc.message} {exc.details}"
        if exc.code == 400 and ("API_KEY_INVALID" in text or "API key not valid" in text):
            return AuthFailed(msg, status=400, hint=AUTH_HINT)
        if exc.code == 404:
            return BadRequest(
                msg,
                status=404,
                hint="check the model name (e.g. gemini-2.5-flash) and the API version",
            )
        return error_for_status(
            exc.code,
            msg,
            auth_hint=AUTH_HINT,
            retry_after_s=retry_delay_s(exc) if exc.code == 429 else None,
        )
    if isinstance(exc, gerr.UnknownApiResponseError | json.JSONDecodeError):
        return MalformedReply(f"{where} sent an unreadable answer: {str(exc)[:300]}")
    return transport_error(exc, where, timeout_s)


def gemini_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Config fields for a JSON schema: ``response_schema`` (Gemini's OpenAPI subset) when the SDK
    can express it, else ``response_json_schema`` (full JSON Schema, e.g. tuples' prefixItems)."""
    try:
        from google.genai import _transformers

        return {"response_schema": _transformers.t_schema(None, copy.deepcopy(schema))}
    except ImportError:  # a future SDK without the private helper: let it convert the dict itself
        return {"response_schema": copy.deepcopy(schema)}
    except (ValueError, TypeError):  # pydantic's ValidationError is a ValueError
        return {"response_json_schema": schema}


class GeminiBackend(Backend):
    """Google Gemini (AI Studio key or Vertex AI)."""

    id: ClassVar[str] = "gemini"
    label: ClassVar[str] = "Google Gemini"
    key_env_var: ClassVar[str | None] = "GEMINI_API_KEY"
    default_model: ClassVar[str] = "gemini-2.5-flash"
    KEY_ENV_VARS: ClassVar[tuple[str, ...]] = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
    BASE_URL_ENV: ClassVar[str] = "GOOGLE_GEMINI_BASE_URL"

    def __init__(
        self, settings: LLMSettings | None = None, *, env: Mapping[str, str] | None = None
    ) -> None:
        from google import genai
        from google.genai import types

        env = os.environ if env is None else env
        s = settings or LLMSettings(backend=self.id)
        self.settings = s
        self.model = s.model or self.default_model
        self.base_url = s.base_url or env.get(self.BASE_URL_ENV) or None
        http = types.HttpOptions(
            base_url=self.base_url,
            timeout=int(s.timeout_s * 1000),  # milliseconds
            retry_options=types.HttpRetryOptions(
                attempts=s.retries + 1,
                initial_delay=s.retry_initial_delay_s,
                max_delay=s.retry_max_delay_s,
                jitter=min(1.0, s.retry_initial_delay_s),
                http_status_codes=RETRY_STATUS_CODES,
            ),
        )
        if s.vertex:
            if not (s.vertex_project and s.vertex_location):
                raise ConfigError(
                    "Vertex AI needs a project and a location",
                    hint="set GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION (or vertex_project/vertex_location)",
                )
            self._client = genai.Client(
                vertexai=True,
                project=s.vertex_project,
                location=s.vertex_location,
                http_options=http,
            )
        else:
            key = s.resolve_key(self.KEY_ENV_VARS, env)
            if not key:
                raise AuthFailed("no Gemini API key found", hint=AUTH_HINT)
            self._client = genai.Client(vertexai=False, api_key=key, http_options=http)

    # ------------------------------------------------------------------ request building

    def _config(self, req: LLMRequest, timeout_s: float | None = None) -> Any:
        """The request's config; with ``timeout_s``, this one try waits at most that long and
        the SDK does not retry it (``send_within`` does)."""
        from google.genai import types

        cfg: dict[str, Any] = {}
        if req.system:
            cfg["system_instruction"] = req.system
        temperature = req.temperature if req.temperature is not None else self.settings.temperature
        if temperature is not None:
            cfg["temperature"] = temperature
        max_tokens = req.max_tokens or self.settings.max_tokens
        if max_tokens:
            cfg["max_output_tokens"] = max_tokens
        if req.search:
            cfg["tools"] = [types.Tool(google_search=types.GoogleSearch())]
            if req.json_schema is not None:  # JSON mode and tools do not mix: ask in the prompt
                cfg["system_instruction"] = "\n\n".join(
                    filter(None, [req.system, schema_instruction(req.json_schema)])
                )
        elif req.json_schema is not None:
            cfg["response_mime_type"] = "application/json"
            cfg.update(gemini_schema(req.json_schema))
        if timeout_s is not None:
            cfg["http_options"] = types.HttpOptions(
                timeout=max(1, int(timeout_s * 1000)),  # milliseconds
                retry_options=types.HttpRetryOptions(attempts=1),
            )
        return types.GenerateContentConfig(**cfg)

    @staticmethod
    def _contents(req: LLMRequest) -> list[Any]:
        from google.genai import types

        return [
            types.Content(
                role="model" if m.role == "assistant" else "user",
                parts=[types.Part(text=m.content)],
            )
            for m in req.chat
        ]

    # ------------------------------------------------------------------ call

    def complete(self, req: LLMRequest) -> LLMResponse:
        """One generateContent call (or a streamed one when ``settings.stream``)."""
        return self._complete(req, None)

    def complete_until(
        self, req: LLMRequest, cancelled: threading.Event, timeout_s: float | None = None
    ) -> LLMResponse:
        """As :meth:`complete`; a streamed call (``settings.stream``) stops reading once
        ``cancelled`` is set.  A plain call cannot be stopped: the client abandons it, and with
        ``timeout_s`` its tries and retries end by then."""
        return self._complete(req, cancelled, timeout_s)

    def _complete(
        self, req: LLMRequest, cancelled: threading.Event | None, timeout_s: float | None = None
    ) -> LLMResponse:
        t0 = time.monotonic()
        try:
            if timeout_s is None:
                chunks, cut = self._generate(req, cancelled, None)
            else:
                s = self.settings
                chunks, cut = send_within(
                    lambda t: self._generate(req, cancelled, t),
                    deadline=t0 + timeout_s,
                    retries=s.retries,
                    cap_s=s.timeout_s,
                    cancelled=cancelled,
                    pause_for=self._pause,
                )
        except Exception as e:  # noqa: BLE001 - one mapper: SDK failures become LLM errors, the rest re-raised
            waited = (
                self.settings.timeout_s
                if timeout_s is None
                else min(self.settings.timeout_s, timeout_s)
            )
            mapped = map_gemini_error(
                e, where=f"Gemini ({self.base_url or 'cloud'})", timeout_s=waited
            )
            if mapped is None or mapped is e:
                raise
            raise mapped from e
        if cut:
            raise Unavailable(f"Gemini: call abandoned after {len(chunks)} chunks (cancelled)")
        return self._read(chunks, time.monotonic() - t0)

    def _generate(
        self, req: LLMRequest, cancelled: threading.Event | None, timeout_s: float | None
    ) -> tuple[list[Any], bool]:
        """The answer's chunks (one for a plain call), and whether a stream stopped midway
        because ``cancelled`` was set."""
        kw = dict(
            model=self.model, contents=self._contents(req), config=self._config(req, timeout_s)
        )
        if not self.settings.stream:
            return [self._client.models.generate_content(**kw)], False
        chunks: list[Any] = []
        stream = self._client.models.generate_content_stream(**kw)
        for chunk in stream:
            if cancelled is not None and cancelled.is_set():
                getattr(stream, "close", lambda: None)()  # ends the HTTP response
                return chunks, True
            chunks.append(chunk)
        return chunks, False

    def _pause(self, e: Exception, attempt: int) -> float | None:
        """Seconds to wait before trying again after ``e`` (None: not worth another try): the
        wait the server asked for, else a backoff."""
        from google.genai import errors as gerr

        if isinstance(e, gerr.APIError):
            if e.code not in RETRY_STATUS_CODES:
                return None
            asked = retry_delay_s(e)
            if asked is not None:
                return asked
        elif transport_error(e, "", 0.0) is None:
            return None
        s = self.settings
        return backoff_s(attempt, s.retry_initial_delay_s, s.retry_max_delay_s)

    def _read(self, chunks: list[Any], latency: float) -> LLMResponse:
        """Text, usage, finish reason and grounding sources of one answer (streamed or not)."""
        texts: list[str] = []
        finish = ""
        sources: dict[str, Source] = {}
        usage = Usage()
        model = ""
        blocked = ""
        for r in chunks:
            model = r.model_version or model
            if r.usage_metadata is not None:
                u = r.usage_metadata
                usage = Usage(
                    prompt_tokens=u.prompt_token_count or 0,
                    completion_tokens=(u.candidates_token_count or 0)
                    + (u.thoughts_token_count or 0),
                )
            if not r.candidates:
                if r.prompt_feedback is not None and r.prompt_feedback.block_reason is not None:
                    blocked = str(
                        getattr(
                            r.prompt_feedback.block_reason, "name", r.prompt_feedback.block_reason
                        )
                    )
                continue
            cand = r.candidates[0]
            if cand.content is not None:
                texts += [p.text for p in cand.content.parts or () if p.text and not p.thought]
            if cand.finish_reason is not None:
                name = getattr(cand.finish_reason, "name", str(cand.finish_reason))
                finish = _FINISH.get(name, name.lower())
            gm = cand.grounding_metadata
            for ch in (gm.grounding_chunks or ()) if gm is not None else ():
                if ch.web is not None and ch.web.uri:
                    sources.setdefault(ch.web.uri, Source(uri=ch.web.uri, title=ch.web.title or ""))
        if blocked:
            raise BadRequest(
                f"Gemini blocked the prompt ({blocked})",
                hint="rephrase the prompt; safety filters refused it",
            )
        if not texts and not finish:
            raise MalformedReply("Gemini answered with no candidates and no text")
        return LLMResponse(
            text="".join(texts),
            usage=usage,
            model=model or self.model,
            finish_reason=finish or "stop",
            sources=tuple(sources.values()),
            latency_s=latency,
        )

    def close(self) -> None:
        """Close the SDK's HTTP connections."""
        close = getattr(self._client, "close", None)
        if callable(close):
            close()
