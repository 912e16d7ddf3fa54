"""The test set of saved competition pages (tests/files/competition_pages/) and their data.

Each ``Competition`` names its page(s), builds the downloaded files the way the site ships them
(a zip, a 7z, a tar.gz or a plain folder) and says what a correct import extracts.
"""

from __future__ import annotations

import shutil
import tarfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

PAGES = Path(__file__).parent.parent / "files" / "competition_pages"


@dataclass(frozen=True)
class Competition:
    name: str
    pages: tuple[str, ...]
    build: Callable[[Path], Path]  # writes the download into a folder, returns what to pass
    metric: str
    direction: str
    target: str
    id_col: str

    def page_paths(self) -> list[Path]:
        return [PAGES / p for p in self.pages]


def _split(df: pd.DataFrame, target: str, id_col: str, n_test: int = 60):
    return df.iloc[n_test:], df.iloc[:n_test].drop(columns=[target])


def _write(folder: Path, **tables: pd.DataFrame) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, df in tables.items():
        df.to_csv(folder / f"{name}.csv", index=False)


def _zip(folder: Path, archive: Path, prefix: str = "") -> Path:
    with zipfile.ZipFile(archive, "w") as zf:
        for p in sorted(folder.iterdir()):
            zf.write(p, prefix + p.name)
    shutil.rmtree(folder)
    return archive


# --------------------------------------------------------------------------- the six
def spaceship(root: Path) -> Path:
    rng = np.random.default_rng(0)
    n = 300
    age = rng.integers(1, 80, n)
    spend = rng.exponential(300, n).round(1)
    planet = rng.choice(["Earth", "Europa", "Mars"], n)
    transported = (spend < 200) ^ (rng.random(n) < 0.1)
    df = pd.DataFrame(
        {
            "PassengerId": [f"{i:04d}_01" for i in range(n)],
            "HomePlanet": planet,
            "Age": age,
            "RoomService": spend,
            "Transported": transported,
        }
    )
    train, test = _split(df, "Transported", "PassengerId")
    sample = pd.DataFrame({"PassengerId": test["PassengerId"], "Transported": False})
    _write(root / "dl", train=train, test=test, sample_submission=sample)
    # Kaggle's download: one zip of the competition, everything inside one folder
    return _zip(root / "dl", root / "spaceship-rescue.zip", prefix="spaceship-rescue/")


def house_prices(root: Path) -> Path:
    rng = np.random.default_rng(1)
    n = 260
    area = rng.integers(500, 4000, n)
    year = rng.integers(1900, 2010, n)
    df = pd.DataFrame(
        {
            "Id": range(1, n + 1),
            "LotArea": area,
            "YearBuilt": year,
            "OverallQual": rng.integers(1, 10, n),
            "SalePrice": (area * 50 + (year - 1900) * 300 + rng.normal(0, 5000, n)).round(0),
        }
    )
    train, test = _split(df, "SalePrice", "Id")
    sample = pd.DataFrame({"Id": test["Id"], "SalePrice": 180000.0})
    _write(root / "house", train=train, test=test, sample_submission=sample)
    return root / "house"  # a plain folder, already unpacked


def telco(root: Path) -> Path:
    import py7zr

    rng = np.random.default_rng(2)
    n = 300
    tenure = rng.integers(0, 72, n)
    charges = rng.uniform(20, 120, n).round(2)
    df = pd.DataFrame(
        {
            "customerID": [f"C{i:05d}" for i in range(n)],
            "Contract": rng.choice(["Month-to-month", "One year", "Two year"], n),
            "tenure": tenure,
            "MonthlyCharges": charges,
            "Churn": ((tenure < 12) & (charges > 60) | (rng.random(n) < 0.1)).astype(int),
        }
    )
    train, test = _split(df, "Churn", "customerID")
    sample = pd.DataFrame({"customerID": test["customerID"], "churn_probability": 0.5})
    _write(root / "telco", train=train, test=test, sample_submission=sample)
    archive = root / "telco-retention.7z"
    with py7zr.SevenZipFile(archive, "w") as zf:
        for p in sorted((root / "telco").iterdir()):
            zf.write(p, p.name)
    shutil.rmtree(root / "telco")
    return archive


