"""Discover how a task's ./input is laid out, by reading its first rows and listing its folders.

Templates never hard-code a dataset: they read a ``DataLayout`` built here at render time (which
CSV holds the labels, which column names the image file, where the test files are, ...).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

from .errors import LayoutError
from .model import Task

IMAGE_EXT = (".png", ".jpg", ".jpeg", ".bmp", ".gif", ".tif", ".tiff", ".webp")
AUDIO_EXT = (".wav",)
TABLE_EXT = (".csv", ".tsv", ".parquet")

SubmissionKind = Literal["single", "proba_columns", "multi_target"]


@dataclass(frozen=True)
class MediaSource:
    """Where one split's media files are: a table column (or a folder listing) plus a path recipe.

    A file's path is ``INPUT / prefix / f"{value}{suffix}"`` for each ``value`` of ``column``.
    """

    table: str | None  # CSV listing the files (None: list ``folder``)
    column: str | None  # column holding file names or ids
    prefix: str = ""  # folder between ./input and the value
    suffix: str = ""  # extension to append when the values lack one
    folder: str | None = None  # folder to list when there is no table
    class_folders: bool = False  # train/<label>/<file>: the label is the parent folder


@dataclass(frozen=True)
class DataLayout:
    """Everything a template needs to know about the files of one task."""

    modality: str
    task_type: str
    metric: str
    train_table: str | None  # CSV with one row per training example (None: media/npy only)
    test_table: str | None
    sample_submission: str | None
    id_col: str | None  # in the test table and the submission
    target_cols: tuple[str, ...]  # the submission's prediction columns (the sample's, id left out)
    label_col: str | None  # the label column in the training table
    submission_kind: SubmissionKind = "single"
    # proba_columns: the class (a label as ``str``) each of ``target_cols`` holds the probability of
    class_names: tuple[str, ...] = ()
    text_col: str | None = None
    train_media: MediaSource | None = None
    test_media: MediaSource | None = None
    npy: tuple[tuple[str, str], ...] = ()  # (role, file): X_train, y_train, X_test
    ts_files: tuple[str, str] | None = None  # .ts train/test files
    # long-form series CSVs (train file, test file): one row per (id, step); labels in train_table
    long_series: tuple[str, str] | None = None
    series_order: str | None = None  # the column giving the step order within a series
    series_values: tuple[str, ...] = ()  # the value columns (channels)
    extra_tables: tuple[
        tuple[str, str], ...
    ] = ()  # (file, key column) joinable onto train and test
    drop_cols: tuple[str, ...] = ()  # training-only columns besides the label (not in test)
    date_cols: tuple[str, ...] = ()  # text columns that hold dates
    # text columns whose values are steps of a known scale (Po < Fa < TA < Gd < Ex): (column, scale)
    ordered_cols: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # text columns with many distinct values (at least 30 among the first rows): names, codes
    high_card_cols: tuple[str, ...] = ()
    image_shape: tuple[int, int, int] | None = None  # (height, width, channels) of the first image
    n_categorical: int = 0  # non-numeric feature columns (tabular)
    has_missing: bool = True  # missing values among the first rows' features (tabular)

    @property
    def is_classification(self) -> bool:
        return self.task_type == "classification"

    @property
    def npy_files(self) -> dict[str, str]:
        return dict(self.npy)


def inspect_task(task: Task) -> DataLayout:
    """Read the first rows of the task's files and return its layout."""
    inp = task.input_dir
    modality = task.modality if task.modality != "other" else "tabular"
    sample = task.sample_submission.path if task.sample_submission else None
    npy = _npy_files(inp)
    ts = _ts_files(inp)
    train_table = _table_for(task, "train")
    test_table = _table_for(task, "test")
    task_type = task.task_type if task.task_type != "other" else "regression"
    sub_cols = _submission_columns(task)
    base = dict(
        modality=modality,
        task_type=task_type,
        metric=task.metric_name,
        sample_submission=sample,
        target_cols=sub_cols,
    )
    if modality in ("image", "audio") and not npy:
        return _media_layout(task, inp, base, train_table, test_table)
    if npy and not train_table:
        labels = np.load(inp / npy["y_train"], allow_pickle=True).ravel()
        return DataLayout(
            train_table=None,
            test_table=None,
            id_col=task.id_col,
            label_col=None,
            npy=tuple(npy.items()),
            **_proba_kind(task_type, sub_cols, pd.unique(labels.astype(str))),
            **base,  # type: ignore[arg-type]
        )
    if modality == "time_series" and train_table and task.id_col:
        long = _long_series(inp, task.id_col, exclude={train_table, sample})
        if long is not None:
            files, order, values = long
            head = _read_head(inp / train_table)
            sample_head = _read_head(inp / sample) if sample else head.iloc[:, :1]
            label_col, kind, class_names = _label_column(
                task, head, sample_head, sub_cols, inp / train_table
            )
            return DataLayout(
                train_table=train_table,
                test_table=sample,
                id_col=task.id_col,
                label_col=label_col,
                submission_kind=kind,
                class_names=class_names,
                long_series=files,
                series_order=order,
                series_values=values,
                has_missing=False,
                **base,  # type: ignore[arg-type]
            )
    if ts and not train_table:
        return DataLayout(
            train_table=None,
            test_table=None,
            id_col=task.id_col,
            label_col=None,
            ts_files=ts,
            **base,  # type: ignore[arg-type]
        )
    if train_table is None:
        raise LayoutError(
            f"{inp}: no training table (train.csv) found; add one, or .npy arrays named like X_train.npy / y_train.npy"
        )
    if test_table is None:
        raise LayoutError(
            f"{inp}: no test table (test.csv) found; add the rows to predict as test.csv"
        )
    head = _read_head(inp / train_table)
    test_head = _read_head(inp / test_table)
    label_col, kind, class_names = _label_column(task, head, test_head, sub_cols, inp / train_table)
    id_col = task.id_col if task.id_col and task.id_col in test_head.columns else None
    drop = tuple(
        c
        for c in head.columns
        if c not in test_head.columns
        and c != label_col
        and c not in task.target_cols
        and (kind != "multi_target" or c not in sub_cols)
    )
    text_col = (
        _text_column(head, exclude={label_col, id_col, *task.target_cols})
        if modality == "text"
        else None
    )
    extras = _joinable_tables(task, head, exclude={train_table, test_table, sample})
    features = head.drop(
        columns=[c for c in (label_col, id_col, *task.target_cols, *drop) if c in head.columns]
    )
    for file, _ in extras:  # joined tables add their columns too
        features = features.join(
            _read_head(inp / file).drop(columns=[k for f, k in extras if f == file]),
            how="left",
            rsuffix="_x",
        )
    return DataLayout(
        train_table=train_table,
        test_table=test_table,
        id_col=id_col,
        label_col=label_col,
        submission_kind=kind,
        class_names=class_names,
        text_col=text_col,
        extra_tables=extras,
        drop_cols=drop,
        date_cols=_date_columns(head, exclude={label_col, id_col, text_col}),
        ordered_cols=_ordered_columns(head, exclude={label_col, id_col, text_col}),
        high_card_cols=_high_cardinality_columns(
            features, exclude={text_col, *_date_columns(head, exclude=set())}
        ),
        n_categorical=len(features.select_dtypes(exclude=["number", "bool"]).columns),
        has_missing=bool(
            features.isna().any().any()
            or test_head[features.columns.intersection(test_head.columns)].isna().any().any()
        ),
        **base,  # type: ignore[arg-type]
    )


