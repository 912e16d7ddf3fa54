"""What every algorithm of the search shares: the run's ``Context``, a ``Solution``, guarded role
calls, ranking, and ``try_candidate``: run a candidate, compare it with the best so far, record.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from ..journal import Node, RunJournal
from ..notebook import SolutionNotebook
from ..task import Task
from .candidates import Candidate, CandidateRunner, Outcome
from .config import RunConfig
from .data_paths import PathChange
from .environment import Environment
from .errors import NotEnsembled, NothingLeftToRefine, RunStopped
from .policy import Policy

log = logging.getLogger("mlestar.agent")
T = TypeVar("T")


@dataclass(frozen=True)
class Solution:
    """A notebook that ran, with its node (and so its score)."""

    nb: SolutionNotebook
    node: Node

    @property
    def score(self) -> float | None:
        """The node's validation score."""
        return self.node.score


@dataclass
class Context:
    """What every algorithm needs for one run."""

    task: Task
    config: RunConfig
    journal: RunJournal
    runner: CandidateRunner
    rejected: set[tuple[str, str]] = field(
        default_factory=set
    )  # (block_id, source digest) the user rejected
    # (block id, old source, new source) -> the proposal that offered that change first: the
    # same change from another path waits for that proposal's decision
    proposed: dict[tuple[str, str, str], str] = field(default_factory=dict)
    # the data paths of the user's notebook pointed at ./input: proposals put them back
    user_paths: tuple[PathChange, ...] = ()
    # the user's notebook as written (its data paths pointed at ./input) when the run could not
    # score it: the final ladder runs it once for its own submission before the baseline
    as_written: SolutionNotebook | None = None
    # where the candidates run (the executor's machine), known once the run has started
    machine: Environment | None = None
    # the user's notebook ran past its execution's time limit, so it gave no score
    user_timed_out: bool = False

    def better(self, a: float | None, b: float | None) -> bool:
        """Score ``a`` is strictly better than ``b`` for the task's metric."""
        return self.task.score(a).better_than(self.task.score(b))

    def at_least(self, a: float | None, b: float | None) -> bool:
        """Score ``a`` is as good as ``b`` or better."""
        return self.task.score(a).at_least(self.task.score(b))

    def phase(self, name: str, path: str = "") -> None:
        """Journal that ``path`` entered phase ``name``."""
        self.journal.emit("phase", key=f"phase/{path}/{name}", phase=name, path=path)


@dataclass(frozen=True)
class Attempt:
    """A candidate tried against the best solution so far."""

    outcome: Outcome
    kept: bool  # it scored, beats the best (or ties, where ties win) and was not rejected

    @property
    def solution(self) -> Solution:
        """The notebook that ran, with its node."""
        return Solution(self.outcome.notebook, self.outcome.node)


def try_candidate(
    ctx: Context,
    policy: Policy,
    cand: Candidate,
    best: Solution | None,
    *,
    at: tuple[int, int] = (-1, 0),
    ties_win: bool = False,
) -> Attempt:
    """Evaluate ``cand``, compare it with ``best`` and journal the attempt (``improvement``, at
    step ``at`` = (t, k); a merge is (-1, i)).  Without a ``best`` (an ensemble round) it is kept
    when it scored, and the caller journals the round.  A change of a block the user rejected in
    step mode is never kept, nor a candidate whose code is the best's own."""
    out = ctx.runner.evaluate(cand, policy)
    if out.status == "skipped":  # not started (``cost``): the ``skipped`` event says why
        return Attempt(out, False)
    if best is None:
        return Attempt(out, out.has_score)
    rejected = (
        cand.block_id is not None
        and (cand.block_id, block_digest(out.notebook, cand.block_id)) in ctx.rejected
    )
    beats = ctx.at_least if ties_win else ctx.better
    # a debugger that repaired the change by taking it out gives back the best's own code: the
    # same score, no improvement (it was kept and counted as one, with an empty proposal)
    same_code = out.notebook.digest == best.nb.digest
    kept = out.has_score and not rejected and not same_code and beats(out.score, best.score)
    t, k = at
    ctx.journal.emit(
        "improvement",
        key=f"impr/{cand.node_id}",
        path=cand.path,
        t=t,
        k=k,
        node_id=out.node.id,
        block_id=cand.block_id,
        old_score=best.score,
        new_score=out.score,
        kept=kept,
    )
    return Attempt(out, kept)


def guard(ctx: Context, what: str, key: str, fn: Callable[[], T]) -> T | None:
    """Call a role; a failure (other than a stop, an extractor with nothing left to refine, or
    a policy that does not ensemble the solutions) is journaled and yields ``None``."""
    try:
        try:
            return fn()
        except SystemError as e:
            if not _ast_race(e):
                raise
            return fn()  # CPython 3.11's ast race between threads: once more, it passes
    except (RunStopped, NothingLeftToRefine, NotEnsembled):
        raise
    except Exception as e:  # noqa: BLE001 - the model's failure is data, not a crash
        ctx.runner.stop_if_requested()  # cut off by Ctrl-C: not the model's failure
        log.warning("%s failed: %s", what, e)
        ctx.journal.emit(
            "warning",
            key=f"warn/{key}",
            message=f"{what} failed: {type(e).__name__}: {str(e)[:400]}",
        )
        return None


def _ast_race(e: SystemError) -> bool:
    """Whether ``e`` is CPython 3.11's spurious "AST constructor recursion depth mismatch"
    (python/cpython#106905): ``ast.parse`` in two threads at once (the solutions refined in
    parallel) can raise it for code that parses; the role failed, its work lost, for nothing."""
    return "AST constructor recursion depth mismatch" in str(e)


def rank(ctx: Context, sols: list[Solution], *, ties_to_later: bool = False) -> list[Solution]:
    """Best first by the task's metric; stable for ties, or with ``ties_to_later`` a later
    solution first among equals (step mode: what the user accepted last, at the same score as
    what it changed, is what they chose)."""
    out: list[Solution] = []
    for s in sols:
        ahead = ctx.at_least if ties_to_later else ctx.better
        i = next((j for j, o in enumerate(out) if ahead(s.score, o.score)), len(out))
        out.insert(i, s)
    return out


def block_digest(nb: SolutionNotebook, block_id: str) -> str:
    """A short digest of one block's source ("" when the notebook has no such block)."""
    try:
        return hashlib.sha256(nb.block(block_id).source.encode()).hexdigest()[:16]
    except KeyError:
        return ""


def fmt(v: float | None) -> str:
    """A score for messages (``failed`` for none)."""
    return "failed" if v is None else f"{v:.5g}"
