"""Record a run's LLM calls, and play them back later (httpx's ``MockTransport`` in spirit).

``RecordingBackend(inner, path)`` appends one JSON line per call to ``path`` (a file, or a
folder holding ``calls.jsonl``): the request, then the answer or the error.  ``ReplayBackend``
reads such a file and answers each request with the first unplayed record made for the same
request; when none matches it takes the next unplayed record in order and warns
(``strict=True``: raises ``ReplayMismatch``).  Recorded errors are raised again.

``LLMClient`` records every call it sends to ``cache_dir/calls.jsonl``, so a run's ``llm/``
folder is a recording; a cache folder without ``calls.jsonl`` is replayed from its entries.
"""

from __future__ import annotations

import json
import os
import threading
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from . import errors as llm_errors
from .backend import Backend
from .cache import request_key
from .errors import ConfigError, LLMError, ReplayMismatch
from .types import LLMRequest, LLMResponse

RECORDING_NAME = "calls.jsonl"


class ReplayWarning(UserWarning):
    """A replayed answer was recorded for a different request."""


def _jsonl_path(path: str | os.PathLike[str]) -> Path:
    p = Path(path)
    return p / RECORDING_NAME if p.is_dir() or p.suffix == "" else p


class RecordingBackend(Backend):
    """Wraps any backend and appends every call (answer or error) to a JSONL recording."""

    id: ClassVar[str] = "recording"
    label: ClassVar[str] = "Recorder (wraps another backend)"
    key_env_var: ClassVar[str | None] = None
    default_model: ClassVar[str] = ""

    def __init__(self, inner: Backend, path: str | os.PathLike[str]) -> None:
        self.inner = inner
        self.model = inner.model
        self.path = _jsonl_path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()

    def cache_identity(self) -> str:
        """The inner backend's identity: recording does not change answers."""
        return self.inner.cache_identity()

    def complete(self, req: LLMRequest) -> LLMResponse:
        """Ask the inner backend and record the outcome."""
        return self._recorded(req, lambda: self.inner.complete(req))

    def complete_until(
        self, req: LLMRequest, cancelled: threading.Event, timeout_s: float | None = None
    ) -> LLMResponse:
        """As :meth:`complete`, passing ``cancelled`` and ``timeout_s`` on to the inner backend."""
        return self._recorded(req, lambda: self.inner.complete_until(req, cancelled, timeout_s))

    def _recorded(self, req: LLMRequest, ask: Callable[[], LLMResponse]) -> LLMResponse:
        rec: dict[str, Any] = {
            "backend": self.inner.id,
            "model": self.inner.model,
            "fingerprint": request_key("", req),
            "request": req.to_json(),
        }
        try:
            resp = ask()
        except LLMError as e:
            self._append(
                {
                    **rec,
                    "error": {"type": type(e).__name__, "message": e.problem, "status": e.status},
                }
            )
            raise
        self._append({**rec, "response": resp.to_json()})
        return resp

    def _append(self, rec: dict[str, Any]) -> None:
        line = json.dumps(rec, ensure_ascii=False) + "\n"
        with self._lock, self.path.open("a", encoding="utf-8") as f:
            f.write(line)
            f.flush()
            os.fsync(f.fileno())

    def close(self) -> None:
        """Close the inner backend."""
        self.inner.close()


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    records = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise ConfigError(
                    f"{path}:{n}: not JSON ({e.msg})", hint="the recording is damaged; re-record"
                ) from e
    return records


def _read_cache_dir(root: Path) -> list[dict[str, Any]]:
    """Records from an ``LLMClient`` cache folder, oldest first (order is approximate: file times)."""
    records = []
    for f in sorted(root.glob("??/*.json"), key=lambda f: (f.stat().st_mtime_ns, f.name)):
        try:
            entry = json.loads(f.read_text(encoding="utf-8"))
            req = LLMRequest.from_json(entry["request"])
        except (OSError, ValueError, KeyError, TypeError):
            continue  # a damaged entry is skipped, as the cache itself does
        model = str(entry.get("backend", "")).partition(":")[2]
        records.append(
            {
                "model": model,
                "fingerprint": request_key("", req),
                "request": entry["request"],
                "response": entry["response"],
            }
        )
    return records


class ReplayBackend(Backend):
    """Plays a recording back; see the module docstring for how records are matched."""

    id: ClassVar[str] = "replay"
    label: ClassVar[str] = "Replay of a recorded run"
    key_env_var: ClassVar[str | None] = None
    default_model: ClassVar[str] = "replay"

    def __init__(self, path: str | os.PathLike[str], *, strict: bool = False) -> None:
        p = Path(path)
        self.path = _jsonl_path(p)
        if self.path.is_file():
            self.records = _read_jsonl(self.path)
        elif p.is_dir() and any(p.glob("??/*.json")):  # a run's cache folder without calls.jsonl
            self.path = p
            self.records = _read_cache_dir(p)
        else:
            raise ConfigError(
                f"no recording at {p}",
                hint="record a run first (LLMClient with a cache_dir records "
                "calls.jsonl there) or fix replay_path",
            )
        self.strict = strict
        self.model = (
            self.records[0].get("model", self.default_model) if self.records else self.default_model
        )
        self._played = [False] * len(self.records)
        self._lock = threading.Lock()

    @property
    def remaining(self) -> int:
        """Records not played yet."""
        with self._lock:
            return self._played.count(False)

    def complete(self, req: LLMRequest) -> LLMResponse:
        """The recorded answer for ``req`` (or the recorded error, raised again)."""
        rec = self._take(req)
        if "error" in rec:
            err = rec["error"]
            cls = getattr(llm_errors, err.get("type", ""), None)
            if not (isinstance(cls, type) and issubclass(cls, LLMError)):
                cls = LLMError
            raise cls(f"(replayed) {err.get('message', '')}", status=err.get("status"))
        return LLMResponse.from_json(rec["response"])

    def _take(self, req: LLMRequest) -> dict[str, Any]:
        fp = request_key("", req)
        with self._lock:
            unplayed = [i for i, done in enumerate(self._played) if not done]
            if not unplayed:
                raise ReplayMismatch(
                    f"the recording {self.path} has no answers left ({len(self.records)} played)"
                )
            same = [i for i in unplayed if self.records[i].get("fingerprint") == fp]
            i = same[0] if same else unplayed[0]
            if not same:
                recorded = (
                    self.records[i].get("request", {}).get("messages", [{}])[-1].get("content", "")
                )
                msg = (
                    f"replayed record #{i + 1} of {self.path} was made for another request "
                    f"(recorded prompt starts {recorded[:80]!r}; current {req.messages[-1].content[:80]!r})"
                )
                if self.strict:
                    raise ReplayMismatch(msg)
                warnings.warn(msg, ReplayWarning, stacklevel=3)
            self._played[i] = True
            return self.records[i]
