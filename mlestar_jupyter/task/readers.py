"""Readers of task folders: TAM-Bench ``task.json``, MLE-bench competition, plain description.

Each reader returns the ``TaskFields`` it found (the ``Task`` builds itself from them, see
``model.py``).  A folder that cannot make a task fails here, once, with a ``TaskFormatError``
naming the file and the fix.
"""

from __future__ import annotations

import json
import re
from itertools import islice
from pathlib import Path
from typing import Any

import pandas as pd

from ..metrics import metric_names
from .errors import LayoutError, TaskFormatError
from .features_labels import features_and_labels
from .fields import DataFile, Direction, FileRole, SourceFormat, TaskFields
from .infer import (
    complete_files,
    find_answers,
    find_description,
    find_kaggle_description,
    first_paragraph,
    foreign_tables_hint,
    has_mlebench_files,
    has_series_files,
    has_training_arrays,
    head_lines,
    infer_modality,
    infer_task_type,
    likely_id_column,
    metric_from_text,
    modality_from_words,
    paired_tables,
    resolve_metric,
    split_instructions,
    submission_columns,
    table_header,
    unread_files_hint,
)
from .locations import reconcile_columns, resolve_data_location, train_header
from .other_tables import (
    is_delimited_text_table,
    is_svmlight,
    records_frame,
    text_table_frame,
)
from .page_text import description_text
from .prose_header import submission_header
from .sample_fit import set_aside_unfit_sample
from .spec_keys import (
    ALIASES,
    canonical_spec,
    data_folder,
    id_names_a_column,
    metric_fields,
    positive_label,
)
from .split_column import split_table
from .text_format import TEXT_TABLE_EXT, read_args

_TRAIN_MISSING = "no training data found: add train.csv (or a train/ folder) to input/"


# "Target: price", "- target column: `y`", "Targets: Weight, Waist, Pulse" (several: multi-target)
# and the same line in German, Spanish, French, Italian, Portuguese ("Zielvariable: Preis",
# "Variable objetivo: precio": hunt O)
_TARGET_WORDS = (
    r"targets?(?:\s+columns?)?|zielvariablen?|zielgr(?:ö|oe)(?:ß|ss)en?|zielspalten?"
    r"|variables?\s+(?:objetivo|cibles?|alvo)|colonnes?\s+cibles?|variabil[ei]\s+target"
)
_TARGET_LINE = re.compile(
    rf"(?im)^\s*[-*]?\s*(?:{_TARGET_WORDS})\s*:\s*`?([\w .-]+?(?:`?\s*,\s*`?[\w .-]+?)*)`?\s*$"
)


def _targets_named(line: re.Match[str]) -> list[str]:
    """The columns a 'Target:' line names (several, comma-separated, for a multi-target task)."""
    return [t.strip(" `") for t in line.group(1).split(",") if t.strip(" `")]


def _first_column_if_key(path: Path, header: list[str]) -> str | None:
    """The table's first column when its values are distinct whole numbers or words (a key,
    ``patient``; not sentences, as a text task's first column), else ``None``."""
    if not header:
        return None
    try:
        if path.name.lower().endswith(TEXT_TABLE_EXT):
            values = pd.read_csv(path, usecols=[0], **read_args(path)).iloc[:, 0]
        else:  # a workbook, parquet, feather or JSON-lines table
            from .layout.tables import read_table

            values = read_table(path, columns=[header[0]]).iloc[:, 0]
    except (LayoutError, OSError, ValueError, ImportError):
        return None
    whole = pd.api.types.is_integer_dtype(values) or (
        not pd.api.types.is_numeric_dtype(values)
        # codes, not sentences: a column of review texts is unique too, and no key
        and values.astype(str).str.contains(r"\s").mean() <= 0.1
    )
    return header[0] if whole and values.notna().all() and values.is_unique else None


def _columns_only_training_has(input_dir: Path, files: list[DataFile]) -> list[str]:
    """The columns of the one training table that the one test table lacks (a table of labels
    beside a table of the files to predict: ``filename,digit`` and ``filename``; or a
    ``train.xlsx`` / ``train.parquet`` / ``train.jsonl`` / ``train.json`` beside its test table);
    empty unless both are tables."""
    from .layout.model import TABLE_EXT  # (the layout package imports the task model)

    train = [f.path for f in files if f.role == "train"]
    test = [f.path for f in files if f.role == "test"]
    if len(train) != 1 or len(test) != 1:
        return []
    paths = tuple(_first_shard(input_dir / p) for p in (train[0], test[0]))
    if all(is_svmlight(p) for p in paths):  # LIBSVM rows: a label, then the features
        return ["label"]
    if not all(
        p.is_file()
        and (p.name.lower().endswith((*TABLE_EXT, ".json")) or is_delimited_text_table(p))
        for p in paths
    ):
        return []
    seen, ahead = _header(paths[0]), _header(paths[1])
    if not ahead:
        return []
    lacked = [c for c in seen if c not in ahead]
    return lacked or _columns_left_empty(paths[1], [c for c in seen if c in ahead])


