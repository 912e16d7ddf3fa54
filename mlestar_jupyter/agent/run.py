"""One MLE-STAR run, start to end: L parallel runs of Algorithms 1 and 2 (each its own
retrieval, initial solutions, merge and refinement; they share only the execution cache), Algorithm
3 over their results, then the submission.  Resuming is running it again on the same
journal: executions and LLM calls come from their caches, journaled events are not repeated.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

from ..journal import RunJournal, read_events
from ..notebook import SolutionNotebook
from ..notebook.roles import LAST_COLUMN
from ..task import Task, TaskError, TaskFormatError
from ..task.layout import has_tables, inspect_task
from .algorithms import (
    Context,
    Solution,
    check_data_usage,
    ensemble,
    merge_initial,
    rank,
    refine,
    retrieve_and_init,
)
from .candidates import Candidate, CandidateRunner
from .clock import RunClock
from .config import RunConfig
from .environment import Environment, detect_environment
from .errors import RunStopped
from .heldout import grade_heldout
from .policy import FallbackReporter, MachineAware, Policy
from .refinement import proposals_made
from .stale_cells import is_users, retry_without_stale_cells, stale_warning
from .stop import StopRequest
from .submission import FALLBACK_RUNGS, FinalResult, finalize
from .user_notebook import NOT_UNDERSTOOD, TIMED_OUT, prepare_user_notebook, why_it_failed

log = logging.getLogger("mlestar.agent")
# every candidate failed: the submission, if any, is a fallback (catalog model or prior baseline)
ALL_FAILED = "all_failed"

PolicyFactory = Callable[[int], Policy]  # path index → policy (seeded per path)


@dataclass(frozen=True)
class RunOutcome:
    """What a run produced."""

    run_dir: Path
    status: (
        str  # done | stopped | failed | no_improvement | not_understood | timed_out | all_failed
    )
    best_score: float | None
    final: FinalResult
    stop_reason: str = ""


class _Best:
    """The best solutions seen so far, across paths (thread-safe)."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.lock = threading.Lock()
        self.items: list[Solution] = []

    def offer(self, s: Solution) -> None:
        with self.lock:
            if any(x.node.id == s.node.id for x in self.items):
                return
            was = self.items[0] if self.items else None
            step = self.ctx.config.mode == "step"  # an accepted change wins a tie
            self.items = rank(self.ctx, self.items + [s], ties_to_later=step)
            if self.items[0] is not was:
                self.items[0].nb.write(self.ctx.journal.path("best.ipynb"))

    def ranked(self) -> list[Solution]:
        with self.lock:
            return list(self.items)


