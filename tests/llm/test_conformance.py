"""One set of checks every backend must pass (as scikit-learn's ``check_estimator``).

``gemini`` and ``openai`` (plain and streaming) answer from the fake server; ``replay`` answers
from a recording made by running the same checks through a recorded Gemini backend.
"""

from __future__ import annotations

import dataclasses
from concurrent.futures import ThreadPoolExecutor

import pytest
from pydantic import BaseModel

from mlestar_jupyter.llm import (
    Backend,
    LLMClient,
    LLMError,
    LLMRequest,
    LLMResponse,
    RecordingBackend,
    ReplayBackend,
    SearchUnavailable,
    Truncated,
    generate_code,
    generate_json,
)

from .fake_server import FakeLLMServer, Reply


class Verdict(BaseModel):
    leaky: bool
    reason: str


def script(srv: FakeLLMServer) -> None:
    """Answers chosen by prompt, so that order (threads) does not matter."""
    srv.on("say hello", Reply(text="hello", prompt_tokens=9, completion_tokens=2), repeat=True)
    srv.on(
        "leakage?", Reply(text='Sure: {"leaky": false, "reason": "fit on train only"}'), repeat=True
    )
    srv.on("write code", "```python\nimport math\nprint(math.pi)\n```", repeat=True)
    srv.on("long answer", Reply.truncated("def f("), repeat=True)
    srv.on(
        "search the web",
        Reply(text="LightGBM", sources=(("https://lightgbm.readthedocs.io", "LightGBM"),)),
        repeat=True,
    )
    srv.on("fail", Reply.error(401, "bad key"), repeat=True)
    for i in range(6):
        srv.on(f"echo {i}", f"echo {i}", repeat=True)


def check_backend(backend: Backend) -> None:
    """The contract of ``Backend.complete``."""
    assert backend.id and backend.label and isinstance(backend.model, str) and backend.model
    assert backend.cache_identity()

    r = backend.complete(LLMRequest.of("say hello", system="You are terse."))
    assert (
        isinstance(r, LLMResponse)
        and r.text == "hello"
        and r.finish_reason == "stop"
        and not r.cached
    )
    assert r.usage.prompt_tokens == 9 and r.usage.completion_tokens == 2 and r.model
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.text = "changed"  # type: ignore[misc]

    client = LLMClient(backend)
    assert generate_json(client, "leakage?", Verdict) == Verdict(
        leaky=False, reason="fit on train only"
    )
    assert generate_code(client, "write code") == "import math\nprint(math.pi)\n"

    cut = backend.complete(LLMRequest.of("long answer", max_tokens=3))
    assert cut.truncated and cut.text == "def f("
    with pytest.raises(Truncated):
        client.complete(LLMRequest.of("long answer", max_tokens=3))

    try:
        found = backend.complete(LLMRequest.of("search the web", search=True))
        assert [s.uri for s in found.sources] == ["https://lightgbm.readthedocs.io"]
    except SearchUnavailable:
        pass

    with pytest.raises(LLMError) as ei:
        backend.complete(LLMRequest.of("fail"))
    assert not ei.value.retryable

    with ThreadPoolExecutor(3) as pool:
        texts = list(
            pool.map(lambda i: backend.complete(LLMRequest.of(f"echo {i}")).text, range(6))
        )
    assert texts == [f"echo {i}" for i in range(6)]


@pytest.mark.parametrize(
    ("kind", "stream"), [("gemini", False), ("gemini", True), ("openai", False), ("openai", True)]
)
def test_http_backends_conform(fake_llm, make_llm, kind, stream):
    script(fake_llm)
    check_backend(make_llm(kind, stream=stream, retries=0))


def test_replay_backend_conforms(fake_llm, make_llm, tmp_path):
    script(fake_llm)
    check_backend(RecordingBackend(make_llm("gemini", retries=0), tmp_path / "rec"))
    sent = len(fake_llm.requests)
    check_backend(ReplayBackend(tmp_path / "rec", strict=True))
    assert len(fake_llm.requests) == sent  # the replay never touched the server
