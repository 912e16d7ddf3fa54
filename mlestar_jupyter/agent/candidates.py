"""Running one candidate: leakage check, execution (cached by code digest), debugger rounds, journal.

A ``Candidate`` says what to run and where it sits in the search; ``CandidateRunner.evaluate``
is the paper's "evaluate h(s) using D" with everything around it: the data-leakage checker
before every evaluation, the debugger on failure, and a ``candidate`` event for every execution.
It returns an ``Outcome``: the last node (after debugging) and the notebook that ran.

The score of a candidate is the harness's (``scoring``): its validation predictions are measured
on the run's split and a printed score that disagrees or cannot be true is journaled and reported
to the policy.  Node ids are semantic (``p0-t1k2``, ``init-m3``, ``p0-t1k2-d1``) so a resumed run
finds its earlier work by name.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from ..journal import Node
from ..notebook import SolutionNotebook, UnknownBlockError
from .compared_models import note_kept_model
from .cost import Job
from .errors import RunStopped
from .executions import FINAL_TIMEOUT_CAP, ExecutionRunner, error_signature, error_text
from .policy import Plan, Policy, ScoreListener
from .rows import PROBE_ROWS, card_seconds, row_cap

__all__ = ["FINAL_TIMEOUT_CAP", "Candidate", "CandidateRunner", "Node", "Outcome", "Status"]

log = logging.getLogger("mlestar.agent")

Status = Literal["scored", "ran", "failed", "timed_out", "skipped"]


@dataclass(frozen=True)
class Candidate:
    """A notebook to evaluate and its place in the search (what its journal node will say)."""

    notebook: SolutionNotebook
    node_id: str  # semantic: init-m1, p0-merge1, p0-t1k2, ens-r0, final-0
    phase: str  # init | merge | data_usage | ablation | refine | ensemble | submission
    label: str  # how the log and the UI name it
    path: str = ""  # the parallel run (p0, p1, ...), or init / ens / final
    parent_id: str | None = None  # the node it was derived from
    block_id: str | None = None  # the block a refinement or ablation changed
    plan: Plan | None = None  # the refinement or ensemble plan that produced it
    model: str | None = None  # the model card an initial solution was written from
    inputs: tuple[str, ...] = ()  # nodes whose code it runs, when not just its parent (a merge)
    round: int = 0  # the debugger's round that wrote it (0: the candidate as proposed)
    debug: bool = True  # a failure goes to the debugger (``config.debug_rounds`` rounds)
    leakage: bool = True  # the leakage checker sees the code first
    submission: bool = False  # a final notebook: writes ./final/submission.csv on all the data
    need_score: bool = True  # a run without a validation score counts as failed
    min_timeout: float | None = None  # let it outrun a nearly spent budget rather than be cut off

    @property
    def control_phase(self) -> str:
        """The phase whose pause/stop/budget rules apply (final runs are exempt)."""
        return "final" if self.submission or self.path == "final" else self.phase

    def debugged(self, notebook: SolutionNotebook, r: int) -> Candidate:
        """The debugger's version ``r`` of this candidate: a child node ``<id>-d<r>``."""
        return replace(
            self,
            notebook=notebook,
            node_id=f"{self.node_id}-d{r}",
            label=f"{self.label} (debug {r})",
            parent_id=self.node_id,
            inputs=(),
            round=r,
        )

    @property
    def cost_key(self) -> str | None:
        """What sets its cost apart from its inputs' (``cost``): the plan's strategy (or the plan),
        the model card of an initial solution; ``None`` for a debugger's version."""
        if self.round:
            return None
        if self.plan is not None:
            return self.plan.strategy or f"plan: {self.plan.text[:120]}"
        return f"card: {self.model}" if self.model else None


@dataclass(frozen=True)
class Outcome:
    """What evaluating a candidate gave: its last node (after debugging) and the notebook that ran."""

    node: Node
    notebook: SolutionNotebook
    status: Status  # scored | ran (no score asked for) | failed | timed_out | skipped
    failed_block: str | None = None  # the block that raised, when the kernel says

    @property
    def score(self) -> float | None:
        """The harness's validation score (``None`` unless it scored)."""
        return self.node.score

    @property
    def error(self) -> str | None:
        """Why it failed (``None`` when it ran)."""
        return self.node.error

    @property
    def has_score(self) -> bool:
        """It ran and has a validation score."""
        return self.node.has_score


