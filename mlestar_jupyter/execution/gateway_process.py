"""A Jupyter Kernel Gateway on 127.0.0.1 in a subprocess (for tests, benchmarks and trying the
``gateway`` provider on one machine).

    with LocalGateway(token="secret") as gw:
        Executor(provider="gateway", gateway_url=gw.url, gateway_token=gw.token)

Needs ``jupyter_kernel_gateway`` installed.  ``kill()`` stops it the hard way (SIGKILL), as a
crash would; ``stop()`` also ends the kernels it started, which would otherwise outlive it.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import psutil

from .gateway_client import GatewayError


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LocalGateway:
    """``jupyter kernelgateway`` on 127.0.0.1:``port`` with auth ``token``."""

    def __init__(
        self,
        *,
        token: str,
        port: int | None = None,
        log_path: Path | None = None,
        max_kernels: int | None = None,
        extra_args: tuple[str, ...] = (),
    ) -> None:
        self.token = token
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        self.max_kernels = max_kernels
        self.extra_args = extra_args
        self.proc: subprocess.Popen[bytes] | None = None
        self._kernels: set[int] = set()

    def start(self, timeout: float = 90) -> LocalGateway:
        """Start the gateway and wait until it answers with the token."""
        args = [
            sys.executable, "-m", "kernel_gateway",
            "--KernelGatewayApp.ip=127.0.0.1", f"--KernelGatewayApp.port={self.port}",
            "--KernelGatewayApp.port_retries=0",
            *self.extra_args,
        ]  # fmt: skip
        if self.max_kernels:
            args.append(f"--KernelGatewayApp.max_kernels={self.max_kernels}")
        # the token goes in the environment, not on the command line (ps shows that)
        env = {**os.environ, "KG_AUTH_TOKEN": self.token, "KG_LIST_KERNELS": "True"}
        out = open(self.log_path, "ab") if self.log_path else subprocess.DEVNULL  # noqa: SIM115
        try:
            self.proc = subprocess.Popen(
                args, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
        finally:
            if self.log_path:
                out.close()  # type: ignore[union-attr]  # the child keeps its own copy
        deadline = time.monotonic() + timeout
        headers = {"Authorization": f"token {self.token}"}
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise GatewayError(
                    self.url,
                    f"exited at start (code {self.proc.returncode})",
                    "check that jupyter_kernel_gateway is installed (pip install "
                    "jupyter_kernel_gateway) and read its log (log_path=...)",
                )
            try:
                if httpx.get(f"{self.url}/api", headers=headers, timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        self.stop()
        raise GatewayError(
            self.url,
            f"did not answer within {timeout:g}s",
            "raise the timeout on a slow machine, or read its log (log_path=...)",
        )

    def kernels(self) -> list[dict[str, object]]:
        """The gateway's running kernels (``GET /api/kernels``)."""
        r = httpx.get(
            f"{self.url}/api/kernels", headers={"Authorization": f"token {self.token}"}, timeout=5
        )
        r.raise_for_status()
        return list(r.json())

    def kernel_pids(self) -> set[int]:
        """Process ids of the gateway's kernels (its child processes)."""
        if self.proc is None:
            return set()
        try:
            children = psutil.Process(self.proc.pid).children(recursive=True)
        except psutil.NoSuchProcess:
            return set()
        pids = {c.pid for c in children}
        self._kernels |= pids
        return pids

    def kill(self) -> None:
        """SIGKILL the gateway only (as a crash would); its kernels are left running."""
        if self.proc is not None and self.proc.poll() is None:
            self.kernel_pids()
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        """Stop the gateway and every kernel it started."""
        if self.proc is not None and self.proc.poll() is None:
            self.kernel_pids()
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        for pid in self._kernels:
            try:
                for p in [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]:
                    p.kill()
            except psutil.NoSuchProcess:
                pass

    def __enter__(self) -> LocalGateway:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
