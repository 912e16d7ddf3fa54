"""LLM settings: one pydantic model, built per run (``from_env`` or explicitly), never global."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError

from .errors import ConfigError

ENV_PREFIX = "MLESTAR_LLM_"


class LLMSettings(BaseModel):
    """How to reach the model.  Every field has a one-line meaning; ``None`` means "the backend's default"."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    backend: str = Field(default="gemini", description="backend id: gemini, openai or replay")
    model: str | None = Field(
        default=None, description="model name (None: the backend's default_model)"
    )
    temperature: float | None = Field(
        default=None, ge=0, le=2, description="default sampling temperature"
    )
    max_tokens: int | None = Field(default=None, gt=0, description="default answer length limit")
    timeout_s: float = Field(default=180.0, gt=0, description="per-HTTP-request timeout in seconds")
    retries: int = Field(
        default=3, ge=0, description="SDK retries for 408/429/5xx and connection errors"
    )
    retry_initial_delay_s: float = Field(
        default=1.0,
        ge=0,
        description="first retry delay, doubling each time (Gemini, and any call with a deadline)",
    )
    retry_max_delay_s: float = Field(
        default=30.0, ge=0, description="longest retry delay (Gemini, and any call with a deadline)"
    )
    concurrency: int = Field(default=4, ge=1, description="calls in flight at once (LLMClient)")
    context_tokens: int = Field(
        default=32768, ge=1024, description="the model's context window; prompts are trimmed to fit"
    )
    stream: bool | None = Field(
        default=None,
        description="use the streaming endpoints: True always, False never, None (auto) when a "
        "call may be cut off by the run's budget (OpenAI-compatible servers then stop generating)",
    )
    base_url: str | None = Field(
        default=None,
        description="server URL (None: GOOGLE_GEMINI_BASE_URL / OPENAI_BASE_URL / the cloud)",
    )
    api_key_env: str | None = Field(
        default=None, description="env var holding the key (None: the backend's own)"
    )
    api_key: SecretStr | None = Field(
        default=None, description="the key itself (prefer api_key_env)"
    )
    vertex: bool = Field(
        default=False, description="Gemini through Vertex AI (uses ADC credentials)"
    )
    vertex_project: str | None = Field(
        default=None, description="Vertex AI project (GOOGLE_CLOUD_PROJECT)"
    )
    vertex_location: str | None = Field(
        default=None, description="Vertex AI location (GOOGLE_CLOUD_LOCATION)"
    )
    replay_path: str | None = Field(
        default=None, description="replay backend: the recording (JSONL file or its folder)"
    )
    replay_strict: bool = Field(
        default=False, description="replay backend: fail instead of warn on a differing request"
    )

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> LLMSettings:
        """Settings from ``MLESTAR_LLM_<FIELD>`` variables (e.g. ``MLESTAR_LLM_BACKEND=openai``) plus
        Vertex's own ``GOOGLE_GENAI_USE_VERTEXAI`` / ``GOOGLE_CLOUD_PROJECT`` / ``GOOGLE_CLOUD_LOCATION``;
        keyword ``overrides`` win.  ``env`` defaults to ``os.environ``."""
        env = os.environ if env is None else env
        data: dict[str, Any] = {}
        for name in cls.model_fields:
            v = env.get(ENV_PREFIX + name.upper())
            if v not in (None, ""):
                data[name] = v
        if "vertex" not in data and env.get("GOOGLE_GENAI_USE_VERTEXAI", "").lower() in (
            "1",
            "true",
        ):
            data["vertex"] = True
        data.setdefault("vertex_project", env.get("GOOGLE_CLOUD_PROJECT") or None)
        data.setdefault("vertex_location", env.get("GOOGLE_CLOUD_LOCATION") or None)
        data.update({k: v for k, v in overrides.items() if v is not None})
        try:
            return cls(**data)
        except ValidationError as e:
            fields = ", ".join(
                ".".join(map(str, err["loc"])) + ": " + err["msg"] for err in e.errors()
            )
            raise ConfigError(
                f"invalid LLM settings ({fields})",
                hint=f"fix the {ENV_PREFIX}* variables or arguments",
            ) from e

    def resolve_key(
        self, default_env_vars: tuple[str, ...], env: Mapping[str, str] | None = None
    ) -> str | None:
        """The API key: ``api_key``, else ``$api_key_env``, else the first of ``default_env_vars`` that is set."""
        env = os.environ if env is None else env
        if self.api_key is not None:
            return self.api_key.get_secret_value()
        names = (self.api_key_env,) if self.api_key_env else default_env_vars
        for n in names:
            if env.get(n):
                return env[n]
        return None
