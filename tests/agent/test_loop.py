"""The search loop (Algorithms 1–3 and the final ladder) on real kernels with a scripted policy."""

from __future__ import annotations

import contextlib
import io
import threading
import time
from pathlib import Path

import pandas as pd
import pytest

from mlestar_jupyter.agent.config import Budget, RunConfig
from mlestar_jupyter.agent.run import run_mlestar
from mlestar_jupyter.execution import Executor
from mlestar_jupyter.journal import RunJournal, read_events
from mlestar_jupyter.task import load_task

from .scripted_policy import ScriptedPolicy

pytestmark = pytest.mark.slow


def _config(**kw) -> RunConfig:  # type: ignore[no-untyped-def]
    base = dict(
        num_models=2,
        inner_steps=2,
        outer_steps=1,
        parallel_solutions=1,
        ensemble_rounds=0,
        debug_rounds=1,
        budget=Budget(wall_seconds=600, exec_timeout=60),
    )
    base.update(kw)
    return RunConfig(**base)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def executor():  # type: ignore[no-untyped-def]
    with Executor(timeout=60, max_parallel=1, pool_size=1) as ex:
        yield ex


def test_whole_loop_improves_and_writes_a_valid_submission(
    tabular_task: Path, tmp_path: Path, executor
) -> None:  # type: ignore[no-untyped-def]
    task = load_task(tabular_task)
    policy = ScriptedPolicy(broken_first_init=True)
    journal = RunJournal.create(tmp_path / "run", {"task_dir": str(tabular_task)})
    out = run_mlestar(task, _config(), journal, executor, lambda i: policy)
    evs = read_events(journal.events_path)
    types = [e.type for e in evs]
    cands = {e.data["id"]: e.data for e in evs if e.type == "candidate"}
    # the broken init was debugged, the merge that did not improve stopped Algorithm 1
    assert cands["init-m1"]["ok"] is False and cands["init-m1-d1"]["ok"] is True
    assert "debug" in types and policy.calls.count("merge") == 1
    impr = [e.data for e in evs if e.type == "improvement"]
    assert impr[0]["t"] == -1 and impr[0]["kept"] is False
    # refinement: C=0.01 beats C=0.001 and is kept, then proposed
    kept = [i for i in impr if i["t"] == 0 and i["kept"]]
    assert kept and kept[0]["new_score"] >= kept[0]["old_score"]
    prop = next(e.data for e in evs if e.type == "proposal")
    assert "C=0.001" in prop["old_source"] and "C=0.001" not in prop["new_source"]
    assert prop["cell_id"]
    # the ablation was measured
    abl = next(e.data for e in evs if e.type == "ablation")
    assert abl["results"] and abl["results"][0]["score"] is not None
    # final: a valid submission with every test row
    assert out.status == "done" and out.final.ok and out.final.rung == "best"
    sub = pd.read_csv(out.final.submission)
    assert len(sub) == len(pd.read_csv(tabular_task / "input" / "sample_submission.csv"))
    final_nb = (journal.dir / "final" / "solution.ipynb").read_text()
    assert "Refinement 1." in final_nb  # the kept plan sits above the cell it changed
    assert types[-1] == "run_finished"
    # no novelty reference was given: the contamination check says it was skipped and why
    novelty = next(e.data for e in evs if e.type == "novelty")
    assert novelty["verdict"] == "skipped" and "--novelty-reference" in novelty["reason"]


def test_failed_refinements_fall_back_and_resume_reexecutes_nothing(
    tabular_task: Path, tmp_path: Path, executor
) -> None:  # type: ignore[no-untyped-def]
    task = load_task(tabular_task)
    policy = ScriptedPolicy(plans=("broken", "broken"))
    journal = RunJournal.create(tmp_path / "run", {})
    out = run_mlestar(task, _config(num_models=1), journal, executor, lambda i: policy)
    assert out.final.ok
    impr = [
        e.data
        for e in read_events(journal.events_path)
        if e.type == "improvement" and e.data["t"] == 0
    ]
    assert impr and not any(i["kept"] for i in impr)  # broken candidates never replace the solution
    n_exec = len(list((journal.dir / "executions").iterdir()))
    n_events = len(read_events(journal.events_path))
    journal.close()

    class NoRun:
        def run(self, *a, **k):  # type: ignore[no-untyped-def]
            raise AssertionError("a finished candidate was executed again")

    j2 = RunJournal.open(journal.dir)
    out2 = run_mlestar(
        task,
        _config(num_models=1),
        j2,
        NoRun(),
        lambda i: ScriptedPolicy(plans=("broken", "broken")),
    )
    assert out2.final.ok
    assert len(list((journal.dir / "executions").iterdir())) == n_exec
    evs = read_events(journal.events_path)
    assert len(evs) == n_events + 1 and evs[-1].type == "resumed"


