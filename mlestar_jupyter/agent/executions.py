"""Running notebooks for one run: once per code digest, within the clock's limits, scored by
the harness, honouring pause/stop (``ExecutionRunner``, the base of ``candidates.CandidateRunner``).

``execute`` returns the run's *record* (a dict, as the journal caches it: ok, score, printed score
and its check, error, traceback, stdout, duration, submission, notebook, timed_out).  Parallel
paths that reach the same code wait for its first run and read the cached record.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..journal import RunJournal
from ..notebook import SolutionNotebook
from ..task import Task
from .clock import RunClock
from .config import RunConfig
from .cost import CostModel
from .errors import RunStopped
from .rows import PROBE_ROWS, TARGET_CANDIDATES, RowChoice, choose_rows, row_cap, with_row_cap
from .scoring import VAL_INDEX_FILE, ValidationScorer, labelled_rows, scorer_for
from .stop import StopRequest

TIME_LIMIT_FILE = "time_limit.txt"
"""Written into each candidate's working folder: the seconds its run may take."""

log = logging.getLogger("mlestar.agent")


# The longest a final (submission) notebook may run, when the per-execution limit is shorter:
# it asks for 3x its search run + 30 s (all the data, no subsample) and must not be cut off.
FINAL_TIMEOUT_CAP = 600.0

# The submission's reserve grows past the budget's final share when the best search run so far
# says its final notebook will take longer: that notebook fits twice (on the training rows, then
# on every labelled row), all the labelled rows rather than the search's subsample.  The reserve
# grows at most to this share of the budget (a search time-boxed in the notebook, such as a
# settings search, does not grow with the rows: the estimate is an upper bound).
FINAL_FITS = 2.0
FINAL_RESERVE_CAP = 0.3


