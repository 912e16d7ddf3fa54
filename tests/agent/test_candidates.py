"""``CandidateRunner.evaluate`` on a recorded executor (no kernels): the candidate description in,
the outcome out, the debugger's versions as child nodes, identical code run once, and the
score-feedback capability checked by type."""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from mlestar_jupyter.agent.candidates import Candidate, CandidateRunner
from mlestar_jupyter.agent.clock import RunClock
from mlestar_jupyter.agent.config import Budget, RunConfig
from mlestar_jupyter.agent.policy import LeakageReport, Plan, ScoreListener
from mlestar_jupyter.agent.search import Context, Solution, try_candidate
from mlestar_jupyter.journal import Node, RunJournal
from mlestar_jupyter.notebook import SolutionNotebook
from mlestar_jupyter.task import load_task


class Recorded:
    """Answers each notebook by its code: ``score = 0.8`` prints 0.8, ``raise`` fails,
    ``sleep`` times out; counts the runs of each code."""

    def __init__(self, pause: float = 0.0) -> None:
        self.pause = pause
        self.runs: list[str] = []
        self.lock = threading.Lock()

    def run(self, nb, *, input_dir, workdir, timeout):  # type: ignore[no-untyped-def]
        with self.lock:
            self.runs.append(nb.source)
        time.sleep(self.pause)
        src = nb.source
        if "sleep" in src:
            return SimpleNamespace(
                ok=False, score=None, error="timed out after 5s", timed_out=True, duration=5.0
            )
        if "raise" in src:
            return SimpleNamespace(ok=False, score=None, error="ValueError: boom", duration=0.1)
        score = float(src.split("score = ")[1].split()[0]) if "score = " in src else None
        return SimpleNamespace(ok=True, score=score, error=None, duration=0.2)


class Fixer:
    """Leaks nothing; its debugger replaces ``raise`` with a score."""

    name = "fixer"

    def check_leakage(self, nb: SolutionNotebook) -> LeakageReport:
        return LeakageReport(False)

    def debug(self, nb: SolutionNotebook, error: str, block: str | None) -> SolutionNotebook:
        b = nb.code_blocks[0]
        return nb.replace_block(b.id, "score = 0.7")


class Listener(Fixer):
    def __init__(self) -> None:
        self.heard: list[str] = []

    def hear_score_feedback(self, message: str) -> None:
        self.heard.append(message)


def _runner(task: Path, tmp_path: Path, executor: Any) -> CandidateRunner:
    config = RunConfig(debug_rounds=2, budget=Budget(wall_seconds=600, exec_timeout=30))
    journal = RunJournal.create(tmp_path / "run", {})
    return CandidateRunner(load_task(task), journal, executor, RunClock(config.budget), config)


def _nb(code: str) -> SolutionNotebook:
    return SolutionNotebook.new([("model", code)])


def test_a_failed_candidate_is_debugged_into_a_child_node(tabular_task: Path, tmp_path: Path):  # type: ignore[no-untyped-def]
    runner = _runner(tabular_task, tmp_path, Recorded())
    cand = Candidate(_nb("raise"), "p0-t0k0", "refine", "plan", path="p0", parent_id="p0-merge1")
    out = runner.evaluate(cand, Fixer())
    assert out.status == "scored" and out.node.id == "p0-t0k0-d1"
    assert out.node.parent_id == "p0-t0k0" and out.node.label == "plan (debug 1)"
    assert out.notebook.source.strip() == "score = 0.7" and out.score == pytest.approx(0.7)
    nodes = [e.data for e in runner.journal.of_type("candidate")]
    assert [(n["node_id"], n["ok"], n["parent_id"]) for n in nodes] == [
        ("p0-t0k0", False, "p0-merge1"),
        ("p0-t0k0-d1", True, "p0-t0k0"),
    ]


def test_a_time_out_is_an_outcome_of_its_own(tabular_task: Path, tmp_path: Path):  # type: ignore[no-untyped-def]
    runner = _runner(tabular_task, tmp_path, Recorded())
    cand = Candidate(_nb("sleep"), "init-m1", "init", "slow", path="init", debug=False)
    out = runner.evaluate(cand, Fixer())
    assert out.status == "timed_out" and not out.has_score and "timed out" in str(out.error)