def test_step_mode_waits_and_reject_keeps_previous_version(
    tabular_task: Path, tmp_path: Path, executor
) -> None:  # type: ignore[no-untyped-def]
    task = load_task(tabular_task)
    journal = RunJournal.create(tmp_path / "run", {})
    result = {}

    def go() -> None:
        result["out"] = run_mlestar(
            task, _config(num_models=1, mode="step"), journal, executor, lambda i: ScriptedPolicy()
        )

    th = threading.Thread(target=go)
    th.start()
    deadline = time.time() + 120
    while time.time() < deadline and not journal.of_type("proposal"):
        time.sleep(0.2)
    prop = journal.of_type("proposal")[0].data
    time.sleep(1.0)
    assert not journal.of_type("final"), "the run must wait for the decision in step mode"
    journal.record_decision(prop["proposal_id"], "reject")
    th.join(180)
    evs = read_events(journal.events_path)
    assert any(e.type == "decision" and e.data["decision"] == "reject" for e in evs)
    final_nb = (journal.dir / "final" / "solution.ipynb").read_text()
    assert "C=0.001" in final_nb and "Refinement 1." not in final_nb


def test_stop_control_ends_with_best_and_budget_exhaustion_still_submits(
    tabular_task: Path, tmp_path: Path, executor
) -> None:  # type: ignore[no-untyped-def]
    task = load_task(tabular_task)
    journal = RunJournal.create(tmp_path / "run", {})
    policy = ScriptedPolicy()
    # a budget so small that refinement never starts: the run still ends with a valid submission
    cfg = _config(num_models=1, budget=Budget(wall_seconds=1, exec_timeout=60))
    out = run_mlestar(task, cfg, journal, executor, lambda i: policy)
    assert out.status == "stopped" and out.final.ok
    assert any(e.type == "budget" for e in read_events(journal.events_path))


def test_ladder_ends_with_a_prior_baseline_when_no_solution_submits(
    tabular_task: Path, tmp_path: Path, executor
) -> None:  # type: ignore[no-untyped-def]
    class NeverSubmits(ScriptedPolicy):
        def make_submission(self, solution):  # type: ignore[no-untyped-def]
            return solution  # trains and scores, but never writes final/submission.csv

    task = load_task(tabular_task)
    journal = RunJournal.create(tmp_path / "run", {})
    out = run_mlestar(
        task, _config(num_models=1, outer_steps=0), journal, executor, lambda i: NeverSubmits()
    )
    assert out.final.ok and out.final.rung == "baseline"
    sub = pd.read_csv(out.final.submission)
    sample = pd.read_csv(tabular_task / "input" / "sample_submission.csv")
    assert (
        list(sub.columns) == list(sample.columns)
        and len(sub) == len(sample)
        and sub["id"].tolist() == sample["id"].tolist()
    )
    assert 0.5 < sub["target"].iloc[0] < 0.7  # the class prior, not a copied placeholder
    warnings = [e.data["message"] for e in read_events(journal.events_path) if e.type == "warning"]
    assert any("invalid: no ./final/submission.csv was written" in w for w in warnings)


def test_spent_budget_with_nothing_working_still_ends_with_the_catalog_rung(
    tabular_task: Path, tmp_path: Path, executor
) -> None:  # type: ignore[no-untyped-def]
    class AlwaysBroken(ScriptedPolicy):
        def init_solution(self, card):  # type: ignore[no-untyped-def]
            nb = super().init_solution(card)
            return nb.replace_block("b2", "raise RuntimeError('broken model')")

        def debug(self, solution, error, failed_block):  # type: ignore[no-untyped-def]
            return solution

    task = load_task(tabular_task)
    journal = RunJournal.create(tmp_path / "run", {})
    cfg = _config(num_models=1, budget=Budget(wall_seconds=2, exec_timeout=60))
    out = run_mlestar(
        task, cfg, journal, executor, lambda i: AlwaysBroken(), fallback=ScriptedPolicy()
    )
    assert out.final.ok and out.final.rung == "catalog"
    assert any(e.type == "run_finished" for e in read_events(journal.events_path))


