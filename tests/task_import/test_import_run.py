"""A page imported with ``mlestar task import`` runs with ``mlestar run`` (short budget)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

from mlestar_jupyter.cli import main

from .competitions import Competition

Download = Callable[[str], tuple[Competition, Path]]


@pytest.mark.slow
def test_imported_kaggle_page_runs_end_to_end(download: Download, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    comp, data = download("spaceship")
    task = tmp_path / "spaceship"
    argv = ["task", "import", *map(str, comp.page_paths()), "--data", str(data), "--out", str(task)]
    assert main(argv) == 0
    capsys.readouterr()
    small = ["-M", "1", "-K", "1", "-T", "1", "-L", "1", "-R", "0", "--no-progress"]
    run = [
        "run",
        str(task),
        "--out",
        str(tmp_path / "run"),
        "--time-limit",
        "240",
        "--json",
        *small,
    ]
    assert main(run) == 0
    res = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert res["status"] == "done" and res["best_score"] > 0.7  # accuracy on a learnable rule
    sub = pd.read_csv(res["submission"])
    test = pd.read_csv(task / "input" / "test.csv")
    assert list(sub.columns) == ["PassengerId", "Transported"] and len(sub) == len(test)
