"""benchmarks/bench_offline_vs_flaml.py and its helpers: budgets, the tuned HistGradientBoosting
contender, the journal check for strategies retried after a time-out, and the results file."""

from __future__ import annotations

import importlib.util
import json
import sys
import time
from pathlib import Path
from types import ModuleType

import numpy as np
import pandas as pd
import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


def _load(name: str) -> ModuleType:
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


run_journal = _load("run_journal")
tuned_hgb = _load("tuned_hgb")
bench = _load("bench_offline_vs_flaml")


# --------------------------------------------------------------------------- journal
def _event(at: float, type_: str, **data: object) -> str:
    return json.dumps({"seq": 0, "key": "k", "type": type_, "data": data, "time": at, "v": 2})


TIMED_OUT = "timed out after 20s; the kernel and its child processes were killed"
CROSS_FIT = "encode categorical columns by their cross-fitted mean target"


def _write_run(tmp_path: Path, lines: list[str]) -> Path:
    (tmp_path / "events.jsonl").write_text("\n".join(lines) + "\n")
    return tmp_path


def test_a_plan_retried_after_its_time_out_is_found(tmp_path: Path) -> None:
    run = _write_run(
        tmp_path,
        [
            _event(
                100,
                "candidate",
                node_id="init-m1",
                phase="init",
                label="init: lightgbm",
                ok=True,
                score=0.5,
                duration=10,
            ),
            _event(101, "plan", path="p0", t=0, k=0, block_id="b2", plan=CROSS_FIT),
            _event(
                125,
                "candidate",
                node_id="p0-t0k0",
                parent_id="init-m1",
                phase="refine",
                block_id="b2",
                label=f"t0 k0: {CROSS_FIT[:60]}",
                ok=False,
                error=TIMED_OUT,
                duration=21,
            ),
            _event(126, "plan", path="p0", t=0, k=1, block_id="b2", plan=CROSS_FIT),
            _event(
                150,
                "candidate",
                node_id="p0-t0k1",
                parent_id="init-m1",
                phase="refine",
                block_id="b2",
                label=f"t0 k1: {CROSS_FIT[:60]}",
                ok=False,
                error=TIMED_OUT,
                duration=21,
            ),
            _event(151, "plan", path="p0", t=0, k=2, block_id="b3", plan=CROSS_FIT),
            _event(
                160,
                "candidate",
                node_id="p0-t0k2",
                parent_id="init-m1",
                phase="refine",
                block_id="b3",
                label=f"t0 k2: {CROSS_FIT[:60]}",
                ok=True,
                score=0.4,
                duration=8,
            ),
            _event(
                168,
                "candidate",
                node_id="final-0",
                phase="submission",
                label="submission from t0 k2",
                ok=True,
                score=0.1,  # scored on its own rows: never the "best" solution
                duration=8,
            ),
            _event(170, "final", rung="best"),
        ],
    )
    facts = run_journal.read_journal(run, higher_is_better=False)
    assert facts.candidates == 5 and facts.failed == 2
    assert facts.timed_out == ["p0-t0k0", "p0-t0k1"]
    # the second try on b2 is a retry; the same plan on another block (b3) is not
    assert len(facts.retried_after_timeout) == 1
    assert facts.retried_after_timeout[0].startswith("p0-t0k1 after p0-t0k0")
    assert facts.best.startswith("p0-t0k2") and facts.best_card == "lightgbm"
    assert facts.rung == "best" and facts.final_from == "submission from t0 k2"
    assert "1 retried after time-out" in facts.summary()


def test_side_by_side_time_outs_and_other_strategies_are_not_retries(tmp_path: Path) -> None:
    run = _write_run(
        tmp_path,
        [
            # two paths ran the same card at the same time: neither knew of the other's time-out
            _event(
                124,
                "candidate",
                node_id="p1-init-m1",
                phase="init",
                label="init: random_forest",
                ok=False,
                error=TIMED_OUT,
                duration=24,
            ),
            _event(
                126,
                "candidate",
                node_id="init-m2",
                phase="init",
                label="init: random_forest",
                ok=False,
                error=TIMED_OUT,
                duration=22,
            ),
            _event(
                140,
                "candidate",
                node_id="init-m3",
                phase="init",
                label="init: linear",
                ok=True,
                score=0.7,
                duration=12,
            ),
            _event(
                160,
                "candidate",
                node_id="init-m3-d1",
                phase="init",
                label="init: linear (debug 1)",
                ok=True,
                score=0.71,
                duration=10,
            ),
        ],
    )
    facts = run_journal.read_journal(run, higher_is_better=True)
    assert facts.retried_after_timeout == []
    assert facts.best_card == "linear" and len(facts.timed_out) == 2


