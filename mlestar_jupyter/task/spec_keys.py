"""Other authors' names for ``task.json``'s fields, read as the TAM-Bench schema's own.

A task file written by someone who never read the schema says ``label`` for ``target_col``,
``evaluation`` for ``metric``, ``description`` for the goal, keeps its data in ``data/`` and may
put the id *column* under ``id``.  ``canonical_spec`` renames such keys (each rename is a notice,
so the user sees how the file was read); a key already in its schema form always wins over an
alias.  ``data_folder`` finds the data folder and ``id_names_a_column`` tells the task's name
from an id column.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from .column_names import find_column
from .errors import TaskFormatError

# schema field -> what other authors call it, most specific first; only values of the right
# shape are taken (a ``data`` string is not a data_information object).
ALIASES: dict[str, tuple[str, ...]] = {
    "goal_description": (
        "goal",
        "objective",
        "task_description",
        "problem_statement",
        "problem_description",
        "problem",
        "prompt",
    ),
    "metric": (
        "evaluation_metric",
        "eval_metric",
        "metric_name",
        "scoring",
        "score_metric",
        "evaluation",
        "eval",  # AIDE's
        "evaluation_measure",  # OpenML's task description
        "evaluation_measures",
        "grader",  # MLE-bench's competition config: {"name": "auc-roc", "grade_fn": ...}
        "metrics",  # a list: the first is scored (``_first_listed_metric``)
        "objective_metric",  # SageMaker's tuning job
        "objective_metric_name",
        "optimization_metric",
        "stopping_metric",  # H2O's
        "score_function",
        "scoring_function",
    ),
    "target_col": (
        "target_cols",
        "target_column",
        "target_columns",
        "target",
        "targets",
        "label_col",
        "label_column",
        "label",
        "y_col",
        "target_feature",  # OpenML's task description
        "default_target_attribute",  # OpenML's dataset description
        "target_attribute",
        "target_name",
        "y",
        "response_column",  # H2O's
        "target_variable",
        "dependent_variable",
        "class_column",
    ),  # (not "labels": the evaluator reads that as the list of classes)
    "id_col": ("id_column", "index_col", "index_column", "id_field", "row_id_col"),
    "task_type": ("problem_type", "type"),
    "data_information": ("data_info", "data", "dataset"),
    # the submission's header as a list (or {"columns": [...]}), its prose description as text
    "submission_columns": ("submission_format", "submission_header", "output_columns"),
    "output_format": ("submission_format", "submission_description"),
    "positive_label": ("positive_class", "pos_label"),
}
_SHAPES: dict[str, tuple[type, ...]] = {
    "goal_description": (str,),
    "metric": (str, dict, list),
    "target_col": (str, list),
    "id_col": (str,),
    "task_type": (str,),
    "data_information": (dict,),
    "submission_columns": (list, dict),
    "output_format": (str,),
    "positive_label": (str, int, float, bool),
}
# flat names of the training and test files -> data_information.<role>.data_location
_FILE_KEYS = {
    "train": (
        "train_file",
        "train_path",
        "train_data",
        "train_csv",
        "training_file",
        "training_data",
        "train",  # "train": "input/train.csv" (a path: a name with a suffix or a folder)
    ),
    "test": (
        "test_file",
        "test_path",
        "test_data",
        "test_csv",
        "testing_file",
        "testing_data",
        "inference_file",
        "holdout_file",
        "predict_file",
        "test",
    ),
    # (not "submission_format": a header or its prose, read as submission_columns/output_format)
    "sample_submission": (
        "sample_submission",
        "sample_submission_file",
        "sample_submission_path",
        "sample_submission_csv",
        "submission_template",
        "submission_template_path",
        "submission_format_path",
        "submission_format_file",
        "submission_example",
        "example_submission",
    ),
}
_BARE_ROLE_KEYS = {"train", "test"}  # read as a file only when the value looks like a path
# the same roles as keys of a "files" object ("files": {"training": "wine_train.csv", ...}), or
# as the "role" of an entry of a "files" list ([{"path": "x.csv", "role": "prediction"}, ...])
_FILES_OBJECT_KEYS = {
    "train": ("train", "training", "train_file", "train_data", "trainset", "labelled", "labeled"),
    "test": (
        "test",
        "testing",
        "test_file",
        "test_data",
        "testset",
        "prediction",
        "predict",
        "inference",
        "holdout",
        "scoring",
        "unlabelled",
        "unlabeled",
    ),
    "sample_submission": (
        "sample_submission",
        "sample",
        "submission",
        "submission_template",
        "template",
        "example_submission",
    ),
}
_FILES_LIST_ROLES = _FILES_OBJECT_KEYS
# what the schema (and this reader) knows besides the fields above
_KNOWN = {
    "id",
    "task_id",
    "task_name",  # ("taskName" in camelCase)
    "name",
    "title",
    "description",
    "output_format",
    "special_instructions",
    "difficulty",
    "leaderboard",
    "constraints",
    "time_limit",
    "import",
    "data_dir",
    "labels",  # the classes, read by the evaluator (``evaluator/submission.py``)
    "positive_label",  # likewise
    "leaderboard_participants",  # read by the evaluator's difficulty
}
# the target aliases that may name several columns ("target": ["a", "b"]); the others name one
_LIST_OK = {"target_cols", "target_columns", "targets", "target"}
DATA_DIR_KEYS = ("data_dir", "input_dir", "data_path", "data_folder")
DATA_FOLDERS = ("input", "data")  # looked for beside task.json, in this order


_FILE_NAME = re.compile(r"(?i)\.(?:csv|tsv|txt|parquet|feather|jsonl?|npy|npz|xlsx?)$")


def canonical_spec(spec: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """``spec`` with other authors' keys renamed to the schema's, and a notice per rename or
    ignored key.  Without a goal, a ``description`` (or ``title``) serves as the goal."""
    spec, cased = _lower_cased(spec)
    spec, notices = _lift_nested(spec)
    notices = cased + notices
    out = dict(spec)
    used: set[str] = set()
    for field, aliases in ALIASES.items():
        if out.get(field):
            continue
        for alias in aliases:
            value = spec.get(alias)
            shapes = (str,) if field == "target_col" and alias not in _LIST_OK else _SHAPES[field]
            if shapes == (str,) and isinstance(value, list) and len(value) == 1:
                value = value[0]  # "target_column": ["price"]: one column, in a list
            given = value not in (None, "") if field == "positive_label" else bool(value)
            if field == "target_col" and isinstance(value, str) and _FILE_NAME.search(value):
                continue  # "y": "y_train.csv" names the labels' file, not a column
            if given and isinstance(value, shapes):
                out[field] = value
                used.add(alias)
                notices.append(f"task.json: read '{alias}' as '{field}'")
                break
    _first_listed_metric(out, notices)
    used |= _ludwig_features(spec, out, notices)
    used |= _flat_direction(spec, out, notices) | _target_by_position(spec, out)
    used |= _flat_quantile(spec, out, notices)
    if not out.get("goal_description"):
        for key in ("description", "title", "task"):
            if isinstance(spec.get(key), str) and spec[key].strip():
                out["goal_description"] = spec[key]
                notices.append(f"task.json: no goal_description; using '{key}' as the goal")
                used.add(key)
                break
    used |= _flat_file_keys(spec, out, notices) | _flat_data_type(spec, out, notices)
    used |= set(DATA_DIR_KEYS)
    unread = sorted(k for k in spec if k not in ALIASES and k not in _KNOWN and k not in used)
    if unread:
        notices.append(f"task.json: fields not read: {', '.join(unread)}")
    return out, notices


# Ludwig's output feature types -> the task's type (others, "set", "text", "sequence" ...: not said)
_LUDWIG_TYPES = {
    "binary": "classification",
    "category": "classification",
    "number": "regression",
    "numerical": "regression",  # (Ludwig before 0.5)
}
# the rest of a Ludwig config: how its model is built and trained
_LUDWIG_SETTINGS = (
    "model_type",
    "trainer",
    "combiner",
    "preprocessing",
    "defaults",
    "hyperopt",
    "backend",
    "ludwig_version",
)
# what Ludwig validates a model by when its config names nothing: the output feature's loss
_LUDWIG_LOSSES = {"classification": "log_loss", "regression": "mse"}


def _ludwig_features(spec: dict[str, Any], out: dict[str, Any], notices: list[str]) -> set[str]:
    """Ludwig's config (``input_features`` / ``output_features``, lists of ``{name, type}``):
    the output features' names as the target (where no other key names one), their type as the
    task's type, and ``trainer.validation_metric`` as the metric, else the loss Ludwig validates
    by (log loss of classes, MSE of numbers); returns the keys read."""
    outputs = spec.get("output_features")
    if not isinstance(outputs, list) or not outputs:
        return set()
    named = [f for f in outputs if isinstance(f, dict) and isinstance(f.get("name"), str)]
    if len(named) != len(outputs):
        return set()
    if not out.get("target_col"):
        names = [str(f["name"]) for f in named]
        out["target_col"] = names[0] if len(names) == 1 else names
        notices.append(f"task.json: read Ludwig's output_features as the target: {names}")
    kinds = {_LUDWIG_TYPES.get(str(f.get("type", "")).lower()) for f in named}
    kind = kinds.pop() if len(kinds) == 1 else None
    if kind is not None and not out.get("task_type"):
        out["task_type"] = kind
        notices.append(f"task.json: the output features' type ({named[0].get('type')}) is {kind}")
    trainer = spec.get("trainer") if isinstance(spec.get("trainer"), dict) else {}
    said = trainer.get("validation_metric") if isinstance(trainer, dict) else None
    if not out.get("metric") and isinstance(said, str) and said != "loss":
        out["metric"] = said
        notices.append("task.json: read Ludwig's trainer.validation_metric as the metric")
    elif not out.get("metric") and kind is not None:
        out["metric"] = _LUDWIG_LOSSES[kind]
        notices.append(
            f"task.json: no metric; {out['metric']}, the loss Ludwig validates a {kind} output "
            "by (add 'metric' to grade by another)"
        )
    settings = [k for k in _LUDWIG_SETTINGS if k in spec and not (k == "trainer" and said)]
    if settings:
        notices.append(
            f"task.json: Ludwig's model settings ({', '.join(settings)}) are not read: the run "
            "chooses its own models"
        )
    return {"output_features", "input_features", "trainer", *settings}


# the quantile a pinball loss named beside it grades (AutoGluon's "quantile_levels": [0.9])
_QUANTILE_KEYS = ("quantile_levels", "quantiles", "quantile", "alpha")


def _flat_quantile(spec: dict[str, Any], out: dict[str, Any], notices: list[str]) -> set[str]:
    """A top-level quantile beside ``"metric": "pinball_loss"`` as the metric's ``alpha``;
    several quantiles name the pinball loss of each (refused: one is graded); returns the key
    read."""
    metric = out.get("metric")
    if not isinstance(metric, str) or not re.search(r"(?i)pinball|quantile", metric):
        return set()
    for key in _QUANTILE_KEYS:
        value = spec.get(key)
        values = value if isinstance(value, list) else [value]
        if not values or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in values
        ):
            continue
        if len(values) == 1:
            out["metric"] = {"name": metric, "alpha": values[0]}
        else:  # "pinball loss 0.1, 0.5, 0.9": the refusal of several quantiles
            out["metric"] = f"{metric} {', '.join(f'{v:g}' for v in values)}"
        notices.append(f"task.json: read '{key}' as the pinball loss's quantile ({value})")
        return {key}
    return set()


# the target named by its place among the training table's columns ("target": 13, "class_index":
# -1 as Weka's "last"): the reader matches it to the header (``spec_reader._target_at``)
TARGET_INDEX_KEYS = (
    "target_index",
    "target_column_index",
    "target_col_index",
    "label_index",
    "label_column_index",
    "class_index",
)


def _target_by_position(spec: dict[str, Any], out: dict[str, Any]) -> set[str]:
    """``out["target_position"] = (key, index)`` for a target given as a column's place (no
    target named); returns the key read."""
    if out.get("target_col"):
        return set()
    for key in (*ALIASES["target_col"], "target_col", *TARGET_INDEX_KEYS):
        value = spec.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            out["target_position"] = (key, value)
            return {key}
    return set()


def _first_listed_metric(out: dict[str, Any], notices: list[str]) -> None:
    """A ``metric`` given as a list (the AutoML benchmark's ``metric: [acc, logloss]``: the
    first is the one scored, the others reported) read as its first entry, with a notice."""
    listed = out.get("metric")
    if not isinstance(listed, list):
        return
    named = [m for m in listed if isinstance(m, (str, dict)) and m]
    if not named:
        out.pop("metric")
        return
    out["metric"] = named[0]
    if len(named) > 1:
        first = named[0] if isinstance(named[0], str) else metric_fields(named[0])[0]
        notices.append(
            f"task.json: 'metric' lists {len(named)} metrics; the first, {first!r}, is the one "
            "scored"
        )


def positive_label(spec: dict[str, Any]) -> str | None:
    """The class a canonical ``spec`` names positive (``positive_label``), as text the way the
    evaluator grades it (``"1.0"`` -> ``"1"``), or ``None`` when it names none."""
    value = spec.get("positive_label")
    if value is None or isinstance(value, (dict, list)) or str(value).strip() == "":
        return None
    text = str(value).strip()
    return text.split(".")[0].lstrip("+") or "0" if re.fullmatch(r"[+-]?\d+\.0*", text) else text


def _lower_cased(spec: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """``spec`` with keys written with capitals (``"Metric"``, ``"Target"``, ``"ID"``) renamed
    to the known key they spell, where that key is not there as written; a notice per rename
    (hunt F, session 28: "field 'metric' missing" beside ``"Metric"``), and keys written in
    camelCase (``"evalMetric"``, ``"targetColumn"``, ``"trainFile"``) to the snake_case key they
    spell (hunt Q: such a file was refused for a missing metric)."""
    known = {*ALIASES, *(a for aliases in ALIASES.values() for a in aliases), *_KNOWN}
    known |= {*DATA_DIR_KEYS, *_NESTS, *DIRECTION_KEYS, *TARGET_INDEX_KEYS, *_QUANTILE_KEYS}
    known |= {"description", "title", "files"}
    known |= {k for keys in _FILE_KEYS.values() for k in keys}
    out: dict[str, Any] = {}
    notices = []
    for key, value in spec.items():
        lower = key.lower() if isinstance(key, str) else key
        if isinstance(key, str) and lower not in known:
            lower = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", key).lower()  # evalMetric
        if key not in known and lower in known and lower not in spec and lower not in out:
            out[lower] = value
            notices.append(f"task.json: read '{key}' as '{lower}'")
        else:
            out[key] = value
    return out, notices


# objects other authors nest the flat fields in: "data": {"train": ..., "target": ...}
_NESTS = ("data", "dataset", "columns", "task")


def _lift_nested(spec: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """``spec`` with the fields of a ``data`` (``dataset``, ``columns``, ``task``) object of
    names and paths lifted to the top, where no field of that name is (``"data": {"train":
    "train.csv", "target": "label"}``), and a notice per object; an object of the schema's own
    ``data_information`` shape (an object per file) is left alone."""
    out = dict(spec)
    notices = []
    for nest in _NESTS:
        inner = spec.get(nest)
        if not isinstance(inner, dict) or not inner:
            continue
        flat = {k: v for k, v in inner.items() if isinstance(v, str | list | int | float | bool)}
        if len(flat) < len(inner) / 2:  # mostly objects: the schema's data_information
            continue
        lifted = [k for k in flat if k not in spec]
        if not lifted:
            continue
        out.pop(nest)
        out |= {k: flat[k] for k in lifted}
        notices.append(
            f"task.json: read the fields of '{nest}' as the file's own: "
            + ", ".join(f"'{nest}.{k}'" for k in lifted)
        )
    return out, notices


def _flat_file_keys(spec: dict[str, Any], out: dict[str, Any], notices: list[str]) -> set[str]:
    """``train_file``/``test_file`` style keys as ``data_information.<role>.data_location``;
    returns the keys read."""
    info = out.get("data_information")
    info = dict(info) if isinstance(info, dict) else {}
    used: set[str] = set()
    given = spec.get("files")
    files: dict[str, Any] = given if isinstance(given, dict) else {}
    listed = _listed_roles(given) if isinstance(given, list) else {}
    for role, keys in _FILE_KEYS.items():
        part = info.get(role)
        if isinstance(part, dict) and part.get("data_location"):
            continue
        key = next(
            (
                k
                for k in keys
                if isinstance(spec.get(k), str)
                and spec[k].strip()
                and (k not in _BARE_ROLE_KEYS or re.search(r"[./\\]", spec[k]))
            ),
            None,
        )
        value = spec.get(key) if key else None
        named = next(
            (
                k
                for k in _FILES_OBJECT_KEYS[role]
                if isinstance(files.get(k), str) and files[k].strip()
            ),
            None,
        )
        if key is None and named is not None:
            key, value = f"files.{named}", files[named]  # "files": {"train": "train.csv", ...}
        if key is None and role in listed:
            key, value = f"files[role={listed[role][0]}]", listed[role][1]
        if key is None:
            continue
        info[role] = {**(part if isinstance(part, dict) else {}), "data_location": value}
        used.add(re.split(r"[.[]", key)[0])
        notices.append(f"task.json: read '{key}' as 'data_information.{role}.data_location'")
    if info:
        out["data_information"] = info
    return used


# an entry of a "files" list: where its path is and what says its role, as other authors write
# them ({"fileName": "wine_train.csv", "split": "train"}: hunt Q)
_ENTRY_PATH_KEYS = ("path", "name", "file", "filename", "file_name", "fileName", "location")
_ENTRY_ROLE_KEYS = ("role", "type", "split", "usage", "purpose", "kind")


def _listed_roles(entries: list[Any]) -> dict[str, tuple[str, str]]:
    """``{"train": (its role word, its path), ...}`` of a ``files`` list's entries whose role
    (or ``type``) says training or test data."""
    out: dict[str, tuple[str, str]] = {}
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        path = next((entry[k] for k in _ENTRY_PATH_KEYS if isinstance(entry.get(k), str)), "")
        word = str(next((entry[k] for k in _ENTRY_ROLE_KEYS if entry.get(k)), "")).strip().lower()
        for role, words in _FILES_LIST_ROLES.items():
            if path.strip() and word in words:
                out.setdefault(role, (word, path.strip()))
    return out


def _flat_data_type(spec: dict[str, Any], out: dict[str, Any], notices: list[str]) -> set[str]:
    """A top-level ``data_type`` (or ``modality``: ``"Image"``, ``"text"``) as
    ``data_information.data_type``; returns the key read."""
    info = out.get("data_information")
    info = dict(info) if isinstance(info, dict) else {}
    if info.get("data_type"):
        return set()
    key = next(
        (k for k in _DATA_TYPE_KEYS if isinstance(spec.get(k), str) and spec[k].strip()), None
    )
    if key is None:
        return set()
    out["data_information"] = {**info, "data_type": spec[key]}
    notices.append(f"task.json: read '{key}' as 'data_information.data_type'")
    return {key}


_DATA_TYPE_KEYS = ("data_type", "modality", "data_modality")


def snake_case(key: str) -> str:
    """``key`` in snake_case: ``metricName`` is ``metric_name``, ``Name`` is ``name``."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", key).lower()