def test_a_run_whose_every_candidate_failed_says_so(
    tabular_task: Path, tmp_path: Path, executor
) -> None:  # type: ignore[no-untyped-def]
    class AlwaysBroken(ScriptedPolicy):
        def init_solution(self, card):  # type: ignore[no-untyped-def]
            nb = super().init_solution(card)
            return nb.replace_block("b2", "raise RuntimeError('broken model')")

        def debug(self, solution, error, failed_block):  # type: ignore[no-untyped-def]
            return solution

    task = load_task(tabular_task)
    journal = RunJournal.create(tmp_path / "run", {})
    cfg = _config(num_models=1, outer_steps=0)
    out = run_mlestar(
        task, cfg, journal, executor, lambda i: AlwaysBroken(), fallback=ScriptedPolicy()
    )
    assert out.final.ok and out.final.rung == "catalog"  # a valid submission, from the fallback
    assert out.status == "all_failed" and "every candidate solution failed" in out.stop_reason
    end = [e for e in read_events(journal.events_path) if e.type == "run_finished"][-1]
    assert end.data["status"] == "all_failed" and journal.meta["status"] == "all_failed"
    # the CLI's exit code says so (3), not 0: a script reading 0 as "a searched solution was
    # handed in" graded the prior-only or catalog fall-back as the agent's work
    import argparse

    from mlestar_jupyter import cli_run
    from mlestar_jupyter.cli import EXIT_ALL_FAILED
    from mlestar_jupyter.evaluator import runner

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = cli_run._report(out, argparse.Namespace(json=True))
    assert code == EXIT_ALL_FAILED == 3
    assert "every candidate solution failed" in err.getvalue() and "fall-back" in err.getvalue()
    assert "fall-back" in runner._EXIT_MEANING[EXIT_ALL_FAILED]  # the evaluator's reading of it


def test_a_run_that_wrote_no_candidate_says_so_not_that_they_failed(
    tabular_task: Path, tmp_path: Path, executor
) -> None:  # type: ignore[no-untyped-def]
    """The roles that write candidates failed (a rate-limited server): 0 candidates ran, and
    the run said "every candidate solution failed"."""

    class NoAnswer(ScriptedPolicy):
        def init_solution(self, card):  # type: ignore[no-untyped-def]
            raise RuntimeError("the server answered 429")

    task = load_task(tabular_task)
    journal = RunJournal.create(tmp_path / "run", {})
    cfg = _config(num_models=1, outer_steps=0)
    out = run_mlestar(task, cfg, journal, executor, lambda i: NoAnswer(), fallback=ScriptedPolicy())
    assert out.status == "all_failed" and "no candidate solution was written" in out.stop_reason


def test_a_leakage_fix_that_breaks_its_cell_is_undone_for_the_code_as_written(
    tabular_task: Path, tmp_path: Path, executor
) -> None:  # type: ignore[no-untyped-def]
    from mlestar_jupyter.agent.candidates import Candidate, CandidateRunner
    from mlestar_jupyter.agent.clock import RunClock
    from mlestar_jupyter.agent.policy import LeakageReport, ModelCard

    class WrongAlarm(ScriptedPolicy):
        def check_leakage(self, solution):  # type: ignore[no-untyped-def]
            load = solution.code_blocks[0]  # a small model's "fix": later cells lose X_val
            broken = load.source.replace("X_tr, X_val,", "X_tr, X_valid,")
            return LeakageReport(True, load.id, "uses the target", broken)

    config = _config()
    task = load_task(tabular_task)
    journal = RunJournal.create(tmp_path / "run", {})
    runner = CandidateRunner(task, journal, executor, RunClock(config.budget), config)
    policy = WrongAlarm()
    nb = policy.init_solution(ModelCard("logreg", "logreg model"))
    out = runner.evaluate(
        Candidate(nb, "init-m1", "init", "init", path="init", debug=False), policy
    )
    node, ran = out.node, out.notebook
    assert node.ok and node.score is not None and ran.digest == nb.digest
    undone = journal.of_type("leakage")[-1].data
    assert undone["fixed"] is False and "kept the code as written" in undone["reason"]
    assert "NameError" in undone["reason"]  # raised in a later cell than the one it changed


def test_a_scored_init_survives_a_budget_spent_on_the_next_model(
    tabular_task: Path, tmp_path: Path, executor
) -> None:  # type: ignore[no-untyped-def]
    class SlowSecondModel(ScriptedPolicy):
        def init_solution(self, card):  # type: ignore[no-untyped-def]
            if card.name == "stump":  # a slow LLM writing the second model uses up the budget
                time.sleep(25)
            return super().init_solution(card)

    config = _config(budget=Budget(wall_seconds=24, exec_timeout=60))
    journal = RunJournal.create(tmp_path / "run", {})
    out = run_mlestar(
        load_task(tabular_task), config, journal, executor, lambda i: SlowSecondModel()
    )
    assert out.status == "stopped" and out.best_score is not None
    assert out.final.ok and out.final.rung == "best"