def _columns_left_empty(test: Path, shared: list[str]) -> list[str]:
    """The columns of ``shared`` (those the training table has too) that the test table holds
    with no value in any row: a test table written with the target column kept and emptied
    (``Sale Price`` blank), which is the target as much as a column the test table lacks (hunt
    O: such a folder with a README and no sample was refused, "names no 'Target:' line")."""
    from .layout.tables import read_table

    if not shared:
        return []
    try:
        frame = read_table(test, columns=shared)
    except (LayoutError, OSError, ValueError, ImportError):
        return []
    if len(frame) == 0:
        return []
    return [str(c) for c in frame.columns if frame[c].isna().all()]


def _first_shard(path: Path) -> Path:
    """``path``, or the first part of the table it is a folder of (``train/part-00000.csv``, as
    Spark writes one: a README beside such folders named no target, "sample_submission.csv
    missing and the description names no 'Target: <column>' line")."""
    from .layout.tables import shard_files  # (the layout package imports the task model)

    return next(iter(shard_files(path)), path) if path.is_dir() else path


def _documents_in_class_folders(input_dir: Path, files: list[DataFile]) -> bool:
    """Whether the training folder holds ``.txt`` documents one folder per class
    (``train/pos/1.txt``, ``train/neg/2.txt``, as aclImdb keeps them): the run gathers them
    into tables (``importer.text_documents``), the class as ``label``."""
    train = next(
        (input_dir / f.path for f in files if f.role == "train" and (input_dir / f.path).is_dir()),
        None,
    )
    if train is None:
        return False
    subs = [d for d in sorted(train.iterdir()) if d.is_dir()]
    return len(subs) > 1 and all(
        any(p.suffix.lower() == ".txt" for p in islice(d.iterdir(), 50)) for d in subs
    )


def _header(path: Path) -> list[str]:
    """The column names of a table: a text table's header row, else the columns of the first
    rows of a workbook, parquet, feather or JSON-lines file, or the keys of a JSON list of
    records (none when it cannot be read)."""
    if path.name.lower().endswith(TEXT_TABLE_EXT):
        return table_header(path)
    if is_svmlight(path):  # LIBSVM rows name no columns (no line of them is an id)
        return []
    from .layout.tables import read_table

    try:
        if path.name.lower().endswith(".json"):  # records, written as CSV for the run
            return [str(c) for c in records_frame(path).columns]
        if is_delimited_text_table(path):  # train.txt separated by tabs: likewise
            return [str(c) for c in text_table_frame(path, nrows=5).columns]
        return [str(c) for c in read_table(path, nrows=5).columns]
    except (LayoutError, OSError, ValueError, ImportError):
        return []


def _holds_tables(folder: Path) -> bool:
    """Whether ``folder`` itself holds a table (data kept beside description.md, or in a
    ``data/`` folder): a text table, parquet, a workbook or JSON lines."""
    from .layout.model import TABLE_EXT  # (the layout package imports the task model)

    return any(p.is_file() and p.name.lower().endswith(TABLE_EXT) for p in folder.iterdir())


def _data_folder(root: Path) -> Path | None:
    """The folder beside a description that holds the task's tables: ``data/`` (or
    ``dataset/``, ``datasets/``), or the one folder inside it that does (``data/wine/``: hunt J's
    notebooks kept their data so, and the folder was refused with "input/: missing")."""
    for name in ("data", "dataset", "datasets"):
        folder = root / name
        if not folder.is_dir():
            continue
        if _holds_tables(folder):
            return folder
        inner = [p for p in folder.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))]
        if len(inner) == 1 and _holds_tables(inner[0]):
            return inner[0]
        paired = [p for p in inner if _holds_train_and_test(p)]
        if len(paired) == 1:  # data/raw/ (train, test) beside data/processed/ (a cleaned part)
            return paired[0]
    return None


def _holds_train_and_test(folder: Path) -> bool:
    """Whether ``folder`` holds a training and a test table (``train.csv``, ``test.csv``): of
    a cookiecutter project's ``data/raw/`` and ``data/processed/``, the one to read (hunt O:
    such a project was "not a task folder")."""
    roles = {f.role for f in complete_files(folder, [])}
    return {"train", "test"} <= roles and _holds_tables(folder)


def _has_training_data(input_dir: Path, files: list[DataFile]) -> bool:
    """Whether the input holds training data: a training file or folder, ``.npy`` arrays or
    ``.ts`` files."""
    return (
        any(f.role == "train" for f in files)
        or has_training_arrays(input_dir)
        or has_series_files(input_dir)
    )


def is_task_folder(path: str | Path) -> bool:
    """Whether ``path`` is (or holds) a task folder of a format ``read_task_folder`` reads; a
    folder that is not may still be a notebook's folder (``importer.notebook_task``)."""
    root = Path(path).expanduser().resolve()
    return has_task_description(root) or (root.is_dir() and has_mlebench_files(root))


def has_task_description(path: str | Path) -> bool:
    """Whether the folder describes its task (task.json, MLE-bench's ``prepared/public`` or a
    description file), not only holds a competition's tables (train, test, sample submission:
    a Kaggle download, which a notebook beside it can describe instead)."""
    root = Path(path).expanduser().resolve()
    if root.is_file():
        return root.name in TASK_FILES
    return root.is_dir() and (
        task_file(root) is not None
        or (root / "prepared" / "public").is_dir()
        or find_description(root) is not None
    )


