"""OpenAIBackend against the fake server, through the real openai client."""

from __future__ import annotations

import threading
import time

import pytest

from mlestar_jupyter.llm import (
    AuthFailed,
    BadRequest,
    LLMRequest,
    LLMSettings,
    MalformedReply,
    OpenAIBackend,
    RateLimited,
    SearchUnavailable,
    Unavailable,
)

from .fake_server import FakeLLMServer, Reply

SCHEMA = {
    "title": "Point",
    "type": "object",
    "properties": {"x": {"type": "integer"}},
    "required": ["x"],
}


def test_sends_messages_parameters_and_bearer_key(fake_llm, make_llm):
    fake_llm.script(Reply(text="hello", prompt_tokens=30, completion_tokens=4))
    resp = make_llm("openai").complete(
        LLMRequest.of("Hi", system="Be brief.", temperature=0.1, max_tokens=64)
    )
    assert (resp.text, resp.finish_reason, resp.model) == ("hello", "stop", "fake-model")
    assert (resp.usage.prompt_tokens, resp.usage.completion_tokens) == (30, 4)
    (sent,) = fake_llm.requests
    assert (
        sent.path == "/v1/chat/completions" and sent.headers["authorization"] == "Bearer test-key"
    )
    assert sent.body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Hi"},
    ]
    assert (
        sent.body["temperature"] == 0.1
        and sent.body["max_tokens"] == 64
        and "response_format" not in sent.body
    )


def test_settings_defaults_apply_when_request_has_none(fake_llm, make_llm):
    fake_llm.script("x")
    make_llm("openai", temperature=0.7, max_tokens=99).complete(LLMRequest.of("Hi"))
    assert (
        fake_llm.requests[0].body["temperature"] == 0.7
        and fake_llm.requests[0].body["max_tokens"] == 99
    )


def test_json_schema_response_format(fake_llm, make_llm):
    fake_llm.script('{"x": 1}')
    make_llm("openai").complete(LLMRequest.of("p", json_schema=SCHEMA))
    sent = fake_llm.requests[0]
    assert sent.response_format == "json_schema" and sent.schema == SCHEMA
    assert sent.body["response_format"]["json_schema"]["name"] == "Point"


def test_json_schema_rejected_falls_back_to_json_object_and_remembers():
    with FakeLLMServer(reject_json_schema=True, retry_after_ms=1) as srv:
        srv.script('{"x": 1}', '{"x": 2}')
        b = OpenAIBackend(srv.settings("openai"), env={})
        assert b.complete(LLMRequest.of("give x", json_schema=SCHEMA)).text == '{"x": 1}'
        first, second = srv.requests
        assert first.response_format == "json_schema"  # refused with 500, not retried
        assert (
            second.response_format == "json_object"
            and "JSON schema" in second.prompt
            and '"x"' in second.prompt
        )
        assert second.prompt.startswith("give x")  # schema appended to the user's turn
        assert b.json_mode == "json_object"
        b.complete(LLMRequest.of("again", json_schema=SCHEMA))
        assert [r.response_format for r in srv.requests[2:]] == ["json_object"]


def test_json_object_refused_too_falls_back_to_prompt_only(fake_llm, make_llm):
    def refuse(req):
        return (
            Reply.error(400, "response_format not supported")
            if req.response_format
            else Reply(text='{"x": 3}')
        )

    fake_llm.default = refuse
    b = make_llm("openai")
    assert b.complete(LLMRequest.of("p", json_schema=SCHEMA)).text == '{"x": 3}'
    assert [r.response_format for r in fake_llm.requests] == ["json_schema", "json_object", None]
    assert b.json_mode == "prompt"


