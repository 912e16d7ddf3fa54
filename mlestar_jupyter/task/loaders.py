"""Build a ``Task`` from a folder: TAM-Bench ``task.json``, MLE-bench competition, or plain description.

What a folder leaves out is inferred: the metric's direction from its name, the id and target
columns from the sample submission, the modality from the file types.  A folder that cannot make a
task fails here, once, with a ``TaskFormatError`` naming the file and the fix.
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path
from typing import Any

from ..messages import quote
from ..metrics import UnknownMetricError, get_metric
from .errors import TaskFormatError
from .locations import reconcile_columns, resolve_data_location, train_header
from .model import DataFile, Modality, Task, TaskType

IMAGE_EXT = {".png", ".jpg", ".jpeg", ".bmp", ".gif", ".tif", ".tiff", ".webp"}
AUDIO_EXT = {".wav", ".mp3", ".flac", ".ogg", ".aiff", ".au"}
DATA_TYPE_WORDS: dict[str, Modality] = {
    "tabular": "tabular",
    "table": "tabular",
    "text": "text",
    "nlp": "text",
    "image": "image",
    "vision": "image",
    "audio": "audio",
    "speech": "audio",
    "sound": "audio",
    "time series": "time_series",
    "time-series": "time_series",
    "timeseries": "time_series",
    "signal": "time_series",
    "sequence": "time_series",
}
CLASSIFICATION_METRICS = {
    "accuracy",
    "balanced_accuracy",
    "f1_macro",
    "f1",
    "roc_auc",
    "log_loss",
    "qwk",
    "mcc",
}


def load_task(path: str | Path) -> Task:
    """Load the task folder at ``path`` in whichever format it is."""
    root = Path(path).expanduser().resolve()
    if not root.exists():
        raise TaskFormatError(
            root,
            "no such folder; pass the task folder (the one holding task.json or description.md)",
        )
    if root.is_file():
        if root.name == "task.json":
            root = root.parent
        else:
            raise TaskFormatError(
                root, "expected a task folder, got a file; pass the folder that holds it"
            )
    if (root / "task.json").exists():
        return from_tam_bench(root)
    if (root / "prepared" / "public").is_dir() or _has_mlebench_files(root):
        return from_mlebench(root)
    if _find_description(root) is not None:
        return from_description(root)
    raise TaskFormatError(
        root,
        "not a task folder: add task.json (TAM-Bench schema) beside input/, or description.md beside input/ "
        "(or MLE-bench style train.csv/test.csv/sample_submission.csv)",
    )


# --------------------------------------------------------------------------- TAM-Bench
def from_tam_bench(root: Path) -> Task:
    """A folder holding a TAM-Bench ``task.json`` beside ``input/``."""
    tj = root / "task.json"
    try:
        spec = json.loads(tj.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise TaskFormatError(
            tj, f"is not valid JSON (line {e.lineno}, column {e.colno}: {e.msg}); fix the syntax"
        ) from None
    except OSError as e:
        raise TaskFormatError(tj, f"cannot be read ({e.strerror}); check its permissions") from None
    if not isinstance(spec, dict):
        raise TaskFormatError(
            tj, "must hold a JSON object with fields goal_description, metric, data_information"
        )
    input_dir = root / "input"
    if not input_dir.is_dir():
        raise TaskFormatError(
            input_dir, "missing: put the task's data files in an input/ folder beside task.json"
        )
    goal = spec.get("goal_description") or spec.get("goal")
    if not goal:
        raise TaskFormatError(
            tj, "field 'goal_description' missing: say in one or two sentences what to predict"
        )
    metric_spec = spec.get("metric")
    if metric_spec is None:
        raise TaskFormatError(
            tj,
            f"field 'metric' missing (expected {{'metric_name': one of: {', '.join(_metric_names())}}})",
        )
    metric_name_raw = (
        metric_spec.get("metric_name") if isinstance(metric_spec, dict) else str(metric_spec)
    )
    if not metric_name_raw:
        raise TaskFormatError(
            tj,
            f"field 'metric.metric_name' missing (expected one of: {', '.join(_metric_names())})",
        )
    metric_name, direction = _resolve_metric(
        tj, metric_name_raw, metric_spec if isinstance(metric_spec, dict) else {}
    )

    info = spec.get("data_information") or {}
    files: list[DataFile] = []
    notices: list[str] = []
    for role in ("train", "test"):
        part = info.get(role) or {}
        field = f"data_information.{role}.data_location"
        for loc in resolve_data_location(input_dir, field, part.get("data_location"), tj):
            notices += [loc.notice] if loc.notice else []
            for entry in loc.entries:
                if all(f.path != entry or f.role != role for f in files):
                    files.append(DataFile(entry, role, part.get("data_description", "")))  # type: ignore[arg-type]
    files = _complete_files(input_dir, files)
    if not any(f.role == "train" for f in files):
        raise TaskFormatError(
            input_dir,
            "no training data found: add train.csv (or a train/ folder) to input/, or name it in data_information.train.data_location",
        )

    sample = next((f for f in files if f.role == "sample_submission"), None)
    id_col, target_cols = _submission_columns(input_dir / sample.path) if sample else (None, [])
    heads = ([id_col] if id_col else []) + target_cols, train_header(input_dir, files)
    target_spec = spec.get("target_col")
    if target_spec:
        tcs = [target_spec] if isinstance(target_spec, str) else list(target_spec)
        named, said = reconcile_columns("target_col", [str(t) for t in tcs if t], *heads)
        target_cols, notices = named or target_cols, notices + said
    if spec.get("id_col"):
        (id_col,), said = reconcile_columns("id_col", [str(spec["id_col"])], *heads)
        notices += said
    if not target_cols:
        raise TaskFormatError(
            tj,
            "cannot tell the target column: set 'target_col', or add sample_submission.csv to input/",
        )
    modality = _modality_from_words(str(info.get("data_type", ""))) or _infer_modality(
        input_dir, files
    )
    task_type = _task_type(spec.get("task_type"), metric_name)
    instr = spec.get("special_instructions") or []
    instructions = _split_instructions(instr)
    answers = _find_answers(root)
    return Task(
        id=str(spec.get("id") or spec.get("task_id") or root.name),
        root=root,
        input_dir=input_dir,
        goal=str(goal),
        metric_name=metric_name,
        direction=direction,
        task_type=task_type,
        modality=modality,
        target_cols=tuple(target_cols),
        id_col=id_col,
        files=tuple(files),
        description=str(spec.get("description", "")),
        output_format=str(spec.get("output_format", "")).replace("\\n", "\n"),
        special_instructions=tuple(instructions),
        source_format="tam_bench",
        answers_path=answers,
        notices=tuple(notices),
        extra={k: v for k, v in spec.items() if k in ("leaderboard", "constraints", "time_limit")},
    )


# --------------------------------------------------------------------------- MLE-bench
def from_mlebench(root: Path) -> Task:
    """An MLE-bench competition folder (``description.md`` and the CSVs, or ``prepared/public/``)."""
    public = root / "prepared" / "public"
    input_dir = public if public.is_dir() else root
    desc_path = _find_description(input_dir) or _find_description(root)
    if desc_path is None:
        raise TaskFormatError(
            root, "no description.md: MLE-bench folders need the competition's description.md"
        )
    text = desc_path.read_text(encoding="utf-8", errors="replace")
    files = _complete_files(input_dir, [])
    if not any(f.role == "train" for f in files):
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
    id_col, target_cols = _submission_columns(input_dir / sample.path)
    metric_name, direction = _metric_from_text(desc_path, text)
    answers = _find_answers(root)
    return Task(
        id=root.name,
        root=root,
        input_dir=input_dir,
        goal=_first_paragraph(text),
        metric_name=metric_name,
        direction=direction,
        task_type=_task_type(None, metric_name),
        modality=_infer_modality(input_dir, files),
        target_cols=tuple(target_cols),
        id_col=id_col,
        files=tuple(files),
        description=text,
        output_format=_head(input_dir / sample.path),
        source_format="mlebench",
        answers_path=answers,
    )


# --------------------------------------------------------------------------- description
def from_description(root: Path) -> Task:
    """A folder holding ``description.md`` (or ``.txt``) and ``input/``."""
    desc_path = _find_description(root)
    if desc_path is None:
        raise TaskFormatError(
            root,
            "no description.md or description.txt; write one saying what to predict and the metric",
        )
    input_dir = root / "input"
    if not input_dir.is_dir():
        raise TaskFormatError(
            input_dir,
            "missing: put the task's data files in an input/ folder beside description.md",
        )
    text = desc_path.read_text(encoding="utf-8", errors="replace")
    files = _complete_files(input_dir, [])
    if not any(f.role == "train" for f in files):
        raise TaskFormatError(
            input_dir, "no training data found: add train.csv (or a train/ folder) to input/"
        )
    sample = next((f for f in files if f.role == "sample_submission"), None)
    metric_name, direction = _metric_from_text(desc_path, text)
    if sample is not None:
        id_col, target_cols = _submission_columns(input_dir / sample.path)
    else:
        m = re.search(r"(?im)^\s*[-*]?\s*target(?:\s+column)?\s*:\s*`?([\w .-]+?)`?\s*$", text)
        if not m:
            raise TaskFormatError(
                input_dir,
                "sample_submission.csv missing and the description names no 'Target: <column>' line; add one of them",
            )
        id_col, target_cols = None, [m.group(1).strip()]
    return Task(
        id=root.name,
        root=root,
        input_dir=input_dir,
        goal=_first_paragraph(text),
        metric_name=metric_name,
        direction=direction,
        task_type=_task_type(None, metric_name),
        modality=_infer_modality(input_dir, files),
        target_cols=tuple(target_cols),
        id_col=id_col,
        files=tuple(files),
        description=text,
        output_format=_head(input_dir / sample.path) if sample else "",
        source_format="description",
        answers_path=_find_answers(root),
    )


# --------------------------------------------------------------------------- helpers
def _metric_names() -> list[str]:
    from ..metrics import metric_names

    return metric_names()


def _resolve_metric(where: Path, raw: str, spec: dict[str, Any]) -> tuple[str, Any]:
    try:
        m = get_metric(raw)
    except UnknownMetricError:
        raise TaskFormatError(
            where, f"unknown metric {quote(raw)} (expected one of: {', '.join(_metric_names())})"
        ) from None
    direction = spec.get("direction") or m.direction
    if direction in ("max", "higher", "higher_is_better"):
        direction = "maximize"
    if direction in ("min", "lower", "lower_is_better"):
        direction = "minimize"
    if direction not in ("maximize", "minimize"):
        raise TaskFormatError(
            where, f"metric.direction {direction!r} is not 'maximize' or 'minimize'"
        )
    return m.name, direction


def _metric_from_text(where: Path, text: str) -> tuple[str, Any]:
    m = re.search(r"(?im)^\s*[-*]?\s*(?:evaluation\s+)?metric\s*:\s*(.+?)\s*$", text)
    if m:
        return _resolve_metric(where, m.group(1).strip("`* "), {})
    section = re.search(r"(?is)#+\s*evaluation\b(.{0,1500})", text)
    hay = section.group(1) if section else text
    try:
        found = get_metric(hay[:1500])
        return found.name, found.direction
    except UnknownMetricError:
        raise TaskFormatError(
            where,
            f"names no metric: add a line 'Metric: <name>' (one of: {', '.join(_metric_names())})",
        ) from None


def _find_description(root: Path) -> Path | None:
    for name in ("description.md", "description.txt", "README.md"):
        p = root / name
        if p.is_file() and (name != "README.md" or (root / "input").is_dir()):
            return p
    return None


def _has_mlebench_files(root: Path) -> bool:
    return (root / "sample_submission.csv").exists() and any(
        (root / n).exists() for n in ("train.csv", "train")
    )


def _complete_files(input_dir: Path, files: list[DataFile]) -> list[DataFile]:
    """Add every top-level entry of ``input_dir`` not named yet, guessing its role from its name."""
    named = {f.path for f in files}
    out = list(files)
    for p in sorted(input_dir.iterdir()):
        if p.name.startswith(".") or p.name in named:
            continue
        n = p.name.lower()
        role: Any
        if "sample_submission" in n or n.startswith("sample_sub") or n == "samplesubmission.csv":
            role = "sample_submission"
        elif n.startswith("train") and not any(f.role == "train" for f in out):
            role = "train"
        elif n.startswith("test") and not any(f.role == "test" for f in out):
            role = "test"
        else:
            role = "extra"
        out.append(DataFile(p.name, role))
    return out


def _submission_columns(path: Path) -> tuple[str | None, list[str]]:
    try:
        with path.open(newline="", encoding="utf-8") as fh:
            header = next(csv.reader(fh), None)
    except OSError as e:
        raise TaskFormatError(path, f"cannot be read ({e.strerror})") from None
    if not header:
        raise TaskFormatError(
            path,
            "is empty: a sample submission needs a header row (id column, then target columns)",
        )
    if len(header) == 1:
        return None, header
    return header[0], header[1:]


def _head(path: Path, n: int = 4) -> str:
    try:
        with path.open(encoding="utf-8") as fh:
            return "".join(line for _, line in zip(range(n), fh, strict=False)).rstrip() + "\n..."
    except OSError:
        return ""


def _modality_from_words(words: str) -> Modality | None:
    w = words.lower()
    for k, v in DATA_TYPE_WORDS.items():
        if k in w:
            return v
    return None


def _infer_modality(input_dir: Path, files: list[DataFile]) -> Modality:
    exts: dict[str, int] = {}
    for i, p in enumerate(input_dir.rglob("*")):
        if i > 5000:
            break
        if p.is_file():
            exts[p.suffix.lower()] = exts.get(p.suffix.lower(), 0) + 1
    if sum(exts.get(e, 0) for e in IMAGE_EXT) >= 5:
        return "image"
    if sum(exts.get(e, 0) for e in AUDIO_EXT) >= 5:
        return "audio"
    if exts.get(".ts", 0) or exts.get(".arff", 0):
        return "time_series"
    train = next((f for f in files if f.role == "train"), None)
    if train and train.path.endswith(".csv"):
        try:
            import pandas as pd

            df = pd.read_csv(input_dir / train.path, nrows=200)
            obj = df.select_dtypes(include="object")
            if len(obj.columns) and obj.apply(lambda s: s.astype(str).str.len().mean()).max() > 60:
                return "text"
        except Exception:  # noqa: BLE001 - inference only; an unreadable CSV fails later with context
            pass
    return "tabular"


def _task_type(raw: Any, metric_name: str) -> TaskType:
    r = str(raw or "").lower()
    if "class" in r:
        return "classification"
    if "regress" in r:
        return "regression"
    return "classification" if metric_name in CLASSIFICATION_METRICS else "regression"


def _split_instructions(instr: Any) -> list[str]:
    if isinstance(instr, list):
        return [str(s).strip() for s in instr if str(s).strip()]
    text = str(instr).strip()
    if not text:
        return []
    parts = re.split(r"(?:^|\s)(?=\d+\.\s)", text)
    items = [re.sub(r"^\d+\.\s*", "", p).strip() for p in parts if p.strip()]
    return items or [text]


def answers_folder(root: Path) -> Path:
    """Where a task folder's grading answers live: ``answers/<task folder name>/`` beside the
    task folder, outside the folder handed to a run (``<dir>/<task>`` -> ``<dir>/answers/<task>``)."""
    return root.parent / "answers" / root.name


def _find_answers(root: Path) -> Path | None:
    outside = answers_folder(root) / "answers.csv"
    if outside.is_file():
        return outside
    for cand in (  # older layouts inside the task folder (never mounted in a kernel's jail)
        "private/answers.csv",
        "answers.csv",
        "prepared/private/test.csv",
        "prepared/private/answers.csv",
    ):
        p = root / cand
        if p.is_file():
            return p
    return None


def _first_paragraph(text: str) -> str:
    paras = [
        p.strip() for p in re.split(r"\n\s*\n", text) if p.strip() and not p.strip().startswith("#")
    ]
    return paras[0] if paras else text.strip()[:500]
