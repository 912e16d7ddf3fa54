"""Build the task pack: one TAM-Bench task folder per dataset, with leaderboard and difficulty.

    <out>/<task>/task.json            TAM-Bench schema + id_col + difficulty
    <out>/<task>/input/               train data, test data without labels, sample_submission.csv
    <out>/<task>/leaderboard.csv      scores of the reference solutions (outside input/)
    <out>/answers/<task>/answers.csv  the test labels, outside the task folder a run is given

Splits and ids come from fixed seeds, so two builds give the same folders.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ...task import Task
from ...task.loaders import answers_folder
from ..difficulty import task_difficulty
from ..errors import SourceMissing, UnknownPackName
from ..grading import grade_frame
from ..leaderboard import Leaderboard
from ..submission import GradingSpec, read_csv_str
from .base import PackTask
from .ladder import run_ladder
from .media import MEDIA_TASKS
from .tabular import TABULAR_TASKS
from .tabular_extra import EXTRA_TABULAR_TASKS

PACK: tuple[PackTask, ...] = TABULAR_TASKS + MEDIA_TASKS
TINY = tuple(t.name for t in PACK if t.tiny)
# Opt-in sets, built only when named (`prepare --set NAME`): the default pack stays as it is.
EXTRA_SETS: dict[str, tuple[PackTask, ...]] = {"tabular-extra": EXTRA_TABULAR_TASKS}
DEFAULT_SET = "default"
SET_NAMES = (DEFAULT_SET, *EXTRA_SETS)


@dataclass(frozen=True)
class PrepareResult:
    """One task's outcome: its folder, or why it was skipped; size and time."""

    name: str
    path: Path | None
    skipped: str | None
    seconds: float
    bytes: int


def set_tasks(name: str = DEFAULT_SET) -> tuple[PackTask, ...]:
    """The tasks of a named set: ``default`` (the pack) or an opt-in one such as ``tabular-extra``."""
    if name == DEFAULT_SET:
        return PACK
    if name not in EXTRA_SETS:
        raise UnknownPackName(
            f"unknown task set {name!r}; known: {', '.join(SET_NAMES)} (pick one with --set)"
        )
    return EXTRA_SETS[name]


def all_tasks() -> tuple[PackTask, ...]:
    """Every task that can be built by name: the pack's and those of the opt-in sets."""
    return PACK + tuple(t for tasks in EXTRA_SETS.values() for t in tasks)


def pack_task_names(tiny: bool = False, task_set: str = DEFAULT_SET) -> list[str]:
    """Names of a set's tasks (the default pack; only the tiny ones with ``tiny``)."""
    return [t.name for t in set_tasks(task_set) if t.tiny or not tiny]


def _folder_size(p: Path) -> int:
    return sum(f.stat().st_size for f in p.rglob("*") if f.is_file())


def build_task(
    pt: PackTask, out_dir: Path, log: Callable[[str], None] = print, quick: bool = False
) -> Path:
    """Build one task folder under ``out_dir`` (replacing an old one); its path.

    ``quick`` uses the capped reference ladder (see ``ladder_for``), for tests.
    """
    root = out_dir / pt.name
    tmp = out_dir / f".{pt.name}.building"
    shutil.rmtree(tmp, ignore_errors=True)
    (tmp / "input").mkdir(parents=True)
    (tmp / "private").mkdir()
    try:
        built = pt.build(tmp / "input")
        built.sample.to_csv(tmp / "input" / "sample_submission.csv", index=False)
        built.answers.to_csv(tmp / "private" / "answers.csv", index=False)
        spec = dict(built.spec, id=pt.name)
        (tmp / "task.json").write_text(json.dumps(spec, indent=2), encoding="utf-8")
        task = Task.load(tmp)
        answers, sample = (
            read_csv_str(tmp / "private" / "answers.csv"),
            read_csv_str(tmp / "input" / "sample_submission.csv"),
        )
        gspec = GradingSpec.build(task, sample, answers)
        board = run_ladder(
            built.ref, gspec, lambda sub: grade_frame(sub, gspec, answers), log, quick
        )
        board.to_csv(tmp / "leaderboard.csv", index=False)
        diff = task_difficulty(Leaderboard.of(board["score"], task.direction), task.metric_name)
        spec["difficulty"] = {
            "score": round(diff.score, 4),
            "level": diff.level,
            "norm_mean": round(diff.norm_mean, 4),
            "norm_best": round(diff.norm_best, 4),
            "participants": diff.participants,
            "scale": diff.scale,
        }
        (tmp / "task.json").write_text(json.dumps(spec, indent=2), encoding="utf-8")
        Task.load(tmp)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    answers_dir = answers_folder(root)
    shutil.rmtree(answers_dir, ignore_errors=True)
    answers_dir.mkdir(parents=True)
    (tmp / "private" / "answers.csv").rename(answers_dir / "answers.csv")
    (tmp / "private").rmdir()
    shutil.rmtree(root, ignore_errors=True)
    tmp.rename(root)
    return root


def prepare(
    out_dir: str | Path,
    tasks: Sequence[str] | None = None,
    tiny: bool = False,
    log: Callable[[str], None] = print,
    quick: bool = False,
    task_set: str = DEFAULT_SET,
) -> list[PrepareResult]:
    """Build the named tasks (default: all of ``task_set``, or its tiny ones with ``tiny``); one result each."""
    out = Path(out_dir).expanduser().resolve()
    out.mkdir(parents=True, exist_ok=True)
    names = list(tasks) if tasks else pack_task_names(tiny, task_set)
    by_name = {t.name: t for t in all_tasks()}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise UnknownPackName(
            f"unknown pack task(s) {unknown}; known: {', '.join(by_name)} "
            "(`mlestar bench prepare --list` shows each set's tasks)"
        )
    results = []
    for name in names:
        t0 = time.perf_counter()
        log(f"[prepare] {name} ...")
        try:
            path = build_task(by_name[name], out, log, quick)
        except SourceMissing as e:
            log(f"[prepare] {e}")
            results.append(PrepareResult(name, None, str(e), time.perf_counter() - t0, 0))
            continue
        secs = time.perf_counter() - t0
        size = _folder_size(path)
        log(f"[prepare] {name} -> {path} ({size / 1e6:.1f} MB, {secs:.1f}s)")
        results.append(PrepareResult(name, path, None, secs, size))
    return results


def prepare_pack(
    out_dir: str | Path,
    tasks: Sequence[str] | None = None,
    tiny: bool = False,
    log: Callable[[str], None] = print,
    quick: bool = False,
) -> list[Path]:
    """Build the pack's task folders under ``out_dir``; the folders built (skipped tasks are logged)."""
    return [r.path for r in prepare(out_dir, tasks, tiny, log, quick) if r.path is not None]
