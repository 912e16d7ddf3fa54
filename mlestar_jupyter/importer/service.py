"""``import_task``: saved pages and downloaded files in, a task folder that loads out.

    pages ──read_pages──┐
    data ──unpack_data──┴─ survey ── extractor (offline heuristics | LLM) ── TaskDraft
        ── build_spec ── cross_check ── task.json ── load_task (the final check)

Nothing is written to ``task.json`` unless every check passes; otherwise a ``TaskImportError``
lists each field at fault with what to add.  ``import_mlebench`` feeds an MLE-bench competition
folder (``description.md`` + ``prepared/public``) through the same steps.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..task.errors import TaskFormatError
from ..task.infer import find_description, find_kaggle_description, head_lines
from ..task.loaders import answers_folder, from_mlebench, load_task
from ..task.model import Task
from .checks import cross_check
from .data import DataSurvey, canonical_sample_name, survey, unpack_data
from .errors import Problem, TaskImportError
from .heuristic import find_id, read_task
from .llm import extract_with_llm, llm_guesses
from .pages import Page, read_pages
from .schema import DataInformation, DataPart, MetricSpec, TaskDraft, TaskSpec, numbered

OFFLINE = "offline"


@dataclass(frozen=True)
class ImportResult:
    """A task folder: its spec, the loaded ``Task`` (``None`` for a preview: nothing written),
    and the fields that were guessed."""

    task_dir: Path
    spec: TaskSpec
    task: Task | None
    backend: str
    guessed: dict[str, str] = field(default_factory=dict)

    def report(self) -> str:
        """The extracted fields, one a line, each guessed one marked with its reason."""
        s = self.spec
        targets = s.target_col if isinstance(s.target_col, str) else ", ".join(s.target_col)
        rows = [
            ("task_type", s.task_type),
            ("goal_description", s.goal_description[:100]),
            ("metric.metric_name", s.metric.metric_name),
            ("metric.direction", s.metric.direction),
            ("target_col", targets),
            ("id_col", s.id_col or "-"),
            ("data_information.data_type", s.data_information.data_type),
            ("data_information.train.data_location", s.data_information.train.data_location),
            ("data_information.test.data_location", s.data_information.test.data_location),
            ("output_format", s.output_format.splitlines()[0] if s.output_format else ""),
            ("special_instructions", s.special_instructions[:100] or "-"),
        ]
        lines = [f"task folder: {self.task_dir} (backend: {self.backend})"]
        for name, value in rows:
            why = self.guessed.get(name)
            lines.append(f"  {name:<38} {value}" + (f"   [guessed: {why}]" if why else ""))
        return "\n".join(lines)


def import_task(
    sources: list[Path],
    data: list[Path],
    out: Path,
    *,
    backend: str = OFFLINE,
    client: Any = None,
    model: str | None = None,
    target: str | None = None,
    id_col: str | None = None,
    task_id: str | None = None,
    force: bool = False,
    write: bool = True,
) -> ImportResult:
    """Write ``out/task.json`` and ``out/input/`` from saved pages and the downloaded files.

    ``backend`` is ``offline`` (heuristics) or an LLM backend (``gemini``, ``openai``, ``replay``:
    settings from ``MLESTAR_LLM_*``; or pass a ready ``client``).  ``target`` / ``id_col``
    override what is extracted.  Raises ``TaskImportError`` listing every field at fault.
    With ``write=False`` (a preview to confirm) the data is unpacked and checked, but no
    task.json is written."""
    out = Path(out)
    _check_out(out, force)
    if sources:
        pages = read_pages([Path(p) for p in sources])
        unpack_data([Path(d) for d in data], out / "input")
    else:  # a download that describes itself (data_description.txt, description.md inside)
        pages = _pages_in_data([Path(d) for d in data], out / "input")
    data_survey = _survey(out / "input")
    return _finish(
        pages, data_survey, out, backend, client, model, target, id_col, task_id, write=write
    )


def import_mlebench(
    folder: Path,
    out: Path,
    *,
    backend: str = OFFLINE,
    client: Any = None,
    model: str | None = None,
    target: str | None = None,
    id_col: str | None = None,
    force: bool = False,
    write: bool = True,
) -> ImportResult:
    """Turn an MLE-bench competition folder into a task folder with the unified task.json.

    The loader's MLE-bench reader checks the folder first (description.md, the CSVs); the
    public files become ``input/``, ``prepared/private/test.csv`` (the answers) becomes
    ``answers/<task folder name>/answers.csv`` beside the task folder (never inside the folder a
    run is handed) and ``leaderboard.csv`` is kept, so ``mlestar bench grade`` grades
    submissions and ranks them."""
    folder, out = Path(folder), Path(out)
    try:
        mle = from_mlebench(folder.resolve())
    except TaskFormatError as e:
        raise TaskImportError(
            [Problem("--from-mlebench", str(e), "pass a prepared MLE-bench competition folder")]
        ) from None
    _check_out(out, force)
    desc = _description_file(folder)
    pages = read_pages([desc])
    unpack_data([mle.input_dir], out / "input", skip=frozenset({desc.name, "private"}))
    answers = mle.answers_path
    if answers is not None:
        keep = answers_folder(out.resolve())
        keep.mkdir(parents=True, exist_ok=True)
        shutil.copy2(answers, keep / "answers.csv")
    if (folder / "leaderboard.csv").is_file():  # the reference leaderboard, for ranks
        shutil.copy2(folder / "leaderboard.csv", out / "leaderboard.csv")
    fallback = MetricSpec(metric_name=mle.metric_name, direction=mle.direction)
    return _finish(
        pages,
        _survey(out / "input"),
        out,
        backend,
        client,
        model,
        target,
        id_col,
        folder.name,
        fallback_metric=fallback,
        write=write,
    )


# --------------------------------------------------------------------------- steps
def _check_out(out: Path, force: bool) -> None:
    if (out / "task.json").exists() and not force:
        raise TaskImportError(
            [Problem("--out", f"{out} already holds a task.json", "pass --force to replace it")]
        )


def _survey(input_dir: Path) -> DataSurvey:
    found = survey(input_dir)
    if found.sample and canonical_sample_name(input_dir, found.sample) != found.sample:
        found = survey(input_dir)
    return found


def _pages_in_data(data: list[Path], input_dir: Path) -> list[Page]:
    """With no page given: the download's own description (``description.md``,
    ``data_description.txt``, an ``overview`` saved as text), once ``data`` is unpacked into
    ``input_dir``; with none there, ``input_dir`` is taken away again if this made it and the
    import is refused as without pages."""
    made = next((d for d in (input_dir.parent, input_dir) if not d.exists()), None)
    if data:
        unpack_data(data, input_dir)
    found = [
        p
        for p in (
            find_description(input_dir),
            find_kaggle_description(input_dir) if input_dir.is_dir() else None,
        )
        if p is not None
    ]
    if not found:
        if made is not None and made.is_dir():
            shutil.rmtree(made)
        raise TaskImportError(
            [
                Problem(
                    "source",
                    "no page given, and the data holds no description.md or data_description.txt",
                    "pass at least one saved competition page (its overview and evaluation, "
                    "as HTML or text)",
                )
            ]
        )
    return read_pages(found[:1])


def _description_file(folder: Path) -> Path:
    for base in (folder / "prepared" / "public", folder):
        for name in ("description.md", "description.txt"):
            if (base / name).is_file():
                return base / name
    raise TaskImportError([Problem("--from-mlebench", f"no description.md in {folder}", "")])


def _finish(
    pages: list[Page],
    data: DataSurvey,
    out: Path,
    backend: str,
    client: Any,
    model: str | None,
    target: str | None,
    id_col: str | None,
    task_id: str | None,
    *,
    fallback_metric: MetricSpec | None = None,
    write: bool = True,
) -> ImportResult:
    draft, guessed, problems = _extract(pages, data, backend, client, model, target)
    if draft.metric is None and fallback_metric is not None:
        draft = draft.model_copy(update={"metric": fallback_metric})
        problems = [p for p in problems if p.field != "metric"]
        guessed["metric.metric_name"] = "the MLE-bench loader's reading of description.md"
    if id_col:
        draft = draft.model_copy(update={"id_col": id_col})
        guessed.pop("id_col", None)
    if problems:
        raise TaskImportError(problems, "the pages and data do not make a task")
    spec = build_spec(draft, data, guessed, pages, backend, task_id or out.resolve().name)
    problems = cross_check(spec, data)
    if problems:
        raise TaskImportError(problems, "the extracted task does not match the data")
    if not write:
        return ImportResult(out, spec, None, backend, guessed)
    (out / "task.json").write_text(json.dumps(spec.to_json(), indent=2) + "\n", encoding="utf-8")
    try:
        task = load_task(out)
    except TaskFormatError as e:
        raise TaskImportError(
            [Problem("task.json", e.problem, "fix it by hand, or the pages, and import again")],
            "the written task folder does not load",
        ) from None
    return ImportResult(out, spec, task, backend, guessed)


def _extract(
    pages: list[Page],
    data: DataSurvey,
    backend: str,
    client: Any,
    model: str | None,
    target: str | None,
) -> tuple[TaskDraft, dict[str, str], list[Problem]]:
    if backend == OFFLINE and client is None:
        reading = read_task(pages, data, target=target)
        return reading.draft, reading.guessed, reading.problems
    own = client is None
    if own:
        client = make_client(backend, model)
    try:
        draft = extract_with_llm(client, pages, data)
    finally:
        if own:
            client.close()
    guessed: dict[str, str] = llm_guesses(draft)
    problems: list[Problem] = []
    if target:
        draft = draft.model_copy(update={"target_col": [target]})
    if draft.metric is None:
        problems.append(
            Problem(
                "metric",
                "the pages state no metric (the LLM found none)",
                "add the competition's Evaluation page, or a line 'Metric: <name>' to a page",
            )
        )
    if not draft.target_col:
        problems.append(Problem("target_col", "the LLM found no target", "pass --target COLUMN"))
    if draft.id_col is None:
        found, why = find_id(data)
        if found:
            draft = draft.model_copy(update={"id_col": found})
            guessed["id_col"] = why
    return draft, guessed, problems


def make_client(backend: str, model: str | None = None) -> Any:
    """An ``LLMClient`` for ``backend`` with settings from ``MLESTAR_LLM_*`` (no cache)."""
    from ..llm.client import LLMClient
    from ..llm.settings import LLMSettings

    settings = LLMSettings.from_env(None, backend=backend, model=model)
    return LLMClient.from_settings(settings)


def output_format(data: DataSurvey, n: int = 4) -> str:
    """The sample submission's first lines (TAM-Bench's ``output_format``)."""
    if data.sample is None:
        return ""
    path = data.input_dir / data.sample
    if path.is_dir():
        return ""
    return head_lines(path, n)  # (read in the sample's own encoding: cp1252, UTF-16)


def build_spec(
    draft: TaskDraft,
    data: DataSurvey,
    guessed: dict[str, str],
    pages: list[Page],
    backend: str,
    task_id: str,
) -> TaskSpec:
    """The task.json from a complete draft (its metric is set) and the data's canonical names."""
    assert draft.metric is not None
    targets = draft.target_col
    spec = TaskSpec(
        id=task_id,
        task_type=draft.task_type,
        goal_description=draft.goal_description or pages[0].title,
        metric=draft.metric,
        target_col=targets[0] if len(targets) == 1 else targets,
        id_col=draft.id_col,
        data_information=DataInformation(
            data_type=draft.data_type,
            train=DataPart(
                data_location=", ".join(draft.train_files or data.train),
                data_description=draft.train_description,
            ),
            test=DataPart(
                data_location=", ".join(draft.test_files or data.test),
                data_description=draft.test_description,
            ),
        ),
        output_format=output_format(data),
        special_instructions=numbered(draft.special_instructions),
    )
    provenance = {
        "backend": backend,
        "sources": [str(p.path.name) for p in pages],
        "guessed": guessed,
    }
    return spec.model_copy(update={"provenance": provenance})