def read_task_folder(path: str | Path) -> TaskFields:
    """The fields of the task folder at ``path``, in whichever format it is."""
    root = Path(path).expanduser().resolve()
    if not root.exists():
        raise TaskFormatError(
            root,
            "no such folder; pass the task folder (the one holding task.json or description.md)",
        )
    if root.is_file():
        if root.name not in TASK_FILES:
            raise TaskFormatError(
                root, "expected a task folder, got a file; pass the folder that holds it"
            )
        root = root.parent
    if task_file(root) is not None:
        return read_tam_bench(root)
    if (root / "prepared" / "public").is_dir() or has_mlebench_files(root):
        return read_mlebench(root)
    if find_description(root) is not None:
        return read_description(root)
    readme = root / "README.md"
    if readme.is_file() and (
        _holds_tables(root)
        or _data_folder(root) is not None
        or _has_training_data(root, complete_files(root, []))
    ):
        # a project's README beside its tables, or beside a train/ folder of files (images in
        # class folders, one .txt per document) or .npy arrays: the task's description (a
        # notebook run in such a folder still reads its task from the notebook:
        # ``is_task_folder`` is unchanged)
        return read_description(root, readme)
    raise TaskFormatError(
        root,
        "not a task folder: add task.json (TAM-Bench schema) beside input/, or description.md beside input/ "
        "(or MLE-bench style train.csv/test.csv/sample_submission.csv); or start from a notebook "
        "in it (--notebook NB, or the toolbar button): the task is then read from the notebook"
        + _what_is_there(root),
    )


def _kaggle_metadata(root: Path) -> str:
    """What to write beside a Kaggle dataset's download whose ``dataset-metadata.json`` (the
    metadata the Kaggle CLI writes: a title, an id, licenses, no target or metric) sits beside
    a training and a test table (hunt O: refused as "not a task folder" with nothing said of
    it); ``""`` for other folders.  (A Hugging Face dataset card, a README with YAML front
    matter, is another thing: ``task.dataset_card``.)"""
    path = root / "dataset-metadata.json"
    if not path.is_file():
        return ""
    try:
        meta = json.loads(path.read_text(encoding="utf-8", errors="replace"))
    except ValueError:
        meta = {}
    title = meta.get("title") if isinstance(meta, dict) else None
    files = complete_files(root, [])
    lacked = _columns_only_training_has(root, files)
    target = lacked[0] if len(lacked) == 1 else "<column>"
    return (
        ". Its dataset-metadata.json is a Kaggle dataset's metadata"
        + (f" ({title!r})" if isinstance(title, str) and title else "")
        + ", which names no target or metric: write description.md beside the tables saying "
        f"what is predicted and how it is graded (e.g. 'Target: {target}' and 'Metric: RMSE')"
    )


def _what_is_there(root: Path) -> str:
    """What a folder that is no task folder holds instead, with the way to a task folder: a
    Kaggle download still zipped, or its tables one folder down."""
    if not root.is_dir():
        return ""
    archives = sorted(
        p.name for p in root.iterdir() if p.is_file() and p.name.lower().endswith(_ARCHIVES)
    )
    if archives:
        listed = ", ".join(archives[:3]) + (", ..." if len(archives) > 3 else "")
        one = len(archives) == 1
        return (
            f". It holds {listed}: unpack {'it' if one else 'them'} here, or make a task folder "
            f"with 'mlestar task import PAGE --data {root / archives[0] if one else root} --out "
            "TASK_DIR' (PAGE: the competition's overview page saved as HTML or text)"
        )
    databases = _sqlite_tables(root)
    if databases:
        return databases
    kaggle = _kaggle_metadata(root)
    if kaggle:
        return kaggle
    for folder in (root, root / "input", root / "data"):
        paired = paired_tables(folder, complete_files(folder, [])) if folder.is_dir() else None
        if paired is not None:
            files, extra, _ = paired
            train, test = (next(f.path for f in files if f.role == r) for r in ("train", "test"))
            where = "" if folder == root else f" in {folder.name}/"
            named = " and ".join(map(repr, extra))
            return (
                f". It holds two tables{where} that pair: {train} has every column of {test} and "
                f"{named}. Write description.md beside them saying what is predicted and how it "
                f"is graded (e.g. 'Predict {extra[0]} for the rows of {test}. Metric: RMSE.'), "
                "and the run reads the first as the training table and the other as the rows to "
                "predict"
            )
    for sub in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        if has_mlebench_files(sub) or (sub / "train.csv").is_file():
            return (
                f". Its tables are in {sub.name}/: pass that folder, or make a task folder with "
                f"'mlestar task import PAGE --data {sub} --out TASK_DIR'"
            )
    return ""


