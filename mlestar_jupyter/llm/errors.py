"""Errors of the LLM layer.  One tree; every message says what to do next.

::

    LLMError                      base: anything that went wrong talking to a model
    ├── ConfigError               bad settings: unknown backend, missing model or replay file
    ├── RequestError  (ValueError) the caller built an invalid request (no message)
    ├── AuthFailed                the key was missing or refused (401/403, API_KEY_INVALID)
    ├── RateLimited   (retryable) 429 / quota exhausted after the SDK's own retries
    ├── Unavailable   (retryable) 5xx, 408, timeouts, connection refused
    ├── BadRequest                the server refused this request (400/404/422)
    ├── MalformedReply (retryable) the server's answer could not be read
    │   └── ReplyFormatError (retryable) the model's text is not in the asked-for shape;
    │                         carries the raw reply so the caller can quote it back
    ├── Truncated     (retryable) the answer was cut off at max_tokens
    ├── BudgetExceeded            a run budget (calls, tokens, cost) is spent
    ├── Cancelled                 the caller stopped the client (Ctrl-C): the call was abandoned
    ├── SearchUnavailable         this backend cannot search the web: use the local catalog
    └── ReplayMismatch            a replayed recording does not match the current request

``retryable`` says whether sending the same (or a re-asked) request again may succeed.
Errors pickle cleanly (attributes travel in ``__dict__``) so they can cross process pools.
"""

from __future__ import annotations

from typing import Any


class LLMError(Exception):
    """Base of every LLM-layer error.  ``hint`` is the advice appended to the message."""

    retryable: bool = False
    default_hint: str = ""

    def __init__(self, message: str, *, hint: str | None = None, status: int | None = None) -> None:
        self.hint = self.default_hint if hint is None else hint
        self.status = status
        self.problem = message
        super().__init__(message)

    def __str__(self) -> str:
        return f"{self.problem} ({self.hint})" if self.hint else self.problem


class ConfigError(LLMError):
    """The LLM settings are wrong (unknown backend id, missing file, bad value)."""

    default_hint = "fix the LLM settings (backend, model, base_url) and start again"


class RequestError(LLMError, ValueError):
    """The calling code built an invalid ``LLMRequest`` (a programming error, never retried)."""

    default_hint = "build requests with LLMRequest.of(prompt, system=...) or pass messages"


class AuthFailed(LLMError):
    """No API key, or the server refused it.  Not retried."""

    default_hint = "set GEMINI_API_KEY (Gemini) or OPENAI_API_KEY (OpenAI-compatible) and retry"


class RateLimited(LLMError):
    """HTTP 429 / RESOURCE_EXHAUSTED, still failing after the retries.  ``retry_after_s`` is the
    wait the server asked for (``Retry-After``, Gemini's ``RetryInfo``), None when it named none."""

    retryable = True
    default_hint = "wait a minute, lower the concurrency setting, or raise your quota"

    def __init__(self, message: str, *, retry_after_s: float | None = None, **kw: Any) -> None:
        if retry_after_s is not None:
            message = f"{message} (the server asked to wait {retry_after_s:g}s)"
        super().__init__(message, **kw)
        self.retry_after_s = retry_after_s


class Unavailable(LLMError):
    """The server is down, overloaded, too slow or unreachable."""

    retryable = True
    default_hint = (
        "check base_url and that the server is running; raise timeout_s for slow local models"
    )


class BadRequest(LLMError):
    """The server refused the request itself (bad model name, unsupported parameter)."""

    default_hint = "check the model name and parameters the server supports"


class MalformedReply(LLMError):
    """The answer arrived but could not be read (invalid JSON body, no candidates)."""

    retryable = True
    default_hint = "the server sent an unreadable answer; retry, or check the server's logs"


class ReplyFormatError(MalformedReply):
    """The model's text is not in the expected shape (no code block, invalid JSON, schema mismatch).

    ``raw`` is the model's reply, so the caller can quote it back when re-asking.
    """

    default_hint = "re-ask the model with this error quoted"

    def __init__(self, message: str, *, raw: str = "", **kw: Any) -> None:
        super().__init__(message, **kw)
        self.raw = raw


class Truncated(LLMError):
    """The answer stopped at ``max_tokens``.  ``response`` holds the partial answer."""

    retryable = True
    default_hint = "raise max_tokens or ask for a shorter answer"

    def __init__(self, message: str, *, response: Any = None, **kw: Any) -> None:
        super().__init__(message, **kw)
        self.response = response


class BudgetExceeded(LLMError):
    """A run budget is spent.  ``response`` holds the answer that overshot it, if any."""

    default_hint = (
        "raise the budget (max_llm_calls, max_tokens, max_cost_usd) or resume the run later"
    )

    def __init__(self, message: str, *, response: Any = None, **kw: Any) -> None:
        super().__init__(message, **kw)
        self.response = response


class Cancelled(LLMError):
    """The client was cancelled (the run was stopped) while this call waited or was in flight:
    the call was abandoned, its answer (if one ever comes) is neither returned nor cached."""

    default_hint = "the run was stopped; `mlestar resume <run folder>` asks this again"


class SearchUnavailable(LLMError):
    """The backend has no web search.  Callers fall back to the local model catalog."""

    default_hint = "use the gemini backend for web search, or rely on the local model catalog"


class ReplayMismatch(LLMError):
    """A replayed answer was recorded for a different request (or the recording ran out)."""

    default_hint = "re-record the run, or replay with strict=False to accept differing prompts"


INFRASTRUCTURE_ERRORS: tuple[type[LLMError], ...] = (AuthFailed, Unavailable)
"""Errors no re-ask can fix (a refused key, an unreachable server): callers that turn other
failures into a recorded outcome let these propagate, so a run stops and says why."""

# ----------------------------------------------------------------------------- mapping helper


def error_for_status(
    status: int | None,
    message: str,
    *,
    auth_hint: str | None = None,
    retry_after_s: float | None = None,
) -> LLMError:
    """The error for an HTTP status, shared by every backend's SDK-exception mapper
    (``retry_after_s``: the wait a rate-limited answer asked for)."""
    if status in (401, 403):
        return AuthFailed(message, status=status, hint=auth_hint)
    if status == 429:
        return RateLimited(message, status=status, retry_after_s=retry_after_s)
    if status == 408 or (status is not None and status >= 500):
        return Unavailable(message, status=status)
    if status is not None and 400 <= status < 500:
        return BadRequest(message, status=status)
    return Unavailable(message, status=status)


def transport_error(exc: BaseException, where: str, timeout_s: float) -> LLMError | None:
    """Unavailable for an httpx-style timeout or connection failure (matched by class name, so
    ``httpx`` and its forks both work); None for anything else."""
    names = {c.__name__ for c in type(exc).__mro__}
    if "TimeoutException" in names:
        return Unavailable(f"no answer from {where} within {timeout_s:g}s ({type(exc).__name__})")
    if names & {"TransportError", "NetworkError", "ConnectError"}:
        return Unavailable(f"cannot reach {where}: {type(exc).__name__}: {exc}")
    return None
