"""The fake server's own wire behaviour, checked with a raw HTTP client."""

from __future__ import annotations

import json

import httpx
import pytest

from .fake_server import FakeLLMServer, Reply


@pytest.mark.parametrize(
    "prefix", ["/v1", "/v1beta", "/v1beta1/projects/p/locations/us-central1/publishers/google"]
)
def test_gemini_routes_with_any_version_prefix(fake_llm, prefix):
    fake_llm.script("hi")
    r = httpx.post(
        f"{fake_llm.url}{prefix}/models/gemini-x:generateContent",
        json={"contents": [{"role": "user", "parts": [{"text": "q"}]}]},
    )
    body = r.json()
    assert r.status_code == 200 and body["candidates"][0]["content"]["parts"][0]["text"] == "hi"
    assert (
        body["candidates"][0]["finishReason"] == "STOP"
        and body["usageMetadata"]["promptTokenCount"] == 12
    )
    assert fake_llm.requests[0].model == "gemini-x" and fake_llm.requests[0].prompt == "q"


def test_gemini_sse_framing(fake_llm):
    fake_llm.script(Reply(text="abcdefghi", finish="length"))
    r = httpx.post(
        f"{fake_llm.url}/v1/models/m:streamGenerateContent?alt=sse", json={"contents": []}
    )
    assert r.headers["content-type"] == "text/event-stream"
    events = r.text.split("\r\n\r\n")
    assert events[-1] == "" and all(e.startswith("data: ") for e in events[:-1])
    chunks = [json.loads(e[6:]) for e in events[:-1]]
    assert "".join(c["candidates"][0]["content"]["parts"][0]["text"] for c in chunks) == "abcdefghi"
    assert (
        chunks[-1]["candidates"][0]["finishReason"] == "MAX_TOKENS"
        and "finishReason" not in chunks[0]["candidates"][0]
    )


def test_openai_sse_ends_with_done(fake_llm):
    fake_llm.script("streamed")
    r = httpx.post(
        f"{fake_llm.openai_url}/chat/completions",
        json={
            "model": "m",
            "messages": [{"role": "user", "content": "q"}],
            "stream": True,
            "stream_options": {"include_usage": True},
        },
    )
    datas = [line[6:] for line in r.text.splitlines() if line.startswith("data: ")]
    assert datas[-1] == "[DONE]"
    chunks = [json.loads(d) for d in datas[:-1]]
    assert (
        "".join(c["choices"][0]["delta"].get("content", "") for c in chunks if c["choices"])
        == "streamed"
    )
    assert (
        chunks[-1]["usage"]["prompt_tokens"] == 12
        and chunks[-2]["choices"][0]["finish_reason"] == "stop"
    )


def test_script_exhausted_routes_and_responder_errors(fake_llm):
    def broken(req):
        raise RuntimeError("bug in responder")

    fake_llm.on("special", "routed", repeat=True).script("queued", broken)

    def post(text):
        return httpx.post(
            f"{fake_llm.openai_url}/chat/completions",
            json={"model": "m", "messages": [{"role": "user", "content": text}]},
        )

    assert post("a special one").json()["choices"][0]["message"]["content"] == "routed"
    assert post("plain").json()["choices"][0]["message"]["content"] == "queued"
    assert post("plain").status_code == 500 and "bug in responder" in fake_llm.errors[0]
    assert post("special again").json()["choices"][0]["message"]["content"] == "routed"
    r = post("plain")
    assert r.status_code == 418 and "no scripted reply left" in r.json()["error"]["message"]
    assert httpx.get(f"{fake_llm.openai_url}/models").json()["data"][0]["id"] == "fake-model"


def test_server_stops_and_frees_its_port():
    with FakeLLMServer() as srv:
        url = srv.url
        srv.script(Reply.timeout(30))
    with pytest.raises(httpx.ConnectError):
        httpx.post(url + "/v1/chat/completions", json={}, timeout=1)
