"""Gemini through the ``google-genai`` SDK (API key, custom base URL, or Vertex AI).

Timeouts are given to the SDK in milliseconds; retries (408/429/5xx, timeouts, connection
errors) are switched on through ``HttpRetryOptions`` — the SDK retries nothing otherwise.
"""

from __future__ import annotations

import copy
import json
import os
import threading
import time
from collections.abc import Mapping
from typing import Any, ClassVar

from .backend import Backend, schema_instruction
from .errors import (
    AuthFailed,
    BadRequest,
    ConfigError,
    LLMError,
    MalformedReply,
    Unavailable,
    error_for_status,
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


def transport_error(exc: BaseException, where: str, timeout_s: float) -> LLMError | None:
    """Unavailable for an httpx-style timeout or connection failure (matched by class name, so
    ``httpx`` and its forks both work); None for anything else."""
    names = {c.__name__ for c in type(exc).__mro__}
    if "TimeoutException" in names:
        return Unavailable(f"no answer from {where} within {timeout_s:g}s ({type(exc).__name__})")
    if names & {"TransportError", "NetworkError", "ConnectError"}:
        return Unavailable(f"cannot reach {where}: {type(exc).__name__}: {exc}")
    return None


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
        return error_for_status(exc.code, msg, auth_hint=AUTH_HINT)
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

    def _config(self, req: LLMRequest) -> Any:
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

    def complete_until(self, req: LLMRequest, cancelled: threading.Event) -> LLMResponse:
        """As :meth:`complete`; a streamed call (``settings.stream``) stops reading once
        ``cancelled`` is set.  A plain call cannot be stopped: the client abandons it."""
        return self._complete(req, cancelled)

    def _complete(self, req: LLMRequest, cancelled: threading.Event | None) -> LLMResponse:
        t0 = time.monotonic()
        cut = False  # a streamed answer stopped midway because ``cancelled`` was set
        try:
            config = self._config(req)
            kw = dict(model=self.model, contents=self._contents(req), config=config)
            if self.settings.stream:
                chunks = []
                stream = self._client.models.generate_content_stream(**kw)
                for chunk in stream:
                    if cancelled is not None and cancelled.is_set():
                        getattr(stream, "close", lambda: None)()  # ends the HTTP response
                        cut = True
                        break
                    chunks.append(chunk)
            else:
                chunks = [self._client.models.generate_content(**kw)]
        except Exception as e:  # noqa: BLE001 - one mapper: SDK failures become LLM errors, the rest re-raised
            mapped = map_gemini_error(
                e, where=f"Gemini ({self.base_url or 'cloud'})", timeout_s=self.settings.timeout_s
            )
            if mapped is None or mapped is e:
                raise
            raise mapped from e
        if cut:
            raise Unavailable(f"Gemini: call abandoned after {len(chunks)} chunks (cancelled)")
        return self._read(chunks, time.monotonic() - t0)

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
