"""``RunService``: starts, lists, describes and steers MLE-STAR runs for the server extension.

Each run is a subprocess (``mlestar run ...``) writing a run folder under ``runs_dir``; the
service never runs agent code in the server's event loop.  Everything it reports is read back
from the folder, so runs survive browser reloads and server restarts (``discover``).  Besides the
journal's files the service keeps ``server.json`` in each run folder: who started it, the
process id, and the root-relative notebook and task paths.
"""

from __future__ import annotations

import os
import secrets
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil
from traitlets import Float, List, Unicode
from traitlets.config import LoggingConfigurable

from ..journal import RunJournal
from ..journal.summary import summarise_events
from .errors import AlreadyDecided, InvalidRequest, ServiceError, UnknownProposal, UnknownRun
from .launch import agent_argv, check_time_limit, start_paths
from .models import DescribeRun, EventPage, Proposal, RunEvent, StartRun
from .paths import normalise_rel, relative_to_root
from .process import DEFAULT_ENV_DENY, RunProcess, run_env
from .records import RunRecord, failure_reason, proposal_model, read_json, run_status

__all__ = ["RunRecord", "RunService", "Scheduler"]
_proposal_model = proposal_model  # the name tests knew it by

#: ``schedule(delay_seconds, fn)``: how the service defers work (the server passes its IOLoop's).
Scheduler = Callable[[float, Callable[[], None]], Any]


