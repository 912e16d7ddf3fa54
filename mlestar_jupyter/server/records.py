"""What the run service knows of one run folder, read back from disk.

``RunRecord`` pairs a run folder with the service's note on it (``server.json``: who started it,
the process id, the root-relative notebook and task paths) and its process; the helpers read a
folder's files leniently, as a run (or a foreign writer) may leave them half written.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..journal import Event, EventTail, atomic_write_text
from ..journal.summary import RunSummary
from .models import FINISHED, Proposal, RunStatus
from .process import RunProcess

RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")
SERVER_FILE = "server.json"


@dataclass
class RunRecord:
    """What the service holds for one run folder."""

    run_id: str
    dir: Path
    info: dict[str, Any] = field(default_factory=dict)
    process: RunProcess | None = None
    tail: EventTail | None = None

    def events(self) -> list[Event]:
        """The run's events so far (read incrementally)."""
        if self.tail is None:
            self.tail = EventTail(self.dir / "events.jsonl")
        return self.tail.events()

    def save_info(self) -> None:
        """Write ``info`` to the folder's ``server.json``."""
        atomic_write_text(self.dir / SERVER_FILE, json.dumps(self.info, indent=2))

    @classmethod
    def load(cls, run_dir: Path) -> RunRecord | None:
        """The record of a run folder on disk (None: not a run folder)."""
        if not RUN_ID.match(run_dir.name) or not run_dir.is_dir():
            return None
        if not ((run_dir / SERVER_FILE).exists() or (run_dir / "run.json").exists()):
            return None
        info = read_json(run_dir / SERVER_FILE)
        proc = None
        if isinstance(info.get("pid"), int):
            proc = RunProcess(pid=info["pid"], create_time=info.get("create_time"))
        return cls(run_dir.name, run_dir, info, proc)


def run_status(rec: RunRecord, s: RunSummary, control: dict[str, Any]) -> RunStatus:
    """The run's state from its summary, its control file and (while it lives) its process."""
    if s.finished_status in FINISHED:
        return s.finished_status  # type: ignore[return-value]
    if rec.process is not None and rec.process.alive():
        return "running"
    if rec.process is None and not rec.info.get("spawn_error"):
        return status_without_process(rec)
    ended_by_us = control.get("stop") or rec.info.get("cancelled") or s.stopped
    return "stopped" if ended_by_us or rec.info.get("stopped_by_server") else "failed"


def status_without_process(rec: RunRecord) -> RunStatus:
    """A run folder with no known process (started by the CLI): trust run.json, else recency."""
    status = read_json(rec.dir / "run.json").get("status")
    if status in FINISHED:
        return status  # type: ignore[no-any-return]
    try:
        fresh = time.time() - (rec.dir / "events.jsonl").stat().st_mtime < 600
    except FileNotFoundError:
        fresh = False
    return "running" if fresh else "failed"


def failure_reason(rec: RunRecord, limit: int = 2000) -> str:
    """Why a run that wrote no ending of its own failed, from its ``stderr.log``: the agent's
    one-line error (``mlestar: <what to fix>``, a notebook for another kernel, a folder that is
    no task), else a traceback's last line; "" when the log says nothing."""
    try:
        with (rec.dir / "stderr.log").open("rb") as fh:
            fh.seek(0, 2)
            fh.seek(max(0, fh.tell() - 16_000))
            text = fh.read().decode("utf-8", errors="replace")
    except OSError:
        return ""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    said = [ln for ln in lines if ln.startswith("mlestar: ")]
    if said:
        return said[-1][len("mlestar: ") :][:limit]
    last = lines[-1] if lines else ""
    return last[:limit] if re.match(r"^[A-Za-z_][\w.]*(Error|Exception)\b", last) else ""


def proposal_model(p: dict[str, Any], decision: Any) -> Proposal:
    """A proposal event's data as the REST model (what is unsafe in it is left out)."""
    try:
        return Proposal(
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
        return Proposal(proposal_id=str(p["proposal_id"]))


def read_json(path: Path) -> dict[str, Any]:
    """The JSON object in ``path`` ({} when it is missing, unreadable or not an object)."""
    try:
        d = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return {}
    return d if isinstance(d, dict) else {}
