"""The Python entry points: ``run`` and ``resume`` a search, the same as ``mlestar run/resume``.

from mlestar_jupyter import api
outcome = api.run("example_notebooks/tasks/breast-cancer", time_limit=300, outer=2)
outcome.final.submission, outcome.best_score
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .agent.config import Budget, RunConfig
from .agent.run import RunOutcome
from .agent.stop import StopRequest
from .journal import Event, RunJournal
from .notebook import SolutionNotebook
from .task import Task, load_task
from .task.class_submission import class_notices

if TYPE_CHECKING:
    from .importer.dataset_task import Dataset


def make_config(
    *,
    backend: str | None = None,
    model: str | None = None,
    time_limit: float = 3600.0,
    exec_timeout: float | None = None,
    models: int = 4,
    inner: int = 4,
    outer: int = 4,
    parallel: int = 2,
    ensemble_rounds: int = 5,
    mode: str = "autopilot",
    block: str | None = None,
    seed: int = 0,
    max_llm_calls: int | None = None,
    max_tokens: int | None = None,
    max_cost: float | None = None,
    gpus: str | None = None,
    memory_limit: int | None = None,
    allow_network: bool = False,
    novelty_reference: str | Path | None = None,
    max_train_rows: int | None = None,
) -> RunConfig:
    """A ``RunConfig`` from the knobs the CLI exposes (paper defaults M=4, K=4, T=4, L=2, R=5).
    Out-of-range values (``agent.limits``) raise ``InvalidConfig``; here T must be at least 1.
    ``max_train_rows`` given: search candidates train on at most that many rows, as given;
    left out: at most 30 000, fewer when the time limit calls for it (``agent.rows``)."""
    from .agent.limits import count, exec_limit, positive_number

    count(outer, "T, the refinement steps (--outer/-T)")
    positive_number(time_limit, "the time limit in seconds (--time-limit)")
    exec_limit(exec_timeout)
    return RunConfig(
        num_models=models,
        inner_steps=inner,
        outer_steps=outer,
        parallel_solutions=parallel,
        ensemble_rounds=ensemble_rounds,
        mode=mode,  # type: ignore[arg-type]
        target_block=block,
        seed=seed,  # type: ignore[arg-type]
        backend=backend or os.environ.get("MLESTAR_BACKEND", "offline"),
        model=model,
        gpu_ids=tuple(g.strip() for g in gpus.split(",") if g.strip()) if gpus else None,
        memory_limit_mb=memory_limit,
        allow_network=allow_network,
        max_train_rows=RunConfig.max_train_rows if max_train_rows is None else max_train_rows,
        adapt_train_rows=max_train_rows is None,  # a cap the user gave stays as given
        novelty_reference=Path(novelty_reference).read_text(encoding="utf-8")
        if novelty_reference
        else None,
        budget=Budget(
            wall_seconds=time_limit,
            exec_timeout=exec_timeout
            if exec_timeout is not None
            else max(30.0, min(600.0, time_limit / 4)),
            max_llm_calls=max_llm_calls,
            max_tokens=max_tokens,
            max_cost_usd=max_cost,
        ),
    )


def run(
    task_dir: str | Path,
    *,
    out: str | Path | None = None,
    notebook: str | Path | None = None,
    catalog: list[str | Path] | None = None,
    replay_from: str | Path | None = None,
    on_event: Callable[[Event], None] | None = None,
    stop: StopRequest | None = None,
    target: str | None = None,
    metric: str | None = None,
    **knobs: Any,
) -> RunOutcome:
    """Run MLE-STAR on a task folder; ``knobs`` as for ``make_config``.  Returns when the run ends
    (or soon after ``stop.request(reason)`` from any thread: then ``status == "stopped"``).
    ``target`` and ``metric`` correct what is read from ``notebook`` when the folder has no
    task.json (a task folder's own are edited in its task.json).  A notebook given as
    ``task_dir`` (``run("mine.ipynb")``) is ``notebook``, in the task folder that holds it."""
    if notebook is None and Path(task_dir).suffix.lower() == ".ipynb":
        notebook, task_dir = task_dir, Path(task_dir).parent
    start_nb, without = start_notebook(notebook, task_dir) if notebook else (None, "")
    overrides = {k: v for k, v in (("target", target), ("metric", metric)) if v}
    config = make_config(**knobs)
    dataset = _dataset_of(task_dir, start_nb)
    given = overrides
    download = None
    if dataset is None and start_nb is None:
        from .importer.download_task import download_task, is_bare_download

        if is_bare_download(task_dir):  # train, test, sample submission and nothing else
            out = Path(out) if out else _default_out(Path(task_dir).resolve().name)
            download = download_task(Path(task_dir), Path(out) / DATASET_TASK, **overrides)
            task = load_task(download.root)
            task = dataclasses.replace(task, notices=(*download.notices, *class_notices(task)))
            source = "download"
    if dataset is None and download is None:
        task, source = _task_of(
            task_dir, start_nb, Path(notebook).name if notebook else "", overrides
        )
        if start_nb is None:  # a task.json naming a training table and nothing to predict
            from .importer.dataset_task import dataset_of_task

            found = dataset_of_task(task)
            if found is not None:
                dataset, given = found[0], {**found[1], **overrides}
    if dataset is not None:  # one labelled table: a task of its own, rows held out to grade by
        from .importer.dataset_task import holdout_task

        out = Path(out) if out else _default_out(dataset.name)
        held = holdout_task(dataset, Path(out) / DATASET_TASK, **given)
        task = load_task(held.root)
        task = dataclasses.replace(task, notices=(*held.notices, *class_notices(task)))
        source = "dataset"
    if without:  # said with the task's notices, first in the run's warnings
        task = dataclasses.replace(task, notices=(without, *task.notices))
    out = Path(out) if out else _default_out(task.id)
    journal = RunJournal.create(
        out,
        {
            "task_dir": str(task.root),
            "task_source": source,
            "task_overrides": overrides,
            "task_notices": list(task.notices) if source in ("dataset", "download") else [],
            "dataset": str(dataset.table) if dataset is not None else None,
            "notebook": str(Path(notebook).resolve()) if notebook else None,
            "config": config.to_json(),
            "catalog": [str(c) for c in catalog or []],
            "replay_from": str(replay_from) if replay_from else None,
        },
    )
    if start_nb is not None:
        start_nb.write(journal.path("start.ipynb"))
    if source == "notebook":  # what was read from the notebook, as a task.json to keep or edit
        from .importer.notebook_task import task_spec

        journal.path("task.json").write_text(json.dumps(task_spec(task), indent=2) + "\n")
    return execute(
        journal,
        task,
        config,
        start_nb,
        catalog=[Path(c) for c in catalog or []],
        replay_from=Path(replay_from) if replay_from else None,
        on_event=on_event,
        stop=stop,
    )


def resume(
    run_dir: str | Path,
    *,
    on_event: Callable[[Event], None] | None = None,
    time_limit: float | None = None,
    max_llm_calls: int | None = None,
    max_tokens: int | None = None,
    max_cost: float | None = None,
    stop: StopRequest | None = None,
) -> RunOutcome:
    """Continue a killed or stopped run: finished executions and LLM calls come from the journal.

    ``time_limit`` (the new *total* wall-clock budget: time already spent counts against it) and
    the LLM limits replace the run's budget in ``run.json`` before it goes on; ``None`` keeps it.
    """
    from .execution.scratch import clean_scratch

    journal = RunJournal.open(run_dir)
    meta = journal.meta
    start = journal.path("start.ipynb")
    if meta.get("task_source") == "notebook" and start.exists():
        from .importer.notebook_task import task_from_notebook

        task = task_from_notebook(
            SolutionNotebook.read(start),
            meta["task_dir"],
            Path(meta.get("notebook") or "").name,
            **(meta.get("task_overrides") or {}),
        )
    else:
        task = load_task(meta["task_dir"])
        if meta.get("task_notices"):  # a dataset's held-out task: what was inferred making it
            task = dataclasses.replace(task, notices=tuple(meta["task_notices"]))
    config = with_budget(
        RunConfig.from_json(meta["config"]),
        time_limit=time_limit,
        max_llm_calls=max_llm_calls,
        max_tokens=max_tokens,
        max_cost=max_cost,
    )
    clean_scratch(run_dirs=[journal.dir])  # what a killed process of this run left in /tmp
    journal.update_meta(status="running", config=config.to_json())
    if journal.control().get("stop"):  # resuming asks to go on: an earlier stop is done with
        journal.set_control(stop=False)
    return execute(
        journal,
        task,
        config,
        SolutionNotebook.read(start) if start.exists() else None,
        catalog=[Path(c) for c in meta.get("catalog") or []],
        replay_from=Path(meta["replay_from"]) if meta.get("replay_from") else None,
        on_event=on_event,
        stop=stop,
    )


DATASET_TASK = "task"  # the run folder's sub-folder holding a dataset's held-out task


def start_notebook(
    notebook: str | Path, task_dir: str | Path
) -> tuple[SolutionNotebook | None, str]:
    """The notebook a run starts from, and ``""``; or, for a notebook with no code cells in a
    folder that is a task by itself (a task folder, a Kaggle download, a dataset), ``None`` and
    why the run starts from the task's own solutions.  Otherwise a notebook without code (or
    not Python) raises the notebook's error, which says what to add."""
    from .notebook import NoCodeCellsError
    from .task import is_task_folder

    nb = SolutionNotebook.read(notebook)
    try:
        return nb.require_code(), ""
    except NoCodeCellsError:
        from .importer.dataset_task import find_dataset

        if not (is_task_folder(task_dir) or find_dataset(task_dir) is not None):
            raise
    return None, (
        f"{Path(notebook).name} has no code cells: the run starts from the task's own "
        "solutions (add code cells to have your notebook refined)"
    )


