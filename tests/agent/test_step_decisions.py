"""Step mode as a user of the panel meets it (hunt, session 24, through the server's endpoints):
the two paths refining one notebook proposed the same change twice, to be decided twice; a
change the user accepted at the score it started from was not in the final notebook (the
earlier, equal solution kept its place); and the minutes spent deciding used up the run's time
limit (109 s elapsed on a 60 s limit, two outer steps)."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from types import SimpleNamespace

from mlestar_jupyter.agent.clock import RunClock
from mlestar_jupyter.agent.config import Budget, RunConfig
from mlestar_jupyter.agent.policy import Plan, RefineTarget
from mlestar_jupyter.agent.refinement import _propose, proposals_made
from mlestar_jupyter.agent.search import Context, Solution, rank
from mlestar_jupyter.journal import Node, RunJournal
from mlestar_jupyter.notebook import SolutionNotebook
from mlestar_jupyter.task import Task


def _task(tmp_path: Path) -> Task:
    return Task(
        id="t",
        root=tmp_path,
        input_dir=tmp_path,
        goal="g",
        metric_name="accuracy",
        direction="maximize",
        task_type="classification",
        modality="tabular",
        target_cols=("y",),
        id_col=None,
        files=(),
    )


def _solution(node_id: str, score: float, source: str = "model = A()") -> Solution:
    nb = SolutionNotebook.new([("model", source)])
    node = Node(node_id, None, "refine", "p0", node_id, None, "d", score, True)
    return Solution(nb, node)


def _ctx(tmp_path: Path, mode: str = "step") -> Context:
    clock = RunClock(Budget(wall_seconds=60))
    stop = threading.Event()
    runner = SimpleNamespace(clock=clock, stop=stop, stop_if_requested=lambda: None)
    journal = RunJournal.create(tmp_path / "run", {})
    return Context(_task(tmp_path), RunConfig(mode=mode), journal, runner)  # type: ignore[arg-type]


def test_a_later_solution_wins_a_tie_in_step_mode(tmp_path: Path) -> None:
    ctx = _ctx(tmp_path)
    user, accepted, worse = _solution("user", 0.9), _solution("p0-t1", 0.9), _solution("x", 0.8)
    assert [s.node.id for s in rank(ctx, [user, worse, accepted])] == ["user", "p0-t1", "x"]
    ranked = rank(ctx, [user, worse, accepted], ties_to_later=True)
    assert [s.node.id for s in ranked] == ["p0-t1", "user", "x"]


def test_the_same_change_from_two_paths_is_decided_once(tmp_path: Path) -> None:
    ctx = _ctx(tmp_path)
    before = _solution("user", 0.9)
    (block,) = before.nb.code_blocks
    after = before.nb.replace_block(block.id, "model = A(class_weight='balanced')")
    target = RefineTarget(block.id, Plan("Balanced class weights."))
    new0 = Solution(after, _solution("p0-t0k0", 0.92).node)
    new1 = Solution(after, _solution("p1-t0k0", 0.92).node)
    ctx.journal.record_decision("p0-t0", "reject")
    assert _propose(ctx, before, new0, target, "Balanced class weights.", "p0", 0) is before
    # path 1 meets the same change: no second proposal, the user's decision is followed
    assert _propose(ctx, before, new1, target, "Balanced class weights.", "p1", 0) is before
    proposals = [e.data["proposal_id"] for e in ctx.journal.of_type("proposal")]
    assert proposals == ["p0-t0"]
    assert len(ctx.journal.of_type("decision")) == 1


def test_a_resumed_run_follows_the_proposal_made_before_whichever_path_comes_first(
    tmp_path: Path,
) -> None:
    ctx = _ctx(tmp_path)
    before = _solution("user", 0.9)
    (block,) = before.nb.code_blocks
    after = before.nb.replace_block(block.id, "model = A(class_weight='balanced')")
    target = RefineTarget(block.id, Plan("Balanced class weights."))
    ctx.journal.record_decision("p0-t0", "accept")
    _propose(ctx, before, Solution(after, _solution("p0-t0k0", 0.92).node), target, "b", "p0", 0)
    ctx.journal.close()
    # resumed: this time path 1 gets there first; it follows p0-t0 and proposes nothing new
    journal = RunJournal.open(tmp_path / "run")
    again = Context(ctx.task, ctx.config, journal, ctx.runner, proposed=proposals_made(journal))
    journal.record_decision("p1-t0", "reject")  # would be met only by a second proposal
    new1 = Solution(after, _solution("p1-t0k0", 0.92).node)
    assert _propose(again, before, new1, target, "b", "p1", 0) is new1
    assert [e.data["proposal_id"] for e in journal.of_type("proposal")] == ["p0-t0"]


def test_waiting_for_the_user_is_not_the_runs_time(tmp_path: Path) -> None:
    clock = RunClock(Budget(wall_seconds=60))
    start = clock.elapsed
    with clock.waiting():
        with clock.waiting():  # both paths wait at once: counted once
            time.sleep(0.3)
        time.sleep(0.2)
        assert clock.elapsed - start < 0.1
    time.sleep(0.1)
    assert 0.05 < clock.elapsed - start < 0.3 and 0.45 < clock.paused < 0.8
