"""RecordingBackend writes, ReplayBackend plays back."""

from __future__ import annotations

import json

import pytest

from mlestar_jupyter.llm import (
    ConfigError,
    LLMClient,
    LLMRequest,
    LLMSettings,
    RecordingBackend,
    ReplayBackend,
    ReplayMismatch,
    ReplayWarning,
    Unavailable,
    make_backend,
)

from .fake_server import Reply


def test_recording_writes_one_line_per_call_including_errors(fake_llm, make_llm, tmp_path):
    fake_llm.script("one", Reply(text="two", sources=()), *[Reply.unavailable()] * 3)
    rec = RecordingBackend(make_llm("gemini"), tmp_path / "rec")
    rec.complete(LLMRequest.of("a", system="s"))
    rec.complete(LLMRequest.of("b"))
    with pytest.raises(Unavailable):
        rec.complete(LLMRequest.of("c"))
    lines = [json.loads(x) for x in (tmp_path / "rec" / "calls.jsonl").read_text().splitlines()]
    assert [x.get("response", {}).get("text") for x in lines] == ["one", "two", None]
    assert lines[0]["request"]["messages"][0] == {"role": "system", "content": "s"}
    assert lines[0]["backend"] == "gemini" and lines[0]["model"] == "fake-model"
    assert lines[2]["error"]["type"] == "Unavailable" and lines[2]["error"]["status"] == 503
    assert rec.cache_identity() == "gemini:fake-model"


def _record(make_llm, fake_llm, tmp_path, prompts):
    fake_llm.script(*[f"answer to {p}" for p in prompts])
    rec = RecordingBackend(make_llm("openai"), tmp_path / "calls.jsonl")
    for p in prompts:
        rec.complete(LLMRequest.of(p))
    return tmp_path / "calls.jsonl"


def test_replay_plays_back_in_order_without_the_network(fake_llm, make_llm, tmp_path):
    path = _record(make_llm, fake_llm, tmp_path, ["a", "b", "a"])
    n = len(fake_llm.requests)
    r = ReplayBackend(path)
    assert [r.complete(LLMRequest.of(p)).text for p in ["a", "b", "a"]] == [
        "answer to a",
        "answer to b",
        "answer to a",
    ]
    assert len(fake_llm.requests) == n and r.remaining == 0 and r.model == "fake-model"
    with pytest.raises(ReplayMismatch, match="no answers left"):
        r.complete(LLMRequest.of("a"))


def test_replay_matches_requests_asked_out_of_order(fake_llm, make_llm, tmp_path):
    r = ReplayBackend(_record(make_llm, fake_llm, tmp_path, ["a", "b", "c"]))
    assert r.complete(LLMRequest.of("c")).text == "answer to c"
    assert r.complete(LLMRequest.of("a")).text == "answer to a"


def test_replay_mismatch_warns_or_fails_when_strict(fake_llm, make_llm, tmp_path):
    path = _record(make_llm, fake_llm, tmp_path, ["a", "b"])
    with pytest.warns(ReplayWarning, match="another request"):
        assert ReplayBackend(path).complete(LLMRequest.of("changed prompt")).text == "answer to a"
    with pytest.raises(ReplayMismatch, match="changed prompt"):
        ReplayBackend(path, strict=True).complete(LLMRequest.of("changed prompt"))


def test_replay_raises_recorded_errors(tmp_path):
    line = {
        "fingerprint": "x",
        "request": {"messages": [{"role": "user", "content": "q"}]},
        "error": {"type": "RateLimited", "message": "429 quota", "status": 429},
    }
    (tmp_path / "calls.jsonl").write_text(json.dumps(line) + "\n")
    with pytest.warns(ReplayWarning), pytest.raises(Exception) as ei:
        ReplayBackend(tmp_path).complete(LLMRequest.of("q"))
    assert type(ei.value).__name__ == "RateLimited" and ei.value.status == 429


def test_client_cache_dir_is_a_replayable_recording(make_client, fake_llm, tmp_path):
    fake_llm.script("x1", "x2")
    c = make_client("gemini", cache_dir=tmp_path / "run1" / "llm")
    c.complete(LLMRequest.of("p1", role="coder"))
    c.complete(LLMRequest.of("p2", role="coder"))
    c.complete(LLMRequest.of("p1", role="coder"))  # a cache hit is not recorded twice
    assert len((tmp_path / "run1" / "llm" / "calls.jsonl").read_text().splitlines()) == 2
    settings = LLMSettings(
        backend="replay", replay_path=str(tmp_path / "run1" / "llm"), replay_strict=True
    )
    replay = LLMClient(make_backend(settings), cache_dir=tmp_path / "run2" / "llm")
    assert [replay.complete(LLMRequest.of(p)).text for p in ("p1", "p2")] == ["x1", "x2"]
    assert replay.backend.id == "replay"


def test_replay_from_a_cache_folder_without_calls_jsonl(make_client, fake_llm, tmp_path):
    fake_llm.script("only")
    make_client("openai", cache_dir=tmp_path / "c", record=False).complete(LLMRequest.of("p"))
    assert not (tmp_path / "c" / "calls.jsonl").exists()
    r = ReplayBackend(tmp_path / "c", strict=True)
    assert r.complete(LLMRequest.of("p")).text == "only" and r.model == "fake-model"


def test_replay_config_errors(tmp_path):
    with pytest.raises(ConfigError, match="no recording"):
        ReplayBackend(tmp_path / "missing")
    with pytest.raises(ConfigError, match="replay_path"):
        make_backend(LLMSettings(backend="replay"))
    (tmp_path / "bad.jsonl").write_text("{not json\n")
    with pytest.raises(ConfigError, match="bad.jsonl:1"):
        ReplayBackend(tmp_path / "bad.jsonl")