def test_identical_code_runs_once_and_leaves_no_lock_behind(tabular_task: Path, tmp_path: Path):  # type: ignore[no-untyped-def]
    ex = Recorded(pause=0.3)
    runner = _runner(tabular_task, tmp_path, ex)
    outs: list[Any] = []

    def one(i: int) -> None:
        cand = Candidate(_nb("score = 0.9"), f"p{i}-merge1", "merge", "same", path=f"p{i}")
        outs.append(runner.evaluate(cand, Fixer()))

    threads = [threading.Thread(target=one, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(ex.runs) == 1 and all(o.score == pytest.approx(0.9) for o in outs)
    assert runner._running == {}  # the per-digest locks are pruned once nobody waits
    runner.execute(_nb("score = 0.5"), "other", "refine")
    assert runner._running == {}


def test_score_feedback_is_a_typed_capability(tabular_task: Path, tmp_path: Path):  # type: ignore[no-untyped-def]
    assert isinstance(Listener(), ScoreListener) and not isinstance(Fixer(), ScoreListener)
    runner = _runner(tabular_task, tmp_path, Recorded())
    listener = Listener()
    # an AUC of 1.7 cannot be true: the harness does not take it, and says so
    impossible = Candidate(_nb("score = 1.7"), "init-m1", "init", "x", path="init", debug=False)
    out = runner.evaluate(impossible, listener)
    assert out.status == "failed" and out.node.score_status == "untrusted"
    assert len(listener.heard) == 1 and "not trusted" in listener.heard[0]
    (event,) = runner.journal.of_type("score_untrusted")
    assert event.data["message"] == listener.heard[0]
    again = Candidate(_nb("score = 1.7 "), "init-m2", "init", "x", path="init", debug=False)
    assert runner.evaluate(again, Fixer()).status == "failed"  # no capability: nobody to tell


def _node(node_id: str, score: float | None) -> Node:
    return Node(node_id, None, "merge", "p0", node_id, None, node_id, score, score is not None)


@pytest.mark.parametrize(
    ("score", "ties_win", "kept"),
    [(0.95, False, True), (0.9, False, False), (0.9, True, True), (None, True, False)],
)
def test_try_candidate_keeps_what_beats_the_best_and_journals_it(
    tabular_task: Path, tmp_path: Path, score: float | None, ties_win: bool, kept: bool
) -> None:
    runner = _runner(tabular_task, tmp_path, Recorded())
    code = "raise" if score is None else f"score = {score}  # the plan's change"
    ctx = Context(runner.task, runner.config, runner.journal, runner)
    best = Solution(_nb("score = 0.9"), _node("p0-init", 0.9))
    cand = Candidate(_nb(code), "p0-t1k2", "refine", "plan", path="p0", debug=False)
    attempt = try_candidate(ctx, Fixer(), cand, best, at=(1, 2), ties_win=ties_win)
    assert attempt.kept is kept
    (impr,) = [e.data for e in runner.journal.of_type("improvement")]
    assert (impr["t"], impr["k"], impr["node_id"], impr["kept"]) == (1, 2, "p0-t1k2", kept)
    assert impr["old_score"] == 0.9 and impr["new_score"] == score


def test_a_debugger_that_takes_the_change_out_gives_no_improvement(
    tabular_task: Path, tmp_path: Path
) -> None:
    """An outsider's notebook: a swap failed, the debugger's fix was the user's own code again,
    and it was kept as an improvement (same score, ties win) with nothing changed."""

    class Reverter(Fixer):
        def debug(self, nb: SolutionNotebook, error: str, block: str | None) -> SolutionNotebook:
            return nb.replace_block(nb.code_blocks[0].id, "score = 0.9")

    runner = _runner(tabular_task, tmp_path, Recorded())
    ctx = Context(runner.task, runner.config, runner.journal, runner)
    best = Solution(_nb("score = 0.9"), _node("user", 0.9))
    cand = Candidate(_nb("raise"), "p0-t0k0", "refine", "swap", path="p0")
    attempt = try_candidate(ctx, Reverter(), cand, best, at=(0, 0), ties_win=True)
    assert attempt.outcome.node.id == "p0-t0k0-d1" and attempt.outcome.score == 0.9
    assert not attempt.kept
    (impr,) = [e.data for e in runner.journal.of_type("improvement")]
    assert impr["kept"] is False


def test_a_leakage_check_done_only_in_part_is_journaled(tabular_task: Path, tmp_path: Path) -> None:
    """The LLM detector's answer could not be used: the static check alone decided, and only a
    log line said so (a local model's Python-dict answer)."""

    class Partial(Fixer):
        def check_leakage(self, nb: SolutionNotebook) -> LeakageReport:
            return LeakageReport(False, note="the leakage detector's answer could not be used")

    runner = _runner(tabular_task, tmp_path, Recorded())
    cand = Candidate(_nb("score = 0.8"), "p0-t0k0", "refine", "plan", path="p0", leakage=True)
    assert runner.evaluate(cand, Partial()).score == pytest.approx(0.8)
    (warning,) = runner.journal.of_type("warning")
    assert "could not be used" in warning.data["message"]


def test_a_strategy_that_timed_out_is_not_retried_on_the_same_block_and_rows(
    tabular_task: Path, tmp_path: Path
) -> None:
    ex = Recorded()
    runner = _runner(tabular_task, tmp_path, ex)
    plan = Plan("encode categories by their cross-fitted target mean", "target_encoding")
    first = Candidate(
        _nb("sleep 1"), "p0-t0k0", "refine", "te", "p0", block_id="b1", plan=plan, debug=False
    )
    assert runner.evaluate(first, Fixer()).status == "timed_out"
    again = replace(first, notebook=_nb("sleep 2"), node_id="p0-t1k0")
    out = runner.evaluate(again, Fixer())
    assert out.status == "skipped" and not out.has_score and len(ex.runs) == 1
    (event,) = runner.journal.of_type("skipped")
    assert (
        event.data["node_id"] == "p0-t1k0"
        and "timed out before on block b1" in event.data["reason"]
    )
    assert "p0-t1k0" not in {e.data["node_id"] for e in runner.journal.of_type("candidate")}
    elsewhere = replace(again, node_id="p0-t1k1", block_id="b2", notebook=_nb("score = 0.9"))
    assert runner.evaluate(elsewhere, Fixer()).status == "scored"  # another block: tried


class CutOff(Recorded):
    """A run with ``sleep`` in its code is cut off at its limit, as a real time-out is."""

    def run(self, nb, *, input_dir, workdir, timeout):  # type: ignore[no-untyped-def]
        with self.lock:
            self.runs.append(nb.source)
        if "sleep" in nb.source:
            return SimpleNamespace(
                ok=False,
                score=None,
                error=f"timed out after {timeout:.0f}s",
                timed_out=True,
                duration=timeout,
            )
        return SimpleNamespace(ok=True, score=0.8, error=None, duration=0.2)


class Lighter(Fixer):
    """Its debugger answers a time-out as the offline one does: the same code on fewer rows
    (``MAX_TRAIN_ROWS``), here ``rows`` of them."""

    def __init__(self, rows: int) -> None:
        self.rows = rows

    def debug(self, nb: SolutionNotebook, error: str, block: str | None) -> SolutionNotebook:
        b = nb.code_blocks[0]
        return nb.replace_block(b.id, f"MAX_TRAIN_ROWS = {self.rows}\nsleep = 1")


def _image_task(root: Path) -> Path:
    """The offline tests' digits image task (its notebooks keep their own split: no harness
    split, so the rows are counted from train.csv)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "offline_tasks", Path(__file__).parents[1] / "offline" / "tasks.py"
    )
    assert spec is not None and spec.loader is not None
    tasks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tasks)
    return tasks.image_task(root)  # type: ignore[no-any-return]


@pytest.mark.parametrize("kind", ["table", "images"])
def test_a_lighter_version_of_a_time_out_runs_only_when_it_can_finish(
    kind: str, tabular_task: Path, tmp_path: Path
) -> None:
    """A run cut off at its 20 s limit needed at least 30 s: the debugger's version on 90 % of
    the rows would need 27 s and is not started (a ``skipped`` event says why, the time-out
    stays the outcome); on a quarter of the rows (7.5 s) it is run.  Images keep their own
    split: the rows are counted from the training table all the same (fashion-mnist's CNN,
    cut off at 38 s, was re-run on half its 6 000 rows because they were taken as 30 000)."""
    task = tabular_task if kind == "table" else _image_task(tmp_path / "images")
    config = RunConfig(debug_rounds=2, budget=Budget(wall_seconds=600, exec_timeout=20))
    outs = {}
    for share in (0.9, 0.25):
        ex = CutOff()
        journal = RunJournal.create(tmp_path / f"run{share}", {})
        runner = CandidateRunner(load_task(task), journal, ex, RunClock(config.budget), config)
        labelled = runner.labelled_rows()
        assert labelled == (runner.scorer.split.n_labelled if kind == "table" else 300)
        cand = Candidate(_nb("sleep = 1"), "p0-t0k0", "refine", "plan", path="p0")
        outs[share] = (runner.evaluate(cand, Lighter(int(share * labelled))), ex, journal)
    out, ex, journal = outs[0.9]
    assert len(ex.runs) == 1 and out.status == "timed_out" and out.node.id == "p0-t0k0"
    (skip,) = [e.data for e in journal.of_type("skipped")]
    assert skip["node_id"] == "p0-t0k0-d1" and skip["limit"] == 20
    assert "lighter version after the time-out" in skip["reason"] and skip["estimate"] >= 26
    out, ex, journal = outs[0.25]
    assert len(ex.runs) == 2 and out.node.id == "p0-t0k0-d1" and out.status == "timed_out"
    assert not journal.of_type("skipped")
    # the debug event says it was lighter: the benchmark tells it apart from a retry
    debug = [e.data for e in journal.of_type("debug")]
    assert debug[0]["rows"] == [labelled, int(0.25 * labelled)]


def test_a_lighter_version_counts_the_test_rows_it_still_predicts(
    tabular_task: Path, tmp_path: Path
) -> None:
    """The same cut-off run as above, on a task whose test table is as large as its training
    table: the debugger's version on half the training rows still predicts every test row, so
    it needs 30 x (0.5 + 1) / 2 = 22.5 s > 20 s and is not started (counting the training rows
    alone, 15 s, let it start: PLAID's merge timed out again)."""
    import pandas as pd

    inp = tmp_path / "bc" / "input"
    train = pd.read_csv(inp / "train.csv")
    ids = pd.read_csv(inp / "sample_submission.csv")
    repeated = pd.concat([ids] * (len(train) // len(ids) + 1)).head(len(train))
    repeated.to_csv(inp / "sample_submission.csv", index=False)  # test rows: as many as train
    config = RunConfig(debug_rounds=2, budget=Budget(wall_seconds=600, exec_timeout=20))
    ex, journal = CutOff(), RunJournal.create(tmp_path / "run", {})
    runner = CandidateRunner(load_task(tabular_task), journal, ex, RunClock(config.budget), config)
    assert runner.costs.fixed_rows == len(train)
    half = runner.labelled_rows() // 2  # type: ignore[operator]
    cand = Candidate(_nb("sleep = 1"), "p0-t0k0", "refine", "plan", path="p0")
    out = runner.evaluate(cand, Lighter(half))
    assert len(ex.runs) == 1 and out.status == "timed_out" and out.node.id == "p0-t0k0"
    (skip,) = [e.data for e in journal.of_type("skipped")]
    assert skip["node_id"] == "p0-t0k0-d1" and 21 <= skip["estimate"] <= 24
    assert f"+{len(train)})" in skip["reason"]
