"""Build a backend from settings.  The known backends are listed in ``BACKENDS``."""

from __future__ import annotations

import os
from collections.abc import Mapping

from .backend import Backend
from .errors import ConfigError
from .gemini import GeminiBackend
from .openai_compat import OpenAIBackend
from .replay import RecordingBackend, ReplayBackend
from .settings import LLMSettings

BACKENDS: Mapping[str, type[Backend]] = {
    b.id: b for b in (GeminiBackend, OpenAIBackend, ReplayBackend)
}


def make_backend(
    settings: LLMSettings,
    *,
    env: Mapping[str, str] | None = None,
    record_to: str | os.PathLike[str] | None = None,
) -> Backend:
    """The backend ``settings.backend`` names, configured from ``settings`` (keys from ``env``,
    default ``os.environ``); with ``record_to``, wrapped in a ``RecordingBackend`` writing there."""
    if settings.backend not in BACKENDS:
        raise ConfigError(
            f"unknown LLM backend {settings.backend!r}",
            hint=f"choose one of: {', '.join(BACKENDS)} (the deterministic 'offline' policy is chosen in "
            "RunConfig.backend and needs no LLM backend)",
        )
    backend: Backend
    if settings.backend == ReplayBackend.id:
        if not settings.replay_path:
            raise ConfigError(
                "the replay backend needs replay_path",
                hint="set MLESTAR_LLM_REPLAY_PATH to a recorded run's llm/ folder or calls.jsonl",
            )
        backend = ReplayBackend(settings.replay_path, strict=settings.replay_strict)
    else:
        backend = BACKENDS[settings.backend](settings, env=env)  # type: ignore[call-arg]
    return RecordingBackend(backend, record_to) if record_to is not None else backend
