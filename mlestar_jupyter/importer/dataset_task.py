"""A task made from a dataset: one labelled table and no rows to predict.

A teacher's or a data scientist's data is often one table (``wine.csv``, ``housing.xlsx``
exported to CSV, ``data/train.csv`` with no ``test.csv``), not a competition.  MLE-STAR needs
rows to predict and answers to grade them by, so :func:`holdout_task` holds out a share of the
rows, drawn once with a fixed seed (stratified by class when every class has rows to spare),
and writes a task folder of its own — ``task.json``, ``input/train.csv``, ``input/test.csv``
(the held-out rows without the target), ``input/sample_submission.csv`` — and the held-out
answers outside it (``answers/<task>/answers.csv``, where the evaluator looks and no kernel
sees).  The user's files are only read.  The search never sees the held-out rows; the final
submission is graded on them, which says how the solution does on rows it was not fitted or
chosen on.

:func:`find_dataset` tells such a folder (or a table given directly) from a task folder;
everything inferred (the target, the task type, the metric, the id) is said in the returned
notices, and what cannot be inferred fails with a :class:`DatasetTaskError` saying what to pass.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..metrics import UnknownMetricError, get_metric, is_classification_metric
from ..task import Task
from ..task.dataset_card import card_description
from ..task.errors import TaskError, TaskFormatError
from ..task.features_labels import features_and_labels
from ..task.infer import (
    answers_folder,
    find_description,
    find_kaggle_description,
    first_paragraph,
    has_mlebench_files,
    has_training_arrays,
    is_sample_name,
)
from ..task.layout.checks import macro_average_note
from ..task.layout.columns import amount_columns, amounts
from ..task.layout.model import AUDIO_EXT, IMAGE_EXT, TABLE_EXT
from ..task.layout.tables import read_table, table_for
from ..task.spec_file import task_file
from ..task.split_column import split_table
from .target_values import GivenMetricError, given_metric, looks_like_classes

HOLDOUT_SHARE = 0.2  # of the labelled rows, held out as the test rows
HOLDOUT_SEED = 0  # fixed: runs with different --seed are graded on the same rows
EXCEL_EXT = (".xlsx", ".xlsm")  # workbooks (openpyxl); the first sheet with rows is the data
# plain-text tables by another name: UCI's ``.data`` (also found in a folder), ``.txt`` and
# ``.dat`` (only a file given directly: beside data they are often notes)
UCI_EXT = (".data",)
GIVEN_TEXT_EXT = (*UCI_EXT, ".txt", ".dat")
MIN_ROWS = 20  # fewer labelled rows than this leave too few to train on and to grade by
_TARGET_NAMES = re.compile(r"(?i)target|label|class|y|outcome|response")
_MEDIA_EXT = IMAGE_EXT + AUDIO_EXT


class DatasetTaskError(TaskFormatError):
    """A dataset that cannot become a task as it is (the message says what to pass or fix)."""


@dataclass(frozen=True)
class Dataset:
    """One labelled table to make a task from, and the description beside it (if any)."""

    table: Path
    description: Path | None
    name: str  # the task's id: the folder's name, or the table's for a table given directly
    text: str = ""  # the description's text when it is no file of its own (a task.json's)
    lookups: tuple[Path, ...] = ()  # tables keyed by one of its columns, joined to its rows


@dataclass(frozen=True)
class HoldoutTask:
    """The task folder :func:`holdout_task` wrote, and what it inferred (to journal)."""

    root: Path
    answers: Path
    notices: tuple[str, ...]


# --------------------------------------------------------------------------- finding one
def find_dataset(path: str | Path) -> Dataset | None:
    """The dataset at ``path``: a table given directly, or a folder (or its ``input/`` or
    ``data/``) holding one table and no test table, sample submission, ``.npy`` arrays or
    media; ``None`` for a task folder (``task.json``, MLE-bench files, a test table) or a folder
    of several tables (which one is the data is not guessed)."""
    p = Path(path).expanduser().resolve()
    if p.is_file():
        given = p.name.lower().endswith(GIVEN_TEXT_EXT) and _separated(p)
        if not (_is_table(p) or given or _json_records(p)):
            return None
        name = re.sub(
            r"(?i)(\.(csv|tsv|txt|dat|data|gz|zip|parquet|feather|xlsx|xlsm|xls|jsonl|ndjson|json))+$",
            "",
            p.name,
        )
        return Dataset(p, _description(p.parent), name or p.name)
    if not p.is_dir() or task_file(p) is not None or (p / "prepared" / "public").is_dir():
        return None
    if has_mlebench_files(p):
        return None
    for folder in (p / "input", p / "data", p):
        if not folder.is_dir():
            continue
        tables = sorted(f for f in folder.iterdir() if f.is_file() and _is_table(f))
        if not tables:
            continue
        if has_training_arrays(folder) or _holds_media(folder):
            return None
        if any(is_sample_name(f.name) or f.name.lower().startswith("test") for f in tables):
            return None  # rows to predict or a submission's shape: a competition's files
        if split_table(folder) is not None or features_and_labels(folder) is not None:
            return None  # the rows to predict are there: in a split column, or X_test.csv
        main, lookups = _main_and_lookups(tables)
        if main is None:
            return None
        return Dataset(main, _description(p), p.name, lookups=tuple(lookups))
    return None


_LOOKUP_ROWS = 100_000  # a lookup table with more rows is no lookup table


def _main_and_lookups(tables: list[Path]) -> tuple[Path | None, list[Path]]:
    """The one table of a folder that is the data, and the lookup tables beside it: a table of
    fewer columns that shares exactly one column with it, each of whose values names one row
    (``regions.csv`` of ``region_code,region`` beside ``customers.csv``).  ``(None, [])`` when
    no single table is the data (several tables of their own: which one is not guessed)."""
    if len(tables) == 1:
        return tables[0], []
    if any(t.name.lower().endswith(EXCEL_EXT) for t in tables):
        return None, []
    try:
        headers = {t: list(read_table(t, nrows=0).columns) for t in tables}
    except (TaskError, OSError, ValueError):
        return None, []
    for main in tables:
        others = [t for t in tables if t != main]
        if all(_lookup_key(main, t, headers) is not None for t in others):
            return main, others
    return None, []


def _lookup_key(main: Path, table: Path, headers: dict[Path, list[str]]) -> str | None:
    """The column by which ``table`` looks up values for the rows of ``main``, or ``None`` when
    it is no lookup table of it (see ``_main_and_lookups``)."""
    shared = [c for c in headers[table] if c in headers[main]]
    if len(shared) != 1 or len(headers[table]) >= len(headers[main]):
        return None
    try:
        keys = read_table(table, columns=shared)[shared[0]]
    except (TaskError, OSError, ValueError, KeyError):
        return None
    if len(keys) > _LOOKUP_ROWS or keys.isna().any() or not keys.is_unique:
        return None
    return shared[0]


def _joined_lookups(frame: pd.DataFrame, dataset: Dataset) -> tuple[pd.DataFrame, list[str]]:
    """``frame`` (the dataset's table) with the columns of each of its lookup tables joined to
    its rows by their key, and a notice for each (a row whose key the lookup lacks gets empty
    values)."""
    said = []
    for lookup in dataset.lookups:
        table = read_table(lookup)
        table.columns = [str(c) for c in table.columns]
        key = next(c for c in table.columns if c in frame.columns)
        if frame[key].dtype != table[key].dtype:  # 4 and "4": joined by their text
            table[key] = table[key].astype(str)
            frame = frame.assign(**{key: frame[key].astype(str)})
        added = [c for c in table.columns if c != key]
        renamed = {c: f"{lookup.stem}_{c}" for c in added if c in frame.columns}
        table = table.rename(columns=renamed)
        frame = frame.merge(table, on=key, how="left", validate="many_to_one")
        missing = int(frame[table.columns.drop(key)].isna().all(axis=1).sum())
        said.append(
            f"{lookup.name} is a lookup table of {dataset.table.name} by {key!r}: its columns "
            f"({', '.join(map(repr, table.columns.drop(key)))}) are joined to each row"
            + (f"; {missing} rows have a {key!r} it lacks (left empty)" if missing else "")
        )
    return frame, said


def dataset_of_task(task: Task) -> tuple[Dataset, dict[str, str]] | None:
    """A described task (a task.json, a description.md) whose data is one training table and
    nothing to predict (no test table, no sample submission, no arrays or media): the dataset
    to hold rows out of, and the target and metric the description gave (``holdout_task``'s
    keywords); ``None`` for any other task."""
    if task.source_format == "notebook" or task.modality not in ("tabular", "text"):
        return None
    inp = task.input_dir
    if not inp.is_dir() or has_training_arrays(inp) or _holds_media(inp):
        return None
    if split_table(inp) is not None or features_and_labels(inp) is not None:
        return None  # the rows to predict are there (a split column; X_test.csv): hunt O
    train = table_for(task, "train")
    if train is None or table_for(task, "test") is not None or task.test_files:
        return None
    if task.sample_submission_path is not None:
        return None
    given = {"metric": task.metric_name}
    if len(task.target_cols) == 1:
        given["target"] = task.target_cols[0]
    text = task.description or task.goal
    return Dataset(inp / train, None, task.id, text), given


def _description(folder: Path) -> Path | None:
    """The text beside a dataset that says what it is: ``description.md``, else a README or an
    overview saved beside the data."""
    return find_description(folder) or find_kaggle_description(folder)


def _json_records(path: Path) -> bool:
    """Whether ``path`` is a ``.json`` file holding an array (records, as ``df.to_json(orient=
    "records")`` and most web APIs write a table), not an object such as a task.json."""
    if not path.name.lower().endswith(".json"):
        return False
    try:
        with open(path, encoding="utf-8-sig", errors="replace") as fh:
            return fh.read(4096).lstrip().startswith("[")
    except OSError:
        return False


def _separated(path: Path) -> bool:
    """Whether the text file at ``path`` reads as a table: its lines split alike on one of the
    separators a table uses (notes and READMEs do not)."""
    from ..task.text_format import read_args

    try:
        return "sep" in read_args(path)
    except (OSError, UnicodeError, ValueError):
        return False


def _is_table(path: Path) -> bool:
    name = path.name.lower()
    return name.endswith(TABLE_EXT + EXCEL_EXT + UCI_EXT) and not path.name.startswith("~$")


def _read_workbook(path: Path, target: str | None = None) -> tuple[pd.DataFrame, list[str]]:
    """The sheet of an Excel workbook that is the data, and a notice naming the others: the
    first sheet with a column ``target`` (the user's ``--target``), else the one of most cells
    (a workbook often opens with a sheet of notes)."""
    try:
        sheets = pd.read_excel(path, sheet_name=None)
    except ImportError as e:
        raise DatasetTaskError(
            path, f"an Excel workbook needs openpyxl ({e}): pip install openpyxl, or save it as CSV"
        ) from None
    filled = [(str(name), frame) for name, frame in sheets.items() if len(frame)]
    if not filled:
        raise DatasetTaskError(path, "no sheet of this workbook holds rows")
    wanted = (target or "").strip().lower()
    holding = [(n, f) for n, f in filled if wanted in {str(c).strip().lower() for c in f.columns}]
    name, frame = holding[0] if holding else max(filled, key=lambda nf: nf[1].size)
    others = [n for n, _ in filled if n != name]
    said = (
        [
            f"{path.name}: read its sheet {name!r}"
            + (" (it holds the target)" if holding else " (the largest)")
            + f"; the other sheets with rows ({', '.join(map(repr, others))}) are not used: "
            "save the one you mean as CSV, or pass --target naming a column of it"
        ]
        if others
        else []
    )
    return frame, said


def _holds_media(folder: Path) -> bool:
    """Whether image or audio files lie in ``folder`` or one folder down (a media task's list)."""
    for f in folder.iterdir():
        if f.is_file() and f.suffix.lower() in _MEDIA_EXT:
            return True
        if f.is_dir():
            if any(g.suffix.lower() in _MEDIA_EXT for g in list(f.iterdir())[:50]):
                return True
    return False


# --------------------------------------------------------------------------- making the task
def holdout_task(
    dataset: Dataset,
    out: Path,
    *,
    target: str | None = None,
    metric: str | None = None,
) -> HoldoutTask:
    """Write the held-out task of ``dataset`` to ``out`` (a new folder) and its answers beside
    it; ``target`` and ``metric`` are the user's, else read from the description or inferred."""
    notices: list[str] = []
    try:
        if dataset.table.name.lower().endswith(EXCEL_EXT):
            frame, said = _read_workbook(dataset.table, target)
            notices += said
        elif _json_records(dataset.table):
            frame = pd.read_json(dataset.table, orient="records", dtype=False)
        else:
            frame = read_table(dataset.table)
            if _first_line_is_data(frame):
                frame = _read_headerless(dataset.table)
                notices.append(
                    f"{dataset.table.name}: its first line holds values, not column names (no "
                    f"header line): the columns are named col_1 ... col_{frame.shape[1]} in the "
                    "file's order (pass --target col_N; add a header line for names)"
                )
    except (TaskError, OSError, ValueError) as e:
        raise DatasetTaskError(dataset.table, f"cannot be read as a table ({e})") from None
    frame.columns = [str(c) for c in frame.columns]
    for drop in (_without_units_rows, _without_summary_rows):
        frame, said = drop(frame, dataset.table.name)
        notices += said
    text = dataset.text or (
        dataset.description.read_text(encoding="utf-8", errors="replace")
        if dataset.description
        else ""
    )
    # a Hugging Face dataset card: its front matter names the column of classes (no metric:
    # the dataset's own default and notice below)
    text, card = card_description(text, names_target=target is not None, names_metric=True)
    notices += (card,) if card else ()
    target_col, why = _target(dataset, frame, target, text)
    if dataset.lookups:  # after the target is read: their columns are no candidates for it
        try:
            frame, said = _joined_lookups(frame, dataset)
        except (TaskError, OSError, ValueError) as e:
            raise DatasetTaskError(
                dataset.table, f"its lookup tables cannot be joined to it ({e})"
            ) from None
        notices += said
    if amount_columns(frame[[target_col]], exclude=set()):
        example = frame[target_col].dropna().astype(str).iloc[0]
        frame[target_col] = amounts(frame[target_col])
        notices.append(
            f"{dataset.table.name}: {target_col!r} holds numbers written as text ({example}): "
            "read as the numbers they stand for"
        )
    labelled = frame[frame[target_col].notna()]
    if len(labelled) < len(frame):
        notices.append(
            f"{dataset.table.name}: {len(frame) - len(labelled)} rows have no {target_col!r}: "
            "left out (nothing to learn from or grade them by)"
        )
    if len(labelled) < MIN_ROWS:
        raise DatasetTaskError(
            dataset.table,
            f"{len(labelled)} rows with a {target_col!r} value: too few to hold out rows to "
            f"grade by (at least {MIN_ROWS}); add rows, or give a test table (test.csv) yourself",
        )
    metric_name, direction, task_type, said = _metric(labelled[target_col], metric, text, dataset)
    notices += said
    id_col, id_why = _id_column(labelled, target_col)
    labelled = labelled.reset_index(drop=True)
    if id_why == "added":
        labelled.insert(0, id_col, frame.index[frame[target_col].notna()].to_numpy())
    train, test, stratified = _split(labelled, target_col, task_type == "classification")
    notices.insert(
        0,
        f"{dataset.table.name} is a dataset, not a competition (no test table): "
        f"{len(test)} of its {len(labelled)} labelled rows ({HOLDOUT_SHARE:.0%}, drawn once with "
        f"seed {HOLDOUT_SEED}{', stratified by class' if stratified else ''}) are held out as the "
        "test rows; the search never sees them and the final submission is graded on them. "
        f"Target {target_col!r} ({why}), {task_type}, metric {metric_name}"
        + {
            "added": f", id {id_col!r} (the row's number in {dataset.table.name})",
            "key": f", id {id_col!r} (a different value in every row: the rows' key, no feature)",
        }.get(id_why, f", id {id_col!r}"),
    )
    if out.exists():
        raise DatasetTaskError(
            out,
            "already exists (a run folder keeps a dataset's task there): pass another --out, "
            "or continue that run with 'mlestar resume'",
        )
    out.mkdir(parents=True)
    inp = out / "input"
    inp.mkdir()
    train.to_csv(inp / "train.csv", index=False)
    test.drop(columns=[target_col]).to_csv(inp / "test.csv", index=False)
    sample = _sample(test[id_col], train[target_col], metric_name, task_type)
    sample.to_csv(inp / "sample_submission.csv", index=False)
    answers_dir = answers_folder(out)
    answers_dir.mkdir(parents=True, exist_ok=True)
    answers = answers_dir / "answers.csv"
    test[[id_col, target_col]].to_csv(answers, index=False)
    spec = {
        "id": dataset.name,
        "task_type": task_type,
        "goal_description": _goal(text)
        or f"Predict {target_col!r} from the other columns of {dataset.table.name}.",
        "description": text,
        "metric": {"metric_name": metric_name, "direction": direction},
        "target_col": target_col,
        "id_col": id_col,
        "data_information": {
            "data_type": "Tabular",
            "train": {
                "data_location": "train.csv",
                "data_description": f"{len(train)} labelled rows of {dataset.table.name}",
            },
            "test": {
                "data_location": "test.csv",
                "data_description": f"the {len(test)} held-out rows, without {target_col!r}",
            },
        },
        "output_format": sample.head(3).to_csv(index=False) + "...",
        # what the run grades its final submission on (``agent.heldout``)
        "holdout": {
            "dataset": str(dataset.table),
            "share": HOLDOUT_SHARE,
            "seed": HOLDOUT_SEED,
            "rows": len(test),
        },
    }
    (out / "task.json").write_text(json.dumps(spec, indent=2) + "\n", encoding="utf-8")
    return HoldoutTask(out, answers, tuple(notices))


_SUMMARY = re.compile(r"(?:grand |sub)?totals?|sum|average|mean|avg", re.IGNORECASE)


def _without_units_rows(frame: pd.DataFrame, name: str) -> tuple[pd.DataFrame, list[str]]:
    """``frame`` without the lines under the header that say the columns' units (``years,
    kg/m2,mmHg``: a second header row, as lab and survey exports write one), its columns of
    numbers read as numbers again; a notice.  Such a line is one of the first two whose cells
    are no numbers in every column that holds numbers below it (at least half the columns)."""
    top = 0
    for i in range(min(2, len(frame) - 1)):
        below = frame.iloc[i + 1 :]
        texts = [c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])]
        numeric = [
            c for c in texts if pd.to_numeric(below[c], errors="coerce").notna().mean() >= 0.95
        ]
        cells = frame.iloc[i][numeric]
        if (
            len(numeric) * 2 < len(frame.columns)
            or pd.to_numeric(cells, errors="coerce").notna().any()
        ):
            break
        top = i + 1
    if not top:
        return frame, []
    shown = ", ".join(str(v) for v in frame.iloc[top - 1].tolist()[:4])
    out = _numbers_again(frame.iloc[top:].reset_index(drop=True), list(frame.columns))
    return out, [
        f"{name}: the {'line' if top == 1 else f'{top} lines'} under its header ({shown}, ...) "
        "name the columns' units, not an example: left out, and the columns read as numbers"
    ]


def _without_summary_rows(frame: pd.DataFrame, name: str) -> tuple[pd.DataFrame, list[str]]:
    """``frame`` without the summary rows a spreadsheet export ends with (a last row whose text
    cell says ``Total``, ``Sum`` or ``Average``: the column sums, no example), the column that
    held that word read as numbers again where it now holds only numbers; a notice per row."""
    tail = frame.tail(3)
    text_cols = [c for c in frame.columns if pd.api.types.is_string_dtype(frame[c])]

    def said_once(i: object, c: str) -> bool:  # the word, and nowhere above the last rows
        value = tail.at[i, c]
        if not isinstance(value, str) or not _SUMMARY.fullmatch(value.strip()):
            return False
        above = frame[c].iloc[: len(frame) - len(tail)].astype(str).str.strip()
        return not above.str.fullmatch(
            _SUMMARY.pattern, case=False
        ).any()  # ("Average" as a grade: a category)

    summary = [i for i in tail.index if any(said_once(i, c) for c in text_cols)]
    if not summary:
        return frame, []
    shown = [
        next(str(frame.at[i, c]) for c in text_cols if isinstance(frame.at[i, c], str))
        for i in summary
    ]
    out = _numbers_again(frame.drop(index=summary), text_cols)
    return out, [
        f"{name}: its last rows ({', '.join(repr(s) for s in shown)}) sum up the rows above, "
        "no example to learn from: left out"
    ]


def _numbers_again(frame: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """``frame`` with each of ``columns`` that holds text read as numbers where every filled
    cell is one (a units line or a summary row had made the column text)."""
    for c in columns:
        if pd.api.types.is_numeric_dtype(frame[c]):
            continue
        numbers = pd.to_numeric(frame[c], errors="coerce")
        if numbers.notna().sum() == frame[c].notna().sum():
            frame[c] = numbers
    return frame


_NUMBER = re.compile(r"[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?")


def _numeric_name(name: str) -> bool:
    """Whether a column name pandas read is a number (``14.23``; ``1.71.1`` is pandas'
    spelling of a second ``1.71``)."""
    return bool(_NUMBER.fullmatch(re.sub(r"\.\d+$", "", name) or name))


def _first_line_is_data(frame: pd.DataFrame) -> bool:
    """Whether the names pandas read from the first line are a row of data: at least two
    columns, most of them numbers (``14.23``, or ``1.71.1``: pandas' spelling of a repeated
    name), and every other one a value its own column holds (UCI's ``842302,17.99,...,M``).
    A header of years (``country,1990,1991``) has a name its column does not hold."""
    names = [str(c) for c in frame.columns]
    numeric = [n for n in names if _numeric_name(n)]
    if len(names) < 2 or len(numeric) * 2 < len(names) or frame.empty:
        return False
    words = [c for c in frame.columns if str(c) not in numeric]
    return all(str(c).strip() in set(frame[c].dropna().astype(str).str.strip()) for c in words)


def _read_headerless(path: Path) -> pd.DataFrame:
    """The text table at ``path`` read with no header line, its columns ``col_1`` ... ."""
    from ..task.text_format import read_args

    frame = pd.read_csv(path, header=None, **read_args(path))  # type: ignore[call-overload]
    frame.columns = [f"col_{i + 1}" for i in range(frame.shape[1])]
    return frame  # type: ignore[no-any-return]


def _header_hint(frame: pd.DataFrame) -> str:
    """What the column names say of the file's first line when it is no header (``""``
    otherwise): numbers (a file without a header line), or one name for a table of one column
    (a title line above the header)."""
    names = [str(c) for c in frame.columns]
    if names == [f"col_{i + 1}" for i in range(len(names))]:  # read without a header line
        return (
            f"; the file has no header line: a table such as UCI's often holds the label in its "
            f"first or last column (col_1 or col_{len(names)}), as the notes beside it say"
        )
    if len(names) >= 2 and all(_numeric_name(n) for n in names):
        return (
            "; its first line holds numbers: the file seems to have no header line, so its "
            "first row was read as the column names; add a line of column names at its top"
        )
    if len(names) == 1 and " " in names[0].strip():
        return (
            "; a table of one column: the first line seems to be a title above the column "
            "names; remove the lines above the header"
        )
    return ""


def _goal(text: str) -> str:
    """The description's first paragraph, its heading lines left out."""
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    return first_paragraph(body) if body.strip() else ""


def _target(dataset: Dataset, frame: pd.DataFrame, given: str | None, text: str) -> tuple[str, str]:
    """The column to predict and why: the user's, a 'Target:' line or a stated target of the
    description, else the one column named like a target."""
    from .heuristic import stated_targets

    by_lower = {c.lower(): c for c in frame.columns}
    columns = ", ".join(list(frame.columns)[:30]) + (", ..." if len(frame.columns) > 30 else "")
    columns += _header_hint(frame)
    if given:
        col = by_lower.get(given.strip().lower())
        if col is None:
            raise DatasetTaskError(
                dataset.table, f"has no column {given!r} (--target); its columns: {columns}"
            )
        return col, "given"
    stated = [by_lower[s.lower()] for s in stated_targets(text) if s.lower() in by_lower]
    stated = stated or _predicted_in_sentences(text, list(frame.columns))
    if stated:
        return stated[0], f"named in {dataset.description.name if dataset.description else ''}"
    named = [c for c in frame.columns if _TARGET_NAMES.fullmatch(c.strip())]
    if len(named) == 1:
        return named[0], "the column named like a target"
    raise DatasetTaskError(
        dataset.table,
        "a dataset with no test table: say which column to predict, with --target COLUMN or a "
        f"line 'Target: COLUMN' in description.md (its columns: {columns})",
    )


_PREDICT_WORDS = re.compile(
    r"(?i)\b(predict\w*|target|forecast\w*|estimat\w*|classif\w*|outcome)\b"
)


def _predicted_in_sentences(text: str, columns: list[str]) -> list[str]:
    """The one column a sentence about predicting names as what is predicted: after the word
    ("The column to predict is `Progression`", "Predict the column target from ...": up to
    "from", "using", "given", "based on", "with"), or before it when it ends the sentence
    ("Diagnosis is what we want to predict.").  A column named only as an input ("predict
    whether it is malignant from radius") is not taken."""
    for sentence in re.split(r"(?<=[.!?])\s+|\n\s*\n", text):
        m = _PREDICT_WORDS.search(sentence)
        if not m:
            continue
        after = re.split(r"(?i)\b(?:from|using|given|based on|with)\b", sentence[m.end() :])[0]
        part = after if after.strip(" .!?:`'\"") else sentence[: m.start()]
        named = [
            c
            for c in columns
            if len(c) > 1 and re.search(rf"(?i)(?<![\w-]){re.escape(c)}(?![\w-])", part)
        ]
        if len(named) == 1:
            return named
    return []


def _metric(
    y: pd.Series, given: str | None, text: str, dataset: Dataset
) -> tuple[str, str, str, list[str]]:
    """``(metric, direction, task type, notices)``: the user's metric, the description's, else
    accuracy for classes and RMSE for numbers (said in a notice)."""
    name = given
    if name is None and text.strip():
        from ..task.infer import metric_from_text

        try:
            name = metric_from_text(dataset.description or dataset.table, text)[0]
        except TaskFormatError:
            name = None
    if name is not None:
        try:
            m = get_metric(name)
        except UnknownMetricError as e:
            raise DatasetTaskError(dataset.table, f"{e} (--metric)") from None
        kind = "classification" if is_classification_metric(m.name) else "regression"
        if kind == "regression" and not pd.api.types.is_numeric_dtype(y):
            raise DatasetTaskError(
                dataset.table,
                f"the metric {m.name} grades numbers but {y.name!r} holds text "
                f"({', '.join(map(str, y.dropna().unique()[:5]))}, ...); pass a classification "
                "metric (--metric accuracy) or another --target",
            )
        if given is not None:  # the user's metric must fit the target (accuracy of prices)
            try:
                given_metric(given, y)
            except GivenMetricError as e:
                raise DatasetTaskError(dataset.table, str(e)) from None
        note = macro_average_note(m.name, int(y.nunique()))
        return m.name, m.direction, kind, [note] if note else []
    classes = looks_like_classes(y)
    m = get_metric("accuracy" if classes else "rmse")
    kind = "classification" if classes else "regression"
    why = f"{y.nunique()} distinct values" if classes else "numbers with many distinct values"
    return (
        m.name,
        m.direction,
        kind,
        [
            f"no metric given: {y.name!r} holds {why}, read as a {kind} graded by {m.name}; "
            "pass --metric (e.g. roc_auc, f1, mae) or add a 'Metric: NAME' line to description.md"
        ],
    )


def _id_column(frame: pd.DataFrame, target: str) -> tuple[str, str]:
    """The table's own id column (named like one, one distinct value per row), else a new one."""
    for c in frame.columns:
        if c != target and _named_like_an_id(c) and frame[c].is_unique:
            if frame[c].notna().all():
                return c, "own"
    if _headerless_key(frame, target):
        return "col_1", "key"
    name = next(n for n in ("id", "row_id", "row_number", "_row") if n not in frame.columns)
    return name, "added"


def _headerless_key(frame: pd.DataFrame, target: str) -> bool:
    """Whether a table read without a header line starts with a key column: ``col_1`` holds a
    different whole number or code in each of at least 20 rows (UCI's ``wdbc.data`` starts with
    the patient's number), so it is the rows' id and no feature to learn from."""
    names = [str(c) for c in frame.columns]
    if target == "col_1" or names != [f"col_{i + 1}" for i in range(len(names))] or len(frame) < 20:
        return False
    first = frame["col_1"]
    whole = pd.api.types.is_integer_dtype(first) or pd.api.types.is_string_dtype(first)
    return bool(whole and first.notna().all() and first.is_unique)


def _named_like_an_id(name: str) -> bool:
    """``id``, ``index``, ``row_id``, ``Customer ID``, ``PatientID``, ``customerId`` (not
    ``paid`` or ``valid``)."""
    n = name.strip()
    return (
        n.lower() in ("id", "index", "rowid")
        or n.lower().endswith(("_id", " id", "-id"))
        or re.search(r"[a-z](ID|Id)$", n) is not None
    )


def _split(
    frame: pd.DataFrame, target: str, classification: bool
) -> tuple[pd.DataFrame, pd.DataFrame, bool]:
    """``(train, test, stratified)``: a seeded share of the rows held out, per class when every
    class has at least two rows and the held-out rows can hold one of each."""
    rng = np.random.default_rng(HOLDOUT_SEED)
    n_test = max(1, round(HOLDOUT_SHARE * len(frame)))
    counts = frame[target].value_counts()
    stratify = classification and counts.min() >= 2 and n_test >= len(counts)
    if stratify:
        groups = [np.asarray(rows) for rows in frame.groupby(target, sort=True).indices.values()]
        picked: list[int] = []
        for idx, k in zip(groups, _per_class(n_test, [len(g) for g in groups]), strict=True):
            picked += rng.choice(idx, size=k, replace=False).tolist()
        held = np.zeros(len(frame), dtype=bool)
        held[picked] = True
    else:
        held = np.zeros(len(frame), dtype=bool)
        held[rng.choice(len(frame), size=n_test, replace=False)] = True
    return frame[~held].reset_index(drop=True), frame[held].reset_index(drop=True), stratify


def _per_class(n_test: int, sizes: list[int]) -> list[int]:
    """Held-out rows per class adding up to ``n_test``: each class's share, rounded by largest
    remainder, at least one row per class and one left to train on."""
    quota = [n_test * size / sum(sizes) for size in sizes]
    ks = [min(max(1, int(q)), size - 1) for q, size in zip(quota, sizes, strict=True)]
    order = sorted(range(len(sizes)), key=lambda i: quota[i] - int(quota[i]), reverse=True)
    while sum(ks) < n_test and any(k < size - 1 for k, size in zip(ks, sizes, strict=True)):
        for i in order:
            if sum(ks) < n_test and ks[i] < sizes[i] - 1:
                ks[i] += 1
    return ks


def _sample(ids: pd.Series, y: pd.Series, metric_name: str, task_type: str) -> pd.DataFrame:
    """The sample submission: the ids and a placeholder target, or, for a metric of
    probabilities (ROC AUC, log loss) of more than two classes, one column per class holding
    its share (one column of labels made every model hand in one probability, which such a
    metric cannot grade: iris' held-out ROC AUC was 0.5)."""
    classes = sorted(y.dropna().unique().tolist(), key=str)
    try:
        proba = get_metric(metric_name).needs_proba
    except UnknownMetricError:
        proba = False
    if task_type == "classification" and proba and len(classes) > 2:
        share = 1.0 / len(classes)
        return pd.DataFrame({ids.name: ids, **{str(c): share for c in classes}})
    return pd.DataFrame({ids.name: ids, y.name: _placeholder(y)})


def _placeholder(y: pd.Series) -> object:
    """A sample submission's value: the most frequent class, or the mean of a number."""
    if looks_like_classes(y):
        return y.mode().iloc[0]
    return float(np.round(y.mean(), 6))
