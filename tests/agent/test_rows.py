"""The search-time subsample chosen from two probe timings (a recorded clock, no kernels), kept\nacross a resume, and left alone when the user gave one or the run has no time limit."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pandas as pd
import pytest

from mlestar_jupyter.agent.candidates import Candidate, CandidateRunner
from mlestar_jupyter.agent.clock import RunClock
from mlestar_jupyter.agent.config import Budget, RunConfig
from mlestar_jupyter.agent.policy import LeakageReport
from mlestar_jupyter.agent.rows import PROBE_ROWS, choose_rows, fit_rows, row_cap, with_row_cap
from mlestar_jupyter.journal import RunJournal
from mlestar_jupyter.notebook import SolutionNotebook
from mlestar_jupyter.task import load_task

NB = SolutionNotebook.new(
    [("setup", "SEED = 0\nMAX_TRAIN_ROWS = 30000\n"), ("model", "fit(X[:MAX_TRAIN_ROWS])")]
)


def test_the_cap_is_read_and_rewritten_in_its_cell() -> None:
    assert row_cap(NB) == 30000
    smaller = with_row_cap(NB, 8000)
    assert row_cap(smaller) == 8000 and "SEED = 0" in smaller.source
    assert smaller.code_blocks[1].source == NB.code_blocks[1].source
    final = SolutionNotebook.new([("setup", "MAX_TRAIN_ROWS = None")])
    assert row_cap(final) is None and with_row_cap(final, 10) is final


def test_two_timings_give_a_fixed_cost_and_a_cost_per_row() -> None:
    # 2 s fixed + 1 ms per row: 3 s on 1 000 rows, 6 s on 4 000; 10 s fit 8 000 rows
    assert fit_rows([(1000, 3.0), (4000, 6.0)], 10.0, 4000, 30000) == 8000
    assert fit_rows([(1000, 3.0), (4000, 6.0)], 100.0, 4000, 30000) == 30000  # the ceiling
    assert fit_rows([(1000, 3.0), (4000, 6.0)], 1.0, 4000, 30000) == 4000  # never below
    # the fixed cost alone is over the target: half of it for the rows (6 s / 1 ms)
    assert fit_rows([(1000, 13.0), (4000, 16.0)], 12.0, 4000, 30000) == 6000
    # a cold first probe slower than the second: no cost per row to go by, all the rows
    assert fit_rows([(1000, 11.1), (4000, 4.4)], 8.0, 4000, 30000) == 30000


def test_probes_run_the_notebook_on_two_small_subsamples() -> None:
    runs: list[tuple[int | None, str]] = []

    def run(nb: SolutionNotebook, suffix: str) -> float:
        rows = row_cap(nb)
        runs.append((rows, suffix))
        return 2.0 + 0.001 * (rows or 0)

    choice = choose_rows(NB, table_rows=43_000, max_rows=30_000, per_candidate=10.0, run=run)
    assert runs == [(PROBE_ROWS, f"probe{PROBE_ROWS}"), (4 * PROBE_ROWS, f"probe{4 * PROBE_ROWS}")]
    assert choice is not None and choice.rows == pytest.approx(8000, abs=1)
    assert "8000 rows fits 10 s" in choice.reason or "7999 rows" in choice.reason


def test_a_cold_first_probe_is_timed_again() -> None:
    times = iter([9.0, 6.0, 3.0])  # 1 000 rows cold, 4 000 rows, 1 000 rows again

    def run(nb: SolutionNotebook, suffix: str) -> float:
        return next(times)

    choice = choose_rows(NB, table_rows=43_000, max_rows=30_000, per_candidate=10.0, run=run)
    assert choice is not None and choice.rows == 8000  # from 3 s and 6 s, as without the cold start


def test_nothing_is_probed_for_small_tables_failed_probes_or_uncapped_code() -> None:
    def never(nb: SolutionNotebook, suffix: str) -> float:
        raise AssertionError("probed")

    assert choose_rows(NB, table_rows=3000, max_rows=30_000, per_candidate=5, run=never) is None
    plain = SolutionNotebook.new([("model", "fit(X)")])
    assert (
        choose_rows(plain, table_rows=50_000, max_rows=30_000, per_candidate=5, run=never) is None
    )
    failed = choose_rows(
        NB, table_rows=50_000, max_rows=30_000, per_candidate=5, run=lambda nb, s: None
    )
    assert failed is None


class Timed:
    """A recorded clock: a run takes 2 s plus 1 ms per training row (its MAX_TRAIN_ROWS)."""

    def __init__(self) -> None:
        self.rows: list[int | None] = []

    def run(self, nb, *, input_dir, workdir, timeout):  # type: ignore[no-untyped-def]
        rows = row_cap(nb)
        self.rows.append(rows)
        per_row = 0.01 if "slow" in nb.source else 0.001  # a slow card: ten times the cost
        seconds = 2.0 + per_row * (rows or 30_000)
        return SimpleNamespace(ok=True, score=0.9, error=None, duration=seconds)


class NoLeaks:
    name = "plain"

    def check_leakage(self, nb: SolutionNotebook) -> LeakageReport:
        return LeakageReport(False)


def _big_task(tabular_task: Path) -> Path:
    """The fixture task with 30 copies of its training rows (12 780): a mid-size table."""
    train = tabular_task / "input" / "train.csv"
    df = pd.concat([pd.read_csv(train)] * 30, ignore_index=True)
    df["id"] = range(len(df))
    df.to_csv(train, index=False)
    return tabular_task


def _evaluate(task: Path, journal: RunJournal, ex: Timed, config: RunConfig) -> Any:
    runner = CandidateRunner(load_task(task), journal, ex, RunClock(config.budget), config)
    cand = Candidate(NB, "init-m1", "init", "init", path="init", debug=False)
    return runner.evaluate(cand, NoLeaks())  # type: ignore[arg-type]


def test_a_time_limited_run_sizes_its_search_subsample_from_two_probes(
    tabular_task: Path, tmp_path: Path
) -> None:
    task = _big_task(tabular_task)
    # 200 s: the search's 150 s over 12 candidates = 12.5 s each = 2 s + 10 500 rows x 1 ms
    config = RunConfig(budget=Budget(wall_seconds=200, exec_timeout=60))
    journal = RunJournal.create(tmp_path / "run", {})
    ex = Timed()
    out = _evaluate(task, journal, ex, config)
    assert ex.rows == [PROBE_ROWS, 4 * PROBE_ROWS, 10_500]
    assert out.has_score and row_cap(out.notebook) == 10_500
    assert RunJournal.open(journal.dir).meta["search_rows"] == 10_500
    (split,) = journal.of_type("validation_split")
    assert split.data["rows"] == 2_100 and split.data["n_labelled"] == 12_780  # 20% of 10 500
    (why,) = [e for e in journal.of_type("warning") if e.data.get("what") == "rows"]
    assert "10500 rows" in why.data["message"]
    # resumed: the same cap without probing again, so the cached run is found
    again = Timed()
    out2 = _evaluate(task, RunJournal.open(journal.dir), again, config)
    assert again.rows == [] and row_cap(out2.notebook) == 10_500


@pytest.mark.parametrize(
    ("config", "rows"),
    [
        (
            RunConfig(max_train_rows=20_000, adapt_train_rows=False, budget=Budget(200)),
            20_000,  # as the user gave it, whatever the budget
        ),
        (RunConfig(budget=Budget(wall_seconds=None)), 30_000),
    ],
    ids=["the user's cap", "no time limit"],
)
def test_a_given_cap_or_an_unlimited_run_is_not_probed(
    tabular_task: Path, tmp_path: Path, config: RunConfig, rows: int
) -> None:
    ex = Timed()
    out = _evaluate(_big_task(tabular_task), RunJournal.create(tmp_path / "run", {}), ex, config)
    assert ex.rows == [rows] and row_cap(out.notebook) == rows


def test_a_card_never_measured_is_timed_on_a_subsample_and_skipped_when_too_slow(
    tabular_task: Path, tmp_path: Path
) -> None:
    task = _big_task(tabular_task)
    config = RunConfig(budget=Budget(wall_seconds=200, exec_timeout=60))
    journal = RunJournal.create(tmp_path / "run", {})
    ex = Timed()
    runner = CandidateRunner(load_task(task), journal, ex, RunClock(config.budget), config)

    def init(i: int, card: str, code: str) -> Any:
        nb = with_row_cap(NB, 30_000).replace_block(NB.code_blocks[1].id, code)
        cand = Candidate(nb, f"init-m{i}", "init", card, path="init", model=card, debug=False)
        return runner.evaluate(cand, NoLeaks())  # type: ignore[arg-type]

    first = init(1, "hist_gradient_boosting", "fit(X)")  # probes the rows: 10 500
    slow = init(2, "random_forest", "fit(X)  # slow")
    fast = init(3, "linear", "fit(X)  # linear")
    assert first.has_score and fast.has_score and slow.status == "skipped"
    # rows probes, then each card on 4 000 rows before its run on 10 500 (the slow one: never)
    assert ex.rows == [1000, 4000, 4000, 10_500, 4000, 4000, 10_500]
    (skip,) = journal.of_type("skipped")
    # 2 s fixed + 40 s for 4 000 rows: 2 + 40 x 10 500 / 4 000 = 107 s, and it may run 60 s
    assert (
        skip.data["node_id"] == "init-m2"
        and "random_forest took 42.0 s on 4000 rows" in (skip.data["reason"])
    )
    assert "would need about 107 s and can run 60 s" in skip.data["reason"]
