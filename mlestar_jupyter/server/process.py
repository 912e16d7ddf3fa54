"""Run processes: spawn one per run in its own session, check it, end it.

A run outlives the server (own session, no pipes to the server), so a process is identified on
disk by ``pid`` plus its ``create_time``: a recycled pid never passes for the run.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import psutil

from ..execution.scratch import process_alive

#: Environment variables never handed to a run: the server's credentials.
DEFAULT_ENV_DENY = (
    r"^JUPYTER_.*(TOKEN|PASSWORD|SECRET|COOKIE)",
    r"^JPY_.*(TOKEN|PASSWORD|SECRET|COOKIE|KEY)",
    r"^JUPYTERHUB_",
)


def run_env(environ: Mapping[str, str], deny: Iterable[str]) -> dict[str, str]:
    """A copy of ``environ`` without the variables matching any ``deny`` regex (case-insensitive)."""
    patterns = [re.compile(p, re.IGNORECASE) for p in deny]
    env = {k: v for k, v in environ.items() if not any(p.search(k) for p in patterns)}
    env["PYTHONUNBUFFERED"] = "1"
    return env


@dataclass
class RunProcess:
    """A run's process: a child of this server (``popen``) or one found on disk (pid only)."""

    pid: int
    create_time: float | None = None
    popen: subprocess.Popen[bytes] | None = None

    @classmethod
    def spawn(cls, argv: list[str], *, cwd: Path, env: dict[str, str], log_dir: Path) -> RunProcess:
        """Start ``argv`` in a new session, stdout/stderr to ``log_dir/stdout.log``/``stderr.log``."""
        with open(log_dir / "stdout.log", "ab") as out, open(log_dir / "stderr.log", "ab") as err:
            popen = subprocess.Popen(  # noqa: S603 - argv is built by the service, not a shell
                argv,
                cwd=cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                start_new_session=True,
            )
        try:
            created: float | None = psutil.Process(popen.pid).create_time()
        except psutil.Error:
            created = None
        return cls(pid=popen.pid, create_time=created, popen=popen)

    def alive(self) -> bool:
        """Whether the run's process still runs (a zombie counts as ended)."""
        if self.popen is not None:
            return self.popen.poll() is None
        return process_alive(self.pid, self.create_time)

    def descendants(self) -> list[psutil.Process]:
        """Every process below the run's (its kernels, in their own sessions too), now."""
        try:
            return psutil.Process(self.pid).children(recursive=True)
        except psutil.Error:
            return []

    def send(self, sig: signal.Signals) -> None:
        """Send ``sig`` to the run's own process only (it stops its kernels itself)."""
        if self.alive():
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                pass

    def wait(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the process to end; whether it did."""
        if self.popen is not None:
            try:
                self.popen.wait(max(0.0, timeout))
            except subprocess.TimeoutExpired:
                return False
            return True
        deadline = time.monotonic() + timeout
        while self.alive() and time.monotonic() < deadline:
            time.sleep(0.1)
        return not self.alive()

    def signal_group(self, sig: signal.Signals) -> None:
        """Send ``sig`` to the run's process group (its own session), if it still lives."""
        if not self.alive():
            return
        try:
            os.killpg(self.pid, sig)
        except ProcessLookupError:
            pass
        except PermissionError:
            os.kill(self.pid, sig)
