"""LLMSettings, the factory, the error tree and the public API."""

from __future__ import annotations

import pickle

import pytest

import mlestar_jupyter.llm as llm
from mlestar_jupyter.llm import (
    BACKENDS,
    AuthFailed,
    ConfigError,
    GeminiBackend,
    LLMError,
    LLMSettings,
    OpenAIBackend,
    RecordingBackend,
    ReplyFormatError,
    Truncated,
    make_backend,
)
from mlestar_jupyter.llm import errors as E


def test_from_env_reads_prefixed_variables_and_overrides_win():
    env = {
        "MLESTAR_LLM_BACKEND": "openai",
        "MLESTAR_LLM_MODEL": "qwen",
        "MLESTAR_LLM_TIMEOUT_S": "12.5",
        "MLESTAR_LLM_RETRIES": "0",
        "MLESTAR_LLM_STREAM": "true",
        "MLESTAR_LLM_BASE_URL": "http://x/v1",
        "GOOGLE_CLOUD_PROJECT": "p",
    }
    s = LLMSettings.from_env(env)
    assert (s.backend, s.model, s.timeout_s, s.retries, s.stream, s.base_url, s.vertex_project) == (
        "openai",
        "qwen",
        12.5,
        0,
        True,
        "http://x/v1",
        "p",
    )
    assert LLMSettings.from_env(env, model="other", temperature=None).model == "other"
    assert LLMSettings.from_env({"GOOGLE_GENAI_USE_VERTEXAI": "true"}).vertex


def test_from_env_bad_value_is_a_config_error_naming_the_field():
    with pytest.raises(ConfigError, match="timeout_s"):
        LLMSettings.from_env({"MLESTAR_LLM_TIMEOUT_S": "soon"})


def test_api_key_is_hidden_and_resolved_in_order():
    s = LLMSettings(api_key="sekret")
    assert "sekret" not in repr(s) and s.resolve_key(("A",), {"A": "a"}) == "sekret"
    assert LLMSettings(api_key_env="MINE").resolve_key(("A",), {"A": "a", "MINE": "m"}) == "m"
    assert LLMSettings().resolve_key(("A", "B"), {"B": "b"}) == "b"
    assert LLMSettings().resolve_key(("A",), {}) is None


def test_factory_builds_known_backends_and_lists_them_otherwise(tmp_path):
    assert set(BACKENDS) == {"gemini", "openai", "replay"}
    assert isinstance(make_backend(LLMSettings(backend="gemini", api_key="k")), GeminiBackend)
    o = make_backend(
        LLMSettings(backend="openai", base_url="http://127.0.0.1:9/v1"), env={}, record_to=tmp_path
    )
    assert (
        isinstance(o, RecordingBackend)
        and isinstance(o.inner, OpenAIBackend)
        and o.cache_identity() == "openai:gpt-4o-mini"
    )
    with pytest.raises(ConfigError) as ei:
        make_backend(LLMSettings(backend="offline"))
    assert "gemini, openai, replay" in str(ei.value)


def test_backend_class_attributes():
    for cls in BACKENDS.values():
        assert cls.id and cls.label and cls.default_model
    assert (
        GeminiBackend.key_env_var == "GEMINI_API_KEY"
        and OpenAIBackend.key_env_var == "OPENAI_API_KEY"
    )


def test_error_tree_retryable_and_hints():
    for name in (
        "ConfigError",
        "AuthFailed",
        "RateLimited",
        "Unavailable",
        "BadRequest",
        "MalformedReply",
        "ReplyFormatError",
        "Truncated",
        "BudgetExceeded",
        "Cancelled",
        "SearchUnavailable",
        "ReplayMismatch",
    ):
        cls = getattr(E, name)
        assert issubclass(cls, LLMError) and cls.default_hint, name
    assert issubclass(ReplyFormatError, E.MalformedReply)
    assert {
        c.__name__
        for c in (E.RateLimited, E.Unavailable, E.MalformedReply, E.ReplyFormatError, E.Truncated)
        if c.retryable
    } == {"RateLimited", "Unavailable", "MalformedReply", "ReplyFormatError", "Truncated"}
    assert not any(
        c.retryable
        for c in (
            E.AuthFailed,
            E.ConfigError,
            E.BudgetExceeded,
            E.Cancelled,
            E.SearchUnavailable,
            E.BadRequest,
        )
    )
    assert "GEMINI_API_KEY" in str(AuthFailed("no key"))
    assert (
        E.error_for_status(429, "m").__class__ is E.RateLimited
        and E.error_for_status(502, "m").__class__ is E.Unavailable
    )


@pytest.mark.parametrize(
    "err",
    [
        ReplyFormatError("bad", raw="the reply"),
        Truncated("cut", response=None, status=200),
        AuthFailed("x", hint="do y"),
    ],
)
def test_errors_pickle_with_their_attributes(err):
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is type(err) and str(back) == str(err) and back.__dict__ == err.__dict__


def test_public_api():
    assert sorted(llm.__all__) == sorted(set(llm.__all__))
    for name in llm.__all__:
        obj = getattr(llm, name)
        assert callable(obj) or isinstance(obj, dict | type(BACKENDS)), name
        if callable(obj):
            assert obj.__doc__, f"{name} has no docstring"