def test_streaming(fake_llm, make_llm):
    fake_llm.script(Reply(text="streamed answer text", prompt_tokens=5, completion_tokens=3))
    resp = make_llm("openai", stream=True).complete(LLMRequest.of("q"))
    assert fake_llm.requests[0].body["stream"] is True
    assert (
        resp.text,
        resp.finish_reason,
        resp.usage.prompt_tokens,
        resp.usage.completion_tokens,
    ) == ("streamed answer text", "stop", 5, 3)


def test_truncation_is_reported(fake_llm, make_llm):
    fake_llm.script(Reply.truncated("def f(:"))
    resp = make_llm("openai").complete(LLMRequest.of("q"))
    assert resp.finish_reason == "length" and resp.truncated


@pytest.mark.parametrize("fault", [Reply.unavailable(), Reply.rate_limited(), Reply.timeout(1.0)])
def test_transient_faults_are_retried(fake_llm, make_llm, fault):
    fake_llm.script(fault, "ok")
    assert make_llm("openai", timeout_s=0.3).complete(LLMRequest.of("q")).text == "ok"
    assert len(fake_llm.requests) == 2


@pytest.mark.parametrize(
    ("fault", "error"), [(Reply.unavailable(), Unavailable), (Reply.rate_limited(), RateLimited)]
)
def test_persistent_faults_map(fake_llm, make_llm, fault, error):
    fake_llm.script(fault, fault)
    with pytest.raises(error):
        make_llm("openai", retries=1).complete(LLMRequest.of("q"))
    assert len(fake_llm.requests) == 2


def test_timeout_maps_to_unavailable(fake_llm, make_llm):
    fake_llm.script(Reply.timeout(1.0))
    with pytest.raises(Unavailable, match="within 0.2s"):
        make_llm("openai", timeout_s=0.2, retries=0).complete(LLMRequest.of("q"))


def test_wrong_key_is_auth_failed_not_retried():
    with FakeLLMServer(require_key="right", retry_after_ms=1) as srv:
        b = OpenAIBackend(srv.settings("openai", api_key="wrong"), env={})
        with pytest.raises(AuthFailed, match="OPENAI_API_KEY"):
            b.complete(LLMRequest.of("q"))
        assert len(srv.requests) == 1


def test_invalid_json_body_is_malformed_reply(fake_llm, make_llm):
    fake_llm.script(Reply.invalid_json())
    with pytest.raises(MalformedReply):
        make_llm("openai").complete(LLMRequest.of("q"))


def test_search_is_unavailable_without_sending(fake_llm, make_llm):
    with pytest.raises(SearchUnavailable, match="catalog"):
        make_llm("openai").complete(LLMRequest.of("q", search=True))
    assert fake_llm.requests == []


def test_keys_and_base_url_from_env(fake_llm):
    fake_llm.script("x")
    b = OpenAIBackend(
        LLMSettings(backend="openai", timeout_s=5),
        env={"OPENAI_BASE_URL": fake_llm.openai_url, "OPENAI_API_KEY": "sk-env"},
    )
    b.complete(LLMRequest.of("q"))
    assert fake_llm.requests[0].api_key == "sk-env" and fake_llm.requests[0].model == "gpt-4o-mini"
    local = OpenAIBackend(
        LLMSettings(backend="openai", base_url=fake_llm.openai_url), env={}
    )  # local server: no key needed
    fake_llm.script("y")
    assert local.complete(LLMRequest.of("q")).text == "y"
    with pytest.raises(AuthFailed):
        OpenAIBackend(LLMSettings(backend="openai"), env={})
    custom = OpenAIBackend(
        LLMSettings(backend="openai", base_url=fake_llm.openai_url, api_key_env="MY_KEY"),
        env={"MY_KEY": "mine"},
    )
    fake_llm.script("z")
    custom.complete(LLMRequest.of("q"))
    assert fake_llm.requests[-1].api_key == "mine"


