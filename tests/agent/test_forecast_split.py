"""A forecast: the test rows' dates all come after the training rows' (hunt, session 23: daily
sales up to 2021-03-10, forecast the next 100 days).  The run validated on shuffled rows and
k-folded the 800 rows, so every score trained on the future of the rows it scored (validation
MAE 7.6, held-out 11.5).  The run now validates on the latest rows, and the catalog's notebooks
do not k-fold such a table."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from mlestar_jupyter.agent.config import RunConfig
from mlestar_jupyter.agent.scoring import make_split
from mlestar_jupyter.offline import OfflinePolicy
from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.layout import inspect_task


def _sales(root: Path, shuffled: bool = False, written: str = "%Y-%m-%d") -> Path:
    days = pd.date_range("2019-01-01", periods=900, freq="D")
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "date": days.strftime(written),
            "temp": rng.normal(12, 6, len(days)).round(1),
            "sales": (200 + 0.1 * np.arange(len(days)) + rng.normal(0, 5, len(days))).round(2),
        }
    )
    train, test = frame.iloc[:800], frame.iloc[800:]
    if shuffled:  # the same days, but the test rows drawn among them: no forecast
        train, test = (
            frame.sample(800, random_state=0),
            frame.drop(frame.sample(800, random_state=0).index),
        )
        train = train.sort_index()
    inp = root / "input"
    inp.mkdir(parents=True)
    train.to_csv(inp / "train.csv", index=False)
    test.drop(columns="sales").to_csv(inp / "test.csv", index=False)
    test[["date"]].assign(sales=0).to_csv(inp / "sample_submission.csv", index=False)
    (root / "task.json").write_text(
        json.dumps(
            {"goal": "forecast sales", "metric": "mae", "target_col": "sales", "id_col": "date"}
        )
    )
    return root


def test_a_forecast_is_validated_on_its_latest_rows_without_folds(tmp_path: Path) -> None:
    task = load_task(_sales(tmp_path / "f"))
    layout = inspect_task(task)
    assert layout.forecast_col == "date"
    split = make_split(task, layout, seed=0, max_rows=30_000, kfold_rows=2_000)
    assert split is not None and split.every_row is None  # no out-of-fold rows
    assert list(split.rows) == list(range(640, 800))  # the last fifth, by date
    nb = OfflinePolicy(task, RunConfig()).init_solution(
        OfflinePolicy(task, RunConfig()).retrieve(1)[0]
    )
    code = "\n".join(b.source for b in nb.code_blocks)
    assert (
        "cross_validate(" not in code
        and "KFOLD_ROWS = 0" not in code
        or "kfold_seconds" not in code
    )


def test_dates_written_day_first_are_a_forecast_too(tmp_path: Path) -> None:
    """20.06.2017, as most of Europe writes it: read day first, as the notebooks read it."""
    task = load_task(_sales(tmp_path / "d", written="%d.%m.%Y"))
    layout = inspect_task(task)
    assert layout.forecast_col == "date"
    split = make_split(task, layout, seed=0, max_rows=30_000, kfold_rows=2_000)
    assert split is not None and list(split.rows) == list(range(640, 800))


def test_rows_drawn_among_the_same_days_are_no_forecast(tmp_path: Path) -> None:
    task = load_task(_sales(tmp_path / "s", shuffled=True))
    layout = inspect_task(task)
    assert layout.forecast_col is None
    split = make_split(task, layout, seed=0, max_rows=30_000, kfold_rows=2_000)
    assert split is not None and split.every_row is not None  # k-folded as before
    assert "def cross_validate(" in _first_solution(task)


def _first_solution(task) -> str:  # type: ignore[no-untyped-def]
    policy = OfflinePolicy(task, RunConfig())
    nb = policy.init_solution(policy.retrieve(1)[0])
    return "\n".join(b.source for b in nb.code_blocks)


def test_the_layout_is_read_once_per_state_of_the_files(tmp_path: Path) -> None:
    """A run asks for the layout several times (scorer, policy, start checks); a forecast's
    check reads whole date columns, so the layout is read once, and again when a file changes."""
    root = _sales(tmp_path / "c")
    task = load_task(root)
    first = inspect_task(task)
    assert inspect_task(task) is first
    test = root / "input" / "test.csv"
    # the test rows are now drawn among the training days: no longer a forecast
    pd.read_csv(root / "input" / "train.csv").head(100).drop(columns="sales").to_csv(
        test, index=False
    )
    again = inspect_task(task)
    assert again is not first and again.forecast_col is None


def test_a_forecast_regression_is_detrended_first_and_its_trend_goes_on(tmp_path: Path) -> None:
    """Hunt, session 23: the catalog's trees predicted the forecast's 100 days at the level of the
    last training days (held-out MAE 10.8, a trend+season Ridge 5.7), and every prediction was
    clipped to the training targets' range.  The train block's first strategy now fits a line
    over the dates and the trees on what it leaves; a forecast's predictions are not clipped."""
    import sys

    sys.path.insert(0, str(Path(__file__).parents[1] / "offline"))
    from kernel import run_notebook

    from mlestar_jupyter.offline.render import render_notebook
    from mlestar_jupyter.offline.strategies import applicable

    root = _sales(tmp_path / "t")
    policy = OfflinePolicy(load_task(root), RunConfig())
    card = policy.catalog["lightgbm"]
    train = card.params["train"]
    assert "detrend" in [s.id for s in applicable("train", train, train, policy.layout)]
    shuffled = OfflinePolicy(load_task(_sales(tmp_path / "s", shuffled=True)), RunConfig())
    assert "detrend" not in [s.id for s in applicable("train", train, train, shuffled.layout)]

    future = pd.read_csv(root / "input" / "train.csv")["sales"].max()
    scores, tops = {}, {}
    for detrend in (False, True):
        nb = render_notebook(policy.catalog, card, policy.ctx, {"train": {"detrend": detrend}})
        assert ("class Detrended" in nb.source) == detrend
        ran = run_notebook(nb, root, tmp_path / f"w{detrend}", timeout=300)
        assert ran.score is not None and ran.submission.is_file(), ran.output[-2000:]
        scores[detrend] = ran.score
        tops[detrend] = pd.read_csv(ran.submission)["sales"].mean()
    # the test days' mean level (about 285) lies above every training day's sales (at most ~300
    # with noise, mean of the last 100 days ~275): only the detrended model predicts it
    assert scores[True] < scores[False]
    assert tops[True] > tops[False] + 3
    assert tops[True] > future - 30


