"""How the run service turns a ``StartRun`` request into an agent command line.

``start_paths`` checks the request's paths (inside the server root, a notebook file, a task
folder) and ``agent_argv`` builds ``mlestar run TASK_DIR --out RUN_DIR ...`` from it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .errors import InvalidRequest
from .models import StartRun
from .paths import resolve_inside

DEFAULT_TIME_LIMIT = 3600.0  # what ``mlestar run`` uses without --time-limit
_NUMBERS = (
    ("models", "--models"),
    ("inner", "--inner"),
    ("outer", "--outer"),
    ("parallel", "--parallel"),
    ("ensemble_rounds", "--ensemble-rounds"),
    ("exec_timeout", "--exec-timeout"),
    ("block", "--block"),
)


def check_time_limit(req: StartRun, max_time_limit: float) -> None:
    """Refuse a ``time_limit`` above the server's bound."""
    if req.time_limit is not None and req.time_limit > max_time_limit:
        raise InvalidRequest(
            f"time_limit {req.time_limit:g} s is above this server's limit of "
            f"{max_time_limit:g} s; ask for less (the limit is c.RunService.max_time_limit)",
            [{"field": "time_limit", "message": f"at most {max_time_limit:g} seconds"}],
        )


def start_paths(root: Path, req: StartRun) -> tuple[Path, Path | None]:
    """The task folder and the notebook (None: none) of ``req``, both checked to lie under
    ``root``; without ``task_dir`` the notebook's folder is the task folder."""
    nb_path: Path | None = None
    if req.notebook_path:
        nb_path = resolve_inside(root, req.notebook_path, "notebook_path")
        if not nb_path.is_file() or nb_path.suffix != ".ipynb":
            raise InvalidRequest(
                f"notebook_path {req.notebook_path!r} is not a notebook file",
                [
                    {
                        "field": "notebook_path",
                        "message": "no such .ipynb file under the server root",
                    }
                ],
            )
        _check_notebook(nb_path, req.notebook_path)
    if req.task_dir is not None:
        task_dir = resolve_inside(root, req.task_dir, "task_dir")
    elif nb_path is not None:
        task_dir = nb_path.parent
    else:
        raise InvalidRequest(
            "give task_dir, or notebook_path to use the notebook's folder",
            [{"field": "task_dir", "message": "required when notebook_path is not given"}],
        )
    if task_dir.is_file() and nb_path is None:  # one table: a dataset, as `mlestar run` takes
        from ..importer.dataset_task import find_dataset

        if find_dataset(task_dir) is not None:
            return task_dir, nb_path
    if not task_dir.is_dir():
        raise InvalidRequest(
            f"task_dir {req.task_dir!r} is not a folder (nor one table of a dataset: a CSV, "
            "TSV, Excel, JSON lines or parquet file)",
            [{"field": "task_dir", "message": "no such folder or table under the server root"}],
        )
    return task_dir, nb_path


def _check_notebook(path: Path, given: str) -> None:
    """Refuse, before a run is spawned, a notebook a run cannot start from: one for another
    kernel's language (R, Julia), one with no code cells, one that is no notebook JSON (the
    run would otherwise end "failed" at once)."""
    from ..notebook import NotebookError, SolutionNotebook

    try:
        SolutionNotebook.read(path).require_code()
    except NotebookError as e:
        raise InvalidRequest(str(e), [{"field": "notebook_path", "message": str(e)}]) from None
    except (ValueError, KeyError, TypeError, AttributeError) as e:  # JSON or nbformat's reader
        said = f"{given!r} is not a readable notebook ({str(e)[:200]}); open and re-save it"
        raise InvalidRequest(said, [{"field": "notebook_path", "message": said}]) from None


def agent_argv(
    command: Sequence[str],
    req: StartRun,
    task_dir: Path,
    run_dir: Path,
    nb: Path | None,
    max_time_limit: float,
) -> list[str]:
    """``command run TASK_DIR --out RUN_DIR`` with the request's settings as flags."""
    argv = [*command, "run", str(task_dir), "--out", str(run_dir)]
    argv += ["--backend", req.backend, "--mode", req.mode, "--no-progress"]
    if nb is not None:
        argv += ["--notebook", str(nb)]
    time_limit = req.time_limit
    if time_limit is None and max_time_limit < DEFAULT_TIME_LIMIT:
        time_limit = max_time_limit  # the CLI's default would pass the server's bound
    if time_limit is not None:
        argv += ["--time-limit", f"{time_limit:.15g}"]
    if req.model and req.backend != "offline":
        argv += ["--model", req.model]
    for name, flag in _NUMBERS:
        value = getattr(req, name)
        if value is not None:
            argv += [flag, str(value)]
    if req.target is not None:
        argv.append(f"--target={req.target}")  # one argument: a column may start with "-"
    if req.metric is not None:
        argv.append(f"--metric={req.metric}")
    return argv
