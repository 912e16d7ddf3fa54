"""The reader of a task described in prose (``description.md``, a README, a dataset card)
beside its data: the task's ``TaskFields``, the submission's columns worked out from the
data when no sample submission gives them.
"""

from __future__ import annotations

import re
from itertools import islice
from pathlib import Path

from .description_metric import card_and_metric
from .errors import TaskFormatError
from .fields import DataFile, Direction, SourceFormat, TaskFields
from .infer import (
    complete_files,
    find_answers,
    find_description,
    first_paragraph,
    foreign_tables_hint,
    has_series_files,
    has_training_arrays,
    head_lines,
    infer_modality,
    infer_task_type,
    likely_id_column,
    paired_tables,
    submission_columns,
    unread_files_hint,
)
from .page_text import description_text
from .prose_header import submission_header
from .sample_fit import set_aside_unfit_sample
from .table_columns import columns_only_training_has, first_column_if_key, table_columns
from .target_line import TARGET_LINE, targets_named
from .task_folder import data_subfolder, has_training_data, holds_tables
from .training_parts import training_parts

_TRAIN_MISSING = "no training data found: add train.csv (or a train/ folder) to input/"


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
    data = data_subfolder(root)
    if not input_dir.is_dir() and data is not None:
        input_dir = data  # a data/ folder, as many projects keep one
    elif not input_dir.is_dir() and (
        holds_tables(root) or has_training_data(root, complete_files(root, []))
    ):
        input_dir = root  # the tables (or a train/ folder, or arrays) beside description.md
    if not input_dir.is_dir():
        raise TaskFormatError(
            input_dir,
            "missing: put the task's data files in an input/ folder beside description.md",
        )
    text, card, metric = card_and_metric(root, desc_path, description_text(desc_path))
    files = complete_files(input_dir, [])
    notices: tuple[str, ...] = (f"{desc_path.name}: {card}",) if card else ()
    predicted: list[str] = []  # what the training table holds and the rows to predict lack
    parts = training_parts(input_dir, files)  # X_train/y_train/X_test, or a split column
    files, predicted, one_table = parts.files, parts.targets, parts.one_table
    notices += tuple(parts.notices)
    line = TARGET_LINE.search(text)
    files, said = set_aside_unfit_sample(
        input_dir, files, [*(targets_named(line) if line else []), *predicted]
    )
    notices += (said,) if said else ()
    if not has_training_data(input_dir, files):
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
        predicted = columns_only_training_has(input_dir, files)
    prose = submission_header(text) if sample is None else None  # "header `image,label`"
    header = _header_that_fits(prose, input_dir, files, predicted, TARGET_LINE.search(text))
    if sample is not None:
        id_col, target_cols = submission_columns(input_dir / sample.path)
    elif header is not None:  # the columns the description names: the id, then the target(s)
        id_col, target_cols = header[0], list(header[1:])
        notices += (
            f"{desc_path.name}: no sample_submission.csv; the submission is "
            f"'{','.join(header)}', as {desc_path.name} says",
        )
    elif one_table is not None:  # the rows' id: a column named as one, else a key
        cols = [c for c in table_columns(input_dir / one_table.table) if c != one_table.column]
        target_cols = list(predicted)
        id_col = likely_id_column(cols, cols, predicted[0])
        notices += (
            f"{desc_path.name}: no sample_submission.csv; the submission is "
            f"'{','.join([*([id_col] if id_col else []), *target_cols])}'"
            + ("" if id_col else " in the order of the rows to predict (no column is their id)"),
        )
    elif len(predicted) == 1 and not TARGET_LINE.search(text):
        # the one column the rows to predict lack is the target; the submission is the rows'
        # id (a column named as one) and it
        train = next(f.path for f in files if f.role == "train")
        test = next(f.path for f in files if f.role == "test")
        target_cols = predicted
        test_cols = table_columns(input_dir / test)
        id_col = likely_id_column(
            table_columns(input_dir / train), test_cols, predicted[0]
        ) or first_column_if_key(input_dir / test, test_cols)
        notices += (
            f"{desc_path.name}: no sample_submission.csv; the submission is "
            f"'{','.join([*([id_col] if id_col else []), predicted[0]])}'"
            + ("" if id_col else " in the order of the rows to predict (no column is their id)"),
        )
    else:
        m = TARGET_LINE.search(text)
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
        named = targets_named(m) if m else ["label"]
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
    fields = described_task(
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
    test_cols = table_columns(input_dir / test)
    return likely_id_column(table_columns(input_dir / train), test_cols, target) or (
        first_column_if_key(input_dir / test, test_cols)
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
            train_cols, test_cols = (
                table_columns(input_dir / train),
                table_columns(input_dir / test),
            )
        except (OSError, ValueError):
            return None
        known = predicted or [c for c in train_cols if c not in test_cols]
        fits = id_col in test_cols and all(t in known for t in targets)
        return header if fits else None
    named = targets_named(target_line) if target_line else None
    return header if len(targets) == 1 and named in (None, targets) else None


def described_task(
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


__all__ = ["described_task", "read_description"]