def test_transient_error_during_the_json_schema_probe_is_retried_not_degraded(fake_llm, make_llm):
    fake_llm.script(Reply.error(429), '{"x": 1}', Reply.error(500), '{"x": 2}')
    b = make_llm("openai")
    assert b.complete(LLMRequest.of("p", json_schema=SCHEMA)).text == '{"x": 1}'
    assert b.json_mode == "json_schema"
    # once json_schema has worked, a 500 is a server fault (retried by the SDK), not a refusal
    assert b.complete(LLMRequest.of("p2", json_schema=SCHEMA)).text == '{"x": 2}'
    assert [r.response_format for r in fake_llm.requests] == ["json_schema"] * 4


@pytest.mark.parametrize("stream", [False, True])
def test_a_web_page_where_the_api_should_be_says_to_check_the_base_url(fake_llm, make_llm, stream):
    """A base URL that points at a server's web UI: its index.html with HTTP 200.  Without
    streaming this was "'str' object has no attribute 'choices'"; streamed, an empty answer
    that every role then called "no JSON value found"."""
    fake_llm.script(
        Reply(raw_body="<!doctype html><html><body>Open WebUI</body></html>", raw_type="text/html")
    )
    with pytest.raises(MalformedReply, match="check the base URL"):
        make_llm("openai", stream=stream).complete(LLMRequest.of("q"))


def test_an_error_object_in_a_stream_is_an_unavailable_server(fake_llm, make_llm):
    """llama.cpp streams ``data: {"error": ...}`` with HTTP 200 while its model loads: a raw
    ``openai.APIError`` before, not an LLM error the run handles."""
    body = 'data: {"error": {"message": "model is loading, please retry", "code": 503}}\n\n'
    fake_llm.script(Reply(raw_body=body, raw_type="text/event-stream"))
    with pytest.raises(Unavailable, match="model is loading"):
        make_llm("openai", stream=True).complete(LLMRequest.of("q"))


def test_an_answer_only_in_reasoning_says_so(fake_llm, make_llm):
    """vLLM / DeepSeek put the thoughts in ``reasoning_content``; with ``content`` null the
    answer was an empty text ("no JSON value found")."""
    body = (
        '{"id": "x", "object": "chat.completion", "created": 1, "model": "m", "choices": [{'
        '"index": 0, "finish_reason": "length", "message": {"role": "assistant", '
        '"content": null, "reasoning_content": "Let me think about the columns ..."}}]}'
    )
    fake_llm.script(Reply(raw_body=body))
    with pytest.raises(MalformedReply, match="only in its reasoning"):
        make_llm("openai", stream=False).complete(LLMRequest.of("q"))


# ---------------------------------------------------------------------- json_schema: refusal or fault


@pytest.mark.parametrize("deadline", [None, 30.0], ids=["plain call", "run call"])
def test_a_transient_500_on_the_first_structured_call_keeps_json_schema(
    fake_llm, make_llm, deadline
):
    """A 500 that names nothing on the very first structured call (a server restarting) made
    the backend drop json_schema for the rest of the run: it is retried instead."""
    fake_llm.script(Reply.error(500, "Internal Server Error"), '{"x": 1}', '{"x": 2}')
    b = make_llm("openai")

    def ask(prompt: str) -> str:
        req = LLMRequest.of(prompt, json_schema=SCHEMA)
        if deadline is None:
            return b.complete(req).text
        return b.complete_until(req, threading.Event(), timeout_s=deadline).text

    assert ask("p") == '{"x": 1}'
    assert ask("p2") == '{"x": 2}'
    assert b.json_mode == "json_schema"
    assert [r.response_format for r in fake_llm.requests] == ["json_schema"] * 3


