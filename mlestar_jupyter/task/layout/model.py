"""What a task's data layout is: ``DataLayout`` (what a template needs to know about the files)
and ``MediaSource`` (where one split's media files are)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal, TypedDict

from ..text_format import FEATHER_EXT, TEXT_TABLE_EXT, call_args

IMAGE_EXT = (".png", ".jpg", ".jpeg", ".bmp", ".gif", ".tif", ".tiff", ".webp")
AUDIO_EXT = (".wav",)
# tables whose reading pandas needs nothing more for (but Excel's first sheet and JSON lines)
EXCEL_TABLE_EXT = (".xlsx", ".xlsm", ".xls")
JSON_LINES_EXT = (".jsonl", ".ndjson")
# gzipped and zipped text tables too
TABLE_EXT = (*TEXT_TABLE_EXT, ".parquet", *FEATHER_EXT, *EXCEL_TABLE_EXT, *JSON_LINES_EXT)

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


class Basics(TypedDict):
    """The fields of a ``DataLayout`` every kind of layout shares, read from the task itself."""

    modality: str
    task_type: str
    metric: str
    sample_submission: str | None
    target_cols: tuple[str, ...]


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
    # a text task's other columns whose values recur in the test rows (a tweet's keyword): their
    # values join the text as tagged words (``columns.context_columns``)
    text_context_cols: tuple[str, ...] = ()
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
    # (file, why) extra tables sharing a key that are not joined: one holding the target or
    # describing only the test rows (the organisers' answers: ``columns.joinable_tables``)
    unjoined_tables: tuple[tuple[str, str], ...] = ()
    drop_cols: tuple[str, ...] = ()  # training-only columns besides the label (not in test)
    # a row index saved with the table (``df.to_csv(path)`` writes it under a blank header, read
    # back as ``Unnamed: 0``): no feature (``columns.saved_index_columns``)
    index_cols: tuple[str, ...] = ()
    # a column whose values group the training rows (several rows per patient) and whose test
    # values are all new groups: validated on whole groups held out, never k-folded, no feature
    group_col: str | None = None
    date_cols: tuple[str, ...] = ()  # text columns that hold dates
    # the test table's column of the submission's ids when the sample names them otherwise
    # (``pid`` for the sample's ``id``; ``Id`` for ``ID``); None: ``id_col`` itself
    test_id_col: str | None = None
    # the test table holds no id: its rows are the sample submission's, in order (Kaggle's
    # Digit Recognizer: ImageId 1, 2, ...), and the ids are read from the sample
    ids_in_sample: bool = False
    # a date column every test row comes after (a forecast: train up to March, predict April):
    # the run validates on the latest rows and never on shuffled folds, which would train on
    # the future of the rows they score
    forecast_col: str | None = None
    # text columns of numbers written with a currency sign, thousands separators or a percent
    # sign ($5,662.50, 1,234, 12.5%): the notebooks read their numbers (``columns.amounts``)
    amount_cols: tuple[str, ...] = ()
    clock_cols: tuple[str, ...] = ()  # those of ``date_cols`` that hold a time of day too
    # text columns whose values are steps of a known scale (Po < Fa < TA < Gd < Ex): (column, scale)
    ordered_cols: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # text columns with many distinct values (at least 30 among the first rows): names, codes
    high_card_cols: tuple[str, ...] = ()
    # columns of a table that hold sentences (a title, a name, a remark: three words or more,
    # mostly distinct), which become numbers from their words rather than categories
    text_feature_cols: tuple[str, ...] = ()
    image_shape: tuple[int, int, int] | None = None  # (height, width, channels) of the first image
    # media files without a sample submission: the submission's ids are the test files' names
    # with their extension (``img1003.jpg``), as the README shows them; else their stems
    ids_keep_extension: bool = False
    n_categorical: int = 0  # non-numeric feature columns (tabular)
    has_missing: bool = True  # missing values among the first rows' features (tabular)
    # (file, pd.read_csv keyword, value) for text tables not read with the defaults: a
    # semicolon or tab separator, decimal commas (``text_format.read_args``)
    # (and ``index_col=False`` for data rows ending in a separator: the one value not a string)
    input_formats: tuple[tuple[str, str, str | bool], ...] = ()
    # (``to_csv`` keyword, value) the submission is written with: the sample submission's
    # separator and decimal mark when not a plain CSV (``tables.submission_args``)
    submission_format: tuple[tuple[str, str], ...] = ()

    def read_code(self, file: str, text_column: str | None = None) -> str:
        """The pandas call a notebook reads ``file`` of ``INPUT`` with (for the templates); a
        CSV, workbook or JSON-lines file with ``text_column`` read as text (file names and ids
        like ``0154`` keep their leading zeros)."""
        path = f"INPUT / {json.dumps(file)}"
        as_text = f", dtype={{{json.dumps(text_column)}: str}}" if text_column else ""
        if file.lower().endswith(".parquet"):
            return f"pd.read_parquet({path})"
        if file.lower().endswith(FEATHER_EXT):
            return f"pd.read_feather({path})"
        if file.lower().endswith(EXCEL_TABLE_EXT):
            return f"pd.read_excel({path}{as_text})"  # its first sheet
        if file.lower().endswith(JSON_LINES_EXT):
            return f"pd.read_json({path}, lines=True{as_text})"
        if not file.lower().endswith(TABLE_EXT):  # a folder of parts (train/part-00000.csv ...)
            parts = (
                f'sorted(p for p in ({path}).glob("*.csv*") if not p.name.startswith((".", "_")))'
            )
            return f"pd.concat([pd.read_csv(p{as_text}) for p in {parts}], ignore_index=True)"
        args = call_args({k: v for f, k, v in self.input_formats if f == file})
        return f"pd.read_csv({path}{args}{as_text})"

    def write_args(self) -> str:
        """The keywords a notebook's ``to_csv`` of the submission takes after ``index=False``
        (``, sep=";", decimal=","``; empty for a plain CSV), for the templates."""
        return call_args(dict(self.submission_format))

    @property
    def is_classification(self) -> bool:
        """Whether the task's models classify.  Several target columns of a classification
        (multi-label: a 0/1 column per label, graded by each column's probabilities) are fitted
        as a regression of each column: its predictions, within 0 and 1, are the probabilities."""
        return self.task_type == "classification" and self.submission_kind != "multi_target"

    @property
    def npy_files(self) -> dict[str, str]:
        """The ``.npy`` files by role (``X_train``, ``y_train``, ``X_test``)."""
        return dict(self.npy)