def run_mlestar(
    task: Task,
    config: RunConfig,
    journal: RunJournal,
    executor: Any,
    make_policy: PolicyFactory,
    *,
    fallback: Policy | None = None,
    start_notebook: SolutionNotebook | None = None,
    stop: StopRequest | None = None,
) -> RunOutcome:
    """Run (or resume) MLE-STAR on ``task``; ends by trying to write a valid submission, unless
    ``stop`` is requested (Ctrl-C): then running kernels are killed, every thread returns, a
    ``run_stopped`` event is journaled and the folder is left for ``mlestar resume``."""
    task = prepared_task(task, journal, start_notebook=start_notebook)
    notes = _checked_data(task, refuse=start_notebook is None)
    clock = RunClock(config.budget, offset=float(journal.meta.get("elapsed") or 0.0))
    stop = stop or StopRequest()
    cancel = getattr(executor, "cancel_all", None)
    if cancel is not None:
        stop.on_request(cancel)
    runner = CandidateRunner(task, journal, executor, clock, config, stop)
    ctx = Context(
        task=task, config=config, journal=journal, runner=runner, proposed=proposals_made(journal)
    )
    _journal_start(ctx, notes)
    ctx.machine = _kernels_machine(ctx, executor)
    best = _Best(ctx)
    policies = [make_policy(i) for i in range(max(1, config.parallel_solutions))]
    for policy in policies:  # an LLM policy's prompts describe where the code runs
        if isinstance(policy, MachineAware):
            policy.use_environment(ctx.machine)
    for p in (*policies, fallback):  # a slow model cannot hold the run past its budget
        client = getattr(p, "client", None)
        if client is not None and hasattr(client, "time_left"):
            client.time_left = clock.llm_time_left
        if client is not None and hasattr(client, "cancel"):  # Ctrl-C abandons calls in flight
            stop.on_request(partial(client.cancel, "the run was stopped (Ctrl-C or SIGTERM)"))
        if isinstance(p, FallbackReporter):  # an LLM policy: a rate-limited role answered by
            p.report_fallbacks_to(partial(_offline_answer_warning, journal))  # the offline one
    status, reason, not_understood = "done", "", ""
    try:
        starts, not_understood = _starting_points(ctx, policies[0], start_notebook, best)
        finals = _run_paths(ctx, policies, starts, best)
        if len(finals) > 1 and not clock.refine_has_ensemble_share:
            best.offer(ensemble(ctx, policies[0], finals))
    except RunStopped as e:
        status, reason = "stopped", e.reason
        if not stop.is_set():
            journal.emit("budget", key="budget/stopped", what="run", message=e.reason)
    ranked = best.ranked()
    try:
        if stop.is_set():
            raise RunStopped(stop.reason)
        clock.start_final()
        partner = policies[1] if len(policies) > 1 else None
        final = finalize(ctx, policies[0], ranked, fallback, partner_policy=partner)
    except RunStopped:
        return _stopped(journal, clock, ranked, stop.reason)
    _check_novelty(ctx, policies[0], final)
    grade_heldout(journal, task, final)  # a dataset's task: the rows held out of the search
    events = read_events(journal.events_path)
    tried = any(  # did any refinement of a starting notebook run?
        e.type == "candidate" and e.data.get("phase") == "refine" for e in events
    )
    searched = any(e.type == "candidate" and e.data.get("path") != "final" for e in events)
    proposals = sum(e.type == "proposal" for e in events)
    too_long = next(  # a refinement skipped because it could not finish in the time left
        (
            (float(e.data["estimate"]), float(e.data["limit"]))
            for e in events
            if e.type == "skipped"
            and e.data.get("phase") == "refine"
            and isinstance(e.data.get("estimate"), (int, float))
            and isinstance(e.data.get("limit"), (int, float))
        ),
        None,
    )
    nothing = next(  # why a refinement ended with nothing to refine, in the policy's words
        (
            str(e.data["why"])
            for e in events
            if e.type == "budget" and e.data.get("what") == "refine" and e.data.get("why")
        ),
        "",
    )
    status, reason = _end_status(
        task, final, ranked, (status, reason), not_understood, tried, proposals, too_long, nothing
    )
    if status == NOT_UNDERSTOOD and ctx.user_timed_out:  # understood, but too slow to score
        status = TIMED_OUT
    if status == ALL_FAILED and not searched:  # no candidate was even written
        reason = (
            "no candidate solution was written (the roles that write them failed: see the "
            f"journal's warnings and llm_call errors); the submission comes from the {final.rung} "
            "fallback"
        )
    return _finished(journal, clock, final, ranked[0].score if ranked else None, (status, reason))


def _finished(
    journal: RunJournal,
    clock: RunClock,
    final: FinalResult,
    best_score: float | None,
    end: tuple[str, str],
) -> RunOutcome:
    """Journal the run's end (``run_finished``, ``run.json``) with its status and why."""
    status, reason = end
    journal.emit(
        "run_finished",
        key="run_finished",
        status=status,
        best_score=best_score,
        elapsed=clock.elapsed,
        reason=reason,
    )
    journal.update_meta(status=status, elapsed=clock.elapsed, best_score=best_score, message=reason)
    return RunOutcome(journal.dir, status, best_score, final, reason)


def _kernels_machine(ctx: Context, executor: Any) -> Environment:
    """The machine the candidates run on: this one, or the remote kernels' own description
    (``Executor.describe_machine``); a warning says so when remote kernels could not describe
    theirs (this machine's stands in)."""
    if getattr(executor, "provider", None) is None or not hasattr(executor, "describe_machine"):
        return detect_environment()
    machine = executor.describe_machine(
        input_dir=ctx.task.input_dir, workdir=ctx.journal.path("work", "machine")
    )
    if machine is not None:
        return Environment.from_machine(machine)
    ctx.journal.emit(
        "warning",
        key="machine",
        what="machine",
        message=(
            "the remote kernels did not say what their machine has (Python, packages, GPU); "
            "the prompts and the GPU settings of a notebook assume this machine's"
        ),
    )
    return detect_environment()


