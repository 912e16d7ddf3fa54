"""The fake LLM server itself: a threaded HTTP server on 127.0.0.1 that answers each request
from its script (``FakeLLMServer``) in the real Gemini or OpenAI wire format (``_Handler``)."""

from __future__ import annotations

import json
import re
import threading
import traceback
from collections import deque
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from ..errors import ConfigError
from ..settings import LLMSettings
from .script import RecordedRequest, Reply, Responder
from .wire import error_body, gemini_body, gemini_chunks, openai_body, openai_chunks

__all__ = ["FakeLLMServer"]

_GEMINI_PATH = re.compile(
    r"^/.*models/(?P<model>[^/:]+):(?P<method>generateContent|streamGenerateContent)$"
)

# ----------------------------------------------------------------------------- server


class FakeLLMServer:
    """A threaded HTTP server on 127.0.0.1 answering like Gemini and OpenAI, from a script."""

    def __init__(
        self,
        *,
        require_key: str | None = None,
        reject_json_schema: bool = False,
        default: Responder | None = None,
        max_requests: int = 1000,
        retry_after_ms: int | None = None,
    ) -> None:
        self.require_key = require_key
        """When set, a request with another key gets the API's auth error (without using the script)."""
        self.reject_json_schema = reject_json_schema
        """When True, ``response_format: json_schema`` gets HTTP 500 (llama-cpp-python's behaviour)."""
        self.default = default
        """Answers when the script and routes are used up (None: HTTP 418 'script exhausted')."""
        self.max_requests = max_requests
        self.retry_after_ms = retry_after_ms
        """When set, error answers carry ``retry-after-ms`` (the openai SDK then waits that long, not ~0.5 s)."""
        self._queue: deque[Any] = deque()
        self._routes: list[tuple[Callable[[RecordedRequest], bool], deque[Any], bool]] = []
        self._requests: list[RecordedRequest] = []
        self.errors: list[str] = []
        """Tracebacks of responders that raised (they were answered with HTTP 500)."""
        self.disconnects = 0
        """Answers the client stopped reading before the end (its connection closed midway)."""
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ scripting

    def script(self, *replies: Any) -> FakeLLMServer:
        """Queue replies, answered in order to requests no route claims."""
        with self._lock:
            self._queue.extend(replies)
        return self

    def on(
        self, match: str | Callable[[RecordedRequest], bool], *replies: Any, repeat: bool = False
    ) -> FakeLLMServer:
        """Answer requests whose text contains ``match`` (or for which ``match(req)`` is true) with
        ``replies`` in order; with ``repeat`` the last one keeps answering."""
        pred = (lambda r: match in r.text) if isinstance(match, str) else match
        with self._lock:
            self._routes.append((pred, deque(replies), repeat))
        return self

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far (a copy)."""
        with self._lock:
            return list(self._requests)

    @property
    def pending(self) -> int:
        """Scripted replies not used yet."""
        with self._lock:
            return len(self._queue)

    def reset(self) -> None:
        """Forget the script, the routes and the recorded requests."""
        with self._lock:
            self._queue.clear()
            self._routes.clear()
            self._requests.clear()
            self.errors.clear()

    def _next(self, req: RecordedRequest) -> Any:
        with self._lock:
            self._requests.append(req)
            n = len(self._requests)
            if n > self.max_requests:
                return Reply.error(418, f"fake LLM server: more than {self.max_requests} requests")
            for pred, replies, repeat in self._routes:
                if replies and pred(req):
                    return replies[0] if (repeat and len(replies) == 1) else replies.popleft()
            if self._queue:
                return self._queue.popleft()
        if self.default is not None:
            return self.default
        return Reply.error(418, f"fake LLM server: no scripted reply left for request #{n}")

    def resolve(self, req: RecordedRequest) -> Reply:
        """The reply for ``req`` (the script's next item, evaluated if it is a function)."""
        item = self._next(req)
        if callable(item) and not isinstance(item, Reply):
            item = item(req)
        return item if isinstance(item, Reply) else Reply(text=item)

    # ------------------------------------------------------------------ life cycle

    @property
    def url(self) -> str:
        """Base URL for Gemini clients (``http://127.0.0.1:PORT``)."""
        if self._httpd is None:
            raise ConfigError(
                "FakeLLMServer is not started",
                hint="use it as `with FakeLLMServer() as srv:` or call srv.start() first",
            )
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    @property
    def openai_url(self) -> str:
        """Base URL for OpenAI clients (``…/v1``)."""
        return self.url + "/v1"

    def start(self) -> FakeLLMServer:
        """Listen on a free port of 127.0.0.1 in a daemon thread."""
        handler = type("Handler", (_Handler,), {"fake": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="fake-llm-server",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; sleeping (timeout) handlers wake up and give up."""
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def settings(self, backend: str = "openai", **overrides: Any) -> LLMSettings:
        """``LLMSettings`` pointing ``backend`` at this server, with tiny timeouts and retry delays."""
        kw: dict[str, Any] = dict(
            backend=backend,
            model="fake-model",
            api_key=self.require_key or "test-key",
            base_url=self.openai_url if backend == "openai" else self.url,
            timeout_s=5.0,
            retries=2,
            retry_initial_delay_s=0.01,
            retry_max_delay_s=0.05,
        )
        kw.update(overrides)
        return LLMSettings(**kw)


class _Handler(BaseHTTPRequestHandler):
    fake: FakeLLMServer
    protocol_version = "HTTP/1.0"  # one request per connection; streams end at close

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    # ------------------------------------------------------------------ dispatch

    def do_GET(self) -> None:  # noqa: N802
        if urlsplit(self.path).path.rstrip("/").endswith("/models"):
            self._json(
                200,
                {
                    "object": "list",
                    "data": [{"id": "fake-model", "object": "model", "owned_by": "fake"}],
                },
            )
        else:
            self._json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:  # noqa: N802
        parts = urlsplit(self.path)
        raw = self.rfile.read(int(self.headers.get("content-length") or 0)).decode(
            "utf-8", "replace"
        )
        try:
            body: Any = json.loads(raw) if raw else {}
        except json.JSONDecodeError:
            body = raw
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        headers = {k.lower(): v for k, v in self.headers.items()}
        m = _GEMINI_PATH.match(parts.path)
        if m:
            req = RecordedRequest(
                "gemini",
                "POST",
                parts.path,
                query,
                headers,
                body,
                m["model"],
                m["method"] == "streamGenerateContent",
            )
        elif parts.path.endswith("/chat/completions"):
            req = RecordedRequest(
                "openai",
                "POST",
                parts.path,
                query,
                headers,
                body,
                body.get("model", "") if isinstance(body, dict) else "",
                bool(isinstance(body, dict) and body.get("stream")),
            )
        else:
            self._json(
                404,
                {
                    "error": {
                        "code": 404,
                        "message": f"fake LLM server: no route {parts.path}",
                        "status": "NOT_FOUND",
                    }
                },
            )
            return
        fault = self._server_fault(req)
        if fault is not None:
            with self.fake._lock:
                self.fake._requests.append(req)
            reply = fault
        else:
            try:
                reply = self.fake.resolve(req)
            except Exception:  # noqa: BLE001 - a responder's bug: answer 500, keep the traceback
                self.fake.errors.append(traceback.format_exc())
                reply = Reply.error(
                    500, "fake LLM server: responder raised (see FakeLLMServer.errors)"
                )
        self._answer(req, reply)

    def _server_fault(self, req: RecordedRequest) -> Reply | None:
        f = self.fake
        if f.require_key is not None and req.api_key != f.require_key:
            if req.api == "gemini":
                return Reply(
                    status=400, error_message="API key not valid. Please pass a valid API key."
                )
            return Reply.error(401, "Incorrect API key provided.")
        if f.reject_json_schema and req.api == "openai" and req.response_format == "json_schema":
            return Reply.error(
                500, "response_format type json_schema is not supported; use text or json_object"
            )
        return None

    # ------------------------------------------------------------------ answers

    def _answer(self, req: RecordedRequest, reply: Reply) -> None:
        if reply.delay_s and self.fake._stopping.wait(reply.delay_s):
            return
        try:
            if reply.raw_body is not None:
                self._send(200, reply.raw_body.encode(), reply.raw_type)
            elif reply.status != 200:
                extra = (
                    {"retry-after-ms": str(self.fake.retry_after_ms)}
                    if self.fake.retry_after_ms is not None
                    else {}
                )
                if reply.retry_after_s is not None:
                    extra["retry-after"] = f"{reply.retry_after_s:g}"
                self._json(reply.status, error_body(req.api, reply), extra)
            elif req.stream:
                self._stream(req, reply)
            else:
                self._json(
                    200,
                    gemini_body(req, reply) if req.api == "gemini" else openai_body(req, reply),
                )
        except (BrokenPipeError, ConnectionResetError):
            with self.fake._lock:  # the client gave up (a timeout, or a cancelled stream)
                self.fake.disconnects += 1

    def _send(
        self, status: int, data: bytes, ctype: str, headers: dict[str, str] | None = None
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _json(self, status: int, obj: Any, headers: dict[str, str] | None = None) -> None:
        self._send(status, json.dumps(obj).encode(), "application/json", headers)

    def _stream(self, req: RecordedRequest, reply: Reply) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        events = gemini_chunks(req, reply) if req.api == "gemini" else openai_chunks(req, reply)
        for ev in events:
            if reply.chunk_delay_s and self.fake._stopping.wait(reply.chunk_delay_s):
                return
            self.wfile.write(
                f"data: {ev}\r\n\r\n".encode()
                if req.api == "gemini"
                else f"data: {ev}\n\n".encode()
            )
            self.wfile.flush()