def bikes(root: Path) -> Path:
    rng = np.random.default_rng(3)
    n = 300
    hour = rng.integers(0, 24, n)
    temp = rng.normal(15, 8, n).round(1)
    df = pd.DataFrame(
        {
            "row_id": range(n),
            "hour": hour,
            "temperature": temp,
            "holiday": rng.integers(0, 2, n),
            "num_riders": np.clip(50 + 10 * temp + 20 * (hour > 7) + rng.normal(0, 10, n), 0, None)
            .round(0)
            .astype(int),
        }
    )
    train, test = _split(df, "num_riders", "row_id")
    fmt = pd.DataFrame({"row_id": test["row_id"], "prediction": 0})
    _write(root / "bikes", train=train, test=test, submission_format=fmt)
    archive = root / "bike-share.tar.gz"
    with tarfile.open(archive, "w:gz") as tf:
        for p in sorted((root / "bikes").iterdir()):
            tf.add(p, p.name)
    return archive


REVIEWS = {
    "negative": [
        "arrived broken and the seller never answered my messages about a refund",
        "stopped working after two days, cheap plastic and a waste of money overall",
    ],
    "neutral": [
        "it does what the description says, nothing more and nothing less really",
        "delivery took the expected time and the product is fine for the price I paid",
    ],
    "positive": [
        "absolutely love it, works perfectly and the battery lasts for a whole week",
        "great quality, fast shipping and the colour is exactly as shown in the photos",
    ],
}


def reviews(root: Path) -> Path:
    rng = np.random.default_rng(4)
    rows = []
    for i in range(240):
        label = rng.choice(list(REVIEWS))
        rows.append({"review_id": f"r{i}", "text": rng.choice(REVIEWS[label]), "sentiment": label})
    df = pd.DataFrame(rows)
    train, test = _split(df, "sentiment", "review_id")
    sample = pd.DataFrame({"review_id": test["review_id"], "sentiment": "neutral"})
    _write(root / "reviews", train=train, test=test, sample_submission=sample)
    return _zip(root / "reviews", root / "reviews.zip")


def otto(root: Path) -> Path:
    rng = np.random.default_rng(5)
    n = 300
    cls = rng.integers(1, 4, n)
    feats = {f"feat_{k}": rng.poisson(1 + (cls == k % 3 + 1) * 3, n) for k in range(1, 6)}
    df = pd.DataFrame({"id": range(1, n + 1), **feats, "target": [f"Class_{c}" for c in cls]})
    train, test = _split(df, "target", "id")
    sample = pd.DataFrame({"id": test["id"], **{f"Class_{k}": 1 / 3 for k in (1, 2, 3)}})
    _write(root / "otto", train=train, test=test, sample_submission=sample)
    return _zip(root / "otto", root / "otto.zip")


COMPETITIONS: tuple[Competition, ...] = (
    Competition(
        "spaceship",
        ("spaceship_kaggle.html",),
        spaceship,
        "accuracy",
        "maximize",
        "Transported",
        "PassengerId",
    ),
    Competition(
        "house-prices", ("house_prices.md",), house_prices, "rmsle", "minimize", "SalePrice", "Id"
    ),
    Competition("telco", ("telco_churn.txt",), telco, "roc_auc", "maximize", "Churn", "customerID"),
    Competition("bikes", ("bike_rentals.html",), bikes, "mae", "minimize", "num_riders", "row_id"),
    Competition(
        "reviews",
        ("review_sentiment.md",),
        reviews,
        "f1_macro",
        "maximize",
        "sentiment",
        "review_id",
    ),
    Competition("otto", ("otto_products.html",), otto, "log_loss", "minimize", "target", "id"),
)


def by_name(name: str) -> Competition:
    return next(c for c in COMPETITIONS if c.name == name)