def _journal_start(ctx: Context, notes: list[str]) -> None:
    """Journal the run's start (``resumed`` first when it ran before), the task's notices and
    ``notes``: what its data means for the grading (``_checked_data``)."""
    journal, task = ctx.journal, ctx.task
    if journal.has("run_started"):
        journal.emit("resumed", elapsed=ctx.runner.clock.elapsed)
    journal.emit(
        "run_started",
        key="run_started",
        task=task.to_json(),
        config=ctx.config.to_json(),
        backend=ctx.config.backend,
    )
    for i, notice in enumerate(task.notices):  # how task.json's names were matched to input/
        journal.emit("warning", key=f"task/notice/{i}", what="task", message=notice)
    for i, note in enumerate(notes):
        journal.emit("warning", key=f"task/data/{i}", what="task", message=note)


def _checked_data(task: Task, *, refuse: bool = True) -> list[str]:
    """What the task's data means for its grading (``task.layout.checks.data_notes``), but
    what the task's notices already say (a dataset's import says them); with ``refuse``, a
    ``TaskFormatError`` saying what to fix when its tables cannot train or be predicted (no
    rows, empty target cells), before any budget is spent.  A layout that cannot be read says
    nothing here: the policies' own errors say it."""
    from ..task.layout.checks import check_data

    try:
        layout = inspect_task(task)
    except (TaskError, ValueError, OSError):
        return []
    checks = check_data(task, layout)
    if refuse and checks.problems:
        raise TaskFormatError(task.input_dir, "; ".join(checks.problems))
    return [n for n in checks.notes if n not in task.notices]


def prepared_task(
    task: Task, journal: RunJournal, *, start_notebook: SolutionNotebook | None = None
) -> Task:
    """The task a run reads: ``task``, or the task reading a copy of its input folder made in
    the run's folder, with its archives unpacked (``train.zip`` of ``train.csv``), its ARFF tables as CSV and, when the
    run writes the code (no ``start_notebook``), without the training rows that have no target
    (the data must be usable as it is).  The policies are made from it (``api.execute``), so
    their layout is the kernels'; a task prepared for this run already (``api.execute`` then
    ``run_mlestar``), or reading the run's copy, is returned as it is, its tables not read again."""
    run_dir = str(journal.dir.resolve())
    if task.extra.get(_PREPARED) == run_dir or task.input_dir.resolve().is_relative_to(run_dir):
        return task
    task = _readable(task, journal)
    if start_notebook is None:  # a user's notebook may read the test answers itself
        task = _test_answers_held_out(task, journal)
        task = _labelled_rows_only(task, journal)
    return replace(task, extra={**task.extra, _PREPARED: run_dir})


_PREPARED = "prepared_for_run"  # task.extra: the run folder ``prepared_task`` prepared it for


def _readable(task: Task, journal: RunJournal) -> Task:
    """``task`` itself, or, when its input folder holds what the templates do not read
    (archives, ARFF, a course's ``X_train.csv`` / ``y_train.csv``, a table's numbered parts,
    one ``.txt`` file per document, one CSV file per series), the task reading a converted
    copy of that folder made in the run's folder (``importer.run_input``)."""
    from ..importer.run_input import run_input

    return run_input(task, journal.path)


def _test_answers_held_out(task: Task, journal: RunJournal) -> Task:
    """``task`` itself, or, when its test table carries the target (a course's labelled
    ``test.csv``, a dataset hub's labelled test split), the task reading a copy of its input
    folder without it, graded at the end on those answers (``task.layout.labelled_test``)."""
    from ..task.layout.labelled_test import held_out_test_answers

    try:
        layout = inspect_task(task)
    except (TaskError, ValueError, OSError):
        return task
    answers = journal.path("heldout-answers") / "answers.csv"
    return held_out_test_answers(task, layout, journal.path("test-input"), answers) or task


def _labelled_rows_only(task: Task, journal: RunJournal) -> Task:
    """``task`` itself, or, when some of its training rows have no target, the task reading a
    copy of its input folder without them, made in the run's folder
    (``task.layout.labelled``)."""
    from ..task.layout.labelled import labelled_only

    try:
        layout = inspect_task(task)
    except (TaskError, ValueError, OSError):
        return task
    return labelled_only(task, layout, journal.path("labelled-input")) or task


