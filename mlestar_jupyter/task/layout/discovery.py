"""``inspect_task``: which kind of layout a task's ./input has, and the ``DataLayout`` built for it
(media files, ``.npy`` arrays, long-form series, ``.ts`` files, or a train and a test table)."""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from ..column_names import find_column
from ..errors import LayoutError
from ..infer import labels_table, unread_files_hint
from ..model import Task
from ..text_format import FEATHER_EXT, TEXT_TABLE_EXT
from .arrays import long_series, npy_files, ts_files
from .columns import (
    amount_columns,
    clock_columns,
    context_columns,
    date_columns,
    high_cardinality_columns,
    joinable_tables,
    local_times,
    ordered_columns,
    saved_index_columns,
    sentence_columns,
    text_column,
)
from .labels import label_column, proba_kind
from .media import media_layout
from .model import Basics, DataLayout
from .tables import (
    read_args,
    read_head,
    read_table,
    submission_args,
    submission_columns,
    table_for,
)
from .ts_format import ts_problem


def inspect_task(task: Task) -> DataLayout:
    """Read the first rows of the task's files and return its layout.  A task read from a
    notebook (``importer.notebook_task``) whose data has no layout here (it makes its own data,
    or reads files the templates cannot: JSON, Excel, ...) gets one without tables: only the
    notebook's own code runs on it.  A run asks for it several times (the scorer, the policy,
    the checks at its start): the layout is read once per task and state of its files."""
    return _inspect_stamped(task, _stamp(task))


def _stamp(task: Task) -> tuple[tuple[str, int, int], ...]:
    """What changes when the task's input files do: each one's size and modification time (a
    folder's own, for one of media files or table parts), and the input folder's (a file added
    or removed beside them: a lookup table)."""
    found = []
    for name in [".", *sorted({f.path for f in task.files})]:
        try:
            st = (task.input_dir / name).stat()
        except OSError:
            found.append((name, -1, -1))
        else:
            found.append((name, st.st_size, st.st_mtime_ns))
    return tuple(found)


@lru_cache(maxsize=8)
def _inspect_stamped(task: Task, stamp: tuple[tuple[str, int, int], ...]) -> DataLayout:
    """``inspect_task`` for one ``stamp`` of the task's files (the cache's key)."""
    if task.source_format != "notebook":
        return _with_formats(task, _inspect(task))
    try:
        return _with_formats(task, _inspect(task)) if task.files else _no_tables(task)
    except (LayoutError, ValueError, OSError):  # the notebook reads it; the templates cannot
        return _no_tables(task)


_TEXT_TABLES = (*TEXT_TABLE_EXT, ".txt")


def _with_formats(task: Task, layout: DataLayout) -> DataLayout:
    """``layout`` with the reading arguments its text tables need (``read_args``: a separator
    other than a comma, decimal commas), so the notebooks read them as the layout did, and the
    format its submission is written in (``submission_args``: the sample submission's)."""
    tables = {
        layout.train_table,
        layout.test_table,
        layout.sample_submission,
        *(f for f, _ in layout.extra_tables),
    }
    formats = tuple(
        (name, key, value)
        for name in sorted(t for t in tables if t and t.lower().endswith(_TEXT_TABLES))
        for key, value in read_args(task.input_dir / name).items()
    )
    written = tuple(submission_args(task).items())
    if not formats and not written:
        return layout
    return replace(layout, input_formats=formats, submission_format=written)


def _no_tables(task: Task) -> DataLayout:
    return DataLayout(
        train_table=None, test_table=None, id_col=None, label_col=None, **_basics(task)
    )


def files_to_read(task: Task, layout: DataLayout | None = None) -> list[str]:
    """The task's files a solution should read: all of them but the tables set aside as
    unlearnable (``DataLayout.unjoined_tables``: the test rows' answers, tables of test keys
    only), which the data-usage checks must not ask for (hunt F, session 28).  ``layout``:
    the task's, when the caller has it (else it is inspected here)."""
    try:
        aside = {f for f, _ in (layout or inspect_task(task)).unjoined_tables}
    except (LayoutError, ValueError, OSError):
        aside = set()
    return [f.path for f in task.files if f.path not in aside]


def has_tables(layout: DataLayout) -> bool:
    """Whether the layout holds data the catalog's templates can read (a table, media files,
    arrays or series files)."""
    return bool(layout.train_table or layout.train_media or layout.npy or layout.ts_files)


