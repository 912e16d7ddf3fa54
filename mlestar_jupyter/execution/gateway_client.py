"""Talking to a Jupyter Kernel Gateway / Enterprise Gateway: its REST API and kernel websockets.

``GatewayHTTP`` starts, interrupts and deletes kernels (``POST /api/kernels``,
``POST /api/kernels/{id}/interrupt``, ``DELETE /api/kernels/{id}``) and probes the gateway.
``ChannelClient`` is the kernel client over ``/api/kernels/{id}/channels`` (JSON messages, one
websocket for all channels); it offers what nbclient needs from a ``KernelClient``
(``execute``, ``shell_channel.get_msg``, ``iopub_channel.get_msg``, ``is_alive``).

Every failure becomes a ``GatewayError`` whose message names the gateway and what to check.
All of this runs on the executor's single event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import getpass
import json
import logging
import uuid
from queue import Empty
from typing import Any

import httpx
from tornado.httpclient import HTTPClientError, HTTPRequest
from tornado.iostream import StreamClosedError
from tornado.websocket import (
    WebSocketClientConnection,
    WebSocketClosedError,
    WebSocketError,
    websocket_connect,
)

from .errors import ExecutionError, KernelLost, KernelStartError
from .gateway_config import ENV_TOKEN, GatewayConfig

log = logging.getLogger(__name__)
PROTOCOL_VERSION = "5.3"
WS_MAX_MESSAGE = 256 * 1024 * 1024


class GatewayError(KernelStartError):
    """The gateway could not be used (down, wrong token, refused, lost mid-run).

    A ``KernelStartError`` so the warm pool passes it on unchanged; infrastructure, not the
    candidate's fault."""

    def __init__(self, url: str, problem: str, advice: str = "") -> None:
        self.url, self.problem, self.advice, self.detail = url, problem, advice, problem
        ExecutionError.__init__(self, url, problem, advice)

    def __str__(self) -> str:
        tail = f" — {self.advice}" if self.advice else ""
        return f"gateway at {self.url} {self.problem}{tail}"


def unreachable(url: str, detail: str) -> GatewayError:
    """The error for a gateway that does not answer."""
    return GatewayError(
        url, f"unreachable: {detail}", "check that it is running and the URL is right"
    )


def _describe(e: BaseException) -> str:
    text = str(e).strip()
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def http_error(url: str, status: int, body: str, what: str) -> GatewayError:
    """The error for an HTTP status the gateway answered ``what`` with."""
    reason = body.strip()[:300]
    try:
        reason = json.loads(body).get("message") or json.loads(body).get("reason") or reason
    except (ValueError, AttributeError):
        pass
    if status == 401:
        return GatewayError(
            url, f"refused the token (HTTP 401 on {what})",
            f"check gateway_token / {ENV_TOKEN} against the gateway's auth token",
        )  # fmt: skip
    if status == 403:
        return GatewayError(
            url, f"refused {what} (HTTP 403: {reason})",
            "the gateway's kernel limit may be reached (lower max_parallel) or the token lacks rights",
        )  # fmt: skip
    if status == 404 and what.startswith("starting"):
        return GatewayError(
            url, f"does not know the kernel spec ({reason})",
            "pick one of its specs (GET /api/kernelspecs) for kernel_spec / gpu_kernel_spec",
        )  # fmt: skip
    return GatewayError(url, f"answered HTTP {status} to {what}: {reason}", "see the gateway's log")


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat()


