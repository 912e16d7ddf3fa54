"""Tiny real task folders, one per modality, written into a temp dir (description.md + input/)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd


def _write_task(
    root: Path, goal: str, metric: str, data_type: str, task_type: str, target: str = "target"
) -> Path:
    spec = {
        "goal_description": goal,
        "task_type": task_type,
        "metric": {"metric_name": metric},
        "target_col": target,
        "data_information": {"data_type": data_type},
    }
    (root / "task.json").write_text(json.dumps(spec, indent=2))
    return root


def _split_ids(n: int, seed: int = 0, test_frac: float = 0.25) -> tuple[np.ndarray, np.ndarray]:
    order = np.random.RandomState(seed).permutation(n)
    cut = int(n * (1 - test_frac))
    return np.sort(order[:cut]), np.sort(order[cut:])


def _save_answers(root: Path, ids, target_name: str, values, id_name: str = "id") -> None:  # type: ignore[no-untyped-def]
    (root / "private").mkdir(exist_ok=True)
    pd.DataFrame({id_name: ids, target_name: values}).to_csv(
        root / "private" / "answers.csv", index=False
    )


def tabular_task(root: Path) -> Path:
    """Breast cancer (569 rows, 30 numeric columns), ROC AUC, with an id column."""
    from sklearn.datasets import load_breast_cancer

    df = load_breast_cancer(as_frame=True).frame.rename(columns=lambda c: c.replace(" ", "_"))
    df.insert(0, "id", np.arange(len(df)))
    tr, te = _split_ids(len(df))
    inp = root / "input"
    inp.mkdir(parents=True)
    df.iloc[tr].to_csv(inp / "train.csv", index=False)
    df.iloc[te].drop(columns=["target"]).to_csv(inp / "test.csv", index=False)
    pd.DataFrame({"id": df["id"].iloc[te], "target": 0.5}).to_csv(
        inp / "sample_submission.csv", index=False
    )
    _save_answers(root, df["id"].iloc[te], "target", df["target"].iloc[te])
    return _write_task(
        root,
        "Predict whether a tumour is benign (target=1).",
        "roc_auc",
        "tabular",
        "classification",
    )


def wine_task(root: Path) -> Path:
    """Wine cultivars (178 rows, 3 string classes), log loss; the sample wants one probability column
    per class, in an order of its own, while task.json names the label column ``cultivar``."""
    from sklearn.datasets import load_wine

    data = load_wine(as_frame=True)
    df = data.frame.drop(columns="target")
    df.insert(0, "id", np.arange(len(df)))
    names = np.array(["barolo", "grignolino", "barbera"])
    df["cultivar"] = names[data.target]
    tr, te = _split_ids(len(df))
    inp = root / "input"
    inp.mkdir(parents=True)
    df.iloc[tr].to_csv(inp / "train.csv", index=False)
    df.iloc[te].drop(columns=["cultivar"]).to_csv(inp / "test.csv", index=False)
    sample = pd.DataFrame({"id": df["id"].iloc[te]})
    for name in ("grignolino", "barolo", "barbera"):  # neither sorted nor in label order
        sample[name] = 1 / 3
    sample.to_csv(inp / "sample_submission.csv", index=False)
    _save_answers(root, df["id"].iloc[te], "cultivar", df["cultivar"].iloc[te])
    return _write_task(
        root,
        "Predict each wine's cultivar from its chemical analysis.",
        "log_loss",
        "tabular",
        "classification",
        "cultivar",
    )


def regression_task(root: Path) -> Path:
    """Diabetes progression (442 rows), RMSE, with a categorical column and a joinable extra table."""
    from sklearn.datasets import load_diabetes

    data = load_diabetes(as_frame=True)
    df = data.frame.rename(columns={"target": "progression"})
    df.insert(0, "id", np.arange(len(df)) + 1000)
    df["clinic"] = np.where(df["bmi"] > 0, "north", "south")
    df.loc[df.index % 7 == 0, "bp"] = np.nan
    df["visit_date"] = pd.date_range("2020-01-01", periods=len(df), freq="D").strftime("%Y-%m-%d")
    tr, te = _split_ids(len(df))
    inp = root / "input"
    inp.mkdir(parents=True)
    df.iloc[tr].to_csv(inp / "train.csv", index=False)
    df.iloc[te].drop(columns=["progression"]).to_csv(inp / "test.csv", index=False)
    pd.DataFrame({"clinic": ["north", "south"], "clinic_size": [120, 45]}).to_csv(
        inp / "clinics.csv", index=False
    )
    pd.DataFrame({"id": df["id"].iloc[te], "progression": 0.0}).to_csv(
        inp / "sample_submission.csv", index=False
    )
    _save_answers(root, df["id"].iloc[te], "progression", df["progression"].iloc[te])
    return _write_task(
        root,
        "Predict disease progression one year after baseline.",
        "rmse",
        "tabular",
        "regression",
        "progression",
    )


POSITIVE = [
    "a wonderful",
    "an excellent",
    "a delightful",
    "a moving",
    "a brilliant",
    "a charming",
    "a superb",
    "an engaging",
]
NEGATIVE = [
    "a dull",
    "a tedious",
    "an awful",
    "a clumsy",
    "a boring",
    "a forgettable",
    "a dreadful",
    "a messy",
]
NOUNS = ["film", "story", "performance", "script", "soundtrack", "ending", "cast", "direction"]
FILLER = [
    "I watched it with my family last weekend.",
    "The cinema was almost empty.",
    "It runs for about two hours.",
    "The trailer gave away a lot.",
    "My friend recommended it to me.",
    "I saw it on opening night.",
    "The director's previous work was different.",
    "Tickets cost 12 dollars, see https://example.com for times.",
]
POS_END = ["I would happily watch it again.", "Highly recommended.", "It stayed with me for days."]
NEG_END = ["I would not watch it again.", "Save your money.", "I nearly walked out."]


def text_task(root: Path, n: int = 360) -> Path:
    """Movie-review sentiment (positive/negative/mixed), accuracy; reviews built from phrase lists with noise."""
    rng = np.random.RandomState(0)
    rows = []
    for i in range(n):
        label = ["positive", "negative", "mixed"][i % 3]
        good = [f"{rng.choice(POSITIVE)} {rng.choice(NOUNS)}" for _ in range(2)]
        bad = [f"{rng.choice(NEGATIVE)} {rng.choice(NOUNS)}" for _ in range(2)]
        if label == "positive":
            body = f"This was {good[0]} and {good[1]}. {rng.choice(POS_END)}"
        elif label == "negative":
            body = f"This was {bad[0]} and {bad[1]}. {rng.choice(NEG_END)}"
        else:
            body = f"It had {good[0]} but also {bad[0]}. {rng.choice(FILLER)}"
        if rng.rand() < 0.1:  # label noise, so the task is not trivially perfect
            label = rng.choice(["positive", "negative", "mixed"])
        rows.append(
            {
                "id": i,
                "review": f"{rng.choice(FILLER)} {body} {rng.choice(FILLER)}",
                "sentiment": label,
            }
        )
    df = pd.DataFrame(rows)
    tr, te = _split_ids(n)
    inp = root / "input"
    inp.mkdir(parents=True)
    df.iloc[tr].to_csv(inp / "train.csv", index=False)
    df.iloc[te].drop(columns=["sentiment"]).to_csv(inp / "test.csv", index=False)
    pd.DataFrame({"id": df["id"].iloc[te], "sentiment": "positive"}).to_csv(
        inp / "sample_submission.csv", index=False
    )
    _save_answers(root, df["id"].iloc[te], "sentiment", df["sentiment"].iloc[te])
    return _write_task(
        root,
        "Classify the sentiment of each movie review.",
        "accuracy",
        "text",
        "classification",
        "sentiment",
    )


def image_task(
    root: Path, n: int = 400, class_folders: bool = False, regression: bool = False
) -> Path:
    """Handwritten digits (8x8 upscaled to 16x16 PNGs), accuracy: train.csv + train/ or
    train/<label>/, test/; ``regression``: the digit's value plus noise as a number, RMSE."""
    from PIL import Image
    from sklearn.datasets import load_digits

    digits = load_digits()
    images, labels = digits.images[:n], digits.target[:n]
    if regression:  # a reading, not a class: the digit plus noise
        labels = (labels + 0.25 * np.random.RandomState(0).randn(n)).round(3)
    tr, te = _split_ids(n)
    inp = root / "input"
    for sub in ("train", "test"):
        (inp / sub).mkdir(parents=True)

    def save(path: Path, img: np.ndarray) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        Image.fromarray((img * 255 / 16).astype(np.uint8)).resize((16, 16)).save(path)

    for i in tr:
        save(inp / "train" / (f"{labels[i]}/" if class_folders else "") / f"img_{i}.png", images[i])
    for i in te:
        save(inp / "test" / f"img_{i}.png", images[i])
    if not class_folders:
        pd.DataFrame({"image": [f"img_{i}.png" for i in tr], "label": labels[tr]}).to_csv(
            inp / "train.csv", index=False
        )
    pd.DataFrame({"id": [f"img_{i}" for i in te], "label": 0.0 if regression else 0}).to_csv(
        inp / "sample_submission.csv", index=False
    )
    _save_answers(root, [f"img_{i}" for i in te], "label", labels[te])
    if regression:
        return _write_task(
            root, "Read the number written in each image.", "rmse", "image", "regression", "label"
        )
    return _write_task(
        root,
        "Recognise the handwritten digit in each image.",
        "accuracy",
        "image",
        "classification",
        "label",
    )