def _inspect(task: Task) -> DataLayout:
    inp = task.input_dir
    base = _basics(task)
    npy = npy_files(inp)
    ts = ts_files(inp)
    train_table = table_for(task, "train")
    test_table = table_for(task, "test")
    modality = base["modality"]
    if modality in ("image", "audio") and not npy:
        # a train/ folder of images beside labels.csv: the labels are in that table
        return media_layout(task, base, train_table or labels_table(task.files), test_table)
    if npy and not train_table:
        return _array_layout(task, base, npy)
    if modality == "time_series" and train_table and task.id_col:
        layout = _long_series_layout(task, base, train_table, task.id_col)
        if layout is not None:
            return layout
    labels = _labels_beside_long(task, train_table) or _labels_of_long_test(
        task, train_table, test_table
    )
    if labels is not None and task.id_col:
        # train.csv holds the series long and train_labels.csv one label per series: a time
        # series task whatever the folder said (no file type tells a description folder so)
        series_base = Basics(**{**base, "modality": "time_series"})
        layout = _long_series_layout(task, series_base, labels, task.id_col)
        if layout is not None:
            return layout
    if ts and not train_table:
        for name, training in zip(ts, (True, False), strict=True):
            problem = ts_problem(inp / name, training=training)
            if problem:  # timestamped series, a training file without labels
                raise LayoutError(problem)
        return DataLayout(
            train_table=None,
            test_table=None,
            id_col=task.id_col,
            label_col=None,
            ts_files=ts,
            **base,
        )
    if train_table is None:
        raise LayoutError(
            f"{inp}: no training table (train.csv) found; add one, or .npy arrays named like "
            f"X_train.npy / y_train.npy{unread_files_hint(inp) if inp.is_dir() else ''}"
        )
    if test_table is None and task.source_format == "notebook" and not task.test_files:
        # a notebook's own task without rows to predict (``importer.notebook_task``): the layout
        # reads the training table only; nothing renders a submission for it (the run's
        # result is the refined notebook, see ``agent.submission.finalize``)
        return _table_layout(task, base, train_table, train_table)
    if test_table is None:
        raise LayoutError(
            f"{inp}: no test table (test.csv) found; add the rows to predict as test.csv"
        )
    return _table_layout(task, base, train_table, test_table)


def _labels_of_long_test(task: Task, train_table: str | None, test_table: str | None) -> str | None:
    """The training table when it holds one label per series and the test table the series
    long (``train_labels.csv``: ``series_id,label``; ``test_series.csv``: ``series_id,t,value``,
    an id on many rows), the training series being in a third table (``train_series.csv``)."""
    id_col, inp = task.id_col, task.input_dir
    if not train_table or not test_table or not id_col or train_table == test_table:
        return None
    head, test = read_head(inp / train_table, n=200), read_head(inp / test_table, n=200)
    if id_col not in head.columns or id_col not in test.columns:
        return None
    return train_table if test[id_col].duplicated().any() and head[id_col].is_unique else None


def _labels_beside_long(task: Task, train_table: str | None) -> str | None:
    """The table of one label per series when the training table holds series long (its id on
    many rows) and another table (``train_labels.csv``) holds the id once beside the target."""
    id_col, inp = task.id_col, task.input_dir
    if not train_table or not id_col:
        return None
    head = read_head(inp / train_table, n=200)
    if id_col not in head.columns or not head[id_col].duplicated().any():
        return None
    sample = task.sample_submission.path if task.sample_submission else None
    for f in task.files:
        name = f.path
        if f.role != "extra" or name == sample or "label" not in name.lower():
            continue
        if not name.lower().endswith((".csv", ".tsv")) or not (inp / name).is_file():
            continue
        other = read_head(inp / name, n=200)
        targets = [c for c in task.target_cols if c in other.columns]
        if id_col in other.columns and targets and not other[id_col].duplicated().any():
            return name
    return None


def _basics(task: Task) -> Basics:
    """The fields every layout shares ("other" modality reads as tabular, "other" type as regression)."""
    return Basics(
        modality=task.modality if task.modality != "other" else "tabular",
        task_type=task.task_type if task.task_type != "other" else "regression",
        metric=task.metric_name,
        sample_submission=task.sample_submission.path if task.sample_submission else None,
        target_cols=submission_columns(task),
    )