def metric_fields(metric: Any) -> tuple[str | None, dict[str, Any]]:
    """The metric's name and its other fields from a ``metric`` value: a name (or a sentence
    naming one), or an object with ``metric_name`` (or ``name``/``metric``/``type``), and
    ``direction`` or ``greater_is_better``/``higher_is_better``."""
    if not isinstance(metric, dict):
        return (str(metric) if metric else None), {}
    # {"metricName": "F1 (macro)"}, {"Name": ...}: camelCase and capitals as snake_case (hunt U)
    metric = {**{snake_case(k): v for k, v in metric.items() if isinstance(k, str)}, **metric}
    name = next(
        (metric[k] for k in ("metric_name", "name", "metric", "type") if metric.get(k)), None
    )
    fields = dict(metric)
    average = metric.get("average")
    if isinstance(name, str) and isinstance(average, str) and average.strip():
        # {"name": "F1", "average": "macro"}: the averaged metric ("f1 macro")
        if average.strip().lower() in ("macro", "micro", "weighted") and "_" not in name:
            name = f"{name} {average.strip().lower()}"
    for key in ("beta", "alpha", "quantile", "k"):  # {"name": "fbeta", "beta": 2}: F2
        value = metric.get(key)
        if (
            isinstance(name, str)
            and isinstance(value, (int, float))
            and not isinstance(value, bool)
        ):
            said = re.search(rf"\b{key}\s*=", name, re.I)  # fbeta_score(beta=2) says it
            name = name if said else f"{name} {key}={value:g}"
    stated = stated_direction(metric)
    if stated is not None:
        fields["direction"] = stated[1]
    return (str(name) if name else None), fields


