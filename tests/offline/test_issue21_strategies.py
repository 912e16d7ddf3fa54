"""Issue 21 (parts 1-3) in the offline policy: a strategy that timed out is not tried again on
the same block at the same row cap; features the data asks for; regression done right."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from mlestar_jupyter.agent.config import RunConfig
from mlestar_jupyter.agent.policy import AblationSummary, ModelCard, Plan, RefineTarget
from mlestar_jupyter.offline import OfflinePolicy
from mlestar_jupyter.offline.render import render_notebook
from mlestar_jupyter.offline.strategies import applicable
from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.layout import inspect_task
from mlestar_jupyter.task.layout.columns import band_scale, clock_columns, date_columns


def test_a_strategy_that_timed_out_is_not_retried_on_its_block(task_dirs: dict[str, Path]) -> None:
    p = OfflinePolicy(load_task(task_dirs["tabular"]), RunConfig())
    nb = p.init_solution(p.retrieve(1)[0])
    bid = nb.blocks_by_role("model")[0].id
    target = RefineTarget(bid, Plan(""))
    first = p.plan(nb, target, [])
    slow = nb.replace_block(bid, p.code(nb, target, first))
    p.debug(slow, "CellTimeout: timed out after 21s; the kernel was killed", bid)
    again = p.plan(nb, target, [])  # as the extractor and planner ask for a block's next plan
    assert again.strategy != first.strategy and again.strategy != "exhausted"
    # a failure that is not a time-out forgets nothing
    q = OfflinePolicy(load_task(task_dirs["tabular"]), RunConfig())
    nb_q = q.init_solution(q.retrieve(1)[0])
    failed = nb_q.replace_block(bid, q.code(nb_q, target, first))
    q.debug(failed, "ValueError: boom", bid)
    assert q.plan(nb_q, target, []).strategy == first.strategy
    # at another row cap the strategy may run again
    setup = nb.blocks_by_role("setup")[0]
    smaller = nb.replace_block(
        setup.id, setup.source.replace("MAX_TRAIN_ROWS = 30000", "MAX_TRAIN_ROWS = 200")
    )
    assert smaller.to_script() != nb.to_script()
    assert p.plan(smaller, target, []).strategy == first.strategy


def _priced_goods(root: Path, metric: str = "rmse", n: int = 400) -> Path:
    """Goods with a sale date, a quality grade (Po < Fa < TA < Gd < Ex), a cut and a size; the
    price is positive with a long right tail and grows with quality, size and time."""
    rng = np.random.RandomState(0)
    grades, cuts, sizes = ["Po", "Fa", "TA", "Gd", "Ex"], ["Fair", "Good", "Ideal"], ["S", "M", "L"]
    q, c, z = rng.randint(0, 5, n), rng.randint(0, 3, n), rng.randint(0, 3, n)
    days, seller = rng.randint(0, 1500, n), rng.randint(0, 60, n)
    date = pd.Timestamp("2018-01-01") + pd.to_timedelta(days, unit="D")
    shop = rng.randn(60)[seller] * 0.3  # each seller's own price level
    price = np.exp(3 + 0.5 * q + 0.3 * c + 0.2 * z + days / 1500 + shop + 0.3 * rng.randn(n))
    df = pd.DataFrame(
        {
            "id": np.arange(n),
            "sold": date.strftime("%Y-%m-%d"),
            "quality": np.array(grades)[q],
            "cut": np.array(cuts)[c],
            "size": np.array(sizes)[z],
            "seller": [f"shop-{s}" for s in seller],
            "weight": rng.uniform(1, 5, n).round(2),
            "price": price.round(2),
        }
    )
    spec = {
        "goal_description": "Predict the sale price.",
        "task_type": "regression",
        "metric": {"metric_name": metric},
        "target_col": "price",
        "data_information": {"data_type": "tabular"},
    }
    return _write_task(root, df, 300, ("id", "price", 1.0), spec)


def _write_task(
    root: Path, df: pd.DataFrame, n_train: int, id_label_guess: tuple, spec: dict
) -> Path:
    """``df``'s first ``n_train`` rows as train.csv, the rest (label dropped) as test.csv, a sample
    submission guessing one value, and ``spec`` as task.json."""
    id_col, label, guess = id_label_guess
    inp = root / "input"
    inp.mkdir(parents=True)
    df.iloc[:n_train].to_csv(inp / "train.csv", index=False)
    df.iloc[n_train:].drop(columns=label).to_csv(inp / "test.csv", index=False)
    sample = pd.DataFrame({id_col: df[id_col].iloc[n_train:], label: guess})
    sample.to_csv(inp / "sample_submission.csv", index=False)
    (root / "task.json").write_text(json.dumps(spec))
    return root


def test_layout_finds_dates_and_ordered_scales(tmp_path: Path) -> None:
    layout = inspect_task(load_task(_priced_goods(tmp_path / "t")))
    assert layout.date_cols == ("sold",)
    scales = dict(layout.ordered_cols)
    assert scales["quality"][:5] == ("po", "fa", "ta", "gd", "ex")
    assert scales["cut"] == ("fair", "good", "very good", "premium", "ideal")
    assert scales["size"].index("s") < scales["size"].index("m") < scales["size"].index("l")
    assert "weight" not in scales and "sold" not in scales and "seller" not in scales
    assert layout.high_card_cols == ("seller",)  # the date column is no category


def _stops(root: Path) -> Path:
    """Stops the way a city's open-data export writes them: when the stop happened (US style,
    with a time of day), the date it was filed (no time), a district; the label depends on the
    hour (night stops are mostly for a suspicious person)."""
    rng = np.random.RandomState(1)
    n = 240
    at = pd.Timestamp("2017-01-01") + pd.to_timedelta(rng.randint(0, 365 * 24 * 60, n), unit="min")
    df = pd.DataFrame(
        {
            "StopID": np.arange(n),
            "Stopped At": at.strftime("%m/%d/%Y %I:%M %p"),
            "Filed": (at + pd.Timedelta(days=1)).strftime("%Y-%m-%d"),
            "District": rng.choice(["North", "South", "East"], n),
            "Suspicious": ((at.hour < 5) | (at.hour > 21)).astype(int),
        }
    )
    spec = {
        "goal": "Was the stop for a suspicious person?",
        "metric": "auc",
        "target_col": "Suspicious",
    }
    return _write_task(root, df, 180, ("StopID", "Suspicious", 0.5), spec)


def test_a_time_of_day_becomes_a_feature_of_its_own(tmp_path: Path) -> None:
    """A date column that also holds a time of day gets its hour (as a fraction: 10:30 PM is
    22.5) beside year ... elapsed days; a plain date column gets no hour."""
    task = load_task(_stops(tmp_path / "t"))
    layout = inspect_task(task)
    assert layout.date_cols == ("Stopped At", "Filed") and layout.clock_cols == ("Stopped At",)
    p = OfflinePolicy(task, RunConfig())
    nb = p.init_solution(ModelCard("lightgbm", ""))
    space: dict = {}
    exec(nb.blocks_by_role("setup")[0].source, space)
    exec(nb.blocks_by_role("features")[0].source, space)
    rows = pd.DataFrame({"Stopped At": ["06/20/2017 10:30 PM"], "Filed": ["2017-06-21"]})
    shown = space["add_features"](rows)
    assert shown["Stopped At_hour"].tolist() == [22.5]
    assert shown["Stopped At_dayofweek"].tolist() == [1]  # a Tuesday
    assert "Filed_hour" not in shown and "Filed_days" in shown and "Stopped At" not in shown
    # ISO times whose UTC offsets differ (winter and summer time) keep their local hour
    iso = pd.DataFrame(
        {"Stopped At": ["2017-03-20T10:00:00+01:00", "2017-06-20T22:30:00+02:00", None]}
    )
    assert date_columns(iso, set()) == ("Stopped At",) == clock_columns(iso, ("Stopped At",))
    iso["Filed"] = "2017-06-21"
    shown = space["add_features"](iso)
    assert shown["Stopped At_hour"].tolist()[:2] == [10.0, 22.5]
    assert shown["Stopped At_month"].tolist()[:2] == [3, 6] and shown["Stopped At_hour"].isna()[2]


def _bookings(root: Path) -> Path:
    """Bookings as a European shop's export writes them: the booking day with dots and day
    first (05.06.2017 is the 5th of June), the stay's start with a month's name (Jun 20, 2017),
    an app version that only looks like a date (1.2.10), a semicolon-free CSV as pandas writes."""
    rng = np.random.RandomState(2)
    n = 200
    booked = pd.Timestamp("2017-01-01") + pd.to_timedelta(rng.randint(0, 365, n), unit="D")
    stay = booked + pd.to_timedelta(rng.randint(1, 90, n), unit="D")
    df = pd.DataFrame(
        {
            "Booking No": np.arange(n),
            "Gebucht am": booked.strftime("%d.%m.%Y"),
            "Stay begins": stay.strftime("%b %d, %Y"),
            "App": rng.choice(["1.2.10", "1.3.2", "2.0.11"], n),
            "Price": 50 + 3 * (stay - booked).days + rng.normal(0, 5, n),
        }
    )
    spec = {"goal": "Price of the booking", "metric": "rmse", "target_col": "Price"}
    return _write_task(root, df, 150, ("Booking No", "Price", 100.0), spec)


def test_dates_with_dots_or_month_names_are_dates_and_dots_are_day_first(tmp_path: Path) -> None:
    task = load_task(_bookings(tmp_path / "t"))
    layout = inspect_task(task)
    assert layout.date_cols == ("Gebucht am", "Stay begins") and layout.clock_cols == ()
    assert "App" not in layout.date_cols  # 1.2.10 is a version, not a date
    p = OfflinePolicy(task, RunConfig())
    nb = p.init_solution(ModelCard("lightgbm", ""))
    space: dict = {}
    exec(nb.blocks_by_role("setup")[0].source, space)
    exec(nb.blocks_by_role("features")[0].source, space)
    rows = pd.DataFrame(
        {"Gebucht am": ["05.06.2017", "31.12.2016"], "Stay begins": ["Jun 20, 2017", "Jan 3, 2017"]}
    )
    shown = space["add_features"](rows)
    assert shown["Gebucht am_month"].tolist() == [6, 12]  # day first: June, not May
    assert shown["Gebucht am_day"].tolist() == [5, 31]
    assert shown["Stay begins_month"].tolist() == [6, 1] and shown["Stay begins_day"].tolist() == [
        20,
        3,
    ]
    assert space["add_features"](rows.iloc[:0]).empty  # no rows: no error
    assert date_columns(
        pd.DataFrame({"d": ["20 June 2017", "2017-Jun-21", "3-Jul-17"]}), set()
    ) == ("d",)
    not_dates = pd.DataFrame(
        {"m": ["Jan", "Feb", "Mar"], "t": ["may be late", "Mar 3rd shift", "x"]}
    )
    assert date_columns(not_dates, set()) == ()


def test_skewed_rmse_tries_a_log_target_first_and_rmsle_fits_on_logs(tmp_path: Path) -> None:
    task = load_task(_priced_goods(tmp_path / "rmse"))
    p = OfflinePolicy(task, RunConfig())
    nb = p.init_solution(ModelCard("hist_gradient_boosting", ""))
    assert "TransformedTargetRegressor" not in nb.source  # RMSE: the plain fit stays the default
    target = p.extract(nb, AblationSummary(text="", baseline=None), [])
    assert nb.block(target.block_id).role == "train" and target.plan.strategy == "log_target"
    # RMSLE: every card that can fits on log(1 + y) from the start
    q = OfflinePolicy(load_task(_priced_goods(tmp_path / "rmsle", "rmsle")), RunConfig())
    nb = q.init_solution(ModelCard("hist_gradient_boosting", ""))
    assert "TransformedTargetRegressor(model, func=np.log1p" in nb.source
    # a target without a long tail: no preference
    r = OfflinePolicy(load_task(task_dirs_regression(tmp_path / "diabetes")), RunConfig())
    assert r._log_target() == ""


def task_dirs_regression(root: Path) -> Path:
    import tasks

    return tasks.regression_task(root)


def test_features_of_dates_and_ordered_scales_in_a_kernel(tmp_path: Path) -> None:
    """One card run in a kernel: the date becomes year ... elapsed days, the grades their rank,
    the sellers (60 of them) their cross-fitted mean price, and the regression's predictions
    stay within the training targets' range."""
    from kernel import run_notebook

    root = _priced_goods(tmp_path / "t")
    p = OfflinePolicy(load_task(root), RunConfig())
    card = p.catalog["hist_gradient_boosting"]
    plans = applicable("features", card.params["features"], card.params["features"], p.layout)
    assert "ordered_codes" in [s.id for s in plans]
    pre = card.params["preprocess"]
    assert "target_high_cardinality" in [s.id for s in applicable("preprocess", pre, pre, p.layout)]
    params = {"features": {"ordered": True}, "preprocess": {"encoding": "target_high"}}
    nb = render_notebook(p.catalog, card, p.ctx, params)
    assert "TargetEncoder(random_state=SEED)" in nb.source
    probe = (
        "\nshown = add_features(X.head(3))\n"
        "print('COLUMNS', sorted(shown.columns))\n"
        "print('QUALITY', X['quality'].head(3).tolist(), shown['quality'].tolist())\n"
    )
    feats = nb.blocks_by_role("features")[0]
    nb = nb.replace_block(feats.id, feats.source + probe)
    ran = run_notebook(nb, root, tmp_path / "work", timeout=300)
    assert ran.score is not None and ran.submission.is_file(), ran.output[-2000:]
    cols = ran.output.split("COLUMNS", 1)[1].splitlines()[0]
    for part in ("year", "month", "day", "dayofweek", "dayofyear", "days"):
        assert f"'sold_{part}'" in cols
    assert "'sold'" not in cols
    raw, coded = eval(ran.output.split("QUALITY", 1)[1].splitlines()[0].replace("] [", "], ["))
    grades = ["po", "fa", "ta", "gd", "ex"]
    assert coded == [float(grades.index(g.lower())) for g in raw]
    train = pd.read_csv(root / "input" / "train.csv")["price"]
    sub = pd.read_csv(ran.submission)["price"]
    assert train.min() <= sub.min() and sub.max() <= train.max()