def _array_layout(task: Task, base: Basics, npy: dict[str, str]) -> DataLayout:
    """``X_train.npy`` / ``y_train.npy`` / ``X_test.npy`` and no table."""
    labels = np.load(task.input_dir / npy["y_train"], allow_pickle=True).ravel()
    if base["modality"] in ("text", "audio"):
        raise LayoutError(
            f"{task.input_dir}: the task says its data is {base['modality']}, but it holds .npy "
            f"arrays ({', '.join(sorted(npy.values()))}) and no training table; only the series "
            "and image models read arrays: name the data type 'time series' or 'image' (task.json's "
            "data_type), or give the data as train.csv / test.csv"
        )
    if base["modality"] == "tabular":
        # arrays in a folder that said nothing of their kind (a description.md): only the series
        # and image models read arrays; (n, h, w, c) arrays are images, the rest series
        base = Basics(**{**base, "modality": _array_modality(task.input_dir / npy["X_train"])})
    shape = (
        _array_image_shape(task.input_dir / npy["X_train"]) if base["modality"] == "image" else None
    )
    return DataLayout(
        train_table=None,
        test_table=None,
        id_col=task.id_col,
        label_col=None,
        npy=tuple(npy.items()),
        image_shape=shape,
        **proba_kind(base["task_type"], base["target_cols"], pd.unique(labels.astype(str))),
        **base,
    )


def _array_shape(path: Path) -> tuple[int, ...]:
    """The shape of the array in ``path`` (mapped, not read, when it can be)."""
    try:
        return tuple(np.load(path, mmap_mode="r").shape)
    except ValueError:  # an array of Python objects cannot be mapped: read it whole
        return tuple(np.load(path, allow_pickle=True).shape)


def _array_modality(path: Path) -> str:
    """``image`` for (n, height, width, channels) arrays and for square (n, height, width) ones
    (grey images as Keras' MNIST or scikit-learn's digits store them: a hunt's (n, 8, 8) digits
    were read as series, 0.964 against 0.99 for the image model), else ``time_series`` ((n,
    channels, steps) series are seldom square)."""
    shape = _array_shape(path)
    square = len(shape) == 3 and shape[1] == shape[2] and shape[1] > 1
    return "image" if len(shape) == 4 or square else "time_series"


def _array_image_shape(path: Path) -> tuple[int, int, int] | None:
    """(height, width, channels) of the images in an (n, h, w[, c]) array."""
    shape = _array_shape(path)
    if len(shape) == 3:
        return (shape[1], shape[2], 1)
    if len(shape) == 4 and shape[1] in (1, 3) and shape[3] not in (1, 3):
        return (shape[2], shape[3], shape[1])  # channels first, as PyTorch stores them
    if len(shape) == 4:
        return (shape[1], shape[2], shape[3])
    return None


def _long_series_layout(
    task: Task, base: Basics, train_table: str, id_col: str
) -> DataLayout | None:
    """Series stored long (one row per id and step) beside a table of labels, if there are such."""
    inp, sample = task.input_dir, base["sample_submission"]
    long = long_series(inp, id_col, exclude={train_table, sample})
    if long is None:
        return None
    files, order, values = long
    head = read_head(inp / train_table)
    sample_head = read_head(inp / sample) if sample else head.iloc[:, :1]
    label_col, kind, class_names = label_column(
        task, head, sample_head, base["target_cols"], inp / train_table
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
        **base,
    )


