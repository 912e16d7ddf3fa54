"""``EventTail``: reads ``events.jsonl`` incrementally (only the bytes appended since last time)."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any


class EventTail:
    """The events of one file, re-reading only what was appended; a torn last line waits."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._pos = 0
        self._events: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def events(self) -> list[dict[str, Any]]:
        """Every complete event so far (a copy of the list; the dicts are shared, don't mutate)."""
        with self._lock:
            self._read_new()
            return list(self._events)

    def _read_new(self) -> None:
        try:
            size = self.path.stat().st_size
        except FileNotFoundError:
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
            try:
                ev = json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError):
                continue
            if isinstance(ev, dict) and "type" in ev:
                self._events.append(ev)
        self._pos += end + 1