def count_train_rows(task: Task, layout: DataLayout) -> int | None:
    """How many labelled examples the task has (lines of the training table, files, or array rows)."""
    inp = task.input_dir
    table = layout.train_table or (layout.train_media.table if layout.train_media else None)
    try:
        if table and table.lower().endswith(".parquet"):
            return len(pd.read_parquet(inp / table, columns=[]))
        if table:
            with (inp / table).open("rb") as fh:
                return max(0, sum(1 for _ in fh) - 1)
        if layout.npy:
            return len(np.load(inp / layout.npy_files["y_train"], mmap_mode="r", allow_pickle=True))
        if layout.train_media and layout.train_media.folder:
            return sum(1 for p in (inp / layout.train_media.folder).rglob("*") if p.is_file())
    except (OSError, ValueError):
        return None
    return None


# --------------------------------------------------------------------------- tables
def _read_head(path: Path, n: int = 500) -> pd.DataFrame:
    if path.suffix == ".parquet":
        return pd.read_parquet(path).head(n)
    sep = "\t" if path.suffix == ".tsv" else ","
    try:
        return pd.read_csv(path, nrows=n, sep=sep)
    except (OSError, ValueError) as e:
        raise LayoutError(
            f"{path}: cannot be read as a table ({e}); fix the file or remove it from input/"
        ) from None