def test_a_stuck_debugger_is_stopped_after_two_fixes_fail_the_same_way(
    tabular_task: Path, tmp_path: Path, executor
) -> None:  # type: ignore[no-untyped-def]
    """The lane's 1.5B model spent three 110 s debugger rounds on one unchanged ValueError."""
    from mlestar_jupyter.agent.candidates import Candidate, CandidateRunner
    from mlestar_jupyter.agent.clock import RunClock
    from mlestar_jupyter.notebook import SolutionNotebook

    class Stuck(ScriptedPolicy):
        def debug(self, solution, error, failed_block):  # type: ignore[no-untyped-def]
            self.calls.append("debug")
            b = solution.code_blocks[-1]  # a new comment each time, the same bug
            return solution.replace_block(
                b.id, f"# attempt {self.calls.count('debug')}\n{b.source}"
            )

    config = _config(debug_rounds=4)
    journal = RunJournal.create(tmp_path / "run", {})
    runner = CandidateRunner(
        load_task(tabular_task), journal, executor, RunClock(config.budget), config
    )
    policy = Stuck()
    nb = SolutionNotebook.new(
        [
            ("load", "x = 1"),
            ("model", "raise ValueError('array length 86 does not match index length 143')"),
        ]
    )
    node = runner.evaluate(Candidate(nb, "init-m1", "init", "init", path="init"), policy).node
    assert not node.ok and policy.calls.count("debug") == 2  # not 4
    last = journal.of_type("debug")[-1].data
    assert "stuck" in last["reason"] and last["round"] == 3


def test_two_paths_and_two_ensemble_rounds(tabular_task: Path, tmp_path: Path, executor) -> None:  # type: ignore[no-untyped-def]
    task = load_task(tabular_task)
    # each path is its own run: path 1's retriever names another model, so the solutions differ
    policies = [ScriptedPolicy(), ScriptedPolicy(models=("stump",))]
    journal = RunJournal.create(tmp_path / "run", {"task_dir": str(tabular_task)})
    config = _config(parallel_solutions=2, ensemble_rounds=2, inner_steps=1)
    out = run_mlestar(task, config, journal, executor, lambda i: policies[i])
    evs = read_events(journal.events_path)
    paths = {e.data.get("path") for e in evs if e.type == "candidate"}
    assert {"p0", "p1"} <= paths  # both refinement paths ran
    plans = [e.data for e in evs if e.type == "ensemble_plan"]
    assert [p["r"] for p in plans] == [0, 1]
    pick = next(e.data for e in evs if e.type == "ensemble_pick")
    assert pick["kind"] in ("ensemble", "single") and pick["reason"]
    assert str(pick["best_single"]).startswith(("p0", "p1"))
    assert out.status == "done" and out.final.ok


def test_a_stop_inside_the_inner_loop_submits_the_plan_it_already_kept(
    tabular_task: Path, tmp_path: Path, executor
) -> None:  # type: ignore[no-untyped-def]
    """Plan 1 improves and is kept; the stop comes while plan 2 is being written: the submission
    is plan 1's solution, not the solution the refinement step started from."""
    journal = RunJournal.create(tmp_path / "run", {})

    class StopsAtThePlanner(ScriptedPolicy):
        def plan(self, solution, target, history):  # type: ignore[no-untyped-def]
            journal.set_control(stop=True)  # e.g. the user's Stop button, or the budget
            return super().plan(solution, target, history)

    out = run_mlestar(
        load_task(tabular_task),
        _config(num_models=1),
        journal,
        executor,
        lambda i: StopsAtThePlanner(),
    )
    evs = read_events(journal.events_path)
    kept = [e.data["node_id"] for e in evs if e.type == "improvement"]
    assert (
        out.status == "stopped"
        and "p0-t0k0" in kept
        and "p0-t0k1" not in {e.data["id"] for e in evs if e.type == "candidate"}
    )
    final_nb = (journal.dir / "final" / "solution.ipynb").read_text()
    assert "C=0.01" in final_nb and "Refinement 1.1" in final_nb
    # every run was told its time limit (60 s here), beside the run's validation rows
    limit = (journal.dir / "work" / "p0-t0k0" / "time_limit.txt").read_text()
    assert 20 <= float(limit) <= 60