class RunService(LoggingConfigurable):
    """Runs of the agent as subprocesses, observed through their run folders."""

    runs_dir = Unicode(
        "",
        config=True,
        help="Folder holding run folders; relative paths are under the server root. "
        "Default: <server root>/.mlestar/runs",
    )
    command = List(
        Unicode(),
        default_value=[sys.executable, "-m", "mlestar_jupyter"],
        config=True,
        help="Command that starts the agent; 'run TASK_DIR --out RUN_DIR ...' is appended.",
    )
    cancel_grace_seconds = Float(
        10.0,
        config=True,
        help="After a cancel, seconds the run gets to stop itself before SIGTERM.",
    )
    kill_grace_seconds = Float(5.0, config=True, help="Seconds after SIGTERM before SIGKILL.")
    max_time_limit = Float(
        24 * 3600.0,
        config=True,
        help="Largest time_limit (seconds) a request may ask for; larger ones get 400.",
    )
    shutdown_grace_seconds = Float(
        10.0,
        config=True,
        help="When the server shuts down, seconds its runs get to stop themselves (journaled as "
        "stopped, resumable) after SIGTERM, before their process trees are killed.",
    )
    env_deny = List(
        Unicode(),
        default_value=list(DEFAULT_ENV_DENY),
        config=True,
        help="Regexes of environment variable names never passed to a run (server credentials).",
    )

    def __init__(
        self, root_dir: str | Path, schedule: Scheduler | None = None, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.root = Path(root_dir).resolve()
        self._schedule = schedule
        self._runs: dict[str, RunRecord] = {}

    # -- where runs live ---------------------------------------------------------------------
    @property
    def runs_path(self) -> Path:
        """The folder holding run folders (``runs_dir``, relative to the root, or the default)."""
        if not self.runs_dir:
            return self.root / ".mlestar" / "runs"
        p = Path(self.runs_dir).expanduser()
        return p if p.is_absolute() else self.root / p

    def discover(self) -> list[str]:
        """Pick up run folders on disk not known yet (after a server restart, or CLI runs)."""
        found: list[str] = []
        if not self.runs_path.is_dir():
            return found
        for d in sorted(self.runs_path.iterdir()):
            rec = None if d.name in self._runs else RunRecord.load(d)
            if rec is not None:
                self._runs[d.name] = rec
                found.append(d.name)
        return found

    def _get(self, run_id: str) -> RunRecord:
        if run_id not in self._runs:
            self.discover()
        rec = self._runs.get(run_id)
        if rec is None:
            raise UnknownRun(
                f"no run {run_id!r} under {self.runs_path}; list runs with GET /mlestar/runs"
            )
        return rec

    # -- starting ----------------------------------------------------------------------------
    def start(self, req: StartRun) -> DescribeRun:
        """Validate paths, create the run folder and spawn the agent on it."""
        check_time_limit(req, self.max_time_limit)
        task_dir, nb_path = start_paths(self.root, req)
        run_id = time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(3)
        run_dir = self.runs_path / run_id
        run_dir.mkdir(parents=True)
        argv = self._argv(req, task_dir, run_dir, nb_path)
        rec = RunRecord(run_id, run_dir)
        rec.info = {
            "run_id": run_id,
            "task_dir": relative_to_root(self.root, task_dir),
            "notebook_path": relative_to_root(self.root, nb_path) if nb_path else None,
            "started": time.time(),
            "request": req.model_dump(),
            "argv": argv,
        }
        rec.save_info()
        self._runs[run_id] = rec
        rec.process = self._spawn(rec, argv)
        self.log.info(
            "mlestar: started run %s (pid %s): %s", run_id, rec.process.pid, " ".join(argv)
        )
        return self.describe(run_id)

    def _spawn(self, rec: RunRecord, argv: list[str]) -> RunProcess:
        """Start the agent in ``rec``'s folder; a failure to start is noted there, then raised."""
        try:
            proc = RunProcess.spawn(
                argv, cwd=rec.dir, env=run_env(os.environ, self.env_deny), log_dir=rec.dir
            )
        except OSError as e:
            (rec.dir / "stderr.log").write_text(
                f"could not start {argv[0]}: {e}\n", encoding="utf-8"
            )
            rec.info["spawn_error"] = str(e)
            rec.save_info()
            raise ServiceError(
                f"could not start the agent ({argv[0]}: {e}); check c.RunService.command"
            ) from None
        rec.info.update(pid=proc.pid, create_time=proc.create_time)
        rec.save_info()
        return proc

    def _argv(self, req: StartRun, task_dir: Path, run_dir: Path, nb: Path | None) -> list[str]:
        return agent_argv(self.command, req, task_dir, run_dir, nb, self.max_time_limit)

    # -- reading -----------------------------------------------------------------------------
    def list_runs(self, notebook: str | None = None) -> list[DescribeRun]:
        """Every known run, newest first; with ``notebook``, only runs started on that notebook."""
        self.discover()
        out = [self.describe(rid) for rid in self._runs]
        if notebook is not None:
            want = normalise_rel(notebook)
            out = [
                d
                for d in out
                if d.notebook_path is not None and normalise_rel(d.notebook_path) == want
            ]
        return sorted(out, key=lambda d: d.started or 0.0, reverse=True)

    def describe(self, run_id: str) -> DescribeRun:
        """The run's state from its events, its control file and (while it lives) its process."""
        rec = self._get(run_id)
        s = summarise_events(rec.events())
        control = read_json(rec.dir / "control.json")
        status = run_status(rec, s, control)
        started = rec.info.get("started") or s.started
        if status == "running":
            elapsed = time.time() - started if started else 0.0
        elif s.finished_elapsed is not None:
            elapsed = s.finished_elapsed
        else:
            elapsed = (s.last_time - started) if (s.last_time and started) else 0.0
        pending = sum(
            1
            for p in s.proposals
            if str(p.data["proposal_id"]) not in s.decided
            and not (rec.dir / "decisions" / f"{p.data['proposal_id']}.json").exists()
        )
        return DescribeRun(
            run_id=run_id,
            status=status,
            phase=s.phase,
            best_score=s.best_score,
            metric=s.metric,
            direction=s.direction,
            notebook_path=rec.info.get("notebook_path"),
            task_dir=rec.info.get("task_dir"),
            run_dir=relative_to_root(self.root, rec.dir),
            started=started,
            elapsed=max(0.0, elapsed),
            pending_proposals=pending,
            paused=bool(control.get("pause")),
            stop_requested=bool(control.get("stop")),
            message=s.finished_reason
            or (failure_reason(rec) if status == "failed" and not s.finished_status else ""),
        )

    def events(self, run_id: str, after: int = 0, limit: int = 1000) -> EventPage:
        """Events ``after`` (how many the client has) onwards, at most ``limit``."""
        if after < 0 or limit < 1:
            raise InvalidRequest(
                "after must be >= 0 and limit >= 1",
                [{"field": "after" if after < 0 else "limit", "message": "out of range"}],
            )
        evs = self._get(run_id).events()
        page = evs[after : after + limit]
        return EventPage(
            events=[RunEvent.model_construct(**e.to_json()) for e in page], next=after + len(page)
        )

    def proposals(self, run_id: str) -> list[Proposal]:
        """Every proposal of the run with its decision (from ``decisions/`` or a decision event)."""
        rec = self._get(run_id)
        s = summarise_events(rec.events())
        out = []
        for p in s.proposals:
            pid = str(p.data["proposal_id"])
            on_disk = read_json(rec.dir / "decisions" / f"{pid}.json").get("decision")
            decision = on_disk or s.decided.get(pid)
            out.append(proposal_model(p.data, decision))
        return out

    # -- steering ----------------------------------------------------------------------------
    def decide(self, run_id: str, proposal_id: str, decision: str) -> Proposal:
        """Record ``decision`` for a proposal (once: a second decision is refused)."""
        for p in self.proposals(run_id):
            if p.proposal_id == proposal_id:
                if p.decision is not None:
                    raise AlreadyDecided(
                        f"proposal {proposal_id} was already decided ({p.decision}); decisions are final"
                    )
                RunJournal(self._get(run_id).dir).record_decision(
                    proposal_id, decision, by="jupyter"
                )
                return p.model_copy(update={"decision": decision})
        raise UnknownProposal(
            f"run {run_id} has no proposal {proposal_id!r}; list them with GET /mlestar/runs/{run_id}/proposals"
        )

    def pause(self, run_id: str, pause: bool) -> DescribeRun:
        """Ask the run to pause (or resume) between steps."""
        rec = self._get(run_id)
        RunJournal(rec.dir).set_control(pause=pause)
        return self.describe(run_id)

    def cancel(self, run_id: str) -> DescribeRun:
        """Ask the run to stop; SIGTERM its process group after ``cancel_grace_seconds``,
        SIGKILL after ``kill_grace_seconds`` more.  Cancelling an ended run changes nothing."""
        rec = self._get(run_id)
        if self.describe(run_id).status != "running":
            return self.describe(run_id)
        RunJournal(rec.dir).set_control(stop=True, pause=False)
        rec.info["cancelled"] = time.time()
        rec.save_info()
        if rec.process is not None:
            self._later(self.cancel_grace_seconds, lambda: self._escalate(rec, signal.SIGTERM))
        return self.describe(run_id)

    def stop_all(self) -> list[str]:
        """Stop every run this server started that still runs (the server is shutting down):
        SIGTERM to each run, which journals ``run_stopped`` and leaves its folder resumable;
        what is still alive after ``shutdown_grace_seconds`` is killed, the run's process group
        and every process below it.  Returns the ids of the runs stopped."""
        live = [
            r
            for r in self._runs.values()
            if r.process is not None and r.process.popen is not None and r.process.alive()
        ]
        trees = {r.run_id: r.process.descendants() for r in live if r.process is not None}
        for r in live:
            self.log.info("mlestar: server shutting down; stopping run %s", r.run_id)
            assert r.process is not None
            r.process.send(signal.SIGTERM)
        deadline = time.monotonic() + self.shutdown_grace_seconds
        for r in live:
            assert r.process is not None
            if not r.process.wait(deadline - time.monotonic()):
                self.log.warning("mlestar: run %s did not stop in time; killing it", r.run_id)
                r.process.signal_group(signal.SIGKILL)
                r.process.wait(5.0)
            _kill_all(trees[r.run_id])
            self._journal_stopped(r)
        return [r.run_id for r in live]

    def _journal_stopped(self, rec: RunRecord) -> None:
        """Record in the run's folder that the server stopped it (unless the run did)."""
        rec.info["stopped_by_server"] = time.time()
        rec.save_info()
        s = summarise_events(rec.events())
        if s.finished_status is None and not s.stopped and (rec.dir / "run.json").exists():
            journal = RunJournal(rec.dir)
            try:
                journal.emit("run_stopped", reason="the Jupyter server shut down", by="server")
                journal.update_meta(status="stopped")
            finally:
                journal.close()

    def _escalate(self, rec: RunRecord, sig: signal.Signals) -> None:
        if rec.process is None or not rec.process.alive():
            return
        self.log.info("mlestar: run %s did not stop; sending %s", rec.run_id, sig.name)
        rec.process.signal_group(sig)
        if sig == signal.SIGTERM:
            self._later(self.kill_grace_seconds, lambda: self._escalate(rec, signal.SIGKILL))

    def _later(self, delay: float, fn: Callable[[], None]) -> None:
        if self._schedule is None:
            t = threading.Timer(delay, fn)
            t.daemon = True
            t.start()
        else:
            self._schedule(delay, fn)


def _kill_all(procs: list[psutil.Process]) -> None:
    """SIGKILL whatever of ``procs`` still runs (a run's kernels after the run ended)."""
    for p in procs:
        try:
            p.kill()
        except psutil.Error:
            pass
    psutil.wait_procs(procs, timeout=5)