def _table_layout(task: Task, base: Basics, train_table: str, test_table: str) -> DataLayout:
    """A training table with the labels and a test table with the rows to predict."""
    inp, sub_cols = task.input_dir, base["target_cols"]
    head = read_head(inp / train_table)
    test_head = read_head(inp / test_table)
    label_col, kind, class_names = label_column(task, head, test_head, sub_cols, inp / train_table)
    id_col = task.id_col if task.id_col and task.id_col in test_head.columns else None
    test_id_col = None
    if task.id_col and id_col is None and task.sample_submission_path is not None:
        # the sample names the ids otherwise than the test table does (``id`` for ``pid``)
        test_id_col = _ids_named_otherwise(task.id_col, test_head, task.sample_submission_path)
        id_col = task.id_col if test_id_col else None
    ids_in_sample = False
    if task.id_col and id_col is None and task.sample_submission_path is not None:
        # no column of the test table holds the ids: its rows are the sample's, in order
        ids_in_sample = _rows_of_sample(inp / test_table, task.sample_submission_path)
        id_col = task.id_col if ids_in_sample else None
    drop = tuple(
        c
        for c in head.columns
        if c not in test_head.columns
        and c != label_col
        and c not in task.target_cols
        and (kind != "multi_target" or c not in sub_cols)
    )
    index = saved_index_columns(
        head, exclude={label_col, id_col, test_id_col, *task.target_cols, *drop}
    )
    text_col = (
        text_column(head, exclude={label_col, id_col, *task.target_cols})
        if base["modality"] == "text"
        else None
    )
    extras, set_aside = joinable_tables(
        task,
        head,
        exclude={train_table, test_table, base["sample_submission"]},
        train=inp / train_table,
        targets=(label_col, *task.target_cols),
    )
    features = _features(
        inp, head, extras, drop=(label_col, id_col, test_id_col, *task.target_cols, *drop, *index)
    )
    # an id that is a date (a forecast's rows named by their day, Kaggle's bike rentals by their
    # hour) is a feature too: the date says what the rows' numbers depend on
    dates = date_columns(head, exclude={label_col, text_col, *task.target_cols})
    ordered = ordered_columns(
        head,
        exclude={label_col, id_col, text_col},
        tables=(inp / train_table, inp / test_table),
    )
    money = amount_columns(
        features, exclude={text_col, *dates, *(c for c, _ in ordered), *(c for c, _ in extras)}
    )
    sentences = (
        sentence_columns(features, exclude={*dates, *money, *(c for c, _ in extras)})
        if base["modality"] == "tabular"
        else ()
    )
    return DataLayout(
        train_table=train_table,
        test_table=test_table,
        id_col=id_col,
        test_id_col=test_id_col,
        ids_in_sample=ids_in_sample,
        label_col=label_col,
        submission_kind=kind,
        class_names=class_names,
        text_col=text_col,
        text_context_cols=context_columns(
            head,
            (inp / train_table, inp / test_table),
            exclude={label_col, id_col, test_id_col, text_col, *task.target_cols, *drop, *dates},
        )
        if text_col
        else (),
        extra_tables=extras,
        unjoined_tables=set_aside,
        drop_cols=drop,
        index_cols=index,
        date_cols=dates,
        forecast_col=_later_dates(inp / train_table, inp / test_table, dates),
        group_col=None
        if base["modality"] not in ("tabular", "text")  # (a text task's: never features)
        else _new_groups(
            inp / train_table,
            inp / test_table,
            head,
            test_head,
            exclude={label_col, id_col, test_id_col, text_col, *task.target_cols, *dates, *index},
        ),
        clock_cols=clock_columns(head, dates),
        amount_cols=money,
        ordered_cols=ordered,
        high_card_cols=high_cardinality_columns(
            features, exclude={text_col, *sentences, *money, *date_columns(head, exclude=set())}
        ),
        text_feature_cols=sentences,
        n_categorical=len(
            features.drop(columns=list(money)).select_dtypes(exclude=["number", "bool"]).columns
        ),
        has_missing=bool(
            features.isna().any().any()
            or test_head[features.columns.intersection(test_head.columns)].isna().any().any()
        ),
        **base,
    )


def _later_dates(train: Path, test: Path, dates: tuple[str, ...] | list[str]) -> str | None:
    """The first of the date columns ``dates`` whose every test value comes after every training
    value (a forecast of the days after the training table's last), or ``None``."""
    if train == test:
        return None
    for col in dates:
        try:
            seen = local_times(read_table(train, columns=[col])[col])
            ahead = local_times(read_table(test, columns=[col])[col])
        except (LayoutError, KeyError, ValueError, OSError, TypeError):
            continue
        if seen.notna().mean() < 0.9 or ahead.notna().mean() < 0.9 or not ahead.notna().any():
            continue
        if ahead.min() > seen.max():
            return col
    return None


