"""Stopping a run from inside its own process: Ctrl-C and SIGTERM.

``StopRequest`` is the run's stop flag, seen by every thread of the search: the candidate runner
checks it before and after each execution, the algorithms' thread pools return as soon as it is
set, and the callbacks registered with ``on_request`` (the executor's ``cancel_all``) kill the
kernels that are running.  ``signals_stop`` turns the first SIGINT or SIGTERM into a request (the
signal handler only writes a byte to a pipe; a watcher thread does the rest, so no lock is ever
taken inside a handler); a second signal raises ``KeyboardInterrupt`` as Python normally does.

A stop requested this way ends the run without writing the submission: the journal gets a
``run_stopped`` event, ``run.json`` says ``stopped``, and ``mlestar resume`` continues it.  (The
stop button of the UI is a different request: ``control.json``, and the run still writes its
submission.)
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
from collections.abc import Callable, Iterator

log = logging.getLogger("mlestar.agent")


class StopRequest:
    """A thread-safe, one-way stop flag with a reason and callbacks run once when it is set."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._callbacks: list[Callable[[], object]] = []
        self.reason = ""

    def is_set(self) -> bool:
        """Whether a stop was requested."""
        return self._event.is_set()

    def request(self, reason: str) -> None:
        """Set the flag (the first reason is kept) and run the callbacks, each once."""
        with self._lock:
            if self._event.is_set():
                return
            self.reason = reason
            self._event.set()
            callbacks, self._callbacks = self._callbacks, []
        for fn in callbacks:
            try:
                fn()
            except Exception as e:  # noqa: BLE001 - one failing callback must not block the others
                log.warning("stop callback %r failed: %s", fn, e)

    def on_request(self, fn: Callable[[], object]) -> None:
        """Call ``fn`` when the stop is requested (at once, in this thread, if it already was)."""
        with self._lock:
            if not self._event.is_set():
                self._callbacks.append(fn)
                return
        fn()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until a stop is requested or ``timeout`` passes; returns whether it was."""
        return self._event.wait(timeout)


_NAMES = {signal.SIGINT: "Ctrl-C (SIGINT)", signal.SIGTERM: "SIGTERM"}


@contextlib.contextmanager
def signals_stop(
    stop: StopRequest,
    on_first: Callable[[str], None] | None = None,
    signals: tuple[signal.Signals, ...] = (signal.SIGINT, signal.SIGTERM),
) -> Iterator[StopRequest]:
    """While inside, the first of ``signals`` requests ``stop`` (``on_first(reason)`` is told, e.g.
    to print a line); a second one raises ``KeyboardInterrupt``.  Only in the main thread: elsewhere
    Python cannot install handlers and the block runs unchanged."""
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return
    read_fd, write_fd = os.pipe()
    received: list[int] = []

    def handler(signum: int, frame: object) -> None:
        if received:  # a second signal: the user insists
            raise KeyboardInterrupt
        received.append(signum)
        os.write(write_fd, b"x")

    def watch() -> None:
        try:
            if not os.read(read_fd, 1):
                return  # the block ended: the pipe was closed
        except OSError:
            return
        if not received:
            return
        reason = f"interrupted by {_NAMES.get(signal.Signals(received[0]), 'a signal')}"
        if on_first is not None:
            on_first(reason)
        stop.request(reason)

    previous = {s: signal.signal(s, handler) for s in signals}
    watcher = threading.Thread(target=watch, name="mlestar-stop-watch", daemon=True)
    watcher.start()
    try:
        yield stop
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
        os.close(write_fd)  # wakes the watcher if no signal came
        watcher.join(timeout=5)
        os.close(read_fd)