def _table_for(task: Task, role: str) -> str | None:
    files = [f.path for f in task.files if f.role == role and f.path.lower().endswith(TABLE_EXT)]
    if files:
        return files[0]
    for p in sorted(task.input_dir.glob(f"{role}*")):
        if p.is_file() and p.suffix.lower() in TABLE_EXT:
            return p.name
    return None


def _submission_columns(task: Task) -> tuple[str, ...]:
    """The sample submission's prediction columns (its header, id left out), else the task's targets.

    The sample decides the submission's shape: a task.json may name the label column (``cultivar``)
    while the sample wants one probability column per class (``class_0, class_1, ...``).
    """
    path = task.sample_submission_path
    if path is None or not path.is_file() or path.suffix.lower() not in (".csv", ".tsv"):
        return task.target_cols
    header = [str(c) for c in _read_head(path, n=1).columns]
    cols = [c for c in header if c != task.id_col]
    if len(cols) == len(header) and len(header) > 1:  # the id has another name: it comes first
        cols = header[1:]
    return tuple(cols) or task.target_cols


def class_columns(columns: Sequence[str], labels: Iterable[str]) -> tuple[str, ...] | None:
    """The class each of ``columns`` stands for, when they are one column per class, else ``None``.

    A column matches a class by its name (``cat``), ignoring case, or after a prefix shared by
    every column (``class_0`` for class ``0``, ``Class_cat``, ``proba_cat``).  Every training label
    must have its column; a column whose class never occurs in training keeps its own name.
    """
    labels = [str(v) for v in labels]
    if len(columns) < 2 or not labels:
        return None
    by_lower = {v.lower(): v for v in labels}
    shared = os.path.commonprefix([c.lower() for c in columns])
    cut = max((i + 1 for i, ch in enumerate(shared) if not ch.isalnum()), default=0)
    for strip in sorted({0, cut}):
        names = [c[strip:] for c in columns]
        found = [by_lower.get(n.lower()) for n in names]
        hit = {f for f in found if f is not None}
        if len(hit) == len(found) - found.count(None) and set(by_lower.values()) <= hit:
            return tuple(f if f is not None else n for f, n in zip(found, names, strict=True))
    return None


def _proba_kind(task_type: str, sub_cols: Sequence[str], labels: Iterable[str]) -> dict:
    """``submission_kind`` / ``class_names`` for a classification task whose sample wants class columns."""
    classes = class_columns(sub_cols, labels) if task_type == "classification" else None
    return {"submission_kind": "proba_columns", "class_names": classes} if classes else {}


def _label_values(path: Path, col: str) -> list[str]:
    """Every distinct value (as text) of one column of a training table."""
    if path.suffix == ".parquet":
        values = pd.read_parquet(path, columns=[col])[col]
    else:
        values = pd.read_csv(path, usecols=[col], sep="\t" if path.suffix == ".tsv" else ",")[col]
    return [str(v) for v in values.dropna().astype(str).unique()]


