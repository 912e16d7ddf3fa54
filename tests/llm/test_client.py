"""LLMClient: cache, journal, budgets, concurrency and thread safety."""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

import pytest

from mlestar_jupyter.llm import (
    BudgetExceeded,
    Cancelled,
    LLMBudget,
    LLMClient,
    LLMRequest,
    Truncated,
    Unavailable,
)
from mlestar_jupyter.llm.cache import DiskCache, request_key
from mlestar_jupyter.llm.pricing import estimate_cost, price_of
from mlestar_jupyter.llm.types import Usage

from .fake_server import Reply


@pytest.mark.parametrize("backend", ["gemini", "openai"])
def test_cache_hit_repays_nothing(make_client, fake_llm, tmp_path, backend):
    fake_llm.script(
        Reply(text="answer", prompt_tokens=100, completion_tokens=50, model="gemini-2.5-flash")
    )
    records = []
    c = make_client(backend, on_call=records.append)
    first = c.complete(LLMRequest.of("q", role="coder"))
    second = c.complete(LLMRequest.of("q", role="coder"))
    assert len(fake_llm.requests) == 1
    assert not first.cached and first.cost_usd > 0
    assert second.cached and second.text == "answer" and second.cost_usd == 0.0
    assert [r["cached"] for r in records] == [False, True]
    assert c.stats.calls == 1 and c.stats.cache_hits == 1 and c.stats.prompt_tokens == 100


def test_resumed_run_reads_the_cache_of_the_previous_one(make_client, fake_llm, tmp_path):
    fake_llm.script("one")
    make_client("openai", cache_dir=tmp_path / "run").complete(LLMRequest.of("q"))
    again = make_client("openai", cache_dir=tmp_path / "run").complete(LLMRequest.of("q"))
    assert again.cached and again.text == "one" and len(fake_llm.requests) == 1


def test_salt_parameters_and_schema_change_the_key(make_client, fake_llm):
    fake_llm.default = lambda req: Reply(text=f"#{len(fake_llm.requests)}")
    c = make_client("openai")
    texts = {
        c.complete(LLMRequest.of("q")).text,
        c.complete(LLMRequest.of("q", salt="2")).text,
        c.complete(LLMRequest.of("q", temperature=0.5)).text,
        c.complete(LLMRequest.of("q", json_schema={"type": "object"})).text,
        c.complete(LLMRequest.of("q", system="s")).text,
    }
    assert len(texts) == 5 and len(fake_llm.requests) == 5
    assert c.complete(
        LLMRequest.of("q", role="another role")
    ).cached  # role is for the journal only


def test_cache_key_depends_on_backend_and_model():
    r = LLMRequest.of("q")
    assert request_key("gemini:a", r) != request_key("gemini:b", r) != request_key("openai:a", r)
    assert request_key("gemini:a", r) == request_key("gemini:a", LLMRequest.of("q"))


def test_cache_is_written_before_the_journal_hook_runs(make_client, fake_llm, tmp_path):
    """A crash right after the answer arrives (here: a failing journal hook) does not lose it."""
    fake_llm.script("precious")

    def crash(record):
        raise KeyboardInterrupt("killed")

    with pytest.raises(KeyboardInterrupt):
        make_client("openai", cache_dir=tmp_path / "c", on_call=crash).complete(LLMRequest.of("q"))
    files = list((tmp_path / "c").rglob("*"))
    assert not [f for f in files if f.name.endswith(".tmp")]
    entry = json.loads(next(f for f in files if f.suffix == ".json").read_text())
    assert (
        entry["response"]["text"] == "precious"
        and entry["request"]["messages"][0]["content"] == "q"
    )
    assert (
        make_client("openai", cache_dir=tmp_path / "c").complete(LLMRequest.of("q")).text
        == "precious"
    )
    assert len(fake_llm.requests) == 1


def test_unreadable_cache_entry_is_a_miss(tmp_path):
    cache = DiskCache(tmp_path)
    key = "ab" + "0" * 62
    (tmp_path / "ab").mkdir()
    (tmp_path / "ab" / f"{key}.json").write_text("{half")
    assert cache.get(key) is None