class GatewayHTTP:
    """The gateway's REST API (one ``httpx.AsyncClient``, created on first use)."""

    def __init__(self, config: GatewayConfig) -> None:
        self.config = config
        self._client: httpx.AsyncClient | None = None

    @property
    def headers(self) -> dict[str, str]:
        """The auth header (empty without a token)."""
        return {"Authorization": f"token {self.config.token}"} if self.config.token else {}

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            cfg = self.config
            self._client = httpx.AsyncClient(
                base_url=cfg.url, headers=self.headers, verify=cfg.validate_cert,
                timeout=httpx.Timeout(cfg.request_timeout, connect=cfg.connect_timeout),
                trust_env=False,
            )  # fmt: skip
        return self._client

    async def request(
        self, method: str, path: str, what: str, *, timeout: float | None = None, **kw: Any
    ) -> httpx.Response:
        """One request; transport failures and error statuses raise ``GatewayError``."""
        if timeout is not None:
            kw["timeout"] = httpx.Timeout(
                timeout, connect=min(timeout, self.config.connect_timeout)
            )
        try:
            resp = await self._http().request(method, path, **kw)
        except httpx.TimeoutException as e:
            if isinstance(e, httpx.ConnectTimeout):
                raise unreachable(self.config.url, _describe(e)) from None
            raise GatewayError(
                self.config.url, f"did not answer {what} in time ({_describe(e)})",
                "the gateway may be overloaded; raise request_timeout or lower max_parallel",
            ) from None  # fmt: skip
        except (httpx.TransportError, OSError) as e:
            raise unreachable(self.config.url, _describe(e)) from None
        if resp.status_code >= 400:
            raise http_error(self.config.url, resp.status_code, resp.text, what)
        return resp

    async def probe(self, timeout: float = 3.0) -> GatewayError | None:
        """None when the gateway answers ``GET /api/kernelspecs`` with our token, else why not."""
        try:
            await self.request("GET", "/api/kernelspecs", "a health check", timeout=timeout)
        except GatewayError as e:
            return e
        return None

    async def start_kernel(self, spec: str) -> str:
        """Start a kernel of ``spec``; returns its id."""
        body: dict[str, Any] = {"name": spec}
        if self.config.kernel_env:
            body["env"] = dict(self.config.kernel_env)
        what = f"starting a {spec!r} kernel"
        resp = await self.request(
            "POST", "/api/kernels", what, json=body, timeout=self.config.startup_timeout
        )
        try:
            return str(resp.json()["id"])
        except (ValueError, KeyError, TypeError):
            raise GatewayError(
                self.config.url, f"answered {what} without a kernel id: {resp.text[:200]}",
                "is this URL a Jupyter Kernel Gateway / Enterprise Gateway?",
            ) from None  # fmt: skip

    async def interrupt(self, kernel_id: str, timeout: float = 5.0) -> None:
        """``POST /api/kernels/{id}/interrupt``."""
        await self.request(
            "POST", f"/api/kernels/{kernel_id}/interrupt", "an interrupt", timeout=timeout
        )

    async def delete(self, kernel_id: str, timeout: float = 30.0) -> None:
        """``DELETE /api/kernels/{id}``; a kernel already gone (404) counts as deleted."""
        try:
            await self.request("DELETE", f"/api/kernels/{kernel_id}", "a shutdown", timeout=timeout)
        except GatewayError as e:
            if "HTTP 404" not in e.problem:
                raise

    async def aclose(self) -> None:
        """Close the HTTP connection pool."""
        if self._client is not None:
            client, self._client = self._client, None
            await client.aclose()


