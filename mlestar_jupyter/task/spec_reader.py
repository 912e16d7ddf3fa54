"""The reader of a TAM-Bench task file (``task.json`` or ``task.yaml``, other authors' field
names too: ``spec_keys``) beside its data: the task's ``TaskFields``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..metrics import metric_names
from .errors import TaskFormatError
from .features_labels import features_and_labels
from .fields import DataFile, FileRole, TaskFields
from .infer import (
    complete_files,
    find_answers,
    infer_modality,
    infer_task_type,
    likely_id_column,
    modality_from_words,
    resolve_metric,
    split_instructions,
    submission_columns,
    unread_files_hint,
)
from .locations import reconcile_columns, resolve_data_location, train_header
from .sample_fit import set_aside_unfit_sample
from .spec_file import read_spec, task_file
from .spec_keys import (
    canonical_spec,
    data_folder,
    direction_word,
    id_names_a_column,
    metric_fields,
    positive_label,
    snake_case,
)
from .task_folder import has_training_data
from .training_parts import training_parts


def read_tam_bench(root: Path) -> TaskFields:
    """A folder holding a TAM-Bench ``task.json`` beside ``input/`` (other authors' field names
    and a ``data/`` folder are read too, see ``spec_keys.py``)."""
    tj = task_file(root) or root / "task.json"
    spec, notices = canonical_spec(read_spec(tj))
    input_dir, said = data_folder(root, spec, tj)
    notices += said
    goal = spec.get("goal_description")
    metric_name, direction, said = _spec_metric(tj, spec.get("metric"))
    notices += said
    info = spec.get("data_information") or {}
    target = spec.get("target_col") or ()
    files, said = _spec_files(
        tj, input_dir, info, [target] if isinstance(target, str) else [str(t) for t in target]
    )
    notices += said
    task_id = spec.get("task_id") or spec.get("name") or spec.get("task_name") or root.name
    id_column = id_names_a_column(spec, _training_columns(input_dir, files))
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
            (
                n.replace("task.json:", f"{tj.name}:", 1) if n.startswith("task.json:") else n
            ).replace("beside task.json", f"beside {tj.name}")
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


def _spec_metric(tj: Path, metric_spec: Any) -> tuple[str, Any, list[str]]:
    """The metric's name and direction from ``task.json``'s ``metric`` field, and a notice when
    the direction it states is that of a scikit-learn ``neg_`` scorer (the negated error)."""
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
    name, direction = resolve_metric(tj, raw, spec)
    if spec.get("direction") and direction_word(spec["direction"]) != direction:
        return (
            name,
            direction,
            [
                f"task.json: {raw!r} is scikit-learn's negated {name} (higher is better); graded "
                f"as {name} itself, lower is better"
            ],
        )
    return name, direction, []


# data_information's keys -> the file's role (the schema names train and test; other authors
# name the sample submission there too)
_INFO_ROLES: tuple[tuple[FileRole, str], ...] = (
    ("train", "train"),
    ("test", "test"),
    ("sample_submission", "sample_submission"),
    ("sample_submission", "submission"),
)


# data_information's keys as other authors spell them ("trainData": {"dataLocation": ...})
_INFO_KEYS = {
    "train": ("train_data", "training_data", "train_set", "training_set", "training", "train_file"),
    "test": ("test_data", "testing_data", "test_set", "testing_set", "testing", "test_file"),
    "sample_submission": ("sample_submission_file", "sample_submission_data"),
}
_LOCATION_KEYS = ("data_location", "location", "path", "file", "file_path", "filename")


def _info_spelled(info: dict[str, Any]) -> dict[str, Any]:
    """``data_information`` with its keys in the schema's spelling: camelCase as snake_case,
    ``train_data`` / ``training_set`` as ``train``, a file's ``path`` (``dataLocation``) as its
    ``data_location``, and a bare file name as ``{"data_location": name}`` (hunt U: "no training
    data found" beside ``"trainData": {"dataLocation": "wine_train.csv"}``)."""
    if not isinstance(info, dict):
        return info
    snake = {snake_case(k): v for k, v in info.items() if isinstance(k, str)}
    out = dict(info)
    for role, spellings in _INFO_KEYS.items():
        key = next((k for k in (role, *spellings) if k in snake), None)
        if key is None or (role in out and isinstance(out[role], dict)):
            continue
        part = snake[key]
        if isinstance(part, str):
            part = {"data_location": part}
        if isinstance(part, dict) and "data_location" not in part:
            inner = {snake_case(k): v for k, v in part.items() if isinstance(k, str)}
            where = next((inner[k] for k in _LOCATION_KEYS if inner.get(k)), None)
            part = {**part, "data_location": where} if where is not None else part
        out[role] = part
    return out


def _spec_files(
    tj: Path, input_dir: Path, info: dict[str, Any], targets: list[str]
) -> tuple[list[DataFile], list[str]]:
    """The input files ``data_information`` names (then every other entry of ``input/``) and
    the notices of how its names were matched; a sample submission found by its name that fits
    neither the id nor ``targets`` (``target_col``) is left an extra file
    (``sample_fit``)."""
    files: list[DataFile] = []
    notices: list[str] = []
    info = _info_spelled(info)
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
    given = frozenset(f.path for f in files)  # the files data_information names
    parts = training_parts(input_dir, complete_files(input_dir, files), given)
    files = parts.files  # X_train/y_train/X_test, or a table with a split column
    notices += parts.notices
    if not named:  # a sample found by its name: an old submission.csv is none
        files, said = set_aside_unfit_sample(input_dir, files, targets)
        notices += [said] if said else []
    if input_dir.resolve() == tj.parent.resolve():  # the task folder is the data folder: its
        # task.json is no input a solution should read (data_dir ".", paths in several folders)
        files = [f for f in files if not (f.role == "extra" and f.path == tj.name)]
    if not has_training_data(input_dir, files):
        raise TaskFormatError(
            input_dir,
            "no training data found: add train.csv (or a train/ folder) to input/, or name it in "
            "data_information.train.data_location" + unread_files_hint(input_dir),
        )
    return files, notices


def _target_at(
    tj: Path, position: tuple[str, int], header: list[str], test_cols: list[str]
) -> tuple[str, str]:
    """The column a target given by its place names (counted from 0, negative from the end),
    and the notice saying so; counted from 1 when only that reading names the one column the
    test table lacks (R's and Weka's count)."""
    key, index = position
    if not header:
        raise TaskFormatError(
            tj,
            f"'{key}': {index} names a column by its place, but the training table's "
            "columns cannot be read; name the target column instead",
        )
    zero = header[index] if -len(header) <= index < len(header) else None
    one = header[index - 1] if 1 <= index <= len(header) else None
    lacked = [c for c in header if c not in test_cols] if test_cols else []
    if one is not None and lacked == [one] and zero != one:
        column, counted = one, "counted from 1, the column the test table lacks"
    elif zero is not None:
        column, counted = zero, "counted from 0"
    else:
        raise TaskFormatError(
            tj,
            f"'{key}': {index} is no column of the training table ({len(header)} columns, "
            f"counted from 0: {', '.join(header[:8])}{' ...' if len(header) > 8 else ''}); "
            "name the target column instead",
        )
    return column, f"task.json: '{key}': {index} read as the target column '{column}' ({counted})"


def _training_columns(input_dir: Path, files: list[DataFile]) -> list[str]:
    """The training table's columns: its header, and the labels of a features table beside its
    labels table (``X_train.csv`` and ``y_train.csv``: ``features_labels``)."""
    header = train_header(input_dir, files)
    split = features_and_labels(input_dir)
    train = next((f.path for f in files if f.role == "train"), None)
    if split is not None and train == split.x_train:
        return [*header, *(t for t in split.targets if t not in header)]
    return header


def _spec_columns(
    tj: Path, input_dir: Path, spec: dict[str, Any], files: list[DataFile]
) -> tuple[str | None, list[str], list[str]]:
    """The id and target columns (``id_col``/``target_col``, else the sample submission's) and
    the notices of how the named ones were matched to the files' headers."""
    sample = next((f for f in files if f.role == "sample_submission"), None)
    id_col, target_cols = submission_columns(input_dir / sample.path) if sample else (None, [])
    heads = ([id_col] if id_col else []) + target_cols, _training_columns(input_dir, files)
    notices: list[str] = []
    target_spec = spec.get("target_col")
    if target_spec:
        tcs = [target_spec] if isinstance(target_spec, str) else list(target_spec)
        named, said = reconcile_columns("target_col", [str(t) for t in tcs if t], *heads)
        target_cols, notices = named or target_cols, notices + said
    test_cols = train_header(
        input_dir, [DataFile(f.path, "train") for f in files if f.role == "test"]
    )
    if not target_spec and spec.get("target_position"):  # "target": 13
        target, placed = _target_at(tj, spec["target_position"], heads[1], test_cols)
        target_cols, notices = [target], [*notices, placed]
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


__all__ = ["read_tam_bench"]
