"""GeminiBackend against the fake server, through the real google-genai client."""

from __future__ import annotations

import pickle
import threading
import time

import pytest
from pydantic import BaseModel

from mlestar_jupyter.llm import (
    AuthFailed,
    BadRequest,
    ConfigError,
    GeminiBackend,
    LLMRequest,
    LLMSettings,
    MalformedReply,
    Message,
    RateLimited,
    Unavailable,
)

from .fake_server import FakeLLMServer, Reply


class Point(BaseModel):
    x: int
    y: int


def test_sends_system_instruction_contents_config_and_key(fake_llm, make_llm):
    fake_llm.script("hi there")
    g = make_llm("gemini")
    req = LLMRequest(
        messages=(
            Message("system", "Be brief."),
            Message("user", "Hello"),
            Message("assistant", "Hi"),
            Message("user", "Again"),
        ),
        temperature=0.3,
        max_tokens=77,
    )
    resp = g.complete(req)
    assert resp.text == "hi there" and resp.finish_reason == "stop" and resp.model == "fake-model"
    assert resp.usage.prompt_tokens == 12 and resp.usage.completion_tokens >= 1
    (sent,) = fake_llm.requests
    assert sent.api == "gemini" and sent.model == "fake-model" and not sent.stream
    assert sent.headers["x-goog-api-key"] == "test-key"
    assert sent.body["systemInstruction"]["parts"][0]["text"] == "Be brief."
    assert [c["role"] for c in sent.body["contents"]] == ["user", "model", "user"]
    assert sent.messages == [("user", "Hello"), ("assistant", "Hi"), ("user", "Again")]
    assert sent.body["generationConfig"] == {"temperature": 0.3, "maxOutputTokens": 77}
    assert "tools" not in sent.body


def test_structured_output_sends_response_schema(fake_llm, make_llm):
    fake_llm.script('{"x": 1, "y": 2}')
    make_llm("gemini").complete(LLMRequest.of("a point", json_schema=Point.model_json_schema()))
    gc = fake_llm.requests[0].generation_config
    assert gc["responseMimeType"] == "application/json"
    assert gc["responseSchema"]["type"] == "OBJECT"
    assert set(gc["responseSchema"]["properties"]) == {"x", "y"}


def test_schema_outside_geminis_subset_goes_as_response_json_schema(fake_llm, make_llm):
    class Pair(BaseModel):
        t: tuple[int, int]

    fake_llm.script('{"t": [1, 2]}')
    make_llm("gemini").complete(LLMRequest.of("pair", json_schema=Pair.model_json_schema()))
    gc = fake_llm.requests[0].generation_config
    assert "responseSchema" not in gc
    assert gc["responseJsonSchema"]["properties"]["t"]["prefixItems"] == [
        {"type": "integer"},
        {"type": "integer"},
    ]


def test_search_sends_google_search_tool_and_returns_sources(fake_llm, make_llm):
    fake_llm.script(
        Reply(
            text="LightGBM is strong",
            sources=(("https://a.example/lgbm", "LightGBM"), ("https://b.example", "B")),
        )
    )
    resp = make_llm("gemini").complete(LLMRequest.of("best tabular models", search=True))
    assert fake_llm.requests[0].tools == [{"googleSearch": {}}]
    assert [(s.uri, s.title) for s in resp.sources] == [
        ("https://a.example/lgbm", "LightGBM"),
        ("https://b.example", "B"),
    ]


def test_search_without_grounding_metadata_gives_no_sources(fake_llm, make_llm):
    fake_llm.script(Reply(text="no grounding", grounding=False))
    resp = make_llm("gemini").complete(LLMRequest.of("q", search=True))
    assert resp.text == "no grounding" and resp.sources == ()


def test_search_with_schema_asks_in_the_prompt(fake_llm, make_llm):
    fake_llm.script("[]")
    make_llm("gemini").complete(
        LLMRequest.of("q", system="S", search=True, json_schema={"type": "array"})
    )
    sent = fake_llm.requests[0]
    assert "responseMimeType" not in sent.generation_config
    assert sent.system.startswith("S\n\n") and '"type": "array"' in sent.system


def test_streaming_assembles_sse_chunks(fake_llm, make_llm):
    fake_llm.script(Reply(text="a fairly long streamed answer", finish="length"))
    resp = make_llm("gemini", stream=True).complete(LLMRequest.of("q"))
    assert fake_llm.requests[0].stream and fake_llm.requests[0].query == {"alt": "sse"}
    assert resp.text == "a fairly long streamed answer"
    assert resp.finish_reason == "length" and resp.usage.prompt_tokens == 12


@pytest.mark.parametrize(
    "fault", [Reply.unavailable(), Reply.rate_limited(), Reply.error(500), Reply.timeout(1.0)]
)
def test_transient_faults_are_retried_then_succeed(fake_llm, make_llm, fault):
    fake_llm.script(fault, "ok")
    resp = make_llm("gemini", timeout_s=0.3).complete(LLMRequest.of("q"))
    assert resp.text == "ok"
    assert len(fake_llm.requests) == 2


@pytest.mark.parametrize(
    ("fault", "error"),
    [
        (Reply.unavailable(), Unavailable),
        (Reply.rate_limited(), RateLimited),
        (Reply.timeout(1.0), Unavailable),
    ],
)
def test_persistent_faults_map_after_retries(fake_llm, make_llm, fault, error):
    fake_llm.script(fault, fault, fault)
    with pytest.raises(error) as ei:
        make_llm("gemini", retries=2, timeout_s=0.3).complete(LLMRequest.of("q"))
    assert ei.value.retryable
    assert len(fake_llm.requests) == 3