# what says which way a metric is better, in its object or beside it: a word ("direction":
# "maximize") or a flag (true: higher is better for the first group, lower for the second);
# camelCase spellings ("greaterIsBetter") are read as their snake_case ones
DIRECTION_WORD_KEYS = ("direction", "metric_direction", "optimization_direction")
_HIGHER_KEYS = ("greater_is_better", "higher_is_better", "larger_is_better", "maximize", "maximise")
_LOWER_KEYS = ("lower_is_better", "smaller_is_better", "minimize", "minimise")
DIRECTION_KEYS = (*DIRECTION_WORD_KEYS, *_HIGHER_KEYS, *_LOWER_KEYS)


def stated_direction(obj: dict[str, Any]) -> tuple[str, str] | None:
    """(the key as written, its direction: ``"maximize"``/``"minimize"``, or a word as written
    for ``resolve_metric`` to read) of what ``obj`` says of its metric's direction; ``None``
    when it says nothing."""
    for key, value in obj.items():
        snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", str(key)).lower()
        if snake in DIRECTION_WORD_KEYS and isinstance(value, str) and value.strip():
            return str(key), value.strip()
        flag = _flag(value)
        if flag is not None and snake in _HIGHER_KEYS:
            return str(key), "maximize" if flag else "minimize"
        if flag is not None and snake in _LOWER_KEYS:
            return str(key), "minimize" if flag else "maximize"
    return None