def _end_status(
    task: Task,
    final: FinalResult,
    ranked: list[Solution],
    search: tuple[str, str],
    not_understood: str,
    tried: bool = True,
    proposals: int = 0,
    too_long: tuple[float, float] | None = None,
    nothing: str = "",
) -> tuple[str, str]:
    """The run's end status and why: the search's own (``done`` or ``stopped``, ``search``)
    unless there is no valid submission, the user's notebook was not understood, every
    candidate failed, or nothing beat the user's notebook (``proposals``: changes that scored
    as well as it, offered all the same, which the reason then counts; ``too_long``: the
    estimate and the time limit of a refinement skipped as too slow, when none ran;
    ``nothing``: the policy's word on why its notebook had nothing to refine)."""
    status, reason = search
    if not_understood:  # the user's notebook could not be used: say so, never a plain "done"
        return NOT_UNDERSTOOD, not_understood
    if not final.ok:
        return "failed", final.reason or reason
    if status == "done" and not ranked:  # no candidate scored: the submission is a fallback
        return ALL_FAILED, (
            f"every candidate solution failed; the submission comes from the {final.rung} "
            "fallback (see the journal's errors)"
        )
    if ranked and final.rung in FALLBACK_RUNGS:  # the search's notebooks are not what is handed in
        what = "the prior-only baseline" if final.rung == "baseline" else "the catalog's template"
        return status, (
            f"the submission is {what}, not the best notebook ({ranked[0].node.id}, validation "
            f"{task.metric_name} {ranked[0].score:.5g}): {final.reason or 'its file was invalid'}"
        )
    if status == "done" and ranked and is_users(ranked[0].node.id) and not tried and too_long:
        return "no_improvement", (
            "no refinement of your notebook could finish in the time left: each would need "
            f"about {too_long[0]:.0f} s, as your notebook took, and could run {too_long[1]:.0f} s; "
            "give the run more time (--time-limit), or fewer rows to try changes on; your cells "
            "are unchanged"
        )
    if status == "done" and ranked and is_users(ranked[0].node.id) and not tried:
        why = nothing or (
            "no cell builds a model, trains it, or prepares its features in a way the "
            "strategies can change (a model built in a function, in the list a loop goes over, "
            "or only read from a file, is not)"
        )
        return "no_improvement", (
            f"nothing in your notebook could be refined: {why}; your cells are unchanged"
        )
    if status == "done" and ranked and is_users(ranked[0].node.id):
        unchanged = (
            f"{proposals} change(s) that scored the same are offered as proposals to accept or "
            "reject; until you accept one, your cells are unchanged"
            if proposals
            else "your cells are unchanged"
        )
        return "no_improvement", (
            f"no refinement beat your notebook's validation {task.metric_name} "
            f"({ranked[0].score:.5g}); {unchanged}"
        )
    return status, reason


def _stopped(
    journal: RunJournal, clock: RunClock, ranked: list[Solution], reason: str
) -> RunOutcome:
    """Journal a stop of this process (no submission, no ``run_finished``: resume goes on)."""
    best_score = ranked[0].score if ranked else None
    journal.emit("run_stopped", reason=reason, elapsed=clock.elapsed, best_score=best_score)
    journal.update_meta(status="stopped", elapsed=clock.elapsed, best_score=best_score)
    log.warning("run stopped (%s); continue it with: mlestar resume %s", reason, journal.dir)
    none = FinalResult(False, "none", None, None, None, f"stopped: {reason}")
    return RunOutcome(journal.dir, "stopped", best_score, none, reason)


def _check_novelty(ctx: Context, policy: Any, final: FinalResult) -> None:
    """The appendix's contamination check of the final notebook against the user's reference
    text; when it cannot run, a ``novelty`` event with verdict ``skipped`` says why."""
    skipped = (
        "no reference text to compare with (give one with --novelty-reference)"
        if not ctx.config.novelty_reference
        else f"the {ctx.config.backend} backend has no LLM to judge novelty"
        if not hasattr(policy, "check_novelty")
        else "no final notebook to check"
        if not final.ok or final.notebook is None
        else ""
    )
    if not skipped and final.notebook is not None:
        try:
            verdict = policy.check_novelty(
                SolutionNotebook.read(final.notebook), ctx.config.novelty_reference
            )
        except Exception as e:  # noqa: BLE001 - an optional check never ends a run
            skipped = f"the check failed: {type(e).__name__}: {str(e)[:300]}"
        else:
            ctx.journal.emit("novelty", key="novelty", verdict=verdict, reason="")
            return
    log.info("novelty check skipped: %s", skipped)
    ctx.journal.emit("novelty", key="novelty", verdict="skipped", reason=skipped)