def audio_task(root: Path, per_class: int = 24) -> Path:
    """Synthesized 8 kHz clips of three sound types (tone, chirp, noise burst), accuracy, wav files + CSVs."""
    from scipy.io import wavfile

    rng = np.random.RandomState(0)
    sr = 8000
    t = np.arange(int(0.5 * sr)) / sr
    rows = []
    for kind in ("tone", "chirp", "burst"):
        for j in range(per_class):
            f0 = rng.uniform(300, 1200)
            if kind == "tone":
                x = np.sin(2 * np.pi * f0 * t) * (1 + 0.3 * np.sin(2 * np.pi * 3 * t))
            elif kind == "chirp":
                x = np.sin(2 * np.pi * (f0 + 1500 * t) * t)
            else:
                x = rng.randn(len(t)) * (np.abs(np.sin(2 * np.pi * 4 * t)) > 0.7)
            x = 0.5 * x / np.abs(x).max() + 0.05 * rng.randn(len(t))
            rows.append((f"{kind}_{j}", kind, (x * 20000).astype(np.int16)))
    order = rng.permutation(len(rows))
    rows = [rows[i] for i in order]
    inp = root / "input"
    (inp / "train").mkdir(parents=True)
    (inp / "test").mkdir()
    cut = int(len(rows) * 0.75)
    for i in (0, cut):  # real prompt collections hold empty recordings too
        rows[i] = (rows[i][0], rows[i][1], np.zeros(0, dtype=np.int16))
    for i, (name, _, x) in enumerate(rows):
        wavfile.write(inp / ("train" if i < cut else "test") / f"{name}.wav", sr, x)
    pd.DataFrame({"clip": [r[0] for r in rows[:cut]], "sound": [r[1] for r in rows[:cut]]}).to_csv(
        inp / "train.csv", index=False
    )
    pd.DataFrame({"clip": [r[0] for r in rows[cut:]], "sound": "tone"}).to_csv(
        inp / "sample_submission.csv", index=False
    )
    _save_answers(
        root, [r[0] for r in rows[cut:]], "sound", [r[1] for r in rows[cut:]], id_name="clip"
    )
    return _write_task(
        root,
        "Tell which kind of sound each clip holds.",
        "accuracy",
        "audio",
        "classification",
        "sound",
    )