def test_wrong_key_is_auth_failed_and_not_retried():
    with FakeLLMServer(require_key="right") as srv:
        srv.script("never used")
        g = GeminiBackend(srv.settings("gemini", api_key="wrong"), env={})
        with pytest.raises(AuthFailed) as ei:
            g.complete(LLMRequest.of("q"))
        assert len(srv.requests) == 1 and srv.pending == 1
        assert "GEMINI_API_KEY" in str(ei.value) and not ei.value.retryable
        assert (
            GeminiBackend(srv.settings("gemini", api_key="right"), env={})
            .complete(LLMRequest.of("q"))
            .text
            == "never used"
        )


def test_403_and_404(fake_llm, make_llm):
    fake_llm.script(
        Reply.error(403, "PERMISSION_DENIED"), Reply.error(404, "models/x is not found")
    )
    g = make_llm("gemini")
    with pytest.raises(AuthFailed):
        g.complete(LLMRequest.of("q"))
    with pytest.raises(BadRequest, match="model name"):
        g.complete(LLMRequest.of("q"))
    assert len(fake_llm.requests) == 2


def test_invalid_json_body_is_malformed_reply(fake_llm, make_llm):
    fake_llm.script(Reply.invalid_json())
    with pytest.raises(MalformedReply):
        make_llm("gemini").complete(LLMRequest.of("q"))


def test_key_from_env_and_missing_key():
    s = LLMSettings(backend="gemini", base_url="http://127.0.0.1:9")
    assert GeminiBackend(s, env={"GOOGLE_API_KEY": "k"}).model == "gemini-2.5-flash"
    with pytest.raises(AuthFailed, match="GEMINI_API_KEY"):
        GeminiBackend(s, env={})
    with pytest.raises(ConfigError, match="GOOGLE_CLOUD_PROJECT"):
        GeminiBackend(LLMSettings(backend="gemini", vertex=True), env={})


def test_base_url_from_env(fake_llm):
    fake_llm.script("via env")
    g = GeminiBackend(
        LLMSettings(backend="gemini", model="m", timeout_s=5),
        env={"GOOGLE_GEMINI_BASE_URL": fake_llm.url, "GEMINI_API_KEY": "e"},
    )
    assert g.complete(LLMRequest.of("q")).text == "via env"
    assert fake_llm.requests[0].api_key == "e" and fake_llm.requests[0].model == "m"


def test_connection_refused_is_unavailable():
    g = GeminiBackend(
        LLMSettings(
            backend="gemini", base_url="http://127.0.0.1:9", api_key="k", retries=0, timeout_s=2
        ),
        env={},
    )
    with pytest.raises(Unavailable, match="cannot reach"):
        g.complete(LLMRequest.of("q"))


def test_errors_pickle(fake_llm, make_llm):
    fake_llm.script(Reply.error(401))
    with pytest.raises(AuthFailed) as ei:
        make_llm("gemini").complete(LLMRequest.of("q"))
    back = pickle.loads(pickle.dumps(ei.value))
    assert type(back) is AuthFailed and str(back) == str(ei.value) and back.status == 401


def test_a_streamed_call_stops_reading_once_cancelled(fake_llm, make_llm):
    import threading
    import time

    fake_llm.script(Reply(text="x = 1\n" * 60, chunk_delay_s=0.5))
    cancelled = threading.Event()
    threading.Timer(1.2, cancelled.set).start()  # mid-stream
    t0 = time.monotonic()
    with pytest.raises(Unavailable, match="abandoned"):
        make_llm("gemini", stream=True).complete_until(LLMRequest.of("q"), cancelled)
    assert time.monotonic() - t0 < 3.0  # not the ~30 s the whole answer streams


# ---------------------------------------------------------------------- calls with a deadline


def test_a_call_with_a_deadline_ends_by_it_even_when_the_server_holds_it(fake_llm, make_llm):
    fake_llm.script(Reply("too late", delay_s=3), Reply("too late", delay_s=3))
    b = make_llm("gemini", timeout_s=5, retries=2)
    t0 = time.monotonic()
    with pytest.raises(Unavailable, match="within 0.5s"):
        b.complete_until(LLMRequest.of("q"), threading.Event(), timeout_s=0.5)
    assert time.monotonic() - t0 < 1.5
    assert len(fake_llm.requests) == 1  # no retry started past the deadline


def test_a_deadline_call_retries_transient_faults(fake_llm, make_llm):
    fake_llm.script(Reply.unavailable(), "ok")
    b = make_llm("gemini")
    assert b.complete_until(LLMRequest.of("q"), threading.Event(), timeout_s=10).text == "ok"
    assert len(fake_llm.requests) == 2


def test_a_deadline_call_honours_the_retry_delay_gemini_asks_for(fake_llm, make_llm):
    """Gemini's 429 names its wait in ``RetryInfo.retryDelay`` ("37s"); the SDK's own backoff
    (1, 2, 4 s) gave up long before a per-minute quota came back."""
    fake_llm.script(Reply.rate_limited(retry_after_s=0.3), "ok")
    b = make_llm("gemini")
    t0 = time.monotonic()
    assert b.complete_until(LLMRequest.of("q"), threading.Event(), timeout_s=10).text == "ok"
    assert time.monotonic() - t0 >= 0.3  # the server's wait, not the 0.01 s backoff
    fake_llm.script(Reply.rate_limited(retry_after_s=30), "not asked")
    t0 = time.monotonic()
    with pytest.raises(RateLimited, match="asked to wait 30s") as ei:
        b.complete_until(LLMRequest.of("q2"), threading.Event(), timeout_s=5)
    assert time.monotonic() - t0 < 1.0 and ei.value.retry_after_s == 30
    assert len(fake_llm.requests) == 3
