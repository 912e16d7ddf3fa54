"""``EventTail``: reads ``events.jsonl`` incrementally (only the bytes appended since last time).

The one reader of an events file: ``read_events`` is a fresh tail read once; the server keeps one
tail per run and the widgets' panel one per panel, so a poll reads only what was appended.
"""

from __future__ import annotations

import threading
from pathlib import Path

from .events import Event, parse_line


class EventTail:
    """The events of one file, re-reading only what was appended; a torn last line waits."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._pos = 0
        self._events: list[Event] = []
        self._lock = threading.Lock()

    def events(self) -> list[Event]:
        """Every complete event so far (a copy of the list; events are frozen)."""
        with self._lock:
            self._read_new()
            return list(self._events)

    def _read_new(self) -> None:
        try:
            size = self.path.stat().st_size
        except (FileNotFoundError, NotADirectoryError):
            return
        if size < self._pos:  # the file was replaced: start again
            self._pos, self._events = 0, []
        if size == self._pos:
            return
        with open(self.path, "rb") as fh:
            fh.seek(self._pos)
            chunk = fh.read(size - self._pos)
        end = chunk.rfind(b"\n")
        if end < 0:
            return
        for line in chunk[: end + 1].splitlines():
            if not line.strip():
                continue
            ev = parse_line(line, len(self._events))
            if ev is not None:
                self._events.append(ev)
        self._pos += end + 1