def _default_out(name: str) -> Path:
    return Path("runs") / f"{name}-{time.strftime('%Y%m%d-%H%M%S')}"


def _dataset_of(task_dir: str | Path, start_nb: SolutionNotebook | None) -> Dataset | None:
    """The dataset at ``task_dir`` (one labelled table, no test table: ``find_dataset``) when a
    run starts from no notebook, else None (a notebook reads its own data, splits included)."""
    from .importer.dataset_task import find_dataset

    if start_nb is not None:
        return None
    return find_dataset(task_dir)


def _task_of(
    task_dir: str | Path,
    start_nb: SolutionNotebook | None,
    nb_name: str,
    overrides: dict[str, str] | None = None,
) -> tuple[Task, str]:
    """The task of ``task_dir`` and where it was read from: the folder (``"folder"``), or, for a
    folder that is no task folder but holds the notebook a run starts from, the notebook
    (``overrides``: its ``target`` and ``metric``, given by the user)."""
    from .importer.notebook_task import NotebookTaskError, task_from_notebook
    from .task import has_task_description

    # a Kaggle download (train, test, sample submission) beside the notebook, with no
    # description of its own: the notebook says what the task is
    if start_nb is None or has_task_description(task_dir):
        if overrides:
            given = " and ".join(f"--{k}" for k in overrides)
            why = (
                "it has its own task description: set them in its task.json"
                if start_nb is not None
                else "they correct what is read from a notebook: pass --notebook too, for a "
                "folder without task.json (or name a dataset's: a folder of one table without "
                "test rows)"
            )
            raise NotebookTaskError(Path(task_dir), f"{given} cannot apply here: {why}")
        return load_task(task_dir), "folder"
    return task_from_notebook(start_nb, task_dir, nb_name, **(overrides or {})), "notebook"