def _seasonal(root: Path) -> Path:
    """Two years of daily sales with a trend, a weekly and a yearly cycle; forecast 100 days."""
    days = pd.date_range("2019-01-01", periods=830, freq="D")
    rng = np.random.default_rng(1)
    t = np.arange(len(days))
    sales = (
        200
        + 0.05 * t
        + 20 * np.sin(2 * np.pi * days.dayofweek / 7)
        + 30 * np.cos(2 * np.pi * days.dayofyear / 365.25)
        + rng.normal(0, 3, len(days))
    )
    frame = pd.DataFrame({"date": days.strftime("%Y-%m-%d"), "sales": sales.round(2)})
    train, test = frame.iloc[:730], frame.iloc[730:]
    (root / "input").mkdir(parents=True)
    train.to_csv(root / "input" / "train.csv", index=False)
    test[["date"]].to_csv(root / "input" / "test.csv", index=False)
    test[["date"]].assign(sales=0).to_csv(root / "input" / "sample_submission.csv", index=False)
    (root / "task.json").write_text(
        json.dumps(
            {"goal": "forecast sales", "metric": "mae", "target_col": "sales", "id_col": "date"}
        )
    )
    return root


def test_a_forecasts_weekly_and_yearly_cycles_are_features_a_linear_model_can_use(
    tmp_path: Path,
) -> None:
    """Hunt, session 23's t21 again (session 24: held-out MAE 10.3, a Ridge on the trend and
    sin/cos of the week and the year 5.7): the dates gave the day of the week and of the year as
    numbers, which a linear model cannot bend into a cycle.  A forecast's date now gives both
    cycles as waves; the linear card fits them to about the noise."""
    import sys

    sys.path.insert(0, str(Path(__file__).parents[1] / "offline"))
    from kernel import run_notebook

    from mlestar_jupyter.offline.render import render_notebook

    root = _seasonal(tmp_path / "t")
    policy = OfflinePolicy(load_task(root), RunConfig())
    card = policy.catalog["linear"]
    nb = render_notebook(policy.catalog, card, policy.ctx, {})
    assert "_year_sin" in nb.source and '_week_cos"' in nb.source
    ran = run_notebook(nb, root, tmp_path / "w", timeout=300)
    assert ran.score is not None, ran.output[-2000:]
    assert ran.score < 4.0  # the noise's MAE is about 2.4; without the waves it is about 21
    days = pd.date_range("2019-01-01", periods=830, freq="D")[730:]
    answers = (
        200
        + 0.05 * np.arange(730, 830)
        + 20 * np.sin(2 * np.pi * days.dayofweek.to_numpy() / 7)
        + 30 * np.cos(2 * np.pi * days.dayofyear.to_numpy() / 365.25)
    )
    predicted = pd.read_csv(ran.submission)["sales"].to_numpy()
    assert np.abs(predicted - answers).mean() < 5.0

    # rows drawn among the same days: no forecast, no waves (a tree splits the numbers)
    shuffled = OfflinePolicy(load_task(_sales(tmp_path / "s", shuffled=True)), RunConfig())
    plain = render_notebook(shuffled.catalog, shuffled.catalog["linear"], shuffled.ctx, {})
    assert "_year_sin" not in plain.source