class _Channel:
    """One kernel channel's incoming messages (``get_msg`` raises ``queue.Empty`` on timeout)."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    async def get_msg(self, timeout: float | None = None) -> dict[str, Any]:
        """The next message; ``queue.Empty`` after ``timeout`` seconds (None: wait forever)."""
        try:
            return await asyncio.wait_for(self.queue.get(), timeout)
        except TimeoutError:
            raise Empty from None

    def msg_ready(self) -> bool:
        """Whether a message is waiting."""
        return not self.queue.empty()


class ChannelClient:
    """A kernel client over the gateway's websocket (``connect`` it first)."""

    def __init__(self, config: GatewayConfig, kernel_id: str) -> None:
        self.config = config
        self.kernel_id = kernel_id
        self.session = uuid.uuid4().hex
        self.username = getpass.getuser()
        self.allow_stdin = False
        self.shell_channel, self.iopub_channel = _Channel(), _Channel()
        self.control_channel, self.stdin_channel = _Channel(), _Channel()
        self._ws: WebSocketClientConnection | None = None
        self._reader: asyncio.Task[None] | None = None
        self.closed_reason: str | None = None  # why the channel is unusable (None: usable)
        self._frozen = False  # drop every incoming message (the kernel is being killed)

    async def connect(self) -> None:
        """Open the websocket; ``GatewayError`` when that fails."""
        cfg = self.config
        url = f"{cfg.ws_url}/api/kernels/{self.kernel_id}/channels?session_id={self.session}"
        headers = {"Authorization": f"token {cfg.token}"} if cfg.token else {}
        req = HTTPRequest(
            url, headers=headers, connect_timeout=cfg.connect_timeout,
            request_timeout=cfg.startup_timeout, validate_cert=cfg.validate_cert,
        )  # fmt: skip
        try:
            self._ws = await websocket_connect(
                req, max_message_size=WS_MAX_MESSAGE, ping_interval=10, ping_timeout=10
            )
        except HTTPClientError as e:
            body = (
                e.response.body.decode(errors="replace") if e.response and e.response.body else ""
            )
            raise http_error(cfg.url, e.code, body, "opening the kernel's channels") from None
        # refused, timed out, closed during the handshake
        except (OSError, TimeoutError, StreamClosedError, WebSocketError) as e:
            raise unreachable(cfg.url, _describe(e)) from None
        self._reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        ws = self._ws
        assert ws is not None
        while True:
            raw = await ws.read_message()
            if raw is None:
                code, reason = ws.close_code, ws.close_reason
                self.closed_reason = self.closed_reason or (
                    f"the gateway closed the kernel's websocket (code {code}"
                    + (f": {reason})" if reason else ")")
                )
                return
            if self._frozen or isinstance(raw, bytes):
                continue  # binary framing is only used when asked for; we never ask
            try:
                msg = json.loads(raw)
            except ValueError:
                continue
            channel = msg.pop("channel", None)
            content = msg.get("content") or {}
            if (
                channel == "iopub"
                and msg.get("msg_type", msg.get("header", {}).get("msg_type")) == "status"
            ):
                state = content.get("execution_state")
                if state in ("restarting", "autorestarting", "dead"):
                    self.closed_reason = f"the remote kernel died (gateway reported {state!r})"
            queue = {
                "shell": self.shell_channel, "iopub": self.iopub_channel,
                "control": self.control_channel, "stdin": self.stdin_channel,
            }.get(channel or "")  # fmt: skip
            if queue is not None:
                queue.queue.put_nowait(msg)

    def _send(self, channel: str, msg_type: str, content: dict[str, Any]) -> str:
        msg_id = uuid.uuid4().hex
        msg = {
            "header": {
                "msg_id": msg_id, "username": self.username, "session": self.session,
                "msg_type": msg_type, "version": PROTOCOL_VERSION, "date": _now(),
            },
            "parent_header": {}, "metadata": {}, "content": content,
            "channel": channel, "buffers": [],
        }  # fmt: skip
        if self._ws is None or self.closed_reason is not None:
            return msg_id  # dropped: is_alive() is False, so the caller learns of it
        try:
            fut = self._ws.write_message(json.dumps(msg))
            fut.add_done_callback(lambda f: f.exception())  # a closed socket must not log noise
        except (WebSocketClosedError, StreamClosedError, OSError) as e:
            self.closed_reason = (
                self.closed_reason or f"sending to the kernel failed: {_describe(e)}"
            )
        return msg_id

    # -- what nbclient and the executor use ------------------------------------------------------
    def execute(
        self,
        code: str,
        silent: bool = False,
        store_history: bool = True,
        user_expressions: dict[str, Any] | None = None,
        allow_stdin: bool | None = None,
        stop_on_error: bool = True,
    ) -> str:
        """Send an ``execute_request``; returns its msg_id."""
        content = {
            "code": code, "silent": silent, "store_history": store_history,
            "user_expressions": user_expressions or {}, "allow_stdin": False,
            "stop_on_error": stop_on_error,
        }  # fmt: skip
        return self._send("shell", "execute_request", content)

    def kernel_info(self) -> str:
        """Send a ``kernel_info_request``; returns its msg_id."""
        return self._send("shell", "kernel_info_request", {})

    async def is_alive(self) -> bool:
        """Whether the websocket is open and the kernel was not reported dead."""
        return self._ws is not None and self.closed_reason is None

    async def wait_for_ready(self, timeout: float) -> None:
        """Wait for a ``kernel_info_reply`` (re-asking each second, as jupyter_client does)."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        pending: set[str] = set()
        while loop.time() < end:
            if self.closed_reason is not None:
                raise KernelLost(detail=self.closed_reason)
            pending.add(self.kernel_info())
            step_end = min(end, loop.time() + 1.0)
            while loop.time() < step_end:
                try:
                    msg = await self.shell_channel.get_msg(timeout=step_end - loop.time())
                except Empty:
                    break
                if msg.get("parent_header", {}).get("msg_id") in pending:
                    self._drain(self.iopub_channel)
                    return
        raise TimeoutError(f"the kernel did not answer kernel_info within {timeout:g}s")

    def freeze(self, reason: str) -> None:
        """Stop delivering messages and report the kernel dead: what a SIGKILL does locally, so
        a cell interrupted at its timeout is not seen to finish."""
        self._frozen = True
        self.closed_reason = self.closed_reason or reason

    @staticmethod
    def _drain(channel: _Channel) -> None:
        while not channel.queue.empty():
            channel.queue.get_nowait()

    def stop_channels(self) -> None:
        """Close the websocket."""
        self.closed_reason = self.closed_reason or "closed by the executor"
        if self._ws is not None:
            with contextlib.suppress(Exception):
                self._ws.close()
        if self._reader is not None:
            self._reader.cancel()
