"""``agent.scoring`` without kernels: the run's split, the measured score, the printed-score checks."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mlestar_jupyter.agent.scoring import (
    VAL_INDEX_FILE,
    VAL_PREDICTIONS_FILE,
    ValidationScorer,
    agree,
    implausible,
    scorer_for,
    value_range,
)
from mlestar_jupyter.metrics import get_metric
from mlestar_jupyter.task import load_task

SOURCE_WITH_SPLIT = f'pd.read_csv("{VAL_INDEX_FILE}")'


def _scorer(root: Path, max_rows: int | None = 30_000) -> ValidationScorer:
    return scorer_for(load_task(root), seed=0, max_rows=max_rows)


def _truth(root: Path, scorer: ValidationScorer, col: str) -> pd.Series:
    assert scorer.split is not None
    train = pd.read_csv(root / "input" / "train.csv")
    return train[col].iloc[list(scorer.split.rows)].reset_index(drop=True)


def _write(workdir: Path, frame: pd.DataFrame) -> Path:
    workdir.mkdir(parents=True, exist_ok=True)
    frame.to_csv(workdir / VAL_PREDICTIONS_FILE, index=False)
    return workdir


def test_the_split_is_stratified_deterministic_and_capped(soil_task) -> None:  # type: ignore[no-untyped-def]
    root = soil_task()
    a, b = _scorer(root), _scorer(root)
    assert a.split is not None and b.split is not None
    assert a.split.rows == b.split.rows and a.split.digest == b.split.digest
    assert len(a.split.rows) == 72 and a.split.n_labelled == 360
    labels = _truth(root, a, "soil_type")
    assert labels.value_counts().min() >= 11  # 6 classes of ~60 rows: ~12 each held out
    small = _scorer(root, max_rows=100)
    assert small.split is not None and len(small.split.rows) == 20


def test_the_split_file_is_written_and_old_predictions_removed(soil_task, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    scorer = _scorer(soil_task())
    work = _write(tmp_path / "w", pd.DataFrame({"row": [0]}))
    scorer.prepare(work)
    assert not (work / VAL_PREDICTIONS_FILE).exists()
    rows = pd.read_csv(work / VAL_INDEX_FILE)["row"].tolist()
    assert scorer.split is not None and tuple(rows) == scorer.split.rows


def test_labels_measured_agreeing_and_mismatching(soil_task, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = soil_task()
    scorer = _scorer(root)
    assert scorer.split is not None
    truth = _truth(root, scorer, "soil_type")
    pred = truth.copy()
    pred.iloc[:18] = "red soil"  # some of these were red soil already
    acc = float((pred == truth).mean())
    work = _write(tmp_path / "w", pd.DataFrame({"row": scorer.split.rows, "soil_type": pred}))
    same = scorer.check(work, round(acc, 4), SOURCE_WITH_SPLIT)
    assert same.status == "measured" and same.score == pytest.approx(acc) and not same.message
    wrong = scorer.check(work, 0.9999999997, SOURCE_WITH_SPLIT)
    assert wrong.status == "mismatch" and wrong.score == pytest.approx(acc)
    assert wrong.printed == 0.9999999997 and "0.9999" in wrong.message
    silent = scorer.check(work, None)  # nothing printed: the file still gives the score
    assert silent.status == "measured" and silent.score == pytest.approx(acc)


def test_probability_columns_are_scored_like_the_evaluator(soil_task, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from sklearn.metrics import log_loss

    root = soil_task(metric="log_loss", per_class=True)
    scorer = _scorer(root)
    assert scorer.split is not None
    truth = _truth(root, scorer, "soil_type")
    classes = sorted(truth.unique())
    rng = np.random.default_rng(0)
    proba = rng.dirichlet(np.ones(len(classes)), size=len(truth))
    frame = pd.DataFrame(proba, columns=classes)
    frame.insert(0, "row", scorer.split.rows)
    got = scorer.check(_write(tmp_path / "w", frame), None)
    assert got.status == "measured"
    assert got.score == pytest.approx(log_loss(truth, proba, labels=classes), rel=1e-6)


def test_predictions_for_other_rows_are_not_trusted(soil_task, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    scorer = _scorer(soil_task())
    assert scorer.split is not None
    others = [r for r in range(360) if r not in set(scorer.split.rows)][:72]
    work = _write(tmp_path / "w", pd.DataFrame({"row": others, "soil_type": "red soil"}))
    got = scorer.check(work, 1.0, SOURCE_WITH_SPLIT)
    assert got.status == "untrusted" and got.score is None and got.printed == 1.0
    assert "0 in common" in got.message and VAL_INDEX_FILE in got.message


def test_an_unreadable_file_falls_back_to_the_checked_printed_score(
    soil_task, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    scorer = _scorer(soil_task())
    assert scorer.split is not None
    work = _write(tmp_path / "w", pd.DataFrame({"row": scorer.split.rows, "label": "red soil"}))
    got = scorer.check(work, 0.75, SOURCE_WITH_SPLIT)  # 54/72
    assert got.status == "printed" and got.score == 0.75 and "could not be scored" in got.message
    bad = scorer.check(work, 0.995, SOURCE_WITH_SPLIT)  # no k/72 rounds to it
    assert bad.status == "untrusted" and bad.score is None


def test_printed_only_scores_are_checked(soil_task, tabular_task) -> None:  # type: ignore[no-untyped-def]
    soil = _scorer(soil_task())
    assert soil.check(None, 0.75).status == "printed"
    assert soil.check(None, 0.99).status == "printed"  # own split: n unknown
    assert soil.check(None, 0.99, SOURCE_WITH_SPLIT).status == "printed"  # 71/72, rounded
    assert soil.check(None, 0.995, SOURCE_WITH_SPLIT).status == "untrusted"
    assert soil.check(None, 0.9999999997, SOURCE_WITH_SPLIT).status == "untrusted"
    for value in (1.5, -0.2, math.nan, math.inf):
        got = soil.check(None, value)
        assert got.status == "untrusted" and got.score is None and "not trusted" in got.message
    assert soil.check(None, None).status == "none"
    auc = _scorer(tabular_task)
    assert (
        auc.check(None, 0.9876, SOURCE_WITH_SPLIT).status == "printed"
    )  # AUC: any value in [0, 1]


def test_metric_ranges_and_tolerance() -> None:
    assert value_range(get_metric("accuracy")) == (0.0, 1.0)
    assert value_range(get_metric("rmse")) == (0.0, math.inf)
    assert value_range(get_metric("r2")) == (-math.inf, 1.0)
    assert value_range(get_metric("qwk")) == (-1.0, 1.0)
    assert implausible(get_metric("rmse"), -0.5) and not implausible(get_metric("rmse"), 12.3)
    accuracy = get_metric("accuracy")
    assert not implausible(accuracy, 0.8333, n=6)  # 5/6 printed with 4 decimals
    assert not implausible(accuracy, 5 / 6, n=6) and not implausible(accuracy, 0.0, n=6)
    assert not implausible(accuracy, float(np.float32(5 / 6)), n=6)  # computed in float32
    assert implausible(accuracy, 0.75, n=6)
    assert implausible(accuracy, 0.9999999997, n=360)  # the largest probability, not accuracy
    assert not implausible(accuracy, 0.9999999997)  # n unknown: only the range is checked
    assert agree(0.8333, 5 / 6) and not agree(0.9999999997, 0.41)


def test_a_small_table_scores_out_of_fold_predictions_of_every_row(
    soil_task, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """360 labelled rows, k-fold allowed up to 2 000: predictions of all 360 rows are graded
    against all labels; the hold-out's 72 rows still are; any other set of rows is not."""
    root = soil_task()
    scorer = scorer_for(load_task(root), seed=0, max_rows=30_000, kfold_rows=2_000)
    split = scorer.split
    assert split is not None and split.every_row is not None and split.describe()["kfold"]
    truth = pd.read_csv(root / "input" / "train.csv")["soil_type"]
    pred = truth.copy()
    pred.iloc[::4] = "red soil"  # a quarter changed, some of them red soil already
    every = scorer.check(
        _write(tmp_path / "all", pd.DataFrame({"row": range(360), "soil_type": pred})), None
    )
    assert every.status == "measured" and every.score == pytest.approx(
        float((pred == truth).mean())
    )
    held = list(split.rows)
    hold_out = scorer.check(
        _write(tmp_path / "held", pd.DataFrame({"row": held, "soil_type": pred.iloc[held]})), None
    )
    assert hold_out.score == pytest.approx(float((pred.iloc[held] == truth.iloc[held]).mean()))
    some = scorer.check(
        _write(tmp_path / "some", pd.DataFrame({"row": range(300), "soil_type": "red soil"})), 1.0
    )
    assert some.status == "untrusted" and "all 360 labelled rows" in some.message
    big = scorer_for(load_task(root), seed=0, max_rows=30_000, kfold_rows=300)  # 360 > 300
    assert big.split is not None and big.split.every_row is None
    again = big.check(
        _write(tmp_path / "all2", pd.DataFrame({"row": range(360), "soil_type": pred})), None
    )
    assert again.status == "untrusted" and "labelled rows" not in again.message