_DIRECTION_WORDS = {
    "maximize": ("max", "maximise", "higher", "higher_is_better", "greater", "larger"),
    "minimize": ("min", "minimise", "lower", "lower_is_better", "smaller", "less"),
}


def direction_word(value: Any) -> str | None:
    """``"maximize"`` or ``"minimize"`` for a word saying so (``"max"``, ``"higher is better"``,
    ``"Minimise"``); ``None`` for anything else."""
    word = re.sub(r"[\s-]+", "_", str(value).strip().lower())
    return next((d for d, w in _DIRECTION_WORDS.items() if word == d or word in w), None)


def _flag(value: Any) -> bool | None:
    """A yes/no flag: a boolean, or ``"true"``/``"false"`` written as text (``None``: neither)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return None


def _flat_direction(spec: dict[str, Any], out: dict[str, Any], notices: list[str]) -> set[str]:
    """A top-level ``greater_is_better`` (``higher_is_better``, ``direction``, ...) beside
    ``"metric": "..."`` as the metric's direction (a metric object's own wins); returns the key
    read."""
    metric = out.get("metric")
    top = {k: v for k, v in spec.items() if k in DIRECTION_KEYS}
    stated = stated_direction(top)
    if stated is None or not metric or not isinstance(metric, (str, dict)):
        return set()
    if direction_word(stated[1]) is None:  # "direction": a sentence of another kind
        return set()
    if isinstance(metric, dict):
        if stated_direction(metric) is not None:
            return set()
        out["metric"] = {**metric, "direction": stated[1]}
    else:
        out["metric"] = {"name": metric, "direction": stated[1]}
    notices.append(f"task.json: read '{stated[0]}' as the metric's direction ({stated[1]})")
    return {stated[0]}


def data_folder(root: Path, spec: dict[str, Any], tj: Path) -> tuple[Path, list[str]]:
    """The folder holding the task's data: the one ``data_dir`` names (relative to the task
    folder), else ``input/``, else ``data/``, else the tables beside task.json (``_beside``);
    none: a ``TaskFormatError`` saying what to make."""
    here = False  # data_dir "." names the task folder itself
    for key in DATA_DIR_KEYS:
        named = spec.get(key)
        if isinstance(named, str) and named.strip():
            folder = (root / named.strip()).resolve()
            if not folder.is_dir():
                raise TaskFormatError(
                    tj, f"'{key}' names {named!r}, which is no folder beside task.json"
                )
            if folder == root:
                here = True
                break
            if root not in folder.parents:
                raise TaskFormatError(
                    tj,
                    f"'{key}' must name a folder inside the task folder (not {named!r}): runs "
                    "mount it read-only as ./input",
                )
            return folder, [f"task.json: data read from {folder.name}/ ('{key}')"]
    loose, answers = _loose_tables(root)
    named = None if here else _folder_of_named_files(root, spec, answers, tj)
    if named is not None:
        return named
    beside = _beside(root, loose, answers, first=here)
    if beside is not None:
        return beside
    hint = (
        f" (found {', '.join(loose[:4])} beside task.json: move them into input/, so that the "
        f"run's code cannot read {answers.relative_to(root)} beside them)"
        if loose and answers is not None
        else ""
    )
    raise TaskFormatError(
        root / "input",
        f"missing: put the task's data files in an input/ folder beside task.json{hint}",
    )


def _folder_of_named_files(
    root: Path, spec: dict[str, Any], answers: Path | None, tj: Path
) -> tuple[Path, list[str]] | None:
    """The folder holding the files ``data_information`` names by paths from the task folder,
    when that is a folder other than ``input/``/``data/`` (``"train_file": "raw/fit.csv"``,
    ``"files": {"train": "datasets/v2/train.csv"}``): the deepest folder holding them all, the
    task folder itself when they lie in several (``fit/fit.csv`` and ``score/score.csv``).
    ``None``: no such paths, or they lie in ``input/``/``data/`` or beside task.json.  A path
    naming a file outside the task folder (``../shared/train.csv``), or a folder holding the
    grading answers as well, is refused (``TaskFormatError``): a run sees only the task folder."""
    info = spec.get("data_information")
    found: list[Path] = []
    for field, part in info.items() if isinstance(info, dict) else ():
        locations = part.get("data_location") if isinstance(part, dict) else None
        for loc in locations if isinstance(locations, list) else [locations]:
            rel = str(loc).strip().replace("\\", "/").removeprefix("./") if loc else ""
            if not rel or "/" not in rel:
                continue
            path = (root / rel).resolve()
            _inside(root, path, f"data_information.{field}.data_location", rel, tj)
            if rel.startswith("/") or ".." in rel.split("/"):
                continue
            if path.exists() and root in path.parents:
                found.append(path.parent)
    if not found:
        return None
    folder = Path(os.path.commonpath(found))
    tops = sorted({p.relative_to(root).parts[0] for p in found if p != root})
    if folder == root and (len(tops) < 2 or set(tops) <= set(DATA_FOLDERS)):
        return None
    if folder != root and folder.relative_to(root).parts[0] in DATA_FOLDERS:
        return None
    if answers is not None and folder in (answers, *answers.parents):
        held = (
            ", ".join(f"{t}/" for t in tops) if folder == root else f"{folder.relative_to(root)}/"
        )
        raise TaskFormatError(
            tj,
            f"the data files it names lie in {held} and the grading answers in "
            f"{answers.relative_to(root)}, inside the folder a run's code would read "
            f"({'the task folder' if folder == root else held}): "
            + (
                "put the data files in one folder (input/)"
                if folder == root
                else "move the answers out of that folder"
            )
            + ", since a run's code reads all of it",
        )
    if folder == root:
        shown = ", ".join(f"{t}/" for t in tops)
        return folder, [f"task.json: data read from the task folder (its file paths name {shown})"]
    rel_folder = folder.relative_to(root).as_posix()
    return folder, [f"task.json: data read from {rel_folder}/ (the folder its file paths name)"]


def _inside(root: Path, path: Path, field: str, named: str, tj: Path) -> None:
    """Refuse ``path`` (``named`` at ``field``) when it is a file or folder outside the task
    folder ``root``: a run mounts only the task's data folder, so its code could not read it.
    A path that names nothing (``/kaggle/input/comp/train.csv``) is left to be matched by its
    tail inside the data folder."""
    if path.exists() and path != root and root not in path.parents:
        raise TaskFormatError(
            tj,
            f"{field} names {named!r}, which lies outside the task folder ({path}): a run reads "
            f"only the task folder's data; copy the file into {root / 'input'} and name it "
            "from there",
        )


def _loose_tables(root: Path) -> tuple[list[str], Path | None]:
    """The tables beside task.json (their names) and the grading answers' file (``None``: none
    found), read once for both the folder's choice and the error that none was found."""
    from .infer import find_answers
    from .layout.model import TABLE_EXT  # (the layout package imports the task model)
    from .other_tables import is_delimited_text_table

    # and ``train.txt`` / ``test.txt`` separated by tabs or spaces (hunt U: "input/ missing")
    loose = sorted(
        p.name
        for p in root.iterdir()
        if p.name.lower().endswith(TABLE_EXT)
        or (p.name.lower().startswith(("train", "test")) and is_delimited_text_table(p))
    )
    return loose, find_answers(root)


def _beside(
    root: Path, loose: list[str], answers: Path | None, *, first: bool = False
) -> tuple[Path, list[str]] | None:
    """``input/`` or ``data/`` beside task.json; with ``first``, the tables beside task.json
    (``loose``) themselves before those folders (``data_dir: "."``), unless the grading
    ``answers`` lie there too (a run's code would read them); ``None``: neither."""
    tables = bool(loose) and not (answers is not None and root in answers.parents)
    said = [f"no input/ folder: data read from beside task.json ({', '.join(loose[:4])})"]
    if first and tables:
        return root, said
    for name in DATA_FOLDERS:
        if (root / name).is_dir():
            return root / name, [] if name == "input" else [
                f"no input/ folder: data read from {name}/"
            ]
    if tables:  # the tables beside task.json, as they are beside a description.md
        return root, said
    return None


def id_names_a_column(spec: dict[str, Any], train_cols: list[str]) -> str | None:
    """The training table's column that ``spec['id']`` names when the author meant the id
    column by it (no ``id_col`` given, and the value is one of the table's columns), else None."""
    value = spec.get("id")
    if spec.get("id_col") or not isinstance(value, str):
        return None
    return find_column(value.strip(), train_cols)
