"""Notebooks and folders as outsiders hand them to the server, run by the real agent command:
a notebook for an R kernel, one with no code cells, a Kaggle download with no description, in a
folder whose name has spaces and non-ASCII letters.  Each ends before any journal is written;
the run's description must still say why, not just "failed"."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from traitlets.config import Config

from .test_handlers import call, service, until  # noqa: F401  (service: a fixture)

R_NOTEBOOK = {
    "cells": [
        {
            "cell_type": "code",
            "execution_count": None,
            "metadata": {},
            "outputs": [],
            "source": ['train <- read.csv("train.csv")\n', "library(randomForest)"],
        }
    ],
    "metadata": {
        "kernelspec": {"name": "ir", "display_name": "R", "language": "R"},
        "language_info": {"name": "R"},
    },
    "nbformat": 4,
    "nbformat_minor": 4,
}
NO_CODE = {
    "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": "# TODO: the model"},
        {"cell_type": "raw", "metadata": {}, "source": "notes"},
    ],
    "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
    "nbformat": 4,
    "nbformat_minor": 1,
}


@pytest.fixture
def jp_server_config() -> Config:
    return Config(
        {
            "ServerApp": {"jpserver_extensions": {"mlestar_jupyter.server": True}},
            "RunService": {"command": [sys.executable, "-m", "mlestar_jupyter"]},
        }
    )


@pytest.fixture
def download(jp_root_dir: Path) -> Path:
    """train.csv, test.csv and sample_submission.csv, no description, under 'Mes données/'."""
    d = jp_root_dir / "Mes données" / "vin rouge (Kaggle)"
    d.mkdir(parents=True)
    (d / "train.csv").write_text("Id,alcohol,cultivar\n1,13.2,0\n2,12.1,1\n3,14.0,2\n")
    (d / "test.csv").write_text("Id,alcohol\n4,13.0\n")
    (d / "sample_submission.csv").write_text("Id,cultivar\n4,0\n")
    return d


async def _ended(fetch: Any, run_id: str) -> dict[str, Any]:
    async def finished() -> Any:
        code, d = await call(fetch, "runs", run_id)
        return d if code == 200 and d["status"] != "running" else None

    return await until(finished, timeout=60)  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("notebook", "said"),
    [
        (R_NOTEBOOK, "written for the R kernel"),
        (NO_CODE, "no code cells"),
        ("{'cells': [", "not a readable notebook"),
    ],
    ids=["r-kernel", "no-code-cells", "not-json"],
)
async def test_a_notebook_a_run_cannot_start_from_is_refused_at_once(
    jp_fetch: Any,
    service: Any,  # noqa: F811
    download: Path,
    notebook: dict[str, Any] | str,
    said: str,
) -> None:
    """Before, the run was spawned and ended "failed" with no message."""
    nb = download / "analyse données.ipynb"
    nb.write_text(notebook if isinstance(notebook, str) else json.dumps(notebook))
    body = {"notebook_path": "Mes données/vin rouge (Kaggle)/analyse données.ipynb"}
    code, err = await call(jp_fetch, "runs", method="POST", body=body)
    assert code == 400, err
    assert said in err["message"]
    assert err["fields"][0]["field"] == "notebook_path"
    assert not service.runs_path.exists() or not any(service.runs_path.iterdir())


async def test_a_run_that_ends_before_its_journal_says_why(
    jp_fetch: Any,
    service: Any,  # noqa: F811
    download: Path,
) -> None:
    """Two tables with no description, no sample submission and no notebook: the agent refuses
    the folder before it writes a journal; the run's description quotes the agent's reason.
    (A Kaggle download with its sample submission runs: ``importer.download_task``.)"""
    (download / "sample_submission.csv").unlink()
    body = {"task_dir": "Mes données/vin rouge (Kaggle)", "time_limit": 30}
    code, run = await call(jp_fetch, "runs", method="POST", body=body)
    assert code == 201, run
    ended = await _ended(jp_fetch, run["run_id"])
    assert ended["status"] == "failed"
    assert "not a task folder" in ended["message"] and "--notebook" in ended["message"]
    code, listed = await call(jp_fetch, "runs")
    assert listed[0]["message"] == ended["message"]


@pytest.mark.slow
async def test_a_dataset_folder_runs_from_the_server_with_the_dialog_s_target(
    jp_fetch: Any,
    service: Any,  # noqa: F811
    jp_root_dir: Path,
) -> None:
    """A course folder holding one table (no test rows, no description): the dialog's target
    makes it a task with held-out rows, graded at the end; the run's events say so."""
    from sklearn.datasets import load_wine

    from mlestar_jupyter.journal import read_events

    folder = jp_root_dir / "Cours" / "vins"
    folder.mkdir(parents=True)
    wine = load_wine(as_frame=True).frame.rename(columns={"target": "cépage"})
    wine.to_csv(folder / "vins.csv", index=False)
    body = {
        "task_dir": "Cours/vins",
        "target": "cépage",
        "time_limit": 40,
        **{"models": 1, "inner": 1, "outer": 1, "parallel": 1, "ensemble_rounds": 0},
    }
    code, run = await call(jp_fetch, "runs", method="POST", body=body)
    assert code == 201, run

    async def finished() -> Any:
        code, d = await call(jp_fetch, "runs", run["run_id"])
        return d if code == 200 and d["status"] != "running" else None

    ended = await until(finished, timeout=240)
    assert ended["status"] in ("done", "no_improvement", "stopped"), ended
    events = read_events(service.runs_path / run["run_id"] / "events.jsonl")
    held = [e.data for e in events if e.type == "heldout"]
    assert len(held) == 1 and held[0]["valid"] and held[0]["score"] > 0.8, held
    assert not (folder / "task").exists() and sorted(p.name for p in folder.iterdir()) == [
        "vins.csv"
    ]
