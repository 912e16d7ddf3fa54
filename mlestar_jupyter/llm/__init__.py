"""The LLM layer: backends (Gemini, OpenAI-compatible, replay), a client with cache, journal,
budgets and concurrency, and helpers that turn answers into text, validated JSON or code.

Typical use by the agent::

    settings = LLMSettings.from_env(backend="gemini")
    client = LLMClient(make_backend(settings), cache_dir=run_dir / "llm", on_call=journal.add,
                       budget=LLMBudget.from_run_budget(cfg.budget), concurrency=settings.concurrency)
    plan = generate_json(client, LLMRequest.of(prompt, system=sys, role="planner"), PlanModel)
    code = generate_code(client, LLMRequest.of(prompt, role="coder"))

Tests script answers with ``mlestar_jupyter.llm.testing.FakeLLMServer``.
"""

from .backend import Backend
from .client import LLMBudget, LLMClient, UsageStats
from .errors import (
    AuthFailed,
    BadRequest,
    BudgetExceeded,
    Cancelled,
    ConfigError,
    LLMError,
    MalformedReply,
    RateLimited,
    ReplayMismatch,
    ReplyFormatError,
    RequestError,
    SearchUnavailable,
    Truncated,
    Unavailable,
)
from .factory import BACKENDS, make_backend
from .gemini import GeminiBackend
from .openai_compat import OpenAIBackend
from .pricing import estimate_cost
from .replay import RecordingBackend, ReplayBackend, ReplayWarning
from .settings import LLMSettings
from .structured import (
    SearchAnswer,
    extract_code,
    generate_code,
    generate_json,
    generate_text,
    generate_with_search,
    parse_json,
    validate_json,
)
from .types import LLMRequest, LLMResponse, Message, Source, Usage

__all__ = [
    "BACKENDS",
    "AuthFailed",
    "Backend",
    "BadRequest",
    "BudgetExceeded",
    "Cancelled",
    "ConfigError",
    "GeminiBackend",
    "LLMBudget",
    "LLMClient",
    "LLMError",
    "LLMRequest",
    "LLMResponse",
    "LLMSettings",
    "MalformedReply",
    "Message",
    "OpenAIBackend",
    "RateLimited",
    "RecordingBackend",
    "ReplayBackend",
    "ReplayMismatch",
    "ReplayWarning",
    "ReplyFormatError",
    "RequestError",
    "SearchAnswer",
    "SearchUnavailable",
    "Source",
    "Truncated",
    "Unavailable",
    "Usage",
    "UsageStats",
    "estimate_cost",
    "extract_code",
    "generate_code",
    "generate_json",
    "generate_text",
    "generate_with_search",
    "make_backend",
    "parse_json",
    "validate_json",
]
