"""``RunService``: starts, lists, describes and steers MLE-STAR runs for the server extension.

Each run is a subprocess (``mlestar run ...``) writing a run folder under ``runs_dir``; the
service never runs agent code in the server's event loop.  Everything it reports is read back
from the folder, so runs survive browser reloads and server restarts (``discover``).  Besides the
journal's files the service keeps ``server.json`` in each run folder: who started it, the
process id, and the root-relative notebook and task paths.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
from pydantic import ValidationError
from traitlets import Float, List, Unicode
from traitlets.config import LoggingConfigurable

from ..journal import Event, EventTail, RunJournal, atomic_write_text
from ..journal.summary import summarise_events
from .errors import AlreadyDecided, InvalidRequest, ServiceError, UnknownProposal, UnknownRun
from .models import FINISHED, DescribeRun, EventsPage, ProposalModel, RunStatus, StartRun
from .paths import normalise_rel, relative_to_root, resolve_inside
from .process import DEFAULT_ENV_DENY, RunProcess, run_env

DEFAULT_TIME_LIMIT = 3600.0  # what ``mlestar run`` uses without --time-limit
RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")
SERVER_FILE = "server.json"

#: ``schedule(delay_seconds, fn)``: how the service defers work (the server passes its IOLoop's).
Scheduler = Callable[[float, Callable[[], None]], Any]


@dataclass
class RunRecord:
    """What the service holds for one run folder."""

    run_id: str
    dir: Path
    info: dict[str, Any] = field(default_factory=dict)
    process: RunProcess | None = None
    tail: EventTail | None = None

    def events(self) -> list[Event]:
        if self.tail is None:
            self.tail = EventTail(self.dir / "events.jsonl")
        return self.tail.events()


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
            if d.name in self._runs or not RUN_ID.match(d.name) or not d.is_dir():
                continue
            if not ((d / SERVER_FILE).exists() or (d / "run.json").exists()):
                continue
            info = _read_json(d / SERVER_FILE)
            proc = None
            if isinstance(info.get("pid"), int):
                proc = RunProcess(pid=info["pid"], create_time=info.get("create_time"))
            self._runs[d.name] = RunRecord(d.name, d, info, proc)
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
        if req.time_limit is not None and req.time_limit > self.max_time_limit:
            raise InvalidRequest(
                f"time_limit {req.time_limit:g} s is above this server's limit of "
                f"{self.max_time_limit:g} s; ask for less (the limit is c.RunService.max_time_limit)",
                [{"field": "time_limit", "message": f"at most {self.max_time_limit:g} seconds"}],
            )
        nb_path: Path | None = None
        if req.notebook_path:
            nb_path = resolve_inside(self.root, req.notebook_path, "notebook_path")
            if not nb_path.is_file() or nb_path.suffix != ".ipynb":
                raise InvalidRequest(
                    f"notebook_path {req.notebook_path!r} is not a notebook file",
                    [
                        {
                            "field": "notebook_path",
                            "message": "no such .ipynb file under the server root",
                        }
                    ],
                )
        if req.task_dir is not None:
            task_dir = resolve_inside(self.root, req.task_dir, "task_dir")
        elif nb_path is not None:
            task_dir = nb_path.parent
        else:
            raise InvalidRequest(
                "give task_dir, or notebook_path to use the notebook's folder",
                [{"field": "task_dir", "message": "required when notebook_path is not given"}],
            )
        if not task_dir.is_dir():
            raise InvalidRequest(
                f"task_dir {req.task_dir!r} is not a folder",
                [{"field": "task_dir", "message": "no such folder under the server root"}],
            )
        run_id = time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(3)
        run_dir = self.runs_path / run_id
        run_dir.mkdir(parents=True)
        info: dict[str, Any] = {
            "run_id": run_id,
            "task_dir": relative_to_root(self.root, task_dir),
            "notebook_path": relative_to_root(self.root, nb_path) if nb_path else None,
            "started": time.time(),
            "request": req.model_dump(),
        }
        argv = self._argv(req, task_dir, run_dir, nb_path)
        info["argv"] = argv
        atomic_write_text(run_dir / SERVER_FILE, json.dumps(info, indent=2))
        try:
            proc = RunProcess.spawn(
                argv, cwd=run_dir, env=run_env(os.environ, self.env_deny), log_dir=run_dir
            )
        except OSError as e:
            (run_dir / "stderr.log").write_text(
                f"could not start {argv[0]}: {e}\n", encoding="utf-8"
            )
            info["spawn_error"] = str(e)
            atomic_write_text(run_dir / SERVER_FILE, json.dumps(info, indent=2))
            self._runs[run_id] = RunRecord(run_id, run_dir, info, None)
            raise ServiceError(
                f"could not start the agent ({argv[0]}: {e}); check c.RunService.command"
            ) from None
        info.update(pid=proc.pid, create_time=proc.create_time)
        atomic_write_text(run_dir / SERVER_FILE, json.dumps(info, indent=2))
        self._runs[run_id] = RunRecord(run_id, run_dir, info, proc)
        self.log.info("mlestar: started run %s (pid %s): %s", run_id, proc.pid, " ".join(argv))
        return self.describe(run_id)

    def _argv(self, req: StartRun, task_dir: Path, run_dir: Path, nb: Path | None) -> list[str]:
        argv = [
            *self.command,
            "run",
            str(task_dir),
            "--out",
            str(run_dir),
            "--backend",
            req.backend,
            "--mode",
            req.mode,
            "--no-progress",
        ]
        if nb is not None:
            argv += ["--notebook", str(nb)]
        time_limit = req.time_limit
        if time_limit is None and self.max_time_limit < DEFAULT_TIME_LIMIT:
            time_limit = self.max_time_limit  # the CLI's default would pass the server's bound
        if time_limit is not None:
            argv += ["--time-limit", f"{time_limit:.15g}"]
        if req.model and req.backend != "offline":
            argv += ["--model", req.model]
        for name, flag in (
            ("models", "--models"),
            ("inner", "--inner"),
            ("outer", "--outer"),
            ("parallel", "--parallel"),
            ("ensemble_rounds", "--ensemble-rounds"),
            ("block", "--block"),
        ):
            value = getattr(req, name)
            if value is not None:
                argv += [flag, str(value)]
        return argv

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
        control = _read_json(rec.dir / "control.json")
        alive = rec.process is not None and rec.process.alive()
        status: RunStatus
        if s.finished_status in FINISHED:
            status = s.finished_status  # type: ignore[assignment]
        elif alive:
            status = "running"
        elif rec.process is None and not rec.info.get("spawn_error"):
            status = _status_without_process(rec)
        else:
            ended_by_us = control.get("stop") or rec.info.get("cancelled") or s.stopped
            status = "stopped" if ended_by_us or rec.info.get("stopped_by_server") else "failed"
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
            message=s.finished_reason,
        )

    def events(self, run_id: str, after: int = 0, limit: int = 1000) -> EventsPage:
        """Events ``after`` (how many the client has) onwards, at most ``limit``."""
        if after < 0 or limit < 1:
            raise InvalidRequest(
                "after must be >= 0 and limit >= 1",
                [{"field": "after" if after < 0 else "limit", "message": "out of range"}],
            )
        evs = self._get(run_id).events()
        page = evs[after : after + limit]
        return EventsPage(events=[e.to_json() for e in page], next=after + len(page))

    def proposals(self, run_id: str) -> list[ProposalModel]:
        """Every proposal of the run with its decision (from ``decisions/`` or a decision event)."""
        rec = self._get(run_id)
        s = summarise_events(rec.events())
        out = []
        for p in s.proposals:
            pid = str(p.data["proposal_id"])
            on_disk = _read_json(rec.dir / "decisions" / f"{pid}.json").get("decision")
            decision = on_disk or s.decided.get(pid)
            out.append(_proposal_model(p.data, decision))
        return out

    # -- steering ----------------------------------------------------------------------------
    def decide(self, run_id: str, proposal_id: str, decision: str) -> ProposalModel:
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
        atomic_write_text(rec.dir / SERVER_FILE, json.dumps(rec.info, indent=2))
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
        atomic_write_text(rec.dir / SERVER_FILE, json.dumps(rec.info, indent=2))
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
            import threading

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


def _status_without_process(rec: RunRecord) -> RunStatus:
    """A run folder with no known process (started by the CLI): trust run.json, else recency."""
    status = _read_json(rec.dir / "run.json").get("status")
    if status in FINISHED:
        return status  # type: ignore[no-any-return]
    try:
        fresh = time.time() - (rec.dir / "events.jsonl").stat().st_mtime < 600
    except FileNotFoundError:
        fresh = False
    return "running" if fresh else "failed"


def _proposal_model(p: dict[str, Any], decision: Any) -> ProposalModel:
    try:
        return ProposalModel(
            proposal_id=str(p["proposal_id"]),
            kind=p.get("kind") or "change",
            block_id=p.get("block_id"),
            cell_id=p.get("cell_id"),
            after_block_id=p.get("after_block_id"),
            after_cell_id=p.get("after_cell_id"),
            old_source=p.get("old_source") or "",
            new_source=p.get("new_source") or "",
            plan=p.get("plan") or "",
            score_before=p.get("score_before"),
            score_after=p.get("score_after"),
            decision=decision if decision in ("accept", "reject") else None,
        )
    except ValidationError:  # a malformed event from a foreign writer: show what is safe
        return ProposalModel(proposal_id=str(p["proposal_id"]))


def _read_json(path: Path) -> dict[str, Any]:
    try:
        d = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return {}
    return d if isinstance(d, dict) else {}
