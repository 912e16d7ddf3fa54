"""What the fake LLM server is scripted with: ``Reply`` (one answer or fault) and what it
records of each call: ``RecordedRequest`` (with the prompt, schema and tools read back in one
shape for both APIs)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["RecordedRequest", "Reply", "Responder"]


@dataclass
class Reply:
    """One scripted answer (or fault).  ``text`` may be a dict/list: it is sent as JSON text."""

    text: Any = ""
    finish: str = "stop"  # "stop" | "length" (sent as STOP / MAX_TOKENS to Gemini clients)
    prompt_tokens: int = 12
    completion_tokens: int | None = None  # None: about len(text) / 4
    sources: tuple[tuple[str, str], ...] = ()  # Gemini grounding chunks: (uri, title)
    search_queries: tuple[str, ...] = ()
    grounding: bool = True  # False: no groundingMetadata even when searching
    status: int = 200  # != 200: an error in the API's own error format
    error_message: str = ""
    delay_s: float = 0.0  # sleep this long before answering (client timeouts)
    chunk_delay_s: float = 0.0  # streamed answers: sleep this long before each chunk (a slow model)
    stream_usage: bool = True  # False: a stream without the usage chunk (llama-cpp-python's server)
    raw_body: str | None = None  # send exactly this body (e.g. invalid JSON)
    raw_type: str = "application/json"  # the content type of ``raw_body`` (text/html: a web page)
    model: str | None = None  # the model name to report (default: the one asked for)
    retry_after_s: float | None = None  # an error's Retry-After header (Gemini: also its RetryInfo)

    @property
    def answer(self) -> str:
        """The answer text as sent."""
        return self.text if isinstance(self.text, str) else json.dumps(self.text)

    @classmethod
    def error(cls, status: int, message: str = "") -> Reply:
        """An HTTP error answer."""
        return cls(status=status, error_message=message or f"fake server error {status}")

    @classmethod
    def unavailable(cls) -> Reply:
        """503, as an overloaded server answers."""
        return cls.error(503, "The model is overloaded. Please try again later.")

    @classmethod
    def rate_limited(cls, retry_after_s: float | None = None) -> Reply:
        """429, as an exhausted quota answers (asking to wait ``retry_after_s``, when given)."""
        r = cls.error(429, "Resource has been exhausted (e.g. check quota).")
        r.retry_after_s = retry_after_s
        return r

    @classmethod
    def timeout(cls, delay_s: float = 2.0, text: str = "too late") -> Reply:
        """A correct answer sent only after ``delay_s`` (set the client's timeout below it)."""
        return cls(text=text, delay_s=delay_s)

    @classmethod
    def invalid_json(cls) -> Reply:
        """HTTP 200 whose body is not JSON."""
        return cls(raw_body="{this is not json")

    @classmethod
    def truncated(cls, text: str = "def f(x):\n    return") -> Reply:
        """An answer cut off at the token limit."""
        return cls(text=text, finish="length")


Responder = Callable[["RecordedRequest"], "Reply | str"]


@dataclass
class RecordedRequest:
    """One request the server received."""

    api: str  # "gemini" | "openai"
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]  # lower-case names
    body: Any  # parsed JSON (or the raw text when it was not JSON)
    model: str
    stream: bool
    at: float = field(default_factory=time.monotonic)

    @property
    def api_key(self) -> str | None:
        """The key the client sent (x-goog-api-key or the Bearer token)."""
        if "x-goog-api-key" in self.headers:
            return self.headers["x-goog-api-key"]
        auth = self.headers.get("authorization", "")
        return auth[7:] if auth.lower().startswith("bearer ") else None

    @property
    def system(self) -> str:
        """The system instruction text."""
        if self.api == "gemini":
            si = self.body.get("systemInstruction") or {}
            return "".join(p.get("text", "") for p in si.get("parts", []))
        return "\n\n".join(
            m["content"] for m in self.body.get("messages", []) if m["role"] == "system"
        )

    @property
    def messages(self) -> list[tuple[str, str]]:
        """(role, text) of each non-system message; Gemini's ``model`` role reads ``assistant``."""
        if self.api == "gemini":
            return [
                (
                    "assistant" if c.get("role") == "model" else "user",
                    "".join(p.get("text", "") for p in c.get("parts", [])),
                )
                for c in self.body.get("contents", [])
            ]
        return [
            (m["role"], m["content"])
            for m in self.body.get("messages", [])
            if m["role"] != "system"
        ]

    @property
    def prompt(self) -> str:
        """The last user message."""
        users = [t for r, t in self.messages if r == "user"]
        return users[-1] if users else ""

    @property
    def text(self) -> str:
        """System instruction and every message, joined (for routing)."""
        return "\n".join([self.system] + [t for _, t in self.messages])

    @property
    def generation_config(self) -> dict[str, Any]:
        """Gemini's generationConfig, or the OpenAI sampling parameters in Gemini's names."""
        if self.api == "gemini":
            return self.body.get("generationConfig") or {}
        b = self.body
        return {
            k2: b[k]
            for k, k2 in (("temperature", "temperature"), ("max_tokens", "maxOutputTokens"))
            if k in b
        }

    @property
    def schema(self) -> dict[str, Any] | None:
        """The JSON schema the client asked the answer to follow, if any."""
        if self.api == "gemini":
            gc = self.generation_config
            return gc.get("responseSchema") or gc.get("responseJsonSchema")
        rf = self.body.get("response_format") or {}
        return (
            (rf.get("json_schema") or {}).get("schema") if rf.get("type") == "json_schema" else None
        )

    @property
    def response_format(self) -> str | None:
        """OpenAI ``response_format.type`` (or ``application/json`` for Gemini JSON mode)."""
        if self.api == "gemini":
            return self.generation_config.get("responseMimeType")
        return (self.body.get("response_format") or {}).get("type")

    @property
    def tools(self) -> list[Any]:
        """The tools the request declared."""
        return list(self.body.get("tools") or [])

    @property
    def wants_search(self) -> bool:
        """True when the Gemini googleSearch tool was sent."""
        return any("googleSearch" in t or "google_search" in t for t in self.tools)