def _starting_points(
    ctx: Context, policy: Policy, start: SolutionNotebook | None, best: _Best
) -> tuple[list[Solution] | None, str]:
    """The user's notebook (roles inferred, a validation cell added when it prints no score)
    when it scores; otherwise None: each path runs Algorithm 1 itself.  The second value says
    why the user's notebook could not be used ("" when it was, or when there was none); a
    notebook without any model fit (an EDA notebook) is not understood, and the solutions come
    from the task (None) when its tables are there to read; any other not-understood notebook
    ends the search ([]): the final phase hands in its own file when it writes one."""
    if start is not None:
        ctx.phase("init")
        written = ctx.journal.meta.get("notebook")  # where the user's notebook lies
        prepared = prepare_user_notebook(
            start.require_code(),
            ctx.task,
            network=ctx.config.allow_network,
            gpu=ctx.machine.gpu if ctx.machine else None,
            notebook_dir=Path(written).parent if written else None,
        )
        ctx.journal.emit(
            "understanding",
            key="understanding",
            understood=prepared.understood,
            reason=prepared.reason,
            roles={c.block_id: c.role for c in prepared.analysis.cells},
            mixed=[c.block_id for c in prepared.analysis.cells if c.mixed],
            target=prepared.analysis.target
            if prepared.analysis.target != LAST_COLUMN
            else "(the last column)",
            added_block=prepared.added_block,
            note=prepared.note,
            data_paths=[[c.block_id, c.old, c.new, c.kind] for c in prepared.data_paths],
        )
        ctx.user_paths = prepared.data_paths
        if not prepared.understood:
            ctx.as_written = prepared.notebook
            if not prepared.analysis.has_fit and _solutions_can_read(ctx.task):
                # nothing of the user's to refine or to hand in (an EDA notebook, say): the
                # run builds the task's solutions with the budget, as from a task folder
                why = f"{prepared.reason}; the solutions come from the task instead"
                ctx.journal.emit("warning", key="warn/user-notebook", message=why)
                return None, why
            ctx.journal.emit("warning", key="warn/user-notebook", message=prepared.reason)
            return [], prepared.reason
        cand = Candidate(
            prepared.notebook,
            "user",
            "init",
            "your notebook",
            path="init",
            # everything else is measured against it: not cut off by the initial phase's share,
            # but one that runs too long leaves the time a submission and a catalog solution
            # need (a notebook still running at the time limit left no file at all)
            min_timeout=ctx.runner.clock.remaining() - 2 * ctx.runner.submission_reserve(),
        )
        try:
            out = ctx.runner.evaluate(cand, policy)
            # a cell left from an earlier version that raised and feeds nothing: not run
            cand, out, stale = retry_without_stale_cells(
                ctx.runner, policy, cand, out, start.require_code().block_ids
            )
        except RunStopped:  # the budget ran out (before its debugger's turn): say why first
            _say_why_unscored(ctx)
            raise
        if stale:
            ctx.user_paths += stale
            ctx.journal.emit(
                "warning", key="warn/stale-cells", message=stale_warning(stale), what="notebook"
            )
        if out.has_score:
            sol = Solution(out.notebook, out.node)
            best.offer(sol)
            return [sol], ""
        written = ctx.journal.meta.get("notebook")  # where the user's notebook lies
        ctx.user_timed_out = out.status == "timed_out"
        if ctx.user_timed_out:
            fix = (
                f"it ran past the time limit of one execution: {out.error}; give it more time "
                "(--exec-timeout, --time-limit) or fewer rows"
            )
        else:
            fix = why_it_failed(
                out.error or "",
                ctx.task,
                Path(written).parent if written else None,
                source="\n".join(b.source for b in prepared.notebook.code_blocks),
            )
        if not _solutions_can_read(ctx.task):  # nothing to build other solutions from
            made = "it makes its own data" if not ctx.task.files else "its data is in files"
            why = (
                f"your notebook gave no validation score ({fix or out.error}); {made} that the "
                "task's own solutions cannot read, so there is nothing else to start from: fix "
                "the notebook so that it runs, and run MLE-STAR on it again"
            )
            ctx.journal.emit("warning", key="warn/user-notebook", message=why)
            return [], why
        why = (
            f"your notebook gave no validation score ({fix or out.error}); "
            "the solutions come from the task instead"
        )
        ctx.journal.emit("warning", key="warn/user-notebook", message=why)
    return None, why if start is not None else ""


