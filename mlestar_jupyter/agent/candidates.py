"""Running one candidate: leakage check, execution (cached by code digest), debugger rounds, journal.

``CandidateRunner.evaluate`` is the paper's "evaluate h(s) using D" with everything around it: the
data-leakage checker before every evaluation, the debugger on failure, and a ``candidate`` event
for every execution.  The score of a candidate is the harness's (``scoring``): its validation
predictions are measured on the run's split and a printed score that disagrees or cannot be true
is journaled and reported to the policy.  Node ids are semantic (``p0-t1k2``, ``init-m3``, ``p0-t1k2-d1``) so a resumed
run finds its earlier work by name.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from pathlib import Path
from typing import Any

from ..journal import Node, RunJournal
from ..notebook import SolutionNotebook, UnknownBlockError
from ..task import Task
from .clock import RunClock
from .config import RunConfig
from .errors import RunStopped
from .policy import Policy
from .scoring import VAL_INDEX_FILE, ValidationScorer, scorer_for
from .stop import StopRequest

log = logging.getLogger("mlestar.agent")


# The longest a final (submission) notebook may run, when the per-execution limit is shorter:
# it asks for 3x its search run + 30 s (all the data, no subsample) and must not be cut off.
FINAL_TIMEOUT_CAP = 600.0


class CandidateRunner:
    """Executes candidates for one run (thread-safe: paths call it from their own threads)."""

    def __init__(
        self,
        task: Task,
        journal: RunJournal,
        executor: Any,
        clock: RunClock,
        config: RunConfig,
        stop: StopRequest | None = None,
    ) -> None:
        self.task = task
        self.journal = journal
        self.executor = executor
        self.clock = clock
        self.config = config
        self.stop = stop or StopRequest()  # Ctrl-C / SIGTERM of this process (see ``stop``)
        self._scorer: ValidationScorer | None = None  # built on first use (reads the labels)
        self._scorer_lock = threading.Lock()
        # one lock per notebook digest: parallel paths that reach the same code wait for the
        # first run of it and read its cached result, so identical code never runs twice
        self._running: dict[str, threading.Lock] = {}
        self._running_lock = threading.Lock()

    # -- controls ---------------------------------------------------------------------------
    def checkpoint(self, phase: str) -> None:
        """Honour pause/stop from the UI and the overall time budget (the final phase is exempt
        from those; not from this process's own stop request)."""
        self.stop_if_requested()
        if phase == "final":  # the submission is written whatever happens: no pause, stop or limit
            return
        while True:
            ctl = self.journal.control()
            if ctl.get("stop"):
                raise RunStopped("stop requested")
            if not ctl.get("pause"):
                break
            if self.stop.wait(0.5):
                self.stop_if_requested()
        if phase != "final" and self.clock.total is not None:
            reserve = self.clock.total * self.config.budget.phase_shares.get("final", 0.15)
            if self.clock.remaining() <= reserve:
                raise RunStopped(
                    "time budget reached; writing the submission with the best solution so far"
                )

    def stop_if_requested(self) -> None:
        """Raise ``RunStopped`` if this process was asked to stop (Ctrl-C, SIGTERM)."""
        if self.stop.is_set():
            raise RunStopped(self.stop.reason or "stop requested")

    def phase_over(self, phase: str) -> bool:
        return self.clock.phase_left(phase) <= 0

    # -- scores -----------------------------------------------------------------------------
    @property
    def scorer(self) -> ValidationScorer:
        """The run's validation scorer; its split is journaled once (``validation_split``)."""
        with self._scorer_lock:
            if self._scorer is None:
                self._scorer = scorer_for(
                    self.task, seed=self.config.seed, max_rows=self.config.max_train_rows
                )
                split = self._scorer.split
                if split is not None:
                    split.write(self.journal.dir)
                self.journal.emit(
                    "validation_split",
                    key="validation_split",
                    **(split.describe() if split is not None else {"file": None, "rows": 0}),
                )
            return self._scorer

    def _tell(self, policy: Policy, node: Node, record: dict[str, Any]) -> None:
        """Journal a score the harness did not take as printed, and tell the policy (its next
        debugger and refinement prompts quote the message)."""
        check = record.get("score_check") or {}
        status, message = check.get("status"), str(check.get("message") or "")
        if status == "printed" and message:  # a prediction file the grader could not read
            self.journal.emit(
                "warning", key=f"score/{node.id}", message=f"{node.id}: {message}", what="score"
            )
        elif status not in ("mismatch", "untrusted"):
            return
        else:
            self.journal.emit(
                f"score_{status}",
                key=f"score/{node.id}",
                node_id=node.id,
                printed=check.get("printed"),
                measured=check.get("measured"),
                message=message,
            )
        hear = getattr(policy, "hear_score_feedback", None)
        if callable(hear):
            hear(message)

    # -- execution --------------------------------------------------------------------------
    def execute(
        self,
        nb: SolutionNotebook,
        node_id: str,
        phase: str,
        *,
        submission: bool = False,
        min_timeout: float | None = None,
    ) -> dict[str, Any]:
        """Run ``nb`` (or fetch the cached result for the same code) and return the result record.
        ``min_timeout`` lets a final notebook outrun a nearly spent budget rather than be cut off."""
        key = nb.digest + ("-sub" if submission else "")
        with self._running_lock:
            same_code = self._running.setdefault(key, threading.Lock())
        with same_code:
            cached = self.journal.execution_cached(key)
            if cached is not None:
                return cached
            return self._execute(nb, key, node_id, phase, submission, min_timeout)

    def _execute(
        self,
        nb: SolutionNotebook,
        key: str,
        node_id: str,
        phase: str,
        submission: bool,
        min_timeout: float | None,
    ) -> dict[str, Any]:
        """Run ``nb`` now (no cached result for ``key``) and cache the record it gave."""
        workdir = self.journal.path("work", node_id)
        timeout = self.clock.exec_timeout("final" if submission else _budget_phase(phase))
        if min_timeout is not None:  # a final notebook trains on all the data: give it room
            cap = max(self.config.budget.exec_timeout, FINAL_TIMEOUT_CAP)
            timeout = max(timeout, min(min_timeout, cap))
        t0 = time.monotonic()
        self.stop_if_requested()
        scorer = self.scorer
        try:
            scorer.prepare(workdir)
            result = self.executor.run(
                nb, input_dir=self.task.input_dir, workdir=workdir, timeout=timeout
            )
        except Exception as e:  # noqa: BLE001 - infrastructure failure becomes a failed candidate
            self.stop_if_requested()  # cancelled by the stop: not the candidate's failure
            log.warning("execution of %s failed to start: %s", node_id, e)
            record: dict[str, Any] = {
                "ok": False,
                "score": None,
                "error": f"{type(e).__name__}: {e}",
                "traceback": "",
                "failed_block": None,
                "stdout": "",
                "duration": time.monotonic() - t0,
                "submission": None,
                "notebook": None,
            }
            return record
        self.stop_if_requested()  # a kernel killed by the stop proves nothing: run it again on resume
        nb_path = self.journal.path("candidates", f"{node_id}.ipynb")
        executed = getattr(result, "notebook", None)
        try:
            SolutionNotebook(executed if executed is not None else nb.nb).write(nb_path)
        except Exception:  # noqa: BLE001
            nb.write(nb_path)
        sub = getattr(result, "submission_path", None)
        check = scorer.check(workdir, result.score, source=nb.source)
        record = {
            "ok": bool(result.ok),
            "score": check.score,
            "printed_score": result.score,
            "score_check": check.to_json(),
            "error": result.error,
            "traceback": getattr(result, "traceback", None) or "",
            "failed_block": getattr(result, "failed_block", None),
            "stdout": (getattr(result, "stdout", "") or "")[-20000:],
            "duration": float(getattr(result, "duration", time.monotonic() - t0)),
            "submission": str(sub) if sub else None,
            "notebook": self.journal.rel(nb_path),
            "timed_out": bool(getattr(result, "timed_out", False)),
        }
        self.journal.cache_execution(key, record)
        return record

    # -- evaluation ----------------------------------------------------------------------------
    def evaluate(
        self,
        nb: SolutionNotebook,
        policy: Policy,
        *,
        node_id: str,
        path: str,
        phase: str,
        label: str,
        parent_id: str | None = None,
        block_id: str | None = None,
        debug: bool = True,
        leakage: bool = True,
        submission: bool = False,
        need_score: bool = True,
        min_timeout: float | None = None,
    ) -> tuple[Node, SolutionNotebook]:
        """Check, run, debug and journal one candidate; returns its node and the notebook that ran."""
        control_phase = "final" if submission or path == "final" else phase
        self.checkpoint(control_phase)
        original, fixed_block = nb, None
        if leakage and self.config.leakage_check:
            nb, fixed_block = self._fix_leakage(nb, policy, node_id)
        if path == "final" and min_timeout is None:
            min_timeout = 120.0  # the ladder's own runs are never starved by a spent budget
        record = self.execute(nb, node_id, phase, submission=submission, min_timeout=min_timeout)
        if fixed_block and not record["ok"] and not record.get("timed_out"):
            # The code failed after a leakage fix (in its cell or a later one that relied on what
            # it changed): one run of the code as written costs seconds, debugging the fix costs
            # LLM rounds, and small models often "fix" leaks that are not there.
            plain = self.execute(
                original,
                f"{node_id}-unfixed",
                phase,
                submission=submission,
                min_timeout=min_timeout,
            )
            if plain["ok"]:
                self.journal.emit(
                    "leakage",
                    key=f"leakage-undone/{node_id}",
                    node_id=node_id,
                    block_id=fixed_block,
                    leaky=True,
                    fixed=False,
                    reason=f"the fix failed when run ({record.get('error')}); kept the code as written",
                )
                nb, record = original, plain
        node = self._record(
            nb,
            record,
            node_id=node_id,
            path=path,
            phase=phase,
            label=label,
            parent_id=parent_id,
            block_id=block_id,
            need_score=need_score,
        )
        self._tell(policy, node, record)
        rounds = self.config.debug_rounds if debug else 0
        current = nb
        seen: list[str] = []  # the error of each version, to notice a debugger that is stuck
        for r in range(1, rounds + 1):
            if node.ok and (node.score is not None or not need_score):
                break
            error = _error_text(record)
            seen.append(_error_signature(record))
            if len(seen) >= 3 and seen[-1] == seen[-2] == seen[-3]:
                self._gave_up(
                    node_id,
                    r,
                    error,
                    "two fixes in a row failed with the same error: the debugger is stuck",
                )
                break
            self.checkpoint(control_phase)
            try:
                fixed = policy.debug(current, error, record.get("failed_block"))
            except RunStopped:
                raise
            except Exception as e:  # noqa: BLE001 - a role that fails leaves the candidate failed
                self.stop_if_requested()
                self._gave_up(node_id, r, error, str(e)[:500])
                break
            if fixed.digest == current.digest:
                self._gave_up(node_id, r, error, "the debugger changed nothing")
                break
            did = f"{node_id}-d{r}"
            if leakage and self.config.leakage_check:  # the debugger's code is checked too
                fixed, _ = self._fix_leakage(fixed, policy, did)
            record = self.execute(fixed, did, phase, submission=submission, min_timeout=min_timeout)
            current = fixed
            node = self._record(
                fixed,
                record,
                node_id=did,
                path=path,
                phase=phase,
                label=f"{label} (debug {r})",
                parent_id=node_id,
                block_id=block_id,
                need_score=need_score,
            )
            self._tell(policy, node, record)
            self.journal.emit(
                "debug",
                key=f"debug/{node_id}/{r}",
                node_id=did,
                round=r,
                error=error[-2000:],
                fixed=node.ok,
            )
        return node, current

    def _gave_up(self, node_id: str, r: int, error: str, reason: str) -> None:
        """Journal a debugger round that ends the rounds without a new version to run."""
        self.journal.emit(
            "debug",
            key=f"debug/{node_id}/{r}",
            node_id=node_id,
            round=r,
            error=error[-2000:],
            fixed=False,
            reason=reason,
        )

    def _fix_leakage(
        self, nb: SolutionNotebook, policy: Policy, node_id: str
    ) -> tuple[SolutionNotebook, str | None]:
        """``nb`` with the policy's leakage fix applied, and the id of the block it changed."""
        try:
            report = policy.check_leakage(nb)
        except RunStopped:
            raise
        except Exception as e:  # noqa: BLE001
            self.stop_if_requested()
            self.journal.emit(
                "warning", key=f"leakage-check/{node_id}", message=f"leakage check failed: {e}"
            )
            return nb, None
        if not report.leaky:
            return nb, None
        fixed = False
        if report.fixed_source and report.block_id:
            try:
                nb = nb.replace_block(
                    report.block_id, report.fixed_source, origin="leakage_checker"
                )
                fixed = True
            except UnknownBlockError:
                pass
        self.journal.emit(
            "leakage",
            key=f"leakage/{node_id}",
            node_id=node_id,
            block_id=report.block_id,
            leaky=True,
            reason=report.reason,
            fixed=fixed,
        )
        return nb, report.block_id if fixed else None

    def _record(
        self,
        nb: SolutionNotebook,
        record: dict[str, Any],
        *,
        node_id: str,
        path: str,
        phase: str,
        label: str,
        parent_id: str | None,
        block_id: str | None,
        need_score: bool,
    ) -> Node:
        ok = bool(record.get("ok")) and (record.get("score") is not None or not need_score)
        error = record.get("error")
        check = record.get("score_check") or {}
        if record.get("ok") and need_score and record.get("score") is None:
            error = (
                check.get("message")
                if check.get("status") == "untrusted"
                else "the code ran but printed no 'Final Validation Performance: <score>' line"
            )
        node = Node(
            id=node_id,
            parent_id=parent_id,
            phase=phase,
            path=path,
            label=label,
            block_id=block_id,
            digest=nb.digest,
            score=record.get("score") if ok else None,
            ok=ok,
            error=None if ok else error,
            notebook=record.get("notebook"),
            submission=record.get("submission"),
            duration=float(record.get("duration") or 0.0),
            stdout_tail=(record.get("stdout") or "")[-1500:],
            printed_score=record.get("printed_score", record.get("score")),
            score_status=str(check.get("status") or ""),
        )
        self.journal.emit("candidate", key=f"cand/{node_id}", node_id=node.id, **node.to_json())
        self.journal.update_meta(elapsed=self.clock.elapsed)
        score = f"{node.score:.5g}" if node.score is not None else "failed"
        log.info("[%s %s] %s → %s", phase, node_id, label, score)
        return node


def _budget_phase(phase: str) -> str:
    return {
        "init": "initial",
        "merge": "initial",
        "data_usage": "initial",
        "refine": "refine",
        "ablation": "refine",
        "ensemble": "ensemble",
        "submission": "final",
    }.get(phase, "refine")


def _error_signature(record: dict[str, Any]) -> str:
    """The error's own line (``ValueError: ...``) without addresses, to compare two failures."""
    text = str(record.get("error") or "").strip() or _error_text(record).strip()
    last = text.splitlines()[-1] if text else ""
    return re.sub(r"0x[0-9a-f]+", "0x?", last)


def _error_text(record: dict[str, Any]) -> str:
    parts = [str(record.get("error") or "")]
    if record.get("traceback"):
        parts.append(str(record["traceback"]))
    check = record.get("score_check") or {}
    if record.get("ok") and record.get("score") is None and check.get("status") == "untrusted":
        parts.append(str(check.get("message") or ""))
    elif record.get("ok") and record.get("score") is None:
        parts.append(
            f"The code ran without error but never printed 'Final Validation Performance: <score>'. Print that line with the validation score (and write the validation rows' predictions to ./val_predictions.csv; the rows to validate on are in ./{VAL_INDEX_FILE})."
        )
    out = "\n".join(p for p in parts if p)
    return out[-6000:]


def submission_file(record_or_node: Any) -> Path | None:
    sub = (
        record_or_node.get("submission")
        if isinstance(record_or_node, dict)
        else getattr(record_or_node, "submission", None)
    )
    return Path(sub) if sub else None
