"""The one contract every LLM backend implements: ``complete(LLMRequest) -> LLMResponse``;
and ``send_within``, the retry loop of a call that must end by a deadline."""

from __future__ import annotations

import json
import random
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, TypeVar

from .errors import Unavailable
from .types import LLMRequest, LLMResponse

T = TypeVar("T")


class Backend(ABC):
    """A way to reach a model.  Subclasses set the class attributes (as jupyter-ai providers do)
    and implement :meth:`complete`, raising only :class:`~mlestar_jupyter.llm.errors.LLMError`.

    ``complete`` must be safe to call from several threads at once.
    """

    id: ClassVar[str]
    """Short id used in settings (``gemini``, ``openai``, ``replay``)."""
    label: ClassVar[str]
    """Human-readable name."""
    key_env_var: ClassVar[str | None]
    """Environment variable holding the API key (None: no key needed)."""
    default_model: ClassVar[str]
    """Model used when the settings name none."""

    model: str
    """The model this instance talks to."""

    @abstractmethod
    def complete(self, req: LLMRequest) -> LLMResponse:
        """Send ``req`` and return the answer; map every failure onto the LLM error tree."""

    def complete_until(
        self, req: LLMRequest, cancelled: threading.Event, timeout_s: float | None = None
    ) -> LLMResponse:
        """As :meth:`complete`, but a backend that can stop a call midway (a streamed answer)
        stops once ``cancelled`` is set, so the server stops generating too; with ``timeout_s``
        (the seconds its caller waits) no HTTP request nor retry of the call goes on past that
        time.  The default can do neither: it just completes the call."""
        return self.complete(req)

    def cache_identity(self) -> str:
        """What identifies this backend's answers in the cache (wrappers forward their inner's)."""
        return f"{self.id}:{self.model}"

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release connections (optional)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r})"


def schema_instruction(schema: dict[str, Any]) -> str:
    """Prompt text asking for JSON matching ``schema`` (where the server cannot enforce it)."""
    return (
        "Answer with a single JSON value only — no prose, no code fences — that matches this JSON schema:\n"
        + json.dumps(schema, indent=1)
    )


# ----------------------------------------------------------------------------- retries


def retry_after_s(headers: Mapping[str, str] | None) -> float | None:
    """The wait a server asked for in its headers (``retry-after-ms``, else ``retry-after`` in
    seconds), None when it named none that reads as a positive number of seconds."""
    for name, per_second in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = (headers or {}).get(name)
        try:
            seconds = float(value) / per_second if value is not None else None
        except ValueError:
            continue
        if seconds is not None and 0 < seconds < float("inf"):
            return seconds
    return None


def backoff_s(attempt: int, initial: float, most: float) -> float:
    """The pause before try ``attempt + 2``: ``initial`` doubled each time, at most ``most``,
    less up to a quarter at random (callers retrying together do not stay in step)."""
    return min(initial * 2.0**attempt, most) * (1 - 0.25 * random.random())


def send_within(
    send: Callable[[float], T],
    *,
    deadline: float,
    retries: int,
    cap_s: float,
    pause_for: Callable[[Exception, int], float | None],
    cancelled: threading.Event | None = None,
) -> T:
    """``send(timeout)``, tried again after transient failures, all of it by ``deadline`` (a
    ``time.monotonic()`` instant): each try waits at most until the deadline (and ``cap_s``);
    ``pause_for(error, attempt)`` says how long to pause before the next try (the server's
    ``Retry-After``, or a backoff; None: the error is final).  When the pause would end past the
    deadline, the retries are spent, or ``cancelled`` is set, the last error is raised at once."""
    attempt = 0
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise Unavailable(
                "no time left for this call",
                hint="give the run a larger --time-limit, or use a faster model",
            )
        try:
            return send(min(cap_s, left))
        except Exception as e:
            pause = pause_for(e, attempt) if attempt < retries else None
            if pause is None or time.monotonic() + pause >= deadline:
                raise
            if cancelled is not None and cancelled.wait(pause):
                raise
            if cancelled is None:
                time.sleep(pause)
            attempt += 1