def _label_column(
    task: Task,
    head: pd.DataFrame,
    test_head: pd.DataFrame,
    sub_cols: tuple[str, ...],
    train_path: Path,
) -> tuple[str | None, SubmissionKind, tuple[str, ...]]:
    """(label column, submission kind, class names) of a table task."""
    targets = list(sub_cols)
    if len(targets) > 1 and all(t in head.columns for t in targets):
        return None, "multi_target", ()
    only_train = [c for c in head.columns if c not in test_head.columns and c != task.id_col]
    named = [c for c in (*task.target_cols, *targets) if c in head.columns]
    if len(targets) > 1 and task.task_type == "classification":
        # One probability column per class: find the column holding the class names.
        for c in dict.fromkeys(named + only_train):
            classes = class_columns(targets, _label_values(train_path, c))
            if classes:
                return c, "proba_columns", classes
    if named:
        return named[0], "single", ()
    if len(only_train) == 1:
        return only_train[0], "single", ()
    raise LayoutError(
        f"cannot tell which training column holds the target {targets}: set 'target_col' in task.json "
        f"(training-only columns: {only_train})"
    )


def _text_column(head: pd.DataFrame, exclude: set[str | None]) -> str:
    cands = [c for c in head.select_dtypes(exclude="number").columns if c not in exclude]
    if not cands:
        raise LayoutError("a text task needs a column of text in the training table; none found")
    return max(cands, key=lambda c: head[c].astype(str).str.len().mean())


def _date_columns(head: pd.DataFrame, exclude: set[str | None]) -> tuple[str, ...]:
    """Text columns whose values read as dates (like 2021-03-04 or 03/04/2021)."""
    out = []
    for c in head.select_dtypes(exclude=["number", "bool"]).columns:
        values = head[c].dropna().astype(str)
        if (
            c in exclude
            or values.empty
            or not values.str.match(r"^\d{1,4}[-/]\d{1,2}[-/]\d{1,4}").mean() > 0.9
        ):
            continue
        if pd.to_datetime(values, errors="coerce", format="mixed").notna().mean() > 0.9:
            out.append(c)
    return tuple(out)


# Scales whose steps are ordered, lowest first (lower-case): quality grades, sizes, cuts, levels.
ORDERED_SCALES: tuple[tuple[str, ...], ...] = (
    ("po", "fa", "ta", "gd", "ex"),
    ("fair", "good", "very good", "premium", "ideal"),
    ("poor", "fair", "average", "good", "very good", "excellent"),
    ("xxs", "xs", "s", "m", "l", "xl", "xxl", "xxxl"),
    ("small", "medium", "large", "extra large"),
    ("very low", "low", "medium", "high", "very high"),
    ("none", "low", "medium", "high"),
    ("never", "rarely", "sometimes", "often", "always"),
    ("strongly disagree", "disagree", "neutral", "agree", "strongly agree"),
)