def _loans(root: Path) -> Path:
    """Loans the way a bank's export writes them: how long the borrower has held the job
    ("< 1 year" ... "10+ years", "n/a"), an age band ("5-9", "10-14" ... "85+"; "85+" only
    after the first 500 rows), a term in bands already in order as text, and a product code."""
    rng = np.random.RandomState(2)
    n = 800
    years = ["< 1 year", "1 year", *[f"{i} years" for i in range(2, 10)], "10+ years", "n/a"]
    ages = ["5-9", "10-14", "20-24", "35-39", "50-54", "65-69", "80-84"]
    age = np.array(ages)[rng.randint(0, len(ages), n)]
    age[600:620] = "85+"
    df = pd.DataFrame(
        {
            "loan_id": np.arange(n),
            "emp_length": np.array(years)[rng.randint(0, len(years), n)],
            "age_band": age,
            "term": np.array(["1-9 mo", "10-24 mo", "25-39 mo"])[rng.randint(0, 3, n)],
            "product": [f"P-{100 + i % 7}" for i in range(n)],
            "amount": rng.uniform(1, 40, n).round(1),
            "default": rng.randint(0, 2, n),
        }
    )
    spec = {"goal": "Will the loan default?", "metric": "auc", "target_col": "default"}
    return _write_task(root, df, 700, ("loan_id", "default", 0.5), spec)