def test_journal_record(make_client, fake_llm):
    fake_llm.script(
        Reply(text="hi", prompt_tokens=7, completion_tokens=3),
        Reply.unavailable(),
        Reply.unavailable(),
        Reply.unavailable(),
    )
    records = []
    c = make_client("openai", on_call=records.append, settings={"retries": 2})
    c.complete(LLMRequest.of("q", role="planner", system="sys"))
    with pytest.raises(Unavailable):
        c.complete(LLMRequest.of("other", role="coder"))
    ok, failed = records
    assert ok["role"] == "planner" and ok["backend"] == "openai" and ok["model"] == "fake-model"
    assert ok["response"] == "hi" and ok["prompt_tokens"] == 7 and ok["completion_tokens"] == 3
    assert ok["request"]["messages"] == [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "q"},
    ]
    assert (
        ok["latency_s"] > 0
        and ok["cached"] is False
        and ok["error"] is None
        and ok["finish_reason"] == "stop"
    )
    assert failed["role"] == "coder" and failed["response"] is None
    assert failed["error"]["type"] == "Unavailable" and failed["error"]["retryable"] is True
    json.dumps(records)  # JSON-able
    assert c.stats.calls == 2 and c.stats.failures == 1


def test_call_budget_is_checked_before_sending(make_client, fake_llm):
    fake_llm.script("a", "b", "c")
    c = make_client("openai", budget=LLMBudget(max_calls=2))
    c.complete(LLMRequest.of("1"))
    c.complete(LLMRequest.of("2"))
    with pytest.raises(BudgetExceeded, match="max_calls=2"):
        c.complete(LLMRequest.of("3"))
    assert len(fake_llm.requests) == 2
    assert c.complete(LLMRequest.of("1")).cached  # cache hits stay free


def test_token_budget_raises_after_the_overshooting_call(make_client, fake_llm):
    fake_llm.script(
        Reply(text="a", prompt_tokens=60, completion_tokens=10),
        Reply(text="b", prompt_tokens=60, completion_tokens=10),
        "c",
    )
    c = make_client("openai", budget=LLMBudget(max_tokens=100))
    c.complete(LLMRequest.of("1"))
    with pytest.raises(BudgetExceeded, match="max_tokens=100") as ei:
        c.complete(LLMRequest.of("2"))
    assert ei.value.response.text == "b"  # the paid answer is not lost
    with pytest.raises(BudgetExceeded):
        c.complete(LLMRequest.of("3"))
    assert len(fake_llm.requests) == 2


def test_cost_budget_uses_the_price_table(make_client, fake_llm):
    fake_llm.script(
        Reply(text="a", prompt_tokens=1_000_000, completion_tokens=0, model="gpt-4o-mini"), "b"
    )
    records = []
    c = make_client("openai", budget=LLMBudget(max_cost_usd=0.10), on_call=records.append)
    with pytest.raises(BudgetExceeded, match="cost"):
        c.complete(LLMRequest.of("1"))
    assert records[0]["cost_usd"] == pytest.approx(0.15)
    assert c.stats.cost_usd == pytest.approx(0.15)


def test_price_table():
    assert price_of("gemini-2.5-flash-001") == price_of("gemini-2.5-flash")
    assert price_of("models/gemini-2.5-flash-lite") == (0.10, 0.40)
    assert price_of("qwen2.5-coder-1.5b") is None
    assert estimate_cost("local", Usage(10**6, 10**6)) == 0.0
    assert estimate_cost("gemini-2.5-pro", Usage(10**6, 10**6)) == pytest.approx(11.25)
    assert estimate_cost("custom", Usage(10**6, 0), {"custom": (2.0, 0.0)}) == 2.0


def test_budget_from_run_config():
    # agent.config.Budget's field names (importing mlestar_jupyter.agent costs seconds)
    budget = SimpleNamespace(wall_seconds=1.0, max_llm_calls=5, max_tokens=6, max_cost_usd=7.0)
    b = LLMBudget.from_run_budget(budget)
    assert (b.max_calls, b.max_tokens, b.max_cost_usd) == (5, 6, 7.0)


def test_truncated_answer_raises_with_the_partial_answer(make_client, fake_llm):
    fake_llm.script(Reply.truncated("partial"), Reply.truncated("partial"))
    with pytest.raises(Truncated) as ei:
        make_client("gemini").complete(LLMRequest.of("q"))
    assert ei.value.response.text == "partial" and ei.value.retryable
    assert (
        make_client("gemini", cache=False, allow_truncated=True)
        .complete(LLMRequest.of("q"))
        .truncated
    )


def test_concurrency_limit_and_thread_safety(make_client, fake_llm):
    lock = threading.Lock()
    state = {"now": 0, "max": 0}

    def slow(req):
        with lock:
            state["now"] += 1
            state["max"] = max(state["max"], state["now"])
        time.sleep(0.05)
        with lock:
            state["now"] -= 1
        return Reply(text="r:" + req.prompt, prompt_tokens=1, completion_tokens=1)

    fake_llm.default = slow
    c = make_client("openai", concurrency=2)
    with ThreadPoolExecutor(8) as pool:
        texts = list(pool.map(lambda i: c.complete(LLMRequest.of(f"p{i}")).text, range(12)))
    assert texts == [f"r:p{i}" for i in range(12)]
    assert state["max"] == 2
    assert c.stats.calls == 12 and c.stats.prompt_tokens == 12


