"""``LLMClient``: what the agent calls.  Wraps one backend with a disk cache, a journal hook,
run budgets and a concurrency limit; safe to call from several threads.

Per call::

    key = sha256(backend, model, messages, parameters, schema, salt)
    cache hit  → the stored answer, cached=True, cost 0 (no budget used, nothing sent)
    otherwise  → budget check (calls; tokens/cost already spent) → send (≤ concurrency at once)
               → store in the cache at once → journal → budget check (tokens, cost) → truncation check

``cancel()`` (a run's Ctrl-C) abandons every call in flight at once: the caller gets ``Cancelled``
(journaled with that error type, nothing cached), a streamed answer stops being read, and a call
the backend cannot stop goes on in a daemon thread whose answer is dropped; later calls are
refused.  A resumed run has no answer for such a call in the cache, so it asks it again.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from os import PathLike
from pathlib import Path
from typing import Any

from .backend import Backend
from .cache import DiskCache, request_key
from .errors import BudgetExceeded, Cancelled, LLMError, Truncated, Unavailable
from .pricing import DEFAULT_PRICES, estimate_cost
from .replay import RECORDING_NAME, RecordingBackend
from .types import LLMRequest, LLMResponse

log = logging.getLogger(__name__)

OnCall = Callable[[dict[str, Any]], None]


@dataclass(frozen=True)
class LLMBudget:
    """Limits for one run's LLM use (``None``: no limit)."""

    max_calls: int | None = None
    max_tokens: int | None = None
    max_cost_usd: float | None = None

    @classmethod
    def from_run_budget(cls, budget: Any) -> LLMBudget:
        """From ``agent.config.Budget`` (``max_llm_calls``, ``max_tokens``, ``max_cost_usd``)."""
        return cls(
            getattr(budget, "max_llm_calls", None),
            getattr(budget, "max_tokens", None),
            getattr(budget, "max_cost_usd", None),
        )


@dataclass(frozen=True)
class UsageStats:
    """What a client has used so far.  ``calls`` counts sent requests (failed ones too)."""

    calls: int = 0
    cache_hits: int = 0
    failures: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0

    @property
    def tokens(self) -> int:
        """Prompt plus completion tokens used so far."""
        return self.prompt_tokens + self.completion_tokens


def _timed_out_at(end: float | None, error: BaseException | None) -> bool:
    """Whether a call's ``error`` is its backend giving up at the deadline ``end`` (its HTTP tries
    end by then too): the caller's "no answer within the time left", not the backend's timeout."""
    return end is not None and isinstance(error, Unavailable) and time.monotonic() >= end