class CandidateRunner(ExecutionRunner):
    """Evaluates candidates for one run: cost check, leakage check, execution, debugger
    rounds, journal."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._skips: dict[str, int] = {}  # path -> candidates not started for lack of time
        self._skips_lock = threading.Lock()

    def skipped_on(self, path: str) -> int:
        """How many of ``path``'s candidates were not started: they would not have finished in
        the time they had."""
        with self._skips_lock:
            return self._skips.get(path, 0)

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
        if isinstance(policy, ScoreListener):
            policy.hear_score_feedback(message)

    def _run(self, cand: Candidate) -> dict[str, Any]:
        """``execute`` with the candidate's settings (a final-path run is never starved)."""
        min_timeout = cand.min_timeout
        if cand.path == "final" and min_timeout is None:
            min_timeout = 120.0  # the ladder's own runs are never starved by a spent budget
        return self.execute(
            cand.notebook,
            cand.node_id,
            cand.phase,
            submission=cand.submission,
            min_timeout=min_timeout,
        )

    # -- evaluation ----------------------------------------------------------------------------
    def evaluate(self, cand: Candidate, policy: Policy) -> Outcome:
        """Check, run, debug and journal one candidate; its outcome holds the last node."""
        self.checkpoint(cand.control_phase)
        if cand.control_phase != "final":  # search runs train on the search-time subsample
            nb = self.search_notebook(cand.notebook, cand.node_id, cand.phase)
            cand = replace(cand, notebook=nb)
        why = self._why_not(cand)
        if why is not None:
            return self._skip(cand, why)
        ran, record = self._first_run(cand, policy)
        node = self._record(ran, record)
        self._tell(policy, node, record)
        rounds = self.config.debug_rounds if cand.debug else 0
        seen: list[str] = []  # the error of each version, to notice a debugger that is stuck
        for r in range(1, rounds + 1):
            if node.ok:
                break
            error = error_text(record)
            fixed = self._debugger(cand, ran, policy, r, error, record, seen)
            if fixed is None:
                break
            # its cost is judged by the version that ran last (the same code but for the fix)
            fix = replace(cand.debugged(fixed, r), inputs=(ran.node_id,))
            if cand.leakage and self.config.leakage_check:  # the debugger's code is checked too
                fix = replace(fix, notebook=self._fix_leakage(fix, policy)[0])
            why = self._why_not_lighter(fix, record)
            if why is not None:  # the last run stays the outcome
                self._skip(fix, why)
                break
            rows = [self._rows(ran), self._rows(fix)] if record.get("timed_out") else None
            ran = fix
            record = self._run(ran)
            node = self._record(ran, record)
            self._tell(policy, node, record)
            self.journal.emit(
                "debug",
                key=f"debug/{cand.node_id}/{r}",
                node_id=ran.node_id,
                round=r,
                error=error[-2000:],
                fixed=node.ok,
                rows=rows,
            )
        # the model a comparing validation cell kept, for the refiner (``compared_models``)
        noted = note_kept_model(ran.notebook, str(record.get("stdout") or ""))
        return Outcome(node, noted, _status(node, record), record.get("failed_block"))

    # -- cost -------------------------------------------------------------------------------
    def _why_not(self, cand: Candidate) -> str | None:
        """Why ``cand`` should not start now (``cost.CostModel.verdict``), or ``None``.  Final
        runs always start, and so does code that ran before (a resumed run reads its result) and
        a debugger's version (its fix may be what makes it fast: only the budget stops it)."""
        if cand.control_phase == "final" or cand.round or self.journal.has(f"cand/{cand.node_id}"):
            return None
        if self.journal.execution_cached(cand.notebook.digest) is not None:
            return None
        return self.costs.verdict(self._job(cand), self._time_for(cand)) or self._slow_card(cand)

    def _why_not_lighter(self, fix: Candidate, last: dict[str, Any]) -> str | None:
        """Why the debugger's version of a run that timed out should not start: the cost model
        says it cannot finish either (the run needed at least 1.5 x the time it had; the version
        costs that scaled by its training rows over the run's, so half the rows of a run cut off
        at this same limit need 0.75 x it).  Other fixes always start: their fix may be what
        makes them fast.  Final runs always start."""
        if not last.get("timed_out") or fix.control_phase == "final":
            return None
        why = self.costs.verdict(self._job(fix), self._time_for(fix))
        return None if why is None else f"a lighter version after the time-out: {why}"

    def _slow_card(self, cand: Candidate) -> str | None:
        """Why an initial solution of a card the run never measured should not start: timed on a
        subsample first (mid-size tables, once the search rows were probed), it would need more
        than it can run on the search's rows.  ``None``: start it."""
        choice, rows = self._row_choice, self._rows(cand)
        if cand.model is None or choice is None or choice.fixed is None or rows is None:
            return None
        if rows <= 4 * PROBE_ROWS or self.costs.estimate(self._job(cand)) is not None:
            return None
        seconds = self.card_probe(cand.model, cand.notebook, cand.node_id, cand.phase)
        if seconds is None:
            return None
        need, limit = card_seconds(choice.fixed, seconds, rows), self._time_for(cand)
        if need <= limit:
            return None
        return (
            f"{cand.model} took {seconds:.1f} s on {4 * PROBE_ROWS} rows: on {rows} rows it "
            f"would need about {need:.0f} s and can run {limit:.0f} s"
        )

    def _time_for(self, cand: Candidate) -> float:
        """How long ``cand`` may run: its execution limit, and no further than the budget left
        before the submission's reserve."""
        limit = self._timeout(cand.phase, cand.submission, cand.min_timeout)
        if self.clock.total is not None:
            limit = min(limit, self.clock.remaining() - self.submission_reserve())
        return max(0.0, limit)

    def _job(self, cand: Candidate) -> Job:
        """``cand`` as the cost model sees it: its key, inputs, rows and block."""
        inputs = cand.inputs or ((cand.parent_id,) if cand.parent_id else ())
        return Job(cand.cost_key, inputs, self._rows(cand), cand.block_id)

    def _rows(self, cand: Candidate) -> int | None:
        """The training rows ``cand`` is given: its ``MAX_TRAIN_ROWS`` (the run's
        ``max_train_rows`` when its code has none; all of them for a final run), at most the
        training table's rows."""
        total = self.labelled_rows()
        cap = None if cand.submission else row_cap(cand.notebook) or self.config.max_train_rows
        if cap is None or total is None:
            return cap or total
        return min(cap, total)

    def _skip(self, cand: Candidate, why: str) -> Outcome:
        """Journal a candidate not started (``skipped``) and return its outcome."""
        est = self.costs.estimate(self._job(cand))
        self.journal.emit(
            "skipped",
            key=f"skipped/{cand.node_id}",
            node_id=cand.node_id,
            phase=cand.phase,
            path=cand.path,
            label=cand.label,
            block_id=cand.block_id,
            estimate=round(est.seconds, 1) if est is not None else None,
            limit=round(self._time_for(cand), 1),
            reason=why,
        )
        log.info("[%s %s] %s → not started: %s", cand.phase, cand.node_id, cand.label, why)
        with self._skips_lock:
            self._skips[cand.path] = self._skips.get(cand.path, 0) + 1
        node = _node(cand, {"ok": False, "error": f"not started: {why}"})
        return Outcome(node, cand.notebook, "skipped")

    def _first_run(self, cand: Candidate, policy: Policy) -> tuple[Candidate, dict[str, Any]]:
        """The candidate after the leakage checker, and its run.  A fix that fails when run is
        undone when the code as written runs: one run costs seconds, debugging the fix costs LLM
        rounds, and small models often "fix" leaks that are not there."""
        fixed_block = None
        ran = cand
        if cand.leakage and self.config.leakage_check:
            nb, fixed_block = self._fix_leakage(cand, policy)
            ran = replace(cand, notebook=nb)
        record = self._run(ran)
        if fixed_block and not record["ok"] and not record.get("timed_out"):
            plain = self._run(replace(cand, node_id=f"{cand.node_id}-unfixed"))
            if plain["ok"]:
                self.journal.emit(
                    "leakage",
                    key=f"leakage-undone/{cand.node_id}",
                    node_id=cand.node_id,
                    block_id=fixed_block,
                    leaky=True,
                    fixed=False,
                    reason=f"the fix failed when run ({record.get('error')}); kept the code as written",
                )
                return cand, plain
        return ran, record

    def _debugger(
        self,
        cand: Candidate,
        current: Candidate,
        policy: Policy,
        r: int,
        error: str,
        record: dict[str, Any],
        seen: list[str],
    ) -> SolutionNotebook | None:
        """Debugger round ``r`` on the failed ``current``: its fix, or ``None`` (journaled) when
        the rounds end here: the debugger is stuck, failed or changed nothing."""
        seen.append(error_signature(record))
        if len(seen) >= 3 and seen[-1] == seen[-2] == seen[-3]:
            reason = "two fixes in a row failed with the same error: the debugger is stuck"
            self._gave_up(cand.node_id, r, error, reason)
            return None
        self.checkpoint(cand.control_phase)
        try:
            fixed = policy.debug(current.notebook, error, record.get("failed_block"))
        except RunStopped:
            raise
        except Exception as e:  # noqa: BLE001 - a role that fails leaves the candidate failed
            self.stop_if_requested()
            self._gave_up(cand.node_id, r, error, str(e)[:500])
            return None
        if fixed.digest == current.notebook.digest:
            self._gave_up(cand.node_id, r, error, "the debugger changed nothing")
            return None
        return fixed

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

    def _fix_leakage(self, cand: Candidate, policy: Policy) -> tuple[SolutionNotebook, str | None]:
        """The candidate's notebook with the policy's leakage fix applied, and the id of the
        block it changed (``None``: nothing changed)."""
        nb = cand.notebook
        try:
            report = policy.check_leakage(nb)
        except RunStopped:
            raise
        except Exception as e:  # noqa: BLE001
            self.stop_if_requested()
            self.journal.emit(
                "warning",
                key=f"leakage-check/{cand.node_id}",
                message=f"leakage check failed: {e}",
            )
            return nb, None
        if report.note:
            self.journal.emit(
                "warning", key=f"leakage-check/{cand.node_id}", message=report.note[:500]
            )
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
            key=f"leakage/{cand.node_id}",
            node_id=cand.node_id,
            block_id=report.block_id,
            leaky=True,
            reason=report.reason,
            fixed=fixed,
        )
        return nb, report.block_id if fixed else None

    def _record(self, cand: Candidate, record: dict[str, Any]) -> Node:
        """Journal the candidate's run as a ``candidate`` event and return its node."""
        node = _node(cand, record)
        self.journal.emit("candidate", key=f"cand/{node.id}", node_id=node.id, **node.to_json())
        if record.get("notebook") is not None:  # it ran (not a failure to start)
            timed_out = bool(record.get("timed_out"))
            self.costs.observe(node.id, self._job(cand), node.duration, timed_out=timed_out)
        if node.score is not None and cand.control_phase != "final":
            self.note_search_run(node.score, node.duration, self._rows(cand))
        self.journal.update_meta(elapsed=self.clock.elapsed)
        score = f"{node.score:.5g}" if node.score is not None else "failed"
        log.info("[%s %s] %s → %s", cand.phase, node.id, cand.label, score)
        return node


def _node(cand: Candidate, record: dict[str, Any]) -> Node:
    """The node of one run of ``cand`` (a run without a score fails when one was asked for)."""
    need_score = cand.need_score
    ok = bool(record.get("ok")) and (record.get("score") is not None or not need_score)
    error = record.get("error")
    check = record.get("score_check") or {}
    if record.get("ok") and need_score and record.get("score") is None:
        error = (
            check.get("message")
            if check.get("status") == "untrusted"
            else "the code ran but printed no 'Final Validation Performance: <score>' line"
        )
    return Node(
        id=cand.node_id,
        parent_id=cand.parent_id,
        phase=cand.phase,
        path=cand.path,
        label=cand.label,
        block_id=cand.block_id,
        digest=cand.notebook.digest,
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


def _status(node: Node, record: dict[str, Any]) -> Status:
    if node.has_score:
        return "scored"
    if node.ok:
        return "ran"
    return "timed_out" if record.get("timed_out") else "failed"


def submission_file(record_or_node: Any) -> Path | None:
    sub = (
        record_or_node.get("submission")
        if isinstance(record_or_node, dict)
        else getattr(record_or_node, "submission", None)
    )
    return Path(sub) if sub else None