def with_budget(
    config: RunConfig,
    *,
    time_limit: float | None = None,
    max_llm_calls: int | None = None,
    max_tokens: int | None = None,
    max_cost: float | None = None,
) -> RunConfig:
    """``config`` with the given budget limits replaced (``None`` keeps the current one)."""
    changes: dict[str, Any] = {
        k: v
        for k, v in {
            "wall_seconds": time_limit,
            "max_llm_calls": max_llm_calls,
            "max_tokens": max_tokens,
            "max_cost_usd": max_cost,
        }.items()
        if v is not None
    }
    if not changes:
        return config
    return dataclasses.replace(config, budget=dataclasses.replace(config.budget, **changes))


def execute(
    journal: RunJournal,
    task: Any,
    config: RunConfig,
    start_nb: Any,
    *,
    catalog: list[Path] | None = None,
    replay_from: Path | None = None,
    on_event: Callable[[Event], None] | None = None,
    stop: StopRequest | None = None,
) -> RunOutcome:
    """Run the search on an open journal with the executor and policies its config asks for."""
    from .agent.run import prepared_task, run_mlestar
    from .execution import COMMON_PREIMPORTS, Executor
    from .execution.machine import usable_cpus
    from .execution.scratch import claim
    from .policies import make_policy_factory

    task = prepared_task(task, journal, start_notebook=start_nb)  # the policies read it too
    make_policy, fallback = make_policy_factory(
        task,
        config,
        journal.dir,
        on_llm_call=lambda rec: journal.emit("llm_call", **_llm_event(rec)),
        catalog_dirs=catalog or [],
        replay_from=replay_from,
    )
    unsubscribe = journal.subscribe(on_event) if on_event else None
    parallel = config.max_parallel or config.parallel_solutions
    remote = gateway_options()
    # each local kernel's share of this machine's cores; remote kernels get their share of the
    # remote machine's, once they have said how many it has (``Executor.describe_machine``)
    threads = None if remote else max(1, usable_cpus() // parallel)
    try:
        with Executor(
            timeout=config.budget.exec_timeout,
            max_parallel=parallel,
            pool_size=parallel,
            threads_per_kernel=threads,
            preimport=COMMON_PREIMPORTS,
            gpu_ids=list(config.gpu_ids) if config.gpu_ids else None,
            memory_limit_mb=config.memory_limit_mb,
            network=config.allow_network,
            **remote,
        ) as executor:
            claim(executor.root, run_dir=journal.dir)  # for 'mlestar clean RUN_DIR' after a kill
            journal.emit("sandbox", **executor.sandbox.to_json())  # which sandbox ran, each start
            return run_mlestar(
                task,
                config,
                journal,
                executor,
                make_policy,
                fallback=fallback,
                start_notebook=start_nb,
                stop=stop,
            )
    finally:
        if unsubscribe:
            unsubscribe()
        journal.close()


def gateway_options() -> dict[str, Any]:
    """Executor options for a remote kernel gateway when ``MLESTAR_GATEWAY_URL`` is set
    (URL, token, path map and kernel specs all come from the ``MLESTAR_GATEWAY_*`` variables)."""
    from .execution import GatewayConfig

    if GatewayConfig.from_env() is None:
        return {}
    return {"provider": "gateway"}


def _llm_event(rec: dict[str, Any]) -> dict[str, Any]:
    """The journal's summary of one LLM call (the full request and answer stay in ``llm/``)."""
    keep = (
        "role",
        "backend",
        "model",
        "key",
        "prompt_tokens",
        "completion_tokens",
        "latency_s",
        "cost_usd",
        "cached",
        "error",
    )
    return {k: rec.get(k) for k in keep}
