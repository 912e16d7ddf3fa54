"""The one contract every LLM backend implements: ``complete(LLMRequest) -> LLMResponse``."""

from __future__ import annotations

import json
import threading
from abc import ABC, abstractmethod
from typing import Any, ClassVar

from .types import LLMRequest, LLMResponse


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

    def complete_until(self, req: LLMRequest, cancelled: threading.Event) -> LLMResponse:
        """As :meth:`complete`, but a backend that can stop a call midway (a streamed answer)
        stops once ``cancelled`` is set, so the server stops generating too.  The default
        cannot stop a call: it just completes it."""
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
