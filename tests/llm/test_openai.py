"""OpenAIBackend against the fake server, through the real openai client."""

from __future__ import annotations

import pytest

from mlestar_jupyter.llm import (
    AuthFailed,
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