class ExecutionRunner:
    """Runs notebooks for one run (thread-safe: paths call it from their own threads)."""

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
        # one lock per notebook digest being run, with how many threads hold or wait for it:
        # parallel paths that reach the same code wait for the first run of it and read its
        # cached result, so identical code never runs twice; the last one out removes the entry
        self._running: dict[str, tuple[threading.Lock, int]] = {}
        self._running_lock = threading.Lock()
        # seconds per candidate, fed by every one that ran (``cost``); the test rows are work
        # that fewer training rows do not shrink
        self.costs = CostModel(fixed_rows=lambda: _test_examples(task))
        self._row_choice: RowChoice | None = (
            None  # the search-time subsample, once probed (``rows``)
        )
        self._rows_lock = threading.Lock()
        self._card_seconds: dict[str, float | None] = {}  # card -> seconds on a probe (``rows``)
        self._cards_lock = threading.Lock()
        # the best search run so far (score, seconds, training rows): sizes the submission's reserve
        self._best_run: tuple[float, float, int | None] | None = None
        self._best_lock = threading.Lock()
        self._labelled: tuple[int | None] | None = None  # labelled examples, once counted
        self._labelled_lock = threading.Lock()
        # one path decides whether refinement takes the ensemble's share (``refine_over``)
        self._share_lock = threading.Lock()

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
        if self.clock.total is not None:
            reserve = self.submission_reserve()
            if self.clock.remaining() <= reserve:
                raise RunStopped(
                    f"time budget reached ({reserve:.0f} s kept for the final notebook); "
                    "writing the submission with the best solution so far"
                )

    def submission_reserve(self) -> float:
        """Seconds of the budget kept for the submission: the budget's final share, or what the
        best search run so far predicts its final notebook needs (``FINAL_FITS`` x its seconds x
        all labelled rows over its rows), at most ``FINAL_RESERVE_CAP`` of the budget."""
        total = self.clock.total
        if total is None:
            return 0.0
        share = total * self.config.budget.phase_shares.get("final", 0.15)
        with self._best_lock:
            best = self._best_run
        if best is None:
            return share
        _, seconds, rows = best
        split = self._scorer.split if self._scorer is not None else None
        labelled = split.n_labelled if split is not None else None
        scale = max(1.0, labelled / rows) if labelled and rows else 1.0
        return max(share, min(FINAL_FITS * seconds * scale, FINAL_RESERVE_CAP * total))

    def labelled_rows(self) -> int | None:
        """How many labelled examples the task has: the harness split's count, or (images, audio,
        series, which keep their own split) the training table's rows; ``None`` when there is
        no table to count."""
        split = self.scorer.split
        if split is not None:
            return split.n_labelled
        with self._labelled_lock:
            if self._labelled is None:
                self._labelled = (labelled_rows(self.task) or _examples(self.task),)
            return self._labelled[0]

    def note_search_run(self, score: float, seconds: float, rows: int | None) -> None:
        """A search run scored ``score`` in ``seconds`` on ``rows`` training rows: the best one
        so far sizes the submission's reserve (``submission_reserve``)."""
        with self._best_lock:
            best = self._best_run
            if best is None or self.task.score(score).better_than(self.task.score(best[0])):
                self._best_run = (score, seconds, rows)

    def stop_if_requested(self) -> None:
        """Raise ``RunStopped`` if this process was asked to stop (Ctrl-C, SIGTERM)."""
        if self.stop.is_set():
            raise RunStopped(self.stop.reason or "stop requested")

    def phase_over(self, phase: str) -> bool:
        """The phase's share of the budget is spent."""
        return self.clock.phase_left(phase) <= 0

    def refine_over(self, best_id: str | None) -> bool:
        """The refine phase's share is spent.  When it is and the ensemble after it could not
        run in its own share (``_ensemble_blocked``; ``best_id``: the asking path's best node),
        refinement is given that share too: decided once per run, journaled (``budget``)."""
        if not self.phase_over("refine"):
            return False
        with self._share_lock:
            if not self.clock.refine_has_ensemble_share:
                why = self._ensemble_blocked(best_id)
                if why is not None:
                    self.clock.give_ensemble_to_refine()
                    end = self.clock.phase_end("ensemble")
                    message = f"refinement goes on until {end:.0f} s, the ensemble's share: {why}"
                    log.info(message)
                    self.journal.emit(
                        "budget", key="budget/ensemble-to-refine", what="refine", message=message
                    )
        return self.phase_over("refine")

    def _ensemble_blocked(self, best_id: str | None) -> str | None:
        """Why the ensemble could not run in what is left of its share (``None``: it could, or
        nothing measured says).  One round runs the paths' solutions together, each costing
        about what ``best_id`` cost, and starts when the other paths' steps under way have
        ended (about one more such run)."""
        paths = self.config.parallel_solutions
        if self.config.ensemble_rounds <= 0 or paths < 2:
            return "this run has no ensemble (R = 0 or a single path)"
        seconds = self.costs.seconds(best_id) if best_id else None
        if seconds is None:
            return None
        left = min(
            self.clock.phase_left("ensemble"), self.clock.remaining() - self.submission_reserve()
        )
        need = (paths + 1) * seconds
        if need <= left:
            return None
        return (
            f"an ensemble of {paths} solutions of about {seconds:.1f} s each, started after the "
            f"steps under way, needs about {need:.0f} s and {max(0.0, left):.0f} s are left"
        )

    # -- scores -----------------------------------------------------------------------------
    @property
    def scorer(self) -> ValidationScorer:
        """The run's validation scorer; its split is journaled once (``validation_split``)."""
        with self._scorer_lock:
            if self._scorer is None:
                self._scorer = scorer_for(
                    self.task,
                    seed=self.config.seed,
                    max_rows=self.search_rows,
                    kfold_rows=self.config.kfold_rows,
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

    # -- the search-time subsample -----------------------------------------------------------
    @property
    def search_rows(self) -> int:
        """At most how many rows a search candidate trains on (and the harness split is drawn
        from): the run's ``max_train_rows``, or what probing chose (``rows``)."""
        choice = self._row_choice
        return choice.rows if choice is not None else self.config.max_train_rows

    def search_notebook(self, nb: SolutionNotebook, node_id: str, phase: str) -> SolutionNotebook:
        """``nb`` on the run's search-time subsample: the first notebook with a
        ``MAX_TRAIN_ROWS`` line decides it (``_choose_rows``); a higher cap is lowered to it."""
        cap = row_cap(nb)
        if cap is None:
            return nb
        with self._rows_lock:
            if self._row_choice is None:
                self._row_choice = self._choose_rows(nb, node_id, phase)
        rows = self._row_choice.rows
        return with_row_cap(nb, rows) if cap > rows else nb

    def _choose_rows(self, nb: SolutionNotebook, node_id: str, phase: str) -> RowChoice:
        """The run's search-time subsample: probed on ``nb`` when ``adapt_train_rows`` is on,
        the run has a time limit and no split was drawn yet; kept in the run's meta so a resumed
        run gives its notebooks the same cap (and finds their cached results)."""
        saved = self.journal.meta.get("search_rows")
        if saved:
            return RowChoice(int(saved), "chosen before the run was resumed")
        own = RowChoice(self.config.max_train_rows, "")
        if not self.config.adapt_train_rows or self.clock.total is None or self._scorer:
            return own
        shares = self.config.budget.phase_shares
        search = self.clock.total * (shares.get("initial", 0) + shares.get("refine", 0))
        per_candidate = min(self.config.budget.exec_timeout, search / TARGET_CANDIDATES)

        def probe(version: SolutionNotebook, suffix: str) -> float | None:
            return self._probe(version, f"{node_id}-{suffix}", phase)

        choice = choose_rows(
            nb,
            table_rows=labelled_rows(self.task),
            max_rows=self.config.max_train_rows,
            per_candidate=per_candidate,
            run=probe,
        )
        if choice is None:
            return own
        message = f"search candidates train on at most {choice.rows} rows: {choice.reason}"
        log.info(message)
        self.journal.emit("warning", key="rows", what="rows", message=message)
        self.journal.update_meta(search_rows=choice.rows)
        return choice

    def _probe(self, nb: SolutionNotebook, run_id: str, phase: str) -> float | None:
        """Seconds of one probe run in ``work/<run_id>`` (the notebook's own split of its
        ``MAX_TRAIN_ROWS`` rows: no harness rows); ``None`` when it failed."""
        workdir = self.journal.path("work", run_id)
        timeout = self._timeout(phase, False, None)
        try:
            res = self.executor.run(
                nb, input_dir=self.task.input_dir, workdir=workdir, timeout=timeout
            )
        except Exception:  # noqa: BLE001 - no timing: nothing is decided from it
            return None
        self.stop_if_requested()
        return float(getattr(res, "duration", 0.0)) if res.ok else None

    def card_probe(self, card: str, nb: SolutionNotebook, node_id: str, phase: str) -> float | None:
        """Seconds ``card``'s notebook ``nb`` takes on ``4 * PROBE_ROWS`` rows (timed once per card
        and run: a slow card is tried on a subsample before it gets the search's rows)."""
        with self._cards_lock:
            if card not in self._card_seconds:
                version = with_row_cap(nb, 4 * PROBE_ROWS)
                self._card_seconds[card] = self._probe(version, f"{node_id}-probe-card", phase)
            return self._card_seconds[card]

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
        with self._same_code(key):
            cached = self.journal.execution_cached(key)
            if cached is not None:
                return cached
            timeout = self._timeout(phase, submission, min_timeout)
            record = self._execute(nb, node_id, timeout)
            if record.get("notebook") is not None:  # it ran (a failure to start is not cached)
                self.journal.cache_execution(key, record)
            return record

    @contextmanager
    def _same_code(self, key: str) -> Iterator[None]:
        """Hold the lock of one code digest; the entry goes when no thread holds or awaits it."""
        with self._running_lock:
            lock, users = self._running.get(key, (threading.Lock(), 0))
            self._running[key] = (lock, users + 1)
        try:
            with lock:
                yield
        finally:
            with self._running_lock:
                lock, users = self._running[key]
                if users <= 1:
                    del self._running[key]
                else:
                    self._running[key] = (lock, users - 1)

    def _timeout(self, phase: str, submission: bool, min_timeout: float | None) -> float:
        """The execution limit: the phase's (``clock``), raised for a final notebook."""
        timeout = self.clock.exec_timeout("final" if submission else _budget_phase(phase))
        if min_timeout is not None:  # a final notebook trains on all the data: give it room
            cap = max(self.config.budget.exec_timeout, FINAL_TIMEOUT_CAP)
            timeout = max(timeout, min(min_timeout, cap))
        return timeout

    def _execute(self, nb: SolutionNotebook, node_id: str, timeout: float) -> dict[str, Any]:
        """Run ``nb`` now in ``work/<node_id>`` and return its record."""
        workdir = self.journal.path("work", node_id)
        t0 = time.monotonic()
        self.stop_if_requested()
        scorer = self.scorer
        try:
            reclaim_workdir(workdir)
            scorer.prepare(workdir)
            # how long this run may take, for code that sizes its own work (a settings search)
            workdir.mkdir(parents=True, exist_ok=True)
            (workdir / TIME_LIMIT_FILE).write_text(f"{timeout:.0f}\n")
            result = self.executor.run(
                nb, input_dir=self.task.input_dir, workdir=workdir, timeout=timeout
            )
        except Exception as e:  # noqa: BLE001 - infrastructure failure becomes a failed candidate
            self.stop_if_requested()  # cancelled by the stop: not the candidate's failure
            log.warning("execution of %s failed to start: %s", node_id, e)
            return _not_started(e, time.monotonic() - t0)
        self.stop_if_requested()  # a kernel killed by the stop proves nothing: run it again on resume
        nb_path = self.journal.path("candidates", f"{node_id}.ipynb")
        executed = getattr(result, "notebook", None)
        try:
            SolutionNotebook(executed if executed is not None else nb.nb).write(nb_path)
        except Exception:  # noqa: BLE001
            nb.write(nb_path)
        sub = getattr(result, "submission_path", None)
        check = scorer.check(workdir, result.score, source=nb.source)
        return {
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


def reclaim_workdir(workdir: Path) -> None:
    """Remove what a killed run left at a candidate's work folder: the link to the jailed
    kernel's slot the folder was lent to (``execution.local``), which died with the kernel
    (resuming after a SIGKILL failed that candidate with "File exists")."""
    if workdir.is_symlink():
        workdir.unlink()


def _not_started(e: Exception, duration: float) -> dict[str, Any]:
    """The record of an execution that could not start (an infrastructure failure)."""
    return {
        "ok": False,
        "score": None,
        "error": f"{type(e).__name__}: {e}",
        "traceback": "",
        "failed_block": None,
        "stdout": "",
        "duration": duration,
        "submission": None,
        "notebook": None,
    }


def _examples(task: Task) -> int | None:
    """Labelled examples of a task without a harness split (lines of its training table, image
    or audio files, array rows); ``None`` when its layout cannot be read."""
    from ..task.layout import count_train_rows, inspect_task

    try:
        return count_train_rows(task, inspect_task(task))
    except Exception as e:  # noqa: BLE001 - an unusual layout: the rows stay unknown
        log.info("examples not counted: %s", e)
        return None


def _test_examples(task: Task) -> int | None:
    """Test examples every run predicts (the sample submission's rows); ``None`` unknown."""
    from ..task.layout import count_test_rows

    return count_test_rows(task)


def _budget_phase(phase: str) -> str:
    """The clock's budget phase a search phase draws on."""
    return {
        "init": "initial",
        "merge": "initial",
        "data_usage": "initial",
        "refine": "refine",
        "ablation": "refine",
        "ensemble": "ensemble",
        "submission": "final",
    }.get(phase, "refine")


def error_signature(record: dict[str, Any]) -> str:
    """The error's own line (``ValueError: ...``) without addresses, to compare two failures."""
    text = str(record.get("error") or "").strip() or error_text(record).strip()
    last = text.splitlines()[-1] if text else ""
    return re.sub(r"0x[0-9a-f]+", "0x?", last)


def error_text(record: dict[str, Any]) -> str:
    """What the debugger is told about a failed run: the error, its traceback, or why the
    score is missing."""
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