_ARCHIVES = (".zip", ".7z", ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz")
_SQLITE = (".db", ".sqlite", ".sqlite3")


def _sqlite_tables(root: Path) -> str:
    """The way to a task folder from a SQLite database of tables (``wine.db`` with tables
    ``train`` and ``test``, hunt I), which no reader here reads: the tables exported as CSV,
    with the command that does it; empty when ``root`` holds no such database."""
    import sqlite3

    for db in sorted(p for p in root.iterdir() if p.is_file() and p.suffix.lower() in _SQLITE):
        try:
            with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
                rows = con.execute("select name from sqlite_master where type='table'").fetchall()
        except sqlite3.Error:
            continue
        tables = sorted(str(r[0]) for r in rows)
        if not tables:
            continue
        first = tables[0]
        return (
            f". It holds the SQLite database {db.name} (tables {', '.join(tables[:6])}"
            f"{', ...' if len(tables) > 6 else ''}), which the run cannot read: export each "
            f'table as CSV beside it (e.g. \'sqlite3 -header -csv {db} "select * from {first}" '
            f"> {root / first}.csv', or pandas.read_sql), naming the training table train.csv "
            "and the rows to predict test.csv"
        )
    return ""


# --------------------------------------------------------------------------- TAM-Bench
def read_tam_bench(root: Path) -> TaskFields:
    """A folder holding a TAM-Bench ``task.json`` beside ``input/`` (other authors' field names
    and a ``data/`` folder are read too, see ``spec_keys.py``)."""
    tj = task_file(root) or root / "task.json"
    spec, notices = canonical_spec(_read_spec(tj))
    input_dir, said = data_folder(root, spec, tj)
    notices += said
    goal = spec.get("goal_description")
    metric_name, direction = _spec_metric(tj, spec.get("metric"))
    info = spec.get("data_information") or {}
    target = spec.get("target_col") or ()
    files, said = _spec_files(
        tj, input_dir, info, [target] if isinstance(target, str) else [str(t) for t in target]
    )
    notices += said
    task_id = spec.get("task_id") or spec.get("name") or root.name
    id_column = id_names_a_column(spec, train_header(input_dir, files))
    if id_column is not None:
        spec = {**spec, "id_col": id_column}
        notices.append(
            f"task.json: 'id' names the column '{id_column}': read as 'id_col' "
            f"(the task is named '{task_id}')"
        )
    id_col, target_cols, said = _spec_columns(tj, input_dir, spec, files)
    if not goal:  # the schema wants one; a file without it still says what to predict
        train = next((f.path for f in files if f.role == "train"), "the training table")
        goal = f"Predict {', '.join(map(repr, target_cols))} from {train} ({metric_name})."
        said = [
            *said,
            "task.json: no goal_description (nor goal, objective, description): the goal is "
            f"written from its fields: {goal!r}; add one sentence saying what to predict and why "
            "for an LLM backend's prompts",
        ]
    modality = modality_from_words(str(info.get("data_type", ""))) or infer_modality(
        input_dir, files
    )
    header = _named_submission_columns(tj, spec.get("submission_columns"))
    output_format = str(spec.get("output_format") or ",".join(header.get("submission_columns", ())))
    return TaskFields(
        id=str(task_id if id_column is not None else spec.get("id") or task_id),
        root=root,
        input_dir=input_dir,
        goal=str(goal),
        metric_name=metric_name,
        direction=direction,
        task_type=infer_task_type(spec.get("task_type"), metric_name),
        modality=modality,
        target_cols=tuple(target_cols),
        id_col=id_col,
        files=tuple(files),
        description=str(spec.get("description", "")),
        output_format=output_format.replace("\\n", "\n"),
        special_instructions=tuple(split_instructions(spec.get("special_instructions") or [])),
        source_format="tam_bench",
        answers_path=find_answers(root),
        positive_label=positive_label(spec),
        notices=tuple(
            n.replace("task.json:", f"{tj.name}:", 1) if n.startswith("task.json:") else n
            for n in notices + said
        ),
        extra={
            **{
                k: v
                for k, v in spec.items()
                if k in ("leaderboard", "constraints", "time_limit", "holdout")
            },
            **header,
        },
    )


def _named_submission_columns(tj: Path, value: Any) -> dict[str, tuple[str, ...]]:
    """``{"submission_columns": header}`` for a submission header the task file names
    (``"submission_format": {"columns": ["id", "prediction"]}`` or a plain list), else ``{}``;
    read like a sample submission's header when the folder has none."""
    if isinstance(value, dict):
        value = value.get("columns") or value.get("header")
    if value is None:
        return {}
    if isinstance(value, str):
        value = [c.strip() for c in value.split(",")]
    if not (isinstance(value, list) and value and all(isinstance(c, str) and c for c in value)):
        raise TaskFormatError(
            tj,
            f"submission_format: {value!r} is not a list of column names; write it as "
            '"submission_format": {"columns": ["id", "prediction"]}, or add sample_submission.csv',
        )
    return {"submission_columns": tuple(value)}


# the task file, in the order looked for: TAM-Bench's JSON, or the same fields written in YAML
TASK_FILES = ("task.json", "task.yaml", "task.yml")


def task_file(root: Path) -> Path | None:
    """The folder's task file (``TASK_FILES``), or ``None`` when it has none."""
    return next((root / n for n in TASK_FILES if (root / n).is_file()), None)


def raw_spec(root: Path) -> dict[str, Any]:
    """The task file's fields as written (empty when there is none, or it cannot be read):
    for readers of fields the ``Task`` does not keep (difficulty, value rules)."""
    tj = task_file(root)
    try:
        return _read_spec(tj) if tj is not None else {}
    except TaskFormatError:
        return {}


def _read_spec(tj: Path) -> dict[str, Any]:
    """The task file (``task.json``, or ``task.yaml``) as a dict; unreadable or not an object: a
    ``TaskFormatError`` saying so."""
    try:
        text = tj.read_text(encoding="utf-8")
    except OSError as e:
        raise TaskFormatError(tj, f"cannot be read ({e.strerror}); check its permissions") from None
    if tj.suffix in (".yaml", ".yml"):
        import yaml

        try:
            spec = yaml.safe_load(text)
        except yaml.YAMLError as e:
            mark = getattr(e, "problem_mark", None)
            where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
            what = getattr(e, "problem", None) or str(e).splitlines()[0]
            raise TaskFormatError(
                tj, f"is not valid YAML ({where}{what}); fix the syntax"
            ) from None
    else:
        try:
            spec = json.loads(text)
        except json.JSONDecodeError as e:
            raise TaskFormatError(
                tj,
                f"is not valid JSON (line {e.lineno}, column {e.colno}: {e.msg}); fix the syntax",
            ) from None
    if isinstance(spec, list) and len(spec) == 1 and isinstance(spec[0], dict):
        spec = spec[0]  # a benchmark's list of tasks (the AutoML benchmark's YAML) of one task
    if isinstance(spec, list) and spec and all(isinstance(s, dict) for s in spec):
        names = ", ".join(str(s.get("name", "?")) for s in spec[:6])
        raise TaskFormatError(
            tj,
            f"holds a list of {len(spec)} tasks ({names}), as a benchmark's task file does: "
            "keep the one to run (one object with fields goal_description, metric, "
            "data_information, or target and metric)",
        )
    if not isinstance(spec, dict):
        raise TaskFormatError(
            tj, "must hold an object with fields goal_description, metric, data_information"
        )
    return spec


def _spec_metric(tj: Path, metric_spec: Any) -> tuple[str, Any]:
    """The metric's name and direction from ``task.json``'s ``metric`` field."""
    names = ", ".join(metric_names())
    if metric_spec is None:
        raise TaskFormatError(
            tj,
            f"field 'metric' missing (expected {{'metric_name': one of: {names}}}; also read "
            "as: evaluation_metric, eval_metric, scoring, evaluation)",
        )
    raw, spec = metric_fields(metric_spec)
    if not raw:
        raise TaskFormatError(tj, f"field 'metric.metric_name' missing (expected one of: {names})")
    return resolve_metric(tj, raw, spec)


# data_information's keys -> the file's role (the schema names train and test; other authors
# name the sample submission there too)
_INFO_ROLES: tuple[tuple[FileRole, str], ...] = (
    ("train", "train"),
    ("test", "test"),
    ("sample_submission", "sample_submission"),
    ("sample_submission", "submission"),
)


def _spec_files(
    tj: Path, input_dir: Path, info: dict[str, Any], targets: list[str]
) -> tuple[list[DataFile], list[str]]:
    """The input files ``data_information`` names (then every other entry of ``input/``) and
    the notices of how its names were matched; a sample submission found by its name that fits
    neither the id nor ``targets`` (``target_col``) is left an extra file
    (``sample_fit``)."""
    files: list[DataFile] = []
    notices: list[str] = []
    for role, key in _INFO_ROLES:
        part = info.get(key) or {}
        if not isinstance(part, dict):
            continue
        field = f"data_information.{key}.data_location"
        for loc in resolve_data_location(input_dir, field, part.get("data_location"), tj):
            notices += [loc.notice] if loc.notice else []
            for entry in loc.entries:
                if all(f.path != entry or f.role != role for f in files):
                    files.append(DataFile(entry, role, part.get("data_description", "")))
    named = any(f.role == "sample_submission" for f in files)
    files = complete_files(input_dir, files)
    if not named:  # a sample found by its name: an old submission.csv is none
        files, said = set_aside_unfit_sample(input_dir, files, targets)
        notices += [said] if said else []
    if input_dir.resolve() == tj.parent.resolve():  # the task folder is the data folder: its
        # task.json is no input a solution should read (data_dir ".", paths in several folders)
        files = [f for f in files if not (f.role == "extra" and f.path == tj.name)]
    if not _has_training_data(input_dir, files):
        raise TaskFormatError(
            input_dir,
            "no training data found: add train.csv (or a train/ folder) to input/, or name it in data_information.train.data_location",
        )
    return files, notices


def _spec_columns(
    tj: Path, input_dir: Path, spec: dict[str, Any], files: list[DataFile]
) -> tuple[str | None, list[str], list[str]]:
    """The id and target columns (``id_col``/``target_col``, else the sample submission's) and
    the notices of how the named ones were matched to the files' headers."""
    sample = next((f for f in files if f.role == "sample_submission"), None)
    id_col, target_cols = submission_columns(input_dir / sample.path) if sample else (None, [])
    heads = ([id_col] if id_col else []) + target_cols, train_header(input_dir, files)
    notices: list[str] = []
    target_spec = spec.get("target_col")
    if target_spec:
        tcs = [target_spec] if isinstance(target_spec, str) else list(target_spec)
        named, said = reconcile_columns("target_col", [str(t) for t in tcs if t], *heads)
        target_cols, notices = named or target_cols, notices + said
    test_cols = train_header(
        input_dir, [DataFile(f.path, "train") for f in files if f.role == "test"]
    )
    only_train = [c for c in heads[1] if c not in test_cols] if test_cols else []
    if not target_cols and len(only_train) == 1:  # no target named: what the test rows lack
        target_cols = only_train
        notices.append(
            f"task.json: no target_col; '{only_train[0]}' (the training table's one column the "
            "test table lacks) read as the target"
        )
    if spec.get("id_col"):  # the id is the test table's and the submission's column
        (id_col,), said = reconcile_columns(
            "id_col",
            [str(spec["id_col"])],
            heads[0],
            test_cols or heads[1],
            table="the test table" if test_cols else "the training table",
        )
        notices += said
    elif id_col is None and target_cols:  # no id named: a column both tables have, named as one
        id_col = likely_id_column(heads[1], test_cols, target_cols[0])
        if id_col is not None:
            notices.append(
                f"task.json: no id_col; '{id_col}' (in both tables) read as the id column"
            )
    if not target_cols:
        raise TaskFormatError(
            tj,
            "cannot tell the target column: set 'target_col', or add sample_submission.csv to "
            "input/"
            + (
                f" (the training table has {len(only_train)} columns the test table lacks: "
                f"{', '.join(only_train[:6])})"
                if only_train
                else ""
            ),
        )
    return id_col, target_cols, notices


# --------------------------------------------------------------------------- MLE-bench
def read_mlebench(root: Path) -> TaskFields:
    """An MLE-bench competition folder (``description.md`` and the CSVs, or ``prepared/public/``)."""
    public = root / "prepared" / "public"
    input_dir = public if public.is_dir() else root
    desc_path = (
        find_description(input_dir)
        or find_description(root)
        or find_kaggle_description(input_dir)
        or find_kaggle_description(root)
    )
    if desc_path is None:
        raise TaskFormatError(
            root,
            "no description.md: write one beside train.csv saying what to predict, with a line "
            f"'Metric: <name>' (one of: {', '.join(metric_names())}); or start from a notebook "
            "of yours in this folder (--notebook NB, or the toolbar button): the task is then "
            "read from it",
        )
    text = description_text(desc_path)
    files = complete_files(input_dir, [])
    line = _TARGET_LINE.search(text)
    if (
        input_dir == root
        and set_aside_unfit_sample(input_dir, files, _targets_named(line) if line else [])[1]
    ):  # an old submission.csv beside the tables: a description's folder, no competition
        return read_description(root, desc_path)
    if not _has_training_data(input_dir, files):
        raise TaskFormatError(
            input_dir,
            "no training data (train.csv or a train/ folder); prepare the competition's data first",
        )
    sample = next((f for f in files if f.role == "sample_submission"), None)
    if sample is None:
        raise TaskFormatError(
            input_dir,
            "sample_submission.csv missing: MLE-bench tasks need it to know the id and target columns",
        )
    id_col, target_cols = submission_columns(input_dir / sample.path)
    metric_name, direction, said = _described_metric(root, desc_path, text)
    fields = _described_task(
        root,
        input_dir,
        text,
        files,
        sample,
        (metric_name, direction),
        (id_col, target_cols),
        source_format="mlebench",
    )
    if said:
        fields["notices"] = (said,)
    return fields


# a benchmark's own config beside a description: MLE-bench's competition ``config.yaml``
# (``grader: {name: auc-roc}``), or the metric under a name task.json's readers know
_CONFIG_FILES = ("config.yaml", "config.yml", "competition.yaml", "metadata.json")


def _described_metric(root: Path, desc_path: Path, text: str) -> tuple[str, Direction, str]:
    """The metric the description names, else the one a benchmark's config beside it names
    (MLE-bench's ``config.yaml``: ``grader: {name: auc-roc}``; hunt O: such a folder was
    refused, "description.md: names no metric"), with a notice saying so ("" when the
    description named it); neither: the description's own error."""
    try:
        name, direction = metric_from_text(desc_path, text)
        return name, direction, ""
    except TaskFormatError as unnamed:
        for folder in dict.fromkeys((desc_path.parent, root)):
            for config in (folder / n for n in _CONFIG_FILES):
                raw, key = _config_metric(config)
                if raw is None:
                    continue
                try:
                    name, direction = resolve_metric(config, raw, {})
                except TaskFormatError:
                    continue
                said = f"{desc_path.name} names no metric: read {config.name}'s '{key}' ({raw!r})"
                return name, direction, said
        raise unnamed


def _config_metric(config: Path) -> tuple[str | None, str]:
    """The metric's name a benchmark's config file gives (and the key it was under), or
    ``(None, "")``: no such file, none readable, or no metric in it."""
    if not config.is_file():
        return None, ""
    try:
        spec = _read_spec(config)
    except TaskFormatError:
        return None, ""
    canon, _ = canonical_spec(spec)
    raw, _fields = metric_fields(canon.get("metric"))
    if not raw:
        return None, ""
    key = next(
        (k for k in ("metric", *ALIASES["metric"]) if spec.get(k) not in (None, "")), "metric"
    )
    return raw, key


# --------------------------------------------------------------------------- description
def _card(
    root: Path, desc_path: Path, text: str
) -> tuple[str, str, tuple[str, Direction, str] | TaskFormatError]:
    """``text`` read as a Hugging Face dataset card when it opens with one's front matter
    (``task.dataset_card``), what the card said (``""``: nothing, or no card), and the metric,
    resolved once (a benchmark's config beside the description read once): the one the text
    names, a card's front matter left out (``_described_metric``), else the card's (accuracy,
    for a card with one column of classes), else the error saying none is named (the caller
    raises it after its own checks)."""
    from .dataset_card import card_description, front_matter

    metric: tuple[str, Direction, str] | TaskFormatError
    try:
        metric = _described_metric(root, desc_path, front_matter(text)[1])
    except TaskFormatError as unnamed:
        metric = unnamed
    named = not isinstance(metric, TaskFormatError)
    carded, said = card_description(
        text, names_target=_TARGET_LINE.search(text) is not None, names_metric=named
    )
    if not named and carded != text:  # the card's "Metric: accuracy" line
        try:
            metric = (*metric_from_text(desc_path, carded), "")
        except TaskFormatError:
            pass
    return carded, said, metric


def read_description(root: Path, desc_path: Path | None = None) -> TaskFields:
    """A folder holding ``description.md`` (or ``.txt``; or ``desc_path``) and ``input/`` (else
    ``data/``, else the tables beside the description)."""
    desc_path = desc_path or find_description(root)
    if desc_path is None:
        raise TaskFormatError(
            root,
            "no description.md or description.txt; write one saying what to predict and the metric",
        )
    input_dir = root / "input"
    data = _data_folder(root)
    if not input_dir.is_dir() and data is not None:
        input_dir = data  # a data/ folder, as many projects keep one
    elif not input_dir.is_dir() and (
        _holds_tables(root) or _has_training_data(root, complete_files(root, []))
    ):
        input_dir = root  # the tables (or a train/ folder, or arrays) beside description.md
    if not input_dir.is_dir():
        raise TaskFormatError(
            input_dir,
            "missing: put the task's data files in an input/ folder beside description.md",
        )
    text, card, metric = _card(root, desc_path, description_text(desc_path))
    files = complete_files(input_dir, [])
    notices: tuple[str, ...] = (f"{desc_path.name}: {card}",) if card else ()
    predicted: list[str] = []  # what the training table holds and the rows to predict lack
    split = features_and_labels(input_dir)
    if split is not None:  # X_train.csv, y_train.csv, X_test.csv (the run joins them)
        roles = {split.x_train: "train", split.x_test: "test"}
        files = [DataFile(f.path, roles.get(f.path, "extra")) for f in files]  # type: ignore[arg-type]
        predicted = list(split.targets)
        notices += (
            f"{split.x_train} and {split.y_train} are read as one training table (features, "
            f"then the labels: {', '.join(split.targets)}), row by row; {split.x_test} as the "
            "rows to predict",
        )
    one_table = split_table(input_dir) if split is None else None
    if one_table is not None:  # data.csv with split = train / test (the run cuts it in two)
        files = [DataFile(f.path, "train" if f.path == one_table.table else f.role) for f in files]
        predicted = list(one_table.targets)
        notices += (
            f"{one_table.table} holds the training rows ({one_table.column} = "
            f"{one_table.train_value!r}) and the rows to predict ({one_table.column} = "
            f"{one_table.test_value!r}, {', '.join(one_table.targets)} empty): the run reads "
            "them as train.csv and test.csv",
        )
    line = _TARGET_LINE.search(text)
    files, said = set_aside_unfit_sample(
        input_dir, files, [*(_targets_named(line) if line else []), *predicted]
    )
    notices += (said,) if said else ()
    if not _has_training_data(input_dir, files):
        paired = paired_tables(input_dir, files)
        if paired is None:
            raise TaskFormatError(input_dir, _TRAIN_MISSING + unread_files_hint(input_dir))
        files, predicted, said = paired
        notices += (said,)
    sample = next((f for f in files if f.role == "sample_submission"), None)
    if isinstance(metric, TaskFormatError):
        raise metric
    metric_name, direction, said = metric
    notices += (said,) if said else ()
    if sample is None and not predicted:
        predicted = _columns_only_training_has(input_dir, files)
    prose = submission_header(text) if sample is None else None  # "header `image,label`"
    header = _header_that_fits(prose, input_dir, files, predicted, _TARGET_LINE.search(text))
    if sample is not None:
        id_col, target_cols = submission_columns(input_dir / sample.path)
    elif header is not None:  # the columns the description names: the id, then the target(s)
        id_col, target_cols = header[0], list(header[1:])
        notices += (
            f"{desc_path.name}: no sample_submission.csv; the submission is "
            f"'{','.join(header)}', as {desc_path.name} says",
        )
    elif one_table is not None:  # the rows' id: a column named as one, else a key
        cols = [c for c in _header(input_dir / one_table.table) if c != one_table.column]
        target_cols = list(predicted)
        id_col = likely_id_column(cols, cols, predicted[0])
        notices += (
            f"{desc_path.name}: no sample_submission.csv; the submission is "
            f"'{','.join([*([id_col] if id_col else []), *target_cols])}'"
            + ("" if id_col else " in the order of the rows to predict (no column is their id)"),
        )
    elif len(predicted) == 1 and not _TARGET_LINE.search(text):
        # the one column the rows to predict lack is the target; the submission is the rows'
        # id (a column named as one) and it
        train = next(f.path for f in files if f.role == "train")
        test = next(f.path for f in files if f.role == "test")
        target_cols = predicted
        test_cols = _header(input_dir / test)
        id_col = likely_id_column(
            _header(input_dir / train), test_cols, predicted[0]
        ) or _first_column_if_key(input_dir / test, test_cols)
        notices += (
            f"{desc_path.name}: no sample_submission.csv; the submission is "
            f"'{','.join([*([id_col] if id_col else []), predicted[0]])}'"
            + ("" if id_col else " in the order of the rows to predict (no column is their id)"),
        )
    else:
        m = _TARGET_LINE.search(text)
        # X_train.npy / y_train.npy / X_test.npy, or .ts files: the test rows have no names
        arrays = has_training_arrays(input_dir) or has_series_files(input_dir)
        media = (
            arrays
            or infer_modality(input_dir, files) in ("image", "audio")
            or _documents_in_class_folders(input_dir, files)
        )
        if not m and not media:
            foreign = foreign_tables_hint(input_dir)
            raise TaskFormatError(
                input_dir,
                f"the training and test data cannot be read{foreign}"
                if foreign
                else "sample_submission.csv missing and the description names no 'Target: "
                "<column>' line; add one of them",
            )
        named = _targets_named(m) if m else ["label"]
        target = named[0]
        # files to predict with no sample submission: each row of the submission names its
        # file (its name without the extension) in an ``id`` column, else rows were anonymous
        # (a header the description names, "Submit `rec,bird`", was read above)
        id_col = "id" if media and target != "id" else None
        target_cols = named
        if not media:  # tables: the rows' id is a column of both named as one, else a key
            id_col = _id_of_rows(input_dir, files, target)
            notices += (
                f"{desc_path.name}: no sample_submission.csv; the submission is "
                f"'{','.join([*([id_col] if id_col else []), *named])}'"
                + (
                    "" if id_col else " in the order of the rows to predict (no column is their id)"
                ),
            )
        if media:
            notices += (
                f"{desc_path.name}: no sample_submission.csv; the submission is '{id_col},{target}'"
                f"{'' if m else ' (no Target: line)'}, the id being each "
                + ("test row's index" if arrays else "test file's name without its extension")
                + "; add a sample_submission.csv to say otherwise",
            )
    fields = _described_task(
        root,
        input_dir,
        text,
        files,
        sample,
        (metric_name, direction),
        (id_col, target_cols),
        source_format="description",
    )
    if notices:
        fields["notices"] = notices
    if header is not None:  # what a prompt shows of the file to write
        fields["output_format"] = ",".join(header)
    return fields


def _id_of_rows(input_dir: Path, files: list[DataFile], target: str) -> str | None:
    """The id column of the rows to predict, for a description whose 'Target:' line names the
    target and no sample submission: a column of both tables named as an id (``ID``,
    ``row_id``), else the test table's first column when it is a key; ``None`` without a
    training and a test table (hunt O: "Target: Qualität" beside tables with an ``ID`` column
    gave a submission of the target alone, in row order)."""
    train = next((f.path for f in files if f.role == "train"), None)
    test = next((f.path for f in files if f.role == "test"), None)
    if train is None or test is None or not (input_dir / test).is_file():
        return None
    test_cols = _header(input_dir / test)
    return likely_id_column(_header(input_dir / train), test_cols, target) or (
        _first_column_if_key(input_dir / test, test_cols)
        if test_cols and test_cols[0] != target
        else None
    )


def _header_that_fits(
    header: tuple[str, ...] | None,
    input_dir: Path,
    files: list[DataFile],
    predicted: list[str],
    target_line: re.Match[str] | None,
) -> tuple[str, ...] | None:
    """``header`` (the submission's columns a description names) when it fits the data: its
    first column an id (a column of the test table, or any name for files to predict), the
    others columns only the training table has (or, for files, the 'Target:' line's column
    when there is one); else ``None``."""
    if header is None or len(set(header)) != len(header):
        return None
    id_col, targets = header[0], list(header[1:])
    train = next((f.path for f in files if f.role == "train"), None)
    test = next((f.path for f in files if f.role == "test"), None)
    tables = train is not None and test is not None and (input_dir / test).is_file()
    if tables and train is not None and test is not None:
        try:
            train_cols, test_cols = _header(input_dir / train), _header(input_dir / test)
        except (OSError, ValueError):
            return None
        known = predicted or [c for c in train_cols if c not in test_cols]
        fits = id_col in test_cols and all(t in known for t in targets)
        return header if fits else None
    named = _targets_named(target_line) if target_line else None
    return header if len(targets) == 1 and named in (None, targets) else None


def _described_task(
    root: Path,
    input_dir: Path,
    text: str,
    files: list[DataFile],
    sample: DataFile | None,
    metric: tuple[str, Direction],
    columns: tuple[str | None, list[str]],
    *,
    source_format: SourceFormat,
) -> TaskFields:
    """The fields of a task read from a description text (MLE-bench or a bare description)."""
    (metric_name, direction), (id_col, target_cols) = metric, columns
    return TaskFields(
        id=root.name,
        root=root,
        input_dir=input_dir,
        goal=first_paragraph(text),
        metric_name=metric_name,
        direction=direction,
        task_type=infer_task_type(None, metric_name),
        modality=infer_modality(input_dir, files),
        target_cols=tuple(target_cols),
        id_col=id_col,
        files=tuple(files),
        description=text,
        output_format=head_lines(input_dir / sample.path) if sample else "",
        source_format=source_format,
        answers_path=find_answers(root),
    )