def time_series_task(root: Path, n: int = 240, length: int = 96) -> Path:
    """Noisy sines, squares and sawtooths (one series per row of a CSV), macro F1."""
    from scipy import signal

    rng = np.random.RandomState(0)
    t = np.linspace(0, 1, length)
    shapes = {"sine": np.sin, "square": signal.square, "saw": signal.sawtooth}
    rows, labels = [], []
    for i in range(n):
        name = list(shapes)[i % 3]
        freq, phase = rng.uniform(2, 6), rng.uniform(0, 2 * np.pi)
        rows.append(shapes[name](2 * np.pi * freq * t + phase) + 0.4 * rng.randn(length))
        labels.append(name)
    df = pd.DataFrame(np.round(rows, 4), columns=[f"t{j}" for j in range(length)])
    df.insert(0, "id", np.arange(n))
    df["shape"] = labels
    tr, te = _split_ids(n)
    inp = root / "input"
    inp.mkdir(parents=True)
    df.iloc[tr].to_csv(inp / "train.csv", index=False)
    df.iloc[te].drop(columns=["shape"]).to_csv(inp / "test.csv", index=False)
    pd.DataFrame({"id": df["id"].iloc[te], "shape": "sine"}).to_csv(
        inp / "sample_submission.csv", index=False
    )
    _save_answers(root, df["id"].iloc[te], "shape", df["shape"].iloc[te])
    return _write_task(
        root,
        "Classify the waveform of each series.",
        "macro f1",
        "time series",
        "classification",
        "shape",
    )


def long_series_task(root: Path, n: int = 180) -> Path:
    """Sines, squares and sawtooths of varying length stored long (id, t, value) as PLAID is:
    labels in train.csv, series in train_series.csv / test_series.csv, accuracy."""
    from scipy import signal

    rng = np.random.RandomState(1)
    shapes = {"sine": np.sin, "square": signal.square, "saw": signal.sawtooth}
    parts, labels = [], []
    for i in range(n):
        name = list(shapes)[i % 3]
        length = rng.randint(60, 140)
        t = np.linspace(0, 1, length)
        freq, phase = rng.uniform(2, 5), rng.uniform(0, 2 * np.pi)
        v = shapes[name](2 * np.pi * freq * t + phase) + 0.3 * rng.randn(length)
        order = rng.permutation(length)  # rows not in time order: the t column orders them
        parts.append(pd.DataFrame({"id": i, "t": order, "value": np.round(v[order], 4)}))
        labels.append(name)
    long = pd.concat(parts, ignore_index=True)
    tr, te = _split_ids(n)
    inp = root / "input"
    inp.mkdir(parents=True)
    ids = np.arange(n)
    pd.DataFrame({"id": ids[tr], "shape": np.array(labels)[tr]}).to_csv(
        inp / "train.csv", index=False
    )
    long[long["id"].isin(ids[tr])].to_csv(inp / "train_series.csv", index=False)
    long[long["id"].isin(ids[te])].to_csv(inp / "test_series.csv", index=False)
    pd.DataFrame({"id": ids[te], "shape": "sine"}).to_csv(
        inp / "sample_submission.csv", index=False
    )
    _save_answers(root, ids[te], "shape", np.array(labels)[te])
    return _write_task(
        root,
        "Classify the waveform of each series (stored one row per time step).",
        "accuracy",
        "time series",
        "classification",
        "shape",
    )
