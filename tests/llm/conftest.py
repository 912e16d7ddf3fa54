"""Fixtures of the LLM tests: a fake server on 127.0.0.1 and backends/clients pointed at it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from mlestar_jupyter.llm import Backend, LLMClient, make_backend

from .fake_server import FakeLLMServer


@pytest.fixture
def fake_llm() -> Iterator[FakeLLMServer]:
    """A started fake server (stops at teardown); openai retries wait 1 ms instead of ~0.5 s."""
    with FakeLLMServer(retry_after_ms=1) as srv:
        yield srv


@pytest.fixture
def make_llm(fake_llm: FakeLLMServer) -> Callable[..., Backend]:
    """``make_llm("gemini", **settings_overrides)`` → a backend talking to ``fake_llm``."""
    made: list[Backend] = []

    def make(backend: str = "openai", **overrides: Any) -> Backend:
        b = make_backend(fake_llm.settings(backend, **overrides), env={})
        made.append(b)
        return b

    yield make
    for b in made:
        b.close()


@pytest.fixture
def make_client(make_llm: Callable[..., Backend], tmp_path: Path) -> Callable[..., LLMClient]:
    """``make_client("openai", cache=True, **client_kwargs)`` → an ``LLMClient`` over the fake server."""

    def make(
        backend: str = "openai",
        *,
        cache: bool = True,
        settings: dict[str, Any] | None = None,
        **kw: Any,
    ) -> LLMClient:
        kw.setdefault("cache_dir", tmp_path / "llm-cache" if cache else None)
        return LLMClient(make_llm(backend, **(settings or {})), **kw)

    return make