def _solutions_can_read(task: Task) -> bool:
    """Whether the task's own solutions have tables to read: a task read from a notebook that
    makes its own data (``load_iris()`` in a cell) or keeps it in files no template reads has
    none, so only the user's notebook can solve it."""
    if task.source_format != "notebook":
        return True
    try:
        return has_tables(inspect_task(task))
    except (TaskError, ValueError, OSError):
        return False


def _say_why_unscored(ctx: Context) -> None:
    """The warning that the user's notebook gave no score, when the run's time ran out right
    after it ran (hunt M: a 24 s notebook killed at its 20 s share, then ``stopped: time budget
    reached`` and nothing said the notebook had timed out); nothing when it scored, did not run,
    or that was said already."""
    ran = ctx.journal.get("cand/user")
    if ran is None or ran.data.get("score") is not None or ctx.journal.has("warn/user-notebook"):
        return
    error = str(ran.data.get("error") or "it printed none")
    ctx.journal.emit(
        "warning",
        key="warn/user-notebook",
        message=f"your notebook gave no validation score ({error}), and the run's time ran out "
        "after it: the submission comes from a solution of the task's; give the run more time "
        "(--time-limit)",
    )


def _stop_if_due(ctx: Context) -> None:
    """After the paths returned their best: a stop inside any of them, or a budget down to the
    final phase's reserve, stops the run here."""
    ctx.runner.stop_if_requested()
    if ctx.journal.control().get("stop"):
        raise RunStopped("stop requested")
    budget = ctx.config.budget
    if budget.wall_seconds is not None and ctx.runner.clock.remaining() <= (
        budget.wall_seconds * budget.phase_shares.get("final", 0.15)
    ):
        raise RunStopped(
            "time budget reached; writing the submission with the best solution so far"
        )


def _run_paths(
    ctx: Context, policies: list[Policy], starts: list[Solution] | None, best: _Best
) -> list[Solution]:
    """L independent runs in parallel threads (each its own kernels).  Without a user notebook
    (``starts`` None) path l retrieves with its own policy (the offline one: the same models in
    another order and seed l; an LLM: its own call), writes and evaluates its own initial
    solutions, merges them and refines the result; with one, every path refines the user's
    notebook.  Identical code is still run once (the runner's execution cache)."""
    if starts == []:
        return []
    n = len(policies)
    # the kernels of Algorithm 1 at once, shared out among the paths (L=1: as many as allowed)
    share = max(1, (ctx.config.max_parallel or n) // n)
    init_stops: list[RunStopped] = []

    def one_path(i: int) -> Solution | None:
        path = f"p{i}"
        cur: Solution | None = starts[0] if starts else None
        try:
            if starts is None:  # Algorithm 1: every scored solution is offered at once
                inits = retrieve_and_init(
                    ctx, policies[i], share, best.offer, path=path if i else ""
                )
                if not inits:
                    return None
                cur = inits[0]
                cur = merge_initial(ctx, policies[i], inits, path)
                best.offer(cur)
                if ctx.config.data_usage_check:
                    cur = check_data_usage(ctx, policies[i], cur, path)
                    best.offer(cur)
            assert cur is not None
            cur = refine(ctx, policies[i], cur, path, best.offer)
        except RunStopped as e:
            if cur is None:  # stopped before this run had any solution
                init_stops.append(e)
            return cur
        best.offer(cur)
        return cur

    with ThreadPoolExecutor(n) as pool:
        outs = list(pool.map(one_path, range(n)))
    finals = [s for s in outs if s is not None]
    if not finals:  # no run got a solution: a stop in Algorithm 1 stops the run there
        if init_stops:
            raise init_stops[0]
        return []
    _stop_if_due(ctx)
    # Distinct solutions only (identical paths would ensemble a model with itself).
    seen: set[str] = set()
    out = []
    for s in finals:
        if s.nb.digest not in seen:
            seen.add(s.nb.digest)
            out.append(s)
    return out


def _offline_answer_warning(journal: RunJournal, role: str, why: str) -> None:
    """Journal that ``role``'s answer came from the offline policy, the model being rate-limited."""
    journal.emit(
        "warning",
        message=f"{role}: the model stayed rate-limited, so the offline policy answered ({why})",
    )