class LLMClient:
    """A backend plus cache, journal, budgets and a concurrency limit.

    Parameters
    ----------
    backend:      the backend that answers.
    cache_dir:    folder for the answer cache (e.g. ``run_dir/llm``); None: no cache.
    on_call:      journal hook, called with one record (a JSON-able dict) per call, cache hits and
                  failures included: role, backend, model, key, request, response text, tokens,
                  latency_s, cost_usd, cached, finish_reason, sources, error.
    budget:       run limits; ``BudgetExceeded`` is raised before a call beyond ``max_calls`` and
                  after the call that overshoots ``max_tokens`` / ``max_cost_usd``.
    concurrency:  requests in flight at once.
    prices:       $/1M-token table for the cost estimate (model prefix → (input, output)).
    allow_truncated: return answers cut at max_tokens instead of raising ``Truncated``.
    record:       with a cache_dir, also append every sent call to ``cache_dir/calls.jsonl``
                  (what ``ReplayBackend(cache_dir)`` plays back).
    """

    def __init__(
        self,
        backend: Backend,
        *,
        cache_dir: str | PathLike[str] | None = None,
        on_call: OnCall | None = None,
        budget: LLMBudget | None = None,
        concurrency: int = 4,
        prices: Mapping[str, tuple[float, float]] = DEFAULT_PRICES,
        allow_truncated: bool = False,
        record: bool = True,
    ) -> None:
        self.backend = backend
        self.cache = DiskCache(cache_dir) if cache_dir is not None else None
        # every sent call is also appended to cache_dir/calls.jsonl, so any run can be replayed
        self._send_to: Backend = backend
        if cache_dir is not None and record:
            self._send_to = RecordingBackend(backend, Path(cache_dir) / RECORDING_NAME)
        self.on_call = on_call
        self.budget = budget or LLMBudget()
        self.prices = prices
        self.allow_truncated = allow_truncated
        self._sem = threading.Semaphore(concurrency)
        self._lock = threading.Lock()
        self._stats = UsageStats()
        self._in_flight = 0
        self._key_locks: dict[str, list[Any]] = {}  # key -> [lock, users]
        # seconds the caller still has (None: no limit); a call never outlives it
        self.time_left: Callable[[], float | None] | None = None
        self._cancelled = threading.Event()  # set once by cancel(): calls in flight are abandoned
        self._reason = ""
        self._waiting: set[threading.Event] = set()  # one per call in flight: woken by cancel()

    @classmethod
    def from_settings(cls, settings: Any, **kw: Any) -> LLMClient:
        """A client over ``make_backend(settings)`` with ``settings.concurrency``; ``kw`` as for the constructor."""
        from .factory import make_backend

        kw.setdefault("concurrency", settings.concurrency)
        return cls(make_backend(settings), **kw)

    @property
    def stats(self) -> UsageStats:
        """Usage so far (a snapshot)."""
        with self._lock:
            return self._stats

    # ------------------------------------------------------------------ cancelling

    def cancel(self, reason: str = "the run was stopped") -> None:
        """Abandon every call in flight now and refuse later ones (``Cancelled``); for a stop
        request's callback (Ctrl-C).  Safe from any thread; only the first reason is kept."""
        with self._lock:
            if not self._cancelled.is_set():
                self._reason = reason
                self._cancelled.set()
            waiting = list(self._waiting)
        for ev in waiting:
            ev.set()

    @property
    def cancelled(self) -> bool:
        """Whether :meth:`cancel` was called."""
        return self._cancelled.is_set()

    def _cancelled_error(self, seconds: float | None = None) -> Cancelled:
        after = f" after {seconds:.1f}s in flight" if seconds is not None else ""
        return Cancelled(f"LLM call abandoned{after}: {self._reason}")

    # ------------------------------------------------------------------ the call

    def complete(self, req: LLMRequest) -> LLMResponse:
        """Answer ``req`` from the cache or the backend; see the module docstring for the steps."""
        key = request_key(self.backend.cache_identity(), req)
        with self._one_at_a_time(key):
            hit = self.cache.get(key) if self.cache is not None else None
            if hit is not None:
                resp = replace(hit, cached=True, cost_usd=0.0, latency_s=0.0)
                self._count(cache_hits=1)
                self._journal(req, key, resp, None)
                return self._checked(resp)
            if self._cancelled.is_set():
                err = self._cancelled_error()
                self._journal(req, key, None, err, latency=0.0)
                raise err
            left = self.time_left() if self.time_left is not None else None
            if left is not None and left <= 0:
                late = Unavailable(
                    "the run's time is up: no more LLM calls",
                    hint="give the run a larger --time-limit, or use a faster model",
                )
                self._journal(req, key, None, late, latency=0.0)
                raise late
            self._reserve()
            t0 = time.monotonic()
            try:
                resp = self._send_within(req, left)
            except LLMError as e:
                self._release(failed=True)
                self._journal(req, key, None, e, latency=time.monotonic() - t0)
                raise
            except BaseException:
                self._release(failed=True)
                raise
            cost = resp.cost_usd or estimate_cost(
                resp.model or self.backend.model, resp.usage, self.prices
            )
            resp = replace(
                resp, cost_usd=cost, latency_s=resp.latency_s or time.monotonic() - t0, cached=False
            )
            if self.cache is not None:
                self.cache.put(key, req, resp, backend=self.backend.cache_identity(), role=req.role)
            self._release(resp=resp)
            self._journal(req, key, resp, None)
            self._check_spent(resp)
            return self._checked(resp)

    def _send_within(self, req: LLMRequest, seconds: float | None) -> LLMResponse:
        """The backend's answer; ``Unavailable`` when none comes within ``seconds`` (None: no
        limit), ``Cancelled`` as soon as :meth:`cancel` is called.  The call runs in a daemon
        thread, so the caller can stop waiting: a late or cancelled call goes on there (holding
        its concurrency slot until it ends) and its answer is dropped.  Backends that can
        (streamed OpenAI-compatible calls) stop such a call, so the slot and the server are free
        for the next one (the submission)."""
        t0 = time.monotonic()
        end = None if seconds is None else t0 + seconds
        wake = threading.Event()  # the call ended, or cancel() was called
        with self._lock:
            self._waiting.add(wake)
        try:
            self._take_slot(end, wake)
            return self._wait_for_answer(req, end, wake, t0)
        finally:
            with self._lock:
                self._waiting.discard(wake)

    def _take_slot(self, end: float | None, wake: threading.Event) -> None:
        """A concurrency slot, waited for in short steps so a cancel or the deadline ends the wait."""
        while not self._sem.acquire(timeout=0.05):
            if self._cancelled.is_set():
                raise self._cancelled_error()
            if end is not None and time.monotonic() >= end:
                raise Unavailable(
                    "no free LLM slot within the time the run had left (a call is still running)",
                    hint="give the run a larger --time-limit, or use a faster model",
                )

    def _wait_for_answer(
        self, req: LLMRequest, end: float | None, wake: threading.Event, t0: float
    ) -> LLMResponse:
        """Send ``req`` (a slot is held) in a daemon thread and wait for it, the deadline or a cancel."""
        stop_call = threading.Event()  # tells a backend that can stop midway to do so
        box: dict[str, Any] = {}
        # with a deadline (a run's calls), the backend's stoppable form (OpenAI: streamed), told
        # the seconds left so that its HTTP tries and retries end by then too (an abandoned call
        # frees its slot and the server at the deadline, not after its own timeout and retries);
        # without one, the plain call as sent before (it can still be abandoned)
        send = (
            (lambda: self._send_to.complete(req))
            if end is None
            else (
                lambda: self._send_to.complete_until(
                    req, stop_call, timeout_s=max(0.0, end - time.monotonic())
                )
            )
        )

        def work() -> None:
            try:
                box["resp"] = send()
            except BaseException as e:  # noqa: BLE001 - handed to the waiting caller
                box["error"] = e
            finally:
                self._sem.release()
                wake.set()

        threading.Thread(target=work, name="mlestar-llm-call", daemon=True).start()
        finished = wake.wait(None if end is None else max(0.0, end - time.monotonic()))
        if self._cancelled.is_set() and "resp" not in box:
            stop_call.set()  # a streamed call stops reading and closes its connection
            raise self._cancelled_error(time.monotonic() - t0)
        if not finished or _timed_out_at(end, box.get("error")):
            stop_call.set()  # a streamed call stops and frees its slot (and the server)
            raise Unavailable(
                f"no answer within the {end - t0 if end else 0:.1f}s the run had left",
                hint="give the run a larger --time-limit, or use a faster model",
            )
        if "error" in box:
            raise box["error"]
        return box["resp"]  # type: ignore[no-any-return]

    def _checked(self, resp: LLMResponse) -> LLMResponse:
        if resp.truncated and not self.allow_truncated:
            raise Truncated(
                f"the answer was cut off at the token limit after {resp.usage.completion_tokens} tokens",
                response=resp,
            )
        return resp

    # ------------------------------------------------------------------ budget and stats

    def _reserve(self) -> None:
        b = self.budget
        with self._lock:
            s = self._stats
            if b.max_calls is not None and s.calls + self._in_flight >= b.max_calls:
                raise BudgetExceeded(
                    f"LLM call budget spent: {s.calls} of max_calls={b.max_calls} made"
                )
            self._over_limits(s)
            self._in_flight += 1

    def _over_limits(self, s: UsageStats, resp: LLMResponse | None = None) -> None:
        b = self.budget
        if b.max_tokens is not None and s.tokens >= b.max_tokens:
            raise BudgetExceeded(
                f"LLM token budget spent: {s.tokens} tokens used, max_tokens={b.max_tokens}",
                response=resp,
            )
        if b.max_cost_usd is not None and s.cost_usd >= b.max_cost_usd:
            raise BudgetExceeded(
                f"LLM cost budget spent: ${s.cost_usd:.4f} used, max_cost_usd=${b.max_cost_usd:.4f}",
                response=resp,
            )

    def _check_spent(self, resp: LLMResponse) -> None:
        with self._lock:
            s = self._stats
        b = self.budget
        if (b.max_tokens is not None and s.tokens > b.max_tokens) or (
            b.max_cost_usd is not None and s.cost_usd > b.max_cost_usd
        ):
            self._over_limits(s, resp)

    def _release(self, *, resp: LLMResponse | None = None, failed: bool = False) -> None:
        with self._lock:
            self._in_flight -= 1
            s = self._stats
            if resp is None:
                self._stats = replace(s, calls=s.calls + 1, failures=s.failures + int(failed))
            else:
                self._stats = replace(
                    s,
                    calls=s.calls + 1,
                    prompt_tokens=s.prompt_tokens + resp.usage.prompt_tokens,
                    completion_tokens=s.completion_tokens + resp.usage.completion_tokens,
                    cost_usd=s.cost_usd + resp.cost_usd,
                )

    def _count(self, *, cache_hits: int) -> None:
        with self._lock:
            self._stats = replace(self._stats, cache_hits=self._stats.cache_hits + cache_hits)

    @contextmanager
    def _one_at_a_time(self, key: str) -> Iterator[None]:
        """Identical requests in flight together wait for the first one's (cached) answer."""
        with self._lock:
            entry = self._key_locks.setdefault(key, [threading.Lock(), 0])
            entry[1] += 1
        try:
            with entry[0]:
                yield
        finally:
            with self._lock:
                entry[1] -= 1
                if entry[1] == 0:
                    self._key_locks.pop(key, None)

    # ------------------------------------------------------------------ journal

    def _journal(
        self,
        req: LLMRequest,
        key: str,
        resp: LLMResponse | None,
        err: LLMError | None,
        latency: float = 0.0,
    ) -> None:
        tag = f"[llm {req.role or '-'}]"
        if isinstance(err, Cancelled):  # asked for: not a failure worth a warning
            log.info("%s %s %s", tag, self.backend.cache_identity(), err.problem)
        elif err is not None:
            log.warning("%s %s failed: %s", tag, self.backend.cache_identity(), err)
        else:
            assert resp is not None
            log.info(
                "%s %s %s%d+%d tokens %.1fs $%.5f",
                tag,
                self.backend.cache_identity(),
                "cache hit " if resp.cached else "",
                resp.usage.prompt_tokens,
                resp.usage.completion_tokens,
                resp.latency_s,
                resp.cost_usd,
            )
        if self.on_call is None:
            return
        record: dict[str, Any] = {
            "event": "llm_call",
            "time": time.time(),
            "role": req.role,
            "backend": self.backend.id,
            "model": (resp.model if resp is not None and resp.model else self.backend.model),
            "key": key,
            "request": req.to_json(),
            "response": resp.text if resp is not None else None,
            "finish_reason": resp.finish_reason if resp is not None else None,
            "prompt_tokens": resp.usage.prompt_tokens if resp is not None else 0,
            "completion_tokens": resp.usage.completion_tokens if resp is not None else 0,
            "latency_s": resp.latency_s if resp is not None else latency,
            "cost_usd": resp.cost_usd if resp is not None else 0.0,
            "cached": resp.cached if resp is not None else False,
            "sources": [{"uri": s.uri, "title": s.title} for s in resp.sources]
            if resp is not None
            else [],
            "error": None
            if err is None
            else {"type": type(err).__name__, "message": str(err), "retryable": err.retryable},
        }
        self.on_call(record)

    def close(self) -> None:
        """Close the backend's connections."""
        self.backend.close()
