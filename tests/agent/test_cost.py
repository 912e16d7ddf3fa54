"""The cost model on recorded timings: estimates from inputs, strategies and cards, rows scaling,
time-outs as lower bounds, and the start/skip verdict."""

from __future__ import annotations

import threading

import pytest

from mlestar_jupyter.agent.cost import TIMEOUT_MARGIN, CostModel, Job


def _model() -> CostModel:
    """Two initial solutions measured on 10 000 rows: a 3 s linear model and a 20 s forest."""
    m = CostModel()
    m.observe("init-m1", Job("linear", rows=10_000), 3.0)
    m.observe("init-m2", Job("random_forest", rows=10_000), 20.0)
    return m


def test_nothing_measured_means_no_estimate_and_no_skip() -> None:
    m = CostModel()
    job = Job("random_forest", rows=30_000)
    assert m.estimate(job) is None and m.verdict(job, limit=1.0) is None
    assert m.estimate(Job("plan", inputs=("never-ran",))) is None


def test_a_merge_costs_what_its_inputs_cost_together() -> None:
    m = _model()
    est = m.estimate(Job(None, inputs=("init-m1", "init-m2"), rows=10_000))
    assert est is not None and est.seconds == pytest.approx(23.0) and not est.lower_bound
    assert "init-m1, init-m2" in est.basis
    assert m.verdict(Job(None, inputs=("init-m1", "init-m2")), limit=20.0) is not None
    assert m.verdict(Job(None, inputs=("init-m1", "init-m2")), limit=30.0) is None


def test_a_card_costs_its_measured_seconds_per_row_times_rows() -> None:
    m = _model()
    est = m.estimate(Job("random_forest", rows=30_000))
    assert est is not None and est.seconds == pytest.approx(60.0)
    assert m.estimate(Job("xgboost", rows=30_000)) is None  # never measured: no opinion


def test_rows_scale_an_estimate_from_inputs() -> None:
    m = _model()
    half = m.estimate(Job(None, inputs=("init-m2",), rows=5_000))
    assert half is not None and half.seconds == pytest.approx(10.0) and "5000/10000" in half.basis


def test_a_strategy_learns_how_much_slower_than_its_input_it_runs() -> None:
    m = _model()
    # target encoding on the linear model took 9 s where the model took 3 s: x3
    m.observe("p0-t0k0", Job("target_encoding", inputs=("init-m1",), rows=10_000), 9.0)
    est = m.estimate(Job("target_encoding", inputs=("init-m2",), rows=10_000))
    assert est is not None and est.seconds == pytest.approx(60.0) and "x 3" in est.basis
    plain = m.estimate(Job("scaling", inputs=("init-m2",), rows=10_000))
    assert plain is not None and plain.seconds == pytest.approx(20.0)  # unseen strategy: x1


def test_a_time_out_is_a_lower_bound_and_is_not_retried_on_the_same_block_and_rows() -> None:
    m = _model()
    job = Job("target_encoding", inputs=("init-m2",), rows=10_000, block_id="b3")
    m.observe("p0-t0k0", job, 21.0, timed_out=True)
    assert m.seconds("p0-t0k0") == pytest.approx(21.0 * TIMEOUT_MARGIN)
    why = m.verdict(job, limit=1000.0)
    assert why is not None and "timed out before on block b3" in why
    other_block = Job("target_encoding", inputs=("init-m2",), rows=10_000, block_id="b4")
    assert not m.timed_out_before(other_block)
    est = m.estimate(other_block)
    assert est is not None and est.lower_bound and est.seconds == pytest.approx(21.0 * 1.5)
    assert "at least" in str(m.verdict(other_block, limit=25.0))
    smaller = Job("target_encoding", inputs=("init-m2",), rows=5_000, block_id="b3")
    assert not m.timed_out_before(smaller)  # a halved cap may try it anew


def test_observations_from_parallel_paths_are_all_kept() -> None:
    m = CostModel()

    def path(p: int) -> None:
        for i in range(200):
            m.observe(f"p{p}-n{i}", Job("linear", rows=100), 1.0 + p)

    threads = [threading.Thread(target=path, args=(p,)) for p in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(m.seconds(f"p{p}-n199") == 1.0 + p for p in range(4))
    est = m.estimate(Job("linear", rows=100))
    assert est is not None and est.seconds == pytest.approx(2.5)  # the median of 1-4 s per 100 rows


def test_fewer_training_rows_do_not_shrink_the_test_rows_work() -> None:
    """A series run that transforms as many test series as it trains on (PLAID: 537 and 537),
    cut off at 26 s: on half the training rows it still handles 805 of its 1 074 rows, so it
    needs at least 39 x 805 / 1 074 = 29 s, not 19.5 s (which a 20 s limit let start, and the
    run timed out again).  More rows than measured scale the whole, as before."""
    m = CostModel(fixed_rows=537)
    m.observe("p0-merge1", Job("merge", inputs=(), rows=537), 26.0, timed_out=True)
    half = m.estimate(Job(None, inputs=("p0-merge1",), rows=268))
    assert half is not None and half.lower_bound
    assert half.seconds == pytest.approx(39.0 * 805 / 1074)
    assert "(268+537)/(537+537) rows" in half.basis
    assert "at least 29 s" in str(m.verdict(Job(None, inputs=("p0-merge1",), rows=268), 20.0))
    double = m.estimate(Job(None, inputs=("p0-merge1",), rows=1074))
    assert double is not None and double.seconds == pytest.approx(78.0)
    plain = CostModel()  # no test rows known: training rows alone, as before
    plain.observe("p0-merge1", Job("merge", inputs=(), rows=537), 26.0, timed_out=True)
    est = plain.estimate(Job(None, inputs=("p0-merge1",), rows=268))
    assert est is not None and est.seconds == pytest.approx(39.0 * 268 / 537)


def test_the_rows_every_run_handles_are_counted_when_an_estimate_first_needs_them() -> None:
    calls: list[int] = []

    def count() -> int:
        calls.append(1)
        return 537

    m = CostModel(fixed_rows=count)
    assert calls == []  # nothing read at start-up
    assert m.fixed_rows == 537 and m.fixed_rows == 537 and calls == [1]  # once
    assert CostModel(fixed_rows=lambda: None).fixed_rows == 0
