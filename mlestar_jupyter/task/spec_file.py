"""The task file (``task.json``, or the same fields in ``task.yaml``): where it is and its
fields as written, before any reader interprets them (``spec_reader``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .errors import TaskFormatError

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
        return read_spec(tj) if tj is not None else {}
    except TaskFormatError:
        return {}


def read_spec(tj: Path) -> dict[str, Any]:
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


__all__ = ["TASK_FILES", "raw_spec", "read_spec", "task_file"]