def test_identical_concurrent_requests_are_sent_once(make_client, fake_llm):
    fake_llm.default = lambda req: Reply(text="same", delay_s=0.1)
    c = make_client("openai", concurrency=4)
    with ThreadPoolExecutor(4) as pool:
        resps = list(pool.map(lambda _: c.complete(LLMRequest.of("same prompt")), range(4)))
    assert len(fake_llm.requests) == 1
    assert sorted(r.cached for r in resps) == [False, True, True, True]


def test_call_budget_holds_under_threads(make_client, fake_llm):
    fake_llm.default = lambda req: Reply(text="x", delay_s=0.02)
    c = make_client("openai", budget=LLMBudget(max_calls=5), concurrency=8)

    def call(i):
        try:
            return c.complete(LLMRequest.of(f"p{i}")).text
        except BudgetExceeded:
            return None

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(call, range(20)))
    assert sum(r is not None for r in results) == 5 and len(fake_llm.requests) == 5


def test_from_settings(fake_llm, tmp_path):
    fake_llm.script("s")
    c = LLMClient.from_settings(fake_llm.settings("openai", concurrency=3), cache_dir=tmp_path)
    assert c.complete(LLMRequest.of("q")).text == "s"
    assert c._sem._value == 3
    c.close()


def test_a_call_never_outlives_the_time_the_run_has_left(make_client, fake_llm):
    fake_llm.script(Reply("slow answer", delay_s=3), Reply("quick"), Reply("after"))
    records: list[dict] = []
    client = make_client(cache=False, concurrency=1, on_call=records.append)
    client.time_left = lambda: 0.5
    t0 = time.monotonic()
    with pytest.raises(Unavailable, match="no answer within the"):
        client.complete(LLMRequest.of("hello", role="debugger"))
    assert time.monotonic() - t0 < 2.0  # not the 3 s the server takes
    client.time_left = lambda: 0.0
    with pytest.raises(Unavailable, match="time is up"):
        client.complete(LLMRequest.of("later", role="init"))
    assert records[-1]["error"] and records[-1]["role"] == "init"


@pytest.mark.parametrize("backend", ["openai", "gemini"])
def test_a_call_cut_off_by_the_budget_frees_its_slot_at_the_deadline(
    make_client, fake_llm, backend
):
    """The late call's own HTTP request went on for the settings' timeout (and the SDK's
    retries after it): the only slot stayed taken, and the next call (the submission, in its
    grace) found none.  The backend is told the time left: its tries end by the deadline."""
    fake_llm.script(Reply("slow answer", delay_s=4), Reply("quick"))
    client = make_client(backend, cache=False, concurrency=1, settings={"stream": False})
    client.time_left = lambda: 0.5
    with pytest.raises(Unavailable, match="no answer within the"):
        client.complete(LLMRequest.of("hello", role="debugger"))
    client.time_left = lambda: 10.0
    t0 = time.monotonic()
    assert client.complete(LLMRequest.of("next", role="submission")).text == "quick"
    assert time.monotonic() - t0 < 1.5  # not the ~3.5 s the server still holds the first
    assert len(fake_llm.requests) == 2  # the first one was not sent again


def test_a_streamed_call_cut_off_by_the_budget_stops_and_frees_the_server(make_client, fake_llm):
    """The lane's rotten-tomatoes run: an ablation call cut off at the budget went on generating,
    so the submission's call found no free slot for its whole grace and the run fell back to the
    catalog.  A cut-off call is streamed and closed: the server stops, the next call gets through."""
    long_answer = "x = 1\n" * 60  # six events, each 2 s late
    fake_llm.script(Reply(long_answer, chunk_delay_s=2.0), Reply("submission code"))
    client = make_client(cache=False, concurrency=1)
    client.time_left = lambda: 1.0
    with pytest.raises(Unavailable, match="no answer within the"):
        client.complete(LLMRequest.of("ablation", role="ablation"))
    client.time_left = lambda: 10.0
    t0 = time.monotonic()
    assert client.complete(LLMRequest.of("submission", role="submission")).text == "submission code"
    assert time.monotonic() - t0 < 3.0  # not the ~10 s the first answer would still stream
    first, second = fake_llm.requests[:2]
    assert first.stream and second.stream  # auto: streamed because the run has a time limit
    deadline = time.monotonic() + 15
    while fake_llm.disconnects < 1 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert fake_llm.disconnects == 1  # the server saw the client go (llama.cpp stops there)