def test_debugging_a_timed_out_candidate_is_a_retry(tmp_path: Path) -> None:
    run = _write_run(
        tmp_path,
        [
            _event(
                124,
                "candidate",
                node_id="init-m1",
                phase="init",
                label="init: random_forest",
                ok=False,
                error=TIMED_OUT,
                duration=24,
            ),
            _event(
                150,
                "candidate",
                node_id="init-m1-d1",
                parent_id="init-m1",
                phase="init",
                label="init: random_forest (debug 1)",
                ok=False,
                error=TIMED_OUT,
                duration=20,
            ),
        ],
    )
    facts = run_journal.read_journal(run, higher_is_better=True)
    assert [r.split()[0] for r in facts.retried_after_timeout] == ["init-m1-d1"]
    assert facts.best == ""


def test_a_missing_journal_gives_empty_facts(tmp_path: Path) -> None:
    facts = run_journal.read_journal(tmp_path, higher_is_better=True)
    assert facts.candidates == 0 and facts.retried_after_timeout == []


# --------------------------------------------------------------------------- tuned HGB
def _frame(n: int, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    days = pd.Timestamp("2016-01-01") + pd.to_timedelta(rng.integers(0, 700, n), unit="D")
    grade = rng.choice(["Fair", "Good", "Ideal"], n)
    x = rng.normal(size=n)
    X = pd.DataFrame({"when": days.strftime("%Y-%m-%d"), "grade": grade, "x": x})
    y = np.exp(1 + 0.5 * x + (grade == "Ideal") + 0.3 * (days.month.to_numpy() > 6))
    return X, y


def test_dates_become_numeric_parts_and_text_becomes_codes() -> None:
    X, _ = _frame(200)
    assert tuned_hgb.date_columns(X) == ["when"]
    Xf, Xt, categorical = tuned_hgb.featurize(X.iloc[:150], X.iloc[150:])
    assert {"when_year", "when_month", "when_dow", "when_doy", "when_elapsed_days"} <= set(Xf)
    assert "when" not in Xf and "when_hour" not in Xf  # dates without a time
    assert Xf["when_elapsed_days"].min() >= 0 and len(Xt) == 50
    assert dict(zip(Xf.columns, categorical, strict=True))["grade"] is True
    assert all(pd.api.types.is_float_dtype(Xf[c]) for c in Xf)


def test_tuned_hgb_stops_within_its_budget_and_beats_the_mean() -> None:
    import sklearn.ensemble  # noqa: F401  (its import is slow on a loaded machine: not timed)

    X, y = _frame(3000)
    t0 = time.time()
    res = tuned_hgb.tune_hgb(
        X.iloc[:2500],
        pd.Series(y[:2500]),
        X.iloc[2500:],
        classification=False,
        score=lambda a, b: float(np.sqrt(np.mean((np.log1p(a) - np.log1p(b)) ** 2))),
        higher_is_better=False,
        proba=False,
        log_target=True,
        budget=6.0,
    )
    assert time.time() - t0 < 6.0 + 8.0  # the refit may run past the budget, not much (loaded CI)
    assert res.tried >= 1 and res.values.shape == (500,)
    assert (res.values > 0).all() and res.values.max() <= y[:2500].max() * 1.0001
    rmsle = np.sqrt(np.mean((np.log1p(res.values) - np.log1p(y[2500:])) ** 2))
    baseline = np.sqrt(np.mean((np.log1p(y[2500:]) - np.log1p(y[:2500]).mean()) ** 2))
    assert rmsle < 0.5 * baseline


def test_tuned_hgb_gives_class_probabilities() -> None:
    X, y = _frame(1500, seed=1)
    label = np.where(y > np.median(y), "high", "low")
    res = tuned_hgb.tune_hgb(
        X.iloc[:1200],
        pd.Series(label[:1200]),
        X.iloc[1200:],
        classification=True,
        score=lambda a, p: float(np.mean((a == "high") == (p > 0.5))),
        higher_is_better=True,
        proba=True,
        log_target=False,
        budget=3.0,
    )
    assert list(res.classes) == ["high", "low"] and res.values.shape == (300, 2)
    assert np.allclose(res.values.sum(axis=1), 1.0)


# --------------------------------------------------------------------------- the script
def test_budgets_parse_and_refuse_nonsense() -> None:
    assert bench.parse_budgets("120,300") == [120.0, 300.0]
    for bad in ("", "abc", "120,-5"):
        with pytest.raises(Exception, match="--budget"):
            bench.parse_budgets(bad)


def _row(
    task: str, budget: float, ours: float | None, flaml: float, hgb: float, retried: list[str]
) -> object:
    journal = {
        "candidates": 16,
        "timed_out": ["a"],
        "retried_after_timeout": retried,
        "best_card": "lightgbm",
        "rung": "best",
    }
    return bench.Row(
        task,
        "tabular",
        "rmse",
        False,
        budget,
        "regression",
        1.0,
        2.0,
        {
            "ours": bench.Outcome(ours, 120, "", journal),
            "flaml": bench.Outcome(flaml, 121),
            "hgb": bench.Outcome(hgb, 118),
        },
    )


def test_markdown_names_commit_load_budgets_and_retries(tmp_path: Path) -> None:
    rows = [
        _row("a", 120, 10.0, 12.0, 11.0, []),
        _row("b", 120, 13.0, 12.0, 12.5, ["p0-t0k1 after p0-t0k0 ('x', block b2)"]),
        _row("a", 300, 9.0, 9.5, 9.9, []),
    ]
    prov = bench.Provenance(
        commit="0123456789abcdef",
        dirty=0,
        snapshot=True,
        started="2026-11-24 23:00 UTC",
        finished="2026-11-24 23:30 UTC",
        cpus=2,
        load_start=(3.0, 2.0, 1.0),
        load_end=(4.0, 3.0, 2.0),
        omp_threads="1",
        budgets=[120, 300],
    )
    text = bench.markdown(rows, prov, ["ours", "flaml", "hgb"])
    assert "`0123456789ab`" in text and "2 CPUs" in text and "3.0/2.0/1.0" in text
    assert "### Budget 120 s" in text and "### Budget 300 s" in text
    assert "ours vs flaml: 1 won, 0 tied, 1 lost (win rate 50%); regression 1 won" in text
    assert "Strategies retried after a time-out: 1 (in 1 of 2 runs)" in text
    assert "No strategy retried after a time-out in any of the 1 runs." in text
    assert "| a | rmse ↓ | **10.0000** | 12.0000 | 11.0000 |" in text
    # results.json round-trips, old list-shaped files still read
    bench._save(tmp_path, rows, prov)
    again, prov2 = bench._load_rows(tmp_path / "results.json")
    assert prov2 == prov and [r.budget for r in again] == [120, 120, 300]
    assert again[1].results["ours"].journal["retried_after_timeout"]
    (tmp_path / "old.json").write_text(
        json.dumps(
            [
                {
                    "task": "t",
                    "modality": "tabular",
                    "metric": "rmse",
                    "higher": False,
                    "results": {"ours": {"score": 1.0, "seconds": 3.0, "note": ""}},
                }
            ]
        )
    )
    old, none = bench._load_rows(tmp_path / "old.json")
    assert none is None and old[0].results["ours"].score == 1.0


# --------------------------------------------------------------------------- seed spread
seed_spread = _load("seed_spread")


def test_reference_scores_read_the_first_tables_ours_column(tmp_path: Path) -> None:
    results = tmp_path / "r.md"
    results.write_text(
        "# title\n\n| task | metric | ours | FLAML |\n|---|---|---|---|\n"
        "| wine | log_loss ↓ | **0.0047** | 0.0374 |\n| diabetes | rmse ↓ | 54.0039 | **53.1** |\n"
        "\ntext\n\n| task | ours |\n|---|---|\n| wine | 0.9 |\n"
    )
    assert seed_spread.reference_scores(results) == {"wine": 0.0047, "diabetes": 54.0039}


def test_a_spread_counts_the_seeds_that_reach_the_reference_in_the_metrics_direction() -> None:
    lower = seed_spread.Spread("wine", "log_loss", False, {0: 0.004, 1: 0.009, 2: None}, {}, 0.0047)
    assert lower.reached() == 1 and lower.graded() == [0.004, 0.009]
    assert lower.mean() == pytest.approx(0.0065) and lower.sd() == pytest.approx(
        0.0035355, rel=1e-4
    )
    higher = seed_spread.Spread("digits", "f1_macro", True, {0: 0.99, 1: 0.995}, {}, 0.9934)
    assert higher.reached() == 1
    row = seed_spread.markdown([lower, higher], [0, 1, 2], 150, bench.provenance([150], False))
    assert "| wine | log_loss ↓ | 0.0040 | 0.0090 | – | 0.0065 |" in row
    assert "1 of 2" in row and "seeds 0, 1, 2" in row


def test_a_lighter_version_after_a_time_out_is_not_a_retry(tmp_path: Path) -> None:
    """The debugger's version of a timed-out run that trains on fewer rows (its ``debug`` event
    says so) is listed apart; the same size again stays a retry."""
    events = [
        _event(
            124,
            "candidate",
            node_id="init-m4",
            phase="init",
            label="init: lightgbm",
            ok=False,
            error=TIMED_OUT,
            duration=20,
        ),
        _event(
            140,
            "candidate",
            node_id="init-m4-d1",
            parent_id="init-m4",
            phase="init",
            label="init: lightgbm (debug 1)",
            ok=True,
            score=0.92,
            duration=12,
        ),
    ]
    lighter = _event(140, "debug", node_id="init-m4-d1", round=1, fixed=True, rows=[12000, 4500])
    (tmp_path / "a").mkdir()
    run = _write_run(tmp_path / "a", [*events, lighter])
    facts = run_journal.read_journal(run, higher_is_better=True)
    assert facts.retried_after_timeout == []
    assert facts.lighter_after_timeout == [
        "init-m4-d1 after init-m4 ('init: lightgbm', block None, rows 12000 -> 4500)"
    ]
    assert "1 lighter version(s) after a time-out" in facts.summary()
    same = _event(140, "debug", node_id="init-m4-d1", round=1, fixed=True, rows=[12000, 12000])
    (tmp_path / "b").mkdir()
    facts = run_journal.read_journal(_write_run(tmp_path / "b", [*events, same]), True)
    assert len(facts.retried_after_timeout) == 1 and facts.lighter_after_timeout == []