def _new_groups(
    train: Path,
    test: Path,
    head: pd.DataFrame,
    test_head: pd.DataFrame,
    exclude: set[str | None],
) -> str | None:
    """The column whose values group the training rows (at least 10 groups of 2 rows or more
    on average: visits of a patient) while the test rows' values are nearly all new groups (a
    test of new patients): rows of one group alike would leak across a shuffled split; else
    ``None``."""
    if train == test:
        return None
    candidates = [
        str(c)
        for c in head.columns
        if c not in exclude
        and c in test_head.columns
        and not pd.api.types.is_float_dtype(head[c])
        and not head[c].is_unique
        and head[c].nunique() > 1
    ]
    if not candidates:
        return None
    try:  # one pass over each table for every candidate
        train_cols = read_table(train, columns=candidates, as_text=True)
        test_cols = read_table(test, columns=candidates, as_text=True)
    except (LayoutError, KeyError, ValueError, OSError):
        return None
    for col in candidates:
        seen, ahead = train_cols[col].dropna(), test_cols[col].dropna()
        groups = seen.nunique()
        if groups < 10 or len(seen) < 2 * groups or ahead.empty:
            continue
        if (~ahead.isin(set(seen))).mean() >= 0.9:
            return str(col)
    return None


def _rows_of_sample(test: Path, sample: Path) -> bool:
    """Whether the sample submission has one row per row of the test table (which then holds no
    id: the sample's ids name the test rows in order)."""
    try:
        rows = _rows(test)
        return rows > 0 and rows == _rows(sample)
    except (LayoutError, ValueError, OSError, IndexError):
        return False


def _rows(table: Path) -> int:
    """How many rows ``table`` has, read from its first column only."""
    first = str(read_head(table, 1).columns[0])
    return len(read_table(table, columns=[first]))


def _ids_named_otherwise(id_col: str, test_head: pd.DataFrame, sample: Path) -> str | None:
    """The test table's column holding the sample submission's ids under another name: the same
    name in other letter case (``Id`` for ``ID``), else the one column whose values are the
    sample's ids (``pid`` for ``id``; of several, the one named with ``id``, or the first when
    they are copies of one column); ``None`` when there is none or which one is unclear."""
    same = find_column(id_col, test_head.columns)
    if same is not None:
        return same
    try:
        ids = set(read_table(sample, columns=[id_col], as_text=True)[id_col])
    except (LayoutError, KeyError, ValueError):
        return None
    found = [
        str(c)
        for c in test_head.columns
        if not pd.api.types.is_float_dtype(test_head[c])
        and test_head[c].is_unique
        and set(test_head[c].astype(str).str.strip()) <= ids
    ]
    if len(found) <= 1:
        return found[0] if found else None
    named = [c for c in found if "id" in c.lower()]  # pid beside a copy named otherwise
    if len(named) == 1:
        return named[0]
    first = test_head[found[0]].astype(str)  # copies of one column: any of them
    return found[0] if all(test_head[c].astype(str).equals(first) for c in found[1:]) else None


def _features(
    inp: Path,
    head: pd.DataFrame,
    extras: tuple[tuple[str, str], ...],
    drop: tuple[str | None, ...],
) -> pd.DataFrame:
    """The training table's first rows without the label, id and training-only columns, with the
    joinable tables' columns added."""
    features = head.drop(columns=[c for c in drop if c in head.columns])
    for file, _ in extras:  # joined tables add their columns too
        features = features.join(
            read_head(inp / file).drop(columns=[k for f, k in extras if f == file]),
            how="left",
            rsuffix="_x",
        )
    return features


def count_train_rows(task: Task, layout: DataLayout) -> int | None:
    """How many labelled examples the task has (lines of the training table, files, or array rows)."""
    inp = task.input_dir
    table = layout.train_table or (layout.train_media.table if layout.train_media else None)
    try:
        if table and table.lower().endswith(".parquet"):
            return len(pd.read_parquet(inp / table, columns=[]))
        if table and table.lower().endswith(FEATHER_EXT):
            import pyarrow.feather as feather

            return int(feather.read_table(inp / table, columns=[], memory_map=True).num_rows)
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


def count_test_rows(task: Task) -> int | None:
    """How many test examples the task predicts: the sample submission's lines (one row per
    example, whatever form the test data has); ``None`` without a readable CSV/TSV sample."""
    path = task.sample_submission_path
    if path is None or path.suffix.lower() not in (".csv", ".tsv"):
        return None
    try:
        with path.open("rb") as fh:
            return max(0, sum(1 for _ in fh) - 1)
    except OSError:
        return None