@pytest.mark.parametrize("fault", [Reply.error(502, "Bad Gateway"), Reply.timeout(1.0)])
def test_a_server_down_on_the_first_structured_call_is_unavailable_and_json_schema_stays(
    fake_llm, make_llm, fault
):
    fake_llm.script(fault, fault, fault)  # the probe, then the SDK's try and its one retry
    b = make_llm("openai", retries=1, timeout_s=0.3)
    with pytest.raises(Unavailable):
        b.complete(LLMRequest.of("p", json_schema=SCHEMA))
    assert b.json_mode == "json_schema"
    fake_llm.script('{"x": 3}')
    assert b.complete(LLMRequest.of("p2", json_schema=SCHEMA)).text == '{"x": 3}'
    assert {r.response_format for r in fake_llm.requests} == {"json_schema"}


@pytest.mark.parametrize(
    ("status", "message"),
    [
        # llama-cpp-python: its request validation, answered as an internal error
        (
            500,
            "[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
            "'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}]",
        ),
        # text-generation-inference
        (
            422,
            "Failed to deserialize the JSON body into the target type: response_format: "
            "unknown variant `json_schema`, expected `json` or `regex`",
        ),
        # OpenAI, for a model without structured outputs
        (
            400,
            "Invalid parameter: 'response_format' of type 'json_schema' is not supported with "
            "this model.",
        ),
        (501, "Not Implemented"),
    ],
)
def test_a_refusal_that_names_the_format_degrades(fake_llm, make_llm, status, message):
    fake_llm.script(Reply.error(status, message), '{"x": 1}')
    b = make_llm("openai")
    assert b.complete(LLMRequest.of("p", json_schema=SCHEMA)).text == '{"x": 1}'
    assert [r.response_format for r in fake_llm.requests] == ["json_schema", "json_object"]
    assert b.json_mode == "json_object"


def test_a_bad_request_about_something_else_is_not_a_refusal_of_the_format(fake_llm, make_llm):
    fake_llm.script(Reply.error(400, "This model's maximum context length is 8192 tokens."))
    b = make_llm("openai")
    with pytest.raises(BadRequest, match="context length"):
        b.complete(LLMRequest.of("p", json_schema=SCHEMA))
    assert b.json_mode == "json_schema" and len(fake_llm.requests) == 1


# ---------------------------------------------------------------------- calls with a deadline


def test_a_call_with_a_deadline_ends_by_it_even_when_the_server_holds_it(fake_llm, make_llm):
    """Each try waited the settings' timeout (5 s here, 180 s by default), then the SDK tried
    again: an abandoned call held its concurrency slot, and the server, for minutes."""
    fake_llm.script(Reply("too late", delay_s=3), Reply("too late", delay_s=3))
    b = make_llm("openai", timeout_s=5, retries=2)
    t0 = time.monotonic()
    with pytest.raises(Unavailable):
        b.complete_until(LLMRequest.of("q"), threading.Event(), timeout_s=0.5)
    assert time.monotonic() - t0 < 1.5
    assert len(fake_llm.requests) == 1  # no retry started past the deadline


def test_a_deadline_call_honours_retry_after_when_it_fits():
    with FakeLLMServer() as srv:  # no server-wide retry-after-ms: the reply's own header counts
        srv.script(Reply.rate_limited(retry_after_s=0.3), "ok")
        b = OpenAIBackend(srv.settings("openai"), env={})
        t0 = time.monotonic()
        assert b.complete_until(LLMRequest.of("q"), threading.Event(), timeout_s=10).text == "ok"
        assert time.monotonic() - t0 >= 0.3  # the server's wait, not the 0.01 s backoff


def test_a_deadline_call_does_not_wait_longer_than_it_has_for_a_rate_limit():
    with FakeLLMServer() as srv:
        srv.script(Reply.rate_limited(retry_after_s=30), "ok")
        b = OpenAIBackend(srv.settings("openai"), env={})
        t0 = time.monotonic()
        with pytest.raises(RateLimited, match="asked to wait 30s") as ei:
            b.complete_until(LLMRequest.of("q"), threading.Event(), timeout_s=5)
        assert time.monotonic() - t0 < 1.0 and ei.value.retry_after_s == 30
        assert len(srv.requests) == 1
