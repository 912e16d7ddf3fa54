"""The data that crosses the LLM boundary: requests, responses and their parts.

All frozen and JSON-friendly (``to_json`` / ``from_json``) so that the cache, the recorder and
the journal store them as they are.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal

from .errors import RequestError

Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True)
class Message:
    """One chat message."""

    role: Role
    content: str


@dataclass(frozen=True)
class LLMRequest:
    """What to ask.  ``json_schema`` is the JSON schema of the expected answer (structured output);
    ``search`` asks for web-search grounding; ``role`` names the agent role (journal only);
    ``salt`` tells deliberate repeats of one prompt apart in the cache."""

    messages: tuple[Message, ...]
    temperature: float | None = None
    max_tokens: int | None = None
    json_schema: dict[str, Any] | None = None
    search: bool = False
    role: str = ""
    salt: str = ""

    def __post_init__(self) -> None:
        if isinstance(self.messages, list):  # accept a list, store a tuple
            object.__setattr__(self, "messages", tuple(self.messages))
        if not self.messages:
            raise RequestError("LLMRequest needs at least one message")

    @classmethod
    def of(cls, prompt: str, *, system: str | None = None, **kw: Any) -> LLMRequest:
        """A request from a user prompt and an optional system instruction."""
        msgs = ((Message("system", system),) if system else ()) + (Message("user", prompt),)
        return cls(messages=msgs, **kw)

    @property
    def system(self) -> str:
        """The system messages joined (empty when none)."""
        return "\n\n".join(m.content for m in self.messages if m.role == "system")

    @property
    def chat(self) -> tuple[Message, ...]:
        """The non-system messages, in order."""
        return tuple(m for m in self.messages if m.role != "system")

    def extend(self, *messages: Message, **changes: Any) -> LLMRequest:
        """A copy with ``messages`` appended (and any field changed), e.g. to re-ask."""
        return replace(self, messages=self.messages + tuple(messages), **changes)

    def to_json(self) -> dict[str, Any]:
        """The request as plain JSON, as the cache, the replay file and the journal store it."""
        d = asdict(self)
        d["messages"] = [asdict(m) for m in self.messages]
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> LLMRequest:
        """The request ``to_json`` wrote."""
        d = dict(d)
        d["messages"] = tuple(Message(**m) for m in d["messages"])
        return cls(**d)


@dataclass(frozen=True)
class Usage:
    """Token counts of one call."""

    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True)
class Source:
    """A web page an answer was grounded on."""

    uri: str
    title: str = ""


@dataclass(frozen=True)
class LLMResponse:
    """What came back.  ``finish_reason`` is normalised: ``stop``, ``length`` (cut at max_tokens),
    ``content_filter`` or the server's own word in lower case."""

    text: str
    usage: Usage = field(default_factory=Usage)
    cost_usd: float = 0.0
    model: str = ""
    finish_reason: str = ""
    sources: tuple[Source, ...] = ()
    latency_s: float = 0.0
    cached: bool = False

    @property
    def truncated(self) -> bool:
        """True when the answer stopped at the token limit."""
        return self.finish_reason == "length"

    def to_json(self) -> dict[str, Any]:
        """The response as plain JSON, as the cache and the replay file store it."""
        d = asdict(self)
        d["sources"] = [asdict(s) for s in self.sources]
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> LLMResponse:
        """The response ``to_json`` wrote (usage and sources may be missing)."""
        d = dict(d)
        d["usage"] = Usage(**d.get("usage") or {})
        d["sources"] = tuple(Source(**s) for s in d.get("sources") or ())
        return cls(**d)
