"""``RunJournal``: a run as a folder on disk, written as it goes.

Layout of ``runs/<run_id>/``::

    run.json            task reference, config, backend, status
    events.jsonl        append-only, flushed and fsync'd per event (see ``events``)
    candidates/         every candidate notebook, executed, with outputs: <node_id>.ipynb
    executions/         execution cache: <digest>.json (the result of running that code)
    llm/                LLM request/response cache (written by the llm layer)
    best.ipynb          the current best notebook
    final/              submission.csv and solution.ipynb at the end
    decisions/          <proposal_id>.json written by the UI (accept / reject)
    control.json        {"pause": bool, "stop": bool} written by the UI
    work/               working directories of executions

Resuming: the loop runs again from the top; executions and LLM calls hit their caches, and events
whose ``key`` was already written are not written twice.  So a killed run continues where it was,
re-executing nothing that finished and re-paying no finished LLM call.
"""

from __future__ import annotations

import json
import math
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from .events import Event, read_events
from .kinds import EventData, check_data

Listener = Callable[[Event], None]


class JournalError(Exception):
    """A run folder cannot be created or read."""


class RunJournal:
    """Append-only record of one run; thread-safe."""

    def __init__(self, run_dir: str | Path) -> None:
        self.dir = Path(run_dir).resolve()
        self._lock = threading.RLock()
        self._listeners: list[Listener] = []
        self._events: list[Event] = read_events(self.events_path)
        self._keys: dict[str, Event] = {e.key: e for e in self._events}
        self._replayed: set[str] = set()
        self._fh: Any = None

    # -- creation ---------------------------------------------------------------------------
    @classmethod
    def create(cls, run_dir: str | Path, meta: dict[str, Any]) -> RunJournal:
        """A new run folder at ``run_dir`` with ``meta`` in ``run.json``; refuses a folder that holds a run."""
        d = Path(run_dir)
        if (d / "events.jsonl").exists():
            raise JournalError(
                f"{d} already holds a run; use 'mlestar resume {d}' or pass another --out"
            )
        for sub in ("candidates", "executions", "llm", "final", "decisions", "work"):
            (d / sub).mkdir(parents=True, exist_ok=True)
        j = cls(d)
        j.write_meta({**meta, "status": "running", "created": time.time()})
        return j

    @classmethod
    def open(cls, run_dir: str | Path) -> RunJournal:
        """The run folder ``run_dir`` as it is on disk (to resume, show or steer it)."""
        d = Path(run_dir)
        if not (d / "run.json").exists():
            raise JournalError(
                f"{d} is not a run folder (no run.json); pass the folder given by --out or printed by 'mlestar run'"
            )
        return cls(d)

    @property
    def events_path(self) -> Path:
        """``events.jsonl`` of this run."""
        return self.dir / "events.jsonl"

    @property
    def meta(self) -> dict[str, Any]:
        """``run.json`` as a dict (``JournalError`` when it is unreadable)."""
        try:
            return json.loads((self.dir / "run.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]
        except (OSError, json.JSONDecodeError) as e:
            raise JournalError(
                f"{self.dir / 'run.json'} is unreadable ({e}); the run folder is damaged"
            ) from None

    def write_meta(self, meta: dict[str, Any]) -> None:
        """Write ``run.json`` as strict JSON: a NaN or infinite number is written as ``null``."""
        text = json.dumps(_finite(meta), indent=2, default=str, allow_nan=False)
        atomic_write_text(self.dir / "run.json", text)

    def update_meta(self, **changes: Any) -> None:
        """Change some fields of ``run.json`` (read, merge, write atomically)."""
        with self._lock:
            self.write_meta({**self.meta, **changes})

    # -- events -----------------------------------------------------------------------------
    def emit(self, type: str | EventData, key: str | None = None, **data: Any) -> Event:
        """Append an event (once per ``key``), notify listeners, return it.

        ``type`` is an event type with its fields as keywords (``emit("phase", phase="init")``)
        or a model of ``kinds`` (``emit(PhaseEvent(phase="init"))``).  The fields are checked
        against the type's model (``kinds.EventSchemaError`` when they do not match) and a NaN
        or infinite number is written as ``null``, as in ``run.json``."""
        kind = type.TYPE if isinstance(type, EventData) else type
        if isinstance(type, EventData):
            data = {**type.model_dump(mode="json", exclude_unset=True), **data}
        data = _finite(_jsonable(data))
        check_data(kind, data)
        with self._lock:
            if key is not None and key in self._keys:
                ev = self._keys[key]
                if key not in self._replayed:
                    self._replayed.add(key)
                return ev
            ev = Event(
                seq=len(self._events),
                key=key or f"_{len(self._events)}",
                type=kind,
                data=data,
            )
            if self._fh is None:
                torn = _torn_tail(self.events_path)
                self._fh = open(self.events_path, "a", encoding="utf-8")  # noqa: SIM115 - kept open for the run
                if torn:  # a killed run's half line: end it, so this event starts a line of its own
                    self._fh.write("\n")
            self._fh.write(ev.to_line() + "\n")
            self._fh.flush()
            os.fsync(self._fh.fileno())
            self._events.append(ev)
            self._keys[ev.key] = ev
            listeners = list(self._listeners)
        for fn in listeners:
            try:
                fn(ev)
            except Exception:  # noqa: BLE001 - a broken UI listener must not end the run
                pass
        return ev

    def has(self, key: str) -> bool:
        """Whether an event with ``key`` was written."""
        return key in self._keys

    def get(self, key: str) -> Event | None:
        """The event written with ``key``, or ``None``."""
        return self._keys.get(key)

    @property
    def events(self) -> list[Event]:
        """Every event so far, in order (a copy)."""
        with self._lock:
            return list(self._events)

    def of_type(self, *types: str) -> list[Event]:
        """The events of the given types, in order."""
        return [e for e in self.events if e.type in types]

    def subscribe(self, fn: Listener) -> Callable[[], None]:
        """Call ``fn`` for every new event; returns an unsubscribe function."""
        with self._lock:
            self._listeners.append(fn)
        return lambda: self._listeners.remove(fn) if fn in self._listeners else None

    def follow(self, poll: float = 0.5, stop: Callable[[], bool] | None = None) -> Iterator[Event]:
        """Yield events as they are appended to disk (also by another process)."""
        pos = 0
        while True:
            evs = read_events(self.events_path)
            yield from evs[pos:]
            pos = len(evs)
            if any(e.type == "run_finished" for e in evs) or (stop and stop()):
                return
            time.sleep(poll)

    def close(self) -> None:
        """Close ``events.jsonl`` (a later ``emit`` opens it again)."""
        with self._lock:
            if self._fh is not None:
                self._fh.close()
                self._fh = None

    # -- files ------------------------------------------------------------------------------
    def path(self, *parts: str) -> Path:
        """A path inside the run folder."""
        return self.dir.joinpath(*parts)

    def rel(self, p: Path) -> str:
        """``p`` relative to the run folder (as it is when outside it)."""
        try:
            return str(Path(p).resolve().relative_to(self.dir))
        except ValueError:
            return str(p)

    def execution_cached(self, digest: str) -> dict[str, Any] | None:
        """The cached result of running the code with ``digest``, or ``None``."""
        p = self.dir / "executions" / f"{digest}.json"
        if not p.exists():
            return None
        try:
            return json.loads(p.read_text(encoding="utf-8"))  # type: ignore[no-any-return]
        except (OSError, json.JSONDecodeError):
            return None

    def cache_execution(self, digest: str, record: dict[str, Any]) -> None:
        """Cache the result of running the code with ``digest``."""
        atomic_write_text(
            self.dir / "executions" / f"{digest}.json", json.dumps(record, default=str)
        )

    # -- controls from the UI ---------------------------------------------------------------
    def control(self) -> dict[str, Any]:
        """``control.json`` (pause / stop from the UI); ``{}`` when absent or unreadable."""
        try:
            return json.loads((self.dir / "control.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]
        except (OSError, json.JSONDecodeError):
            return {}

    def set_control(self, **changes: Any) -> None:
        """Change fields of ``control.json`` (as the UI does)."""
        atomic_write_text(self.dir / "control.json", json.dumps({**self.control(), **changes}))

    def decision(self, proposal_id: str) -> dict[str, Any] | None:
        """The decision written for ``proposal_id`` (``decisions/<id>.json``), or ``None``."""
        p = self.dir / "decisions" / f"{proposal_id}.json"
        try:
            return json.loads(p.read_text(encoding="utf-8"))  # type: ignore[no-any-return]
        except (OSError, json.JSONDecodeError):
            return None

    def record_decision(self, proposal_id: str, decision: str, by: str = "user") -> None:
        """Write ``accept`` or ``reject`` for ``proposal_id`` (as the UI does)."""
        if decision not in ("accept", "reject"):
            raise ValueError(f"decision must be 'accept' or 'reject', got {decision!r}")
        atomic_write_text(
            self.dir / "decisions" / f"{proposal_id}.json",
            json.dumps({"decision": decision, "by": by, "time": time.time()}),
        )


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so a kill leaves either the old or the new file, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    tmp.replace(path)


def _torn_tail(path: Path) -> bool:
    """Whether ``path`` ends in a line without its newline (a write cut short by a kill)."""
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            if fh.tell() == 0:
                return False
            fh.seek(-1, os.SEEK_END)
            return fh.read(1) != b"\n"
    except FileNotFoundError:
        return False


def _finite(value: Any) -> Any:
    """``value`` with every NaN or infinite float inside it replaced by ``None``."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def _jsonable(d: dict[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps(d, default=str))