def test_calls_without_a_time_limit_are_not_streamed_unless_asked(make_client, fake_llm):
    fake_llm.script("plain", "plain too")
    client = make_client(cache=False)
    client.complete(LLMRequest.of("a"))
    client.time_left = lambda: 30.0
    client.complete(LLMRequest.of("b"))
    plain, timed = fake_llm.requests[:2]
    assert not plain.stream
    assert timed.stream == (timed.api == "openai")  # Gemini streams only when settings ask


def test_a_stream_without_usage_still_counts_tokens(make_client, fake_llm):
    """llama-cpp-python's server sends no usage in streams: the lane's token columns read 0 and
    a --max-tokens budget never moved.  Chunks are counted (one token each there) and the
    prompt is estimated at four characters a token."""
    fake_llm.script(Reply("a fairly short answer", stream_usage=False))
    client = make_client(cache=False, settings={"stream": True})
    prompt = "p" * 400
    resp = client.complete(LLMRequest.of(prompt))
    assert resp.text == "a fairly short answer"
    assert resp.usage.completion_tokens == 3  # the fake server streams the text in 3 pieces
    assert 100 <= resp.usage.prompt_tokens <= 110
    assert client.stats.tokens == resp.usage.total_tokens


# ---------------------------------------------------------------------- cancel (Ctrl-C)
def _cancel_after(client: LLMClient, fake_llm, seconds: float) -> threading.Thread:
    """Cancel ``client`` ``seconds`` after the server got its first request (as Ctrl-C would)."""

    def later() -> None:
        deadline = time.monotonic() + 10
        while not fake_llm.requests and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(seconds)
        client.cancel("interrupted by Ctrl-C (SIGINT)")

    t = threading.Thread(target=later, daemon=True)
    t.start()
    return t


@pytest.mark.parametrize("time_limit", [None, 60.0], ids=["plain call", "run call (streamed)"])
def test_cancel_abandons_a_call_the_server_holds_and_caches_nothing(
    make_client, fake_llm, tmp_path, time_limit
):
    fake_llm.script(Reply("too late", delay_s=5), Reply("asked again"))
    records: list[dict] = []
    client = make_client(cache=True, on_call=records.append)
    client.time_left = None if time_limit is None else (lambda: time_limit)
    _cancel_after(client, fake_llm, 0.3)
    t0 = time.monotonic()
    with pytest.raises(Cancelled, match="abandoned after .* Ctrl-C") as info:
        client.complete(LLMRequest.of("q", role="retriever"))
    took = time.monotonic() - t0
    assert took < 1.5, f"the cancelled call took {took:.2f}s to give up (the server holds it 5 s)"
    assert "mlestar resume" in str(info.value) and not info.value.retryable
    assert records[-1]["error"]["type"] == "Cancelled" and records[-1]["response"] is None
    assert not list((tmp_path / "llm-cache").glob("??/*.json"))  # no answer cached
    assert fake_llm.requests[0].stream is (time_limit is not None)
    # a cancelled client refuses later calls at once (journaled too), without sending them
    with pytest.raises(Cancelled):
        client.complete(LLMRequest.of("later", role="coder"))
    assert len(fake_llm.requests) == 1 and records[-1]["role"] == "coder"
    # a new client over the same cache (a resumed run) asks the cancelled request again
    fresh = make_client(cache=True)
    assert fresh.complete(LLMRequest.of("q", role="retriever")).text == "asked again"
    assert len(fake_llm.requests) == 2


def test_cancel_stops_reading_a_streamed_answer_and_frees_the_server(make_client, fake_llm):
    fake_llm.script(Reply("x = 1\n" * 60, chunk_delay_s=1.0))
    client = make_client(cache=False, concurrency=1)
    client.time_left = lambda: 60.0
    _cancel_after(client, fake_llm, 1.5)  # the server is mid-stream
    with pytest.raises(Cancelled):
        client.complete(LLMRequest.of("ablation", role="ablation"))
    deadline = time.monotonic() + 5
    while fake_llm.disconnects < 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert fake_llm.disconnects == 1  # the stream was closed: the server stops generating


def test_cancel_wakes_a_call_waiting_for_a_concurrency_slot(make_client, fake_llm):
    fake_llm.script(Reply("slow", delay_s=3))
    client = make_client(cache=False, concurrency=1)
    first = threading.Thread(
        target=lambda: pytest.raises(Cancelled, client.complete, LLMRequest.of("a")), daemon=True
    )
    first.start()
    _cancel_after(client, fake_llm, 0.3)
    t0 = time.monotonic()
    with pytest.raises(Cancelled):
        client.complete(LLMRequest.of("b"))  # waits for the only slot, held by "a"
    assert time.monotonic() - t0 < 1.5
    first.join(2)
    assert not first.is_alive() and len(fake_llm.requests) == 1