def test_bands_of_numbers_are_ordered_by_their_numbers(tmp_path: Path) -> None:
    """Number bands whose text sorts out of order ("10+ years" before "2 years") are steps of an
    ordered scale, with every value of the column (not only the first rows'); "n/a" is no step;
    bands that sort in order as text, and codes, are left to the encoders."""
    scales = dict(inspect_task(load_task(_loans(tmp_path / "t"))).ordered_cols)
    assert scales["emp_length"] == (
        "< 1 year",
        "1 year",
        *[f"{i} years" for i in range(2, 10)],
        "10+ years",
    )
    assert scales["age_band"] == (
        "5-9",
        "10-14",
        "20-24",
        "35-39",
        "50-54",
        "65-69",
        "80-84",
        "85+",
    )
    assert "term" not in scales and "product" not in scales and "amount" not in scales


def test_band_scales_as_outsiders_write_them() -> None:
    assert band_scale({"5%-10%", "0%-5%", "10%-20%", "50%+"}) == (
        "0%-5%",
        "5%-10%",
        "10%-20%",
        "50%+",
    )
    assert band_scale({"2,000+", "500-1,000", "1,000-2,000"}) == (
        "500-1,000",
        "1,000-2,000",
        "2,000+",
    )
    assert band_scale({">50k", "<=50k", "50k"}) == ("<=50k", "50k", ">50k")
    assert band_scale({"over 65", "18 to 24", "under 18", "25 to 34"}) == (
        "under 18",
        "18 to 24",
        "25 to 34",
        "over 65",
    )
    for no_bands in (
        {"2017-06-20", "2018-01-01", "2019-03-04"},  # dates
        {"1.2.10", "1.3.0", "2.0.1"},  # versions
        {"10", "20", "30"},  # plain numbers
        {"1st", "2nd", "3rd"},  # no range, open end or bound
        {"10 downing street", "221b baker street", "4 privet drive"},
    ):
        assert band_scale(no_bands) is None, no_bands