def _ordered_columns(
    head: pd.DataFrame, exclude: set[str | None]
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Text columns whose values (at least two distinct) all are steps of one known scale."""
    out = []
    for c in head.select_dtypes(exclude=["number", "bool"]).columns:
        values = set(head[c].dropna().astype(str).str.strip().str.lower())
        if c in exclude or len(values) < 2:
            continue
        scale = next((s for s in ORDERED_SCALES if values <= set(s)), None)
        if scale is not None:
            out.append((str(c), scale))
    return tuple(out)


def _high_cardinality_columns(
    features: pd.DataFrame, exclude: set[str | None], at_least: int = 30
) -> tuple[str, ...]:
    """Text feature columns with ``at_least`` distinct values among the rows read."""
    return tuple(
        str(c)
        for c in features.select_dtypes(exclude=["number", "bool"]).columns
        if c not in exclude and features[c].nunique() >= at_least
    )


def _joinable_tables(
    task: Task, head: pd.DataFrame, exclude: set[str | None]
) -> tuple[tuple[str, str], ...]:
    """Extra tables that share a key column with the training table (joined onto train and test)."""
    out = []
    for f in task.files:
        if (
            f.path in exclude
            or not f.path.lower().endswith(TABLE_EXT)
            or f.role == "sample_submission"
        ):
            continue
        try:
            extra = _read_head(task.input_dir / f.path, n=2000)
        except LayoutError:
            continue
        keys = [c for c in extra.columns if c in head.columns and c not in task.target_cols]
        if keys and extra[keys[0]].is_unique:
            out.append((f.path, keys[0]))
    return tuple(out)


# --------------------------------------------------------------------------- arrays
def _npy_files(inp: Path) -> dict[str, str]:
    found: dict[str, str] = {}
    for p in sorted(inp.glob("*.npy")):
        n = p.stem.lower()
        split = "train" if "train" in n else "test" if "test" in n else None
        if split is None:
            continue
        kind = (
            "y"
            if any(w in n for w in ("label", "target")) or n.startswith("y") or n.endswith("_y")
            else "X"
        )
        found.setdefault(f"{kind}_{split}", p.name)
    return found if {"X_train", "y_train", "X_test"} <= found.keys() else {}


def _long_series(
    inp: Path, id_col: str, exclude: set[str | None]
) -> tuple[tuple[str, str], str | None, tuple[str, ...]] | None:
    """Train and test CSVs holding series in long form (``id``, step, values: an id on many rows),
    with the step column (or None: file order) and the value columns."""
    found: dict[str, str] = {}
    order: str | None = None
    values: tuple[str, ...] = ()
    for p in sorted(inp.glob("*.csv")):
        if p.name in exclude:
            continue
        head = _read_head(p, n=200)
        if id_col not in head.columns or not head[id_col].duplicated().any():
            continue
        split = "train" if "train" in p.name.lower() else "test" if "test" in p.name.lower() else ""
        if not split or split in found:
            continue
        found[split] = p.name
        numeric = [c for c in head.select_dtypes("number").columns if c != id_col]
        steps = [c for c in numeric if c.lower() in ("t", "time", "step", "timestamp", "index")]
        order = steps[0] if steps else None
        values = tuple(c for c in numeric if c != order)
    if {"train", "test"} <= found.keys() and values:
        return (found["train"], found["test"]), order, values
    return None


def _ts_files(inp: Path) -> tuple[str, str] | None:
    tr = sorted(p.name for p in inp.glob("*.ts") if "train" in p.name.lower())
    te = sorted(p.name for p in inp.glob("*.ts") if "test" in p.name.lower())
    return (tr[0], te[0]) if tr and te else None


# --------------------------------------------------------------------------- media
def _media_layout(
    task: Task, inp: Path, base: dict, train_table: str | None, test_table: str | None
) -> DataLayout:
    ext = IMAGE_EXT if task.modality == "image" else AUDIO_EXT
    folders = [p for p in sorted(inp.iterdir()) if p.is_dir() and _has_media(p, ext)]
    names = [p.name for p in folders]
    train_dir = _inner_folder(inp, next((n for n in names if "train" in n.lower()), None), ext)
    test_dir = _inner_folder(inp, next((n for n in names if "test" in n.lower()), None), ext)
    label_col: str | None = None
    if train_table:
        head = _read_head(inp / train_table)
        label_col = (
            task.target
            if task.target in head.columns
            else next(
                (
                    c
                    for c in head.columns
                    if c != task.id_col and not _looks_like_files(head[c], ext)
                ),
                None,
            )
        )
        train_media = _media_from_table(inp, train_table, head, train_dir, ext, exclude={label_col})
        labels = _label_values(inp / train_table, label_col) if label_col else []
    elif train_dir and any(d.is_dir() and _has_media(d, ext) for d in (inp / train_dir).iterdir()):
        train_media = MediaSource(table=None, column=None, folder=train_dir, class_folders=True)
        labels = [d.name for d in sorted((inp / train_dir).iterdir()) if _is_class_folder(d)]
    else:
        raise LayoutError(
            f"{inp}: no training labels: add train.csv mapping file names to labels, or put images in train/<label>/"
        )
    if test_table:
        test_media = _media_from_table(
            inp,
            test_table,
            _read_head(inp / test_table),
            test_dir,
            ext,
            exclude=set(task.target_cols),
        )
    elif task.sample_submission is not None and task.id_col:
        sample = task.sample_submission.path
        test_media = _media_from_table(
            inp, sample, _read_head(inp / sample)[[task.id_col]], test_dir, ext, exclude=set()
        )
    elif test_dir:
        test_media = MediaSource(table=None, column=None, folder=test_dir)
    else:
        raise LayoutError(
            f"{inp}: no test files: add a test/ folder or test.csv listing the test files"
        )
    return DataLayout(
        image_shape=_first_image_shape(inp, train_media, ext) if task.modality == "image" else None,
        train_table=train_table,
        test_table=test_media.table,
        id_col=task.id_col,
        label_col=label_col,
        train_media=train_media,
        test_media=test_media,
        **_proba_kind(base["task_type"], base["target_cols"], labels),
        **base,
    )


def _first_image_shape(
    inp: Path, media: MediaSource, ext: tuple[str, ...]
) -> tuple[int, int, int] | None:
    from PIL import Image

    first: Path | None
    if media.table and media.column:
        value = str(_read_head(inp / media.table, n=1)[media.column].iloc[0])
        first = inp / media.prefix / f"{value}{media.suffix}"
    else:
        first = next(
            (p for p in sorted((inp / (media.folder or "")).rglob("*")) if p.suffix.lower() in ext),
            None,
        )
    if first is None:
        return None
    with Image.open(first) as img:
        channels = 1 if img.mode in ("L", "1", "I", "F", "I;16") else 3
        return img.height, img.width, channels


def _has_media(folder: Path, ext: tuple[str, ...]) -> bool:
    for i, p in enumerate(folder.rglob("*")):
        if p.suffix.lower() in ext:
            return True
        if i > 2000:
            break
    return False


def _is_class_folder(d: Path) -> bool:
    """A folder of one class's files; ``_background_noise_``-style folders are not classes."""
    return d.is_dir() and not d.name.startswith(("_", "."))


def _inner_folder(inp: Path, name: str | None, ext: tuple[str, ...]) -> str | None:
    """``name``, or the one media folder it wraps (an archive unpacked as ``train/audio/...``)."""
    while name:
        entries = list(islice((inp / name).iterdir(), 5000))
        subs = [d for d in entries if _is_class_folder(d)]
        if any(p.suffix.lower() in ext for p in entries if p.is_file()) or len(subs) != 1:
            return name
        if not _has_media(subs[0], ext):
            return name
        name = f"{name}/{subs[0].name}"
    return name


def _looks_like_files(col: pd.Series, ext: tuple[str, ...]) -> bool:
    return bool(col.astype(str).str.lower().str.endswith(ext).mean() > 0.5)


def _media_from_table(
    inp: Path,
    table: str,
    head: pd.DataFrame,
    folder: str | None,
    ext: tuple[str, ...],
    exclude: set[str | None],
) -> MediaSource:
    """Find the column whose values, with some folder prefix and extension, name existing files."""
    prefixes = ["", *([folder] if folder else [])]
    for col in [c for c in head.columns if c not in exclude]:
        value = str(head[col].iloc[0])
        for prefix in prefixes:
            for suffix in ("", *ext):
                if (inp / prefix / f"{value}{suffix}").is_file():
                    return MediaSource(table=table, column=col, prefix=prefix, suffix=suffix)
    raise LayoutError(
        f"no column of the table names a file under {inp}/{folder or ''}: its first row is {head.iloc[0].to_dict()}; "
        "list file names (or ids matching the file names) in a column"
    )
