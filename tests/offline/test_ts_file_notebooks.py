"""Series notebooks of ``.ts`` tasks as people publish them (the UEA archive's format beside a
README), run in this process with sktime hidden, as on a plain install (sktime is only in the
``bench`` extra): multivariate cases of unequal lengths with missing values, and a regression
target (``@targetLabel true``).  The notebooks read the files with sktime before; every candidate
then failed on ``ModuleNotFoundError: No module named 'sktime'``."""

from __future__ import annotations

import contextlib
import io
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from mlestar_jupyter.agent.config import RunConfig
from mlestar_jupyter.agent.policy import ModelCard
from mlestar_jupyter.offline import OfflinePolicy
from mlestar_jupyter.task import load_task

README = "# {name}\n\n{goal}\n\n## Evaluation\n\n{metric}.\n"


def _motions(root: Path) -> list[str]:
    """Two-dimensional cases, 20 to 40 steps, a few values missing (``?``): a slow sine in the
    first dimension for ``walking``, a fast one for ``running``; the test labels, in order."""
    rs = np.random.RandomState(0)
    head = (
        "#Motions: two accelerometer axes, cases of unequal length\r\n"
        "@problemName Motions\r\n@timeStamps false\r\n@missing true\r\n@univariate false\r\n"
        "@dimensions 2\r\n@equalLength false\r\n@classLabel {labels}\r\n@data\r\n"
    )

    def case(k: int) -> tuple[str, str]:
        label = ["walking", "running"][k % 2]
        t = np.linspace(0, 1, rs.randint(20, 41))
        first = np.sin(2 * np.pi * (2 if label == "walking" else 7) * t) + 0.1 * rs.randn(len(t))
        values = [f"{v:.3f}" for v in first]
        values[rs.randint(len(values))] = "?"
        second = ",".join(f"{v:.3f}" for v in rs.randn(len(t)))
        return f"{','.join(values)}:{second}", label

    train = [case(k) for k in range(60)]
    test = [case(k) for k in range(20)]
    (root / "Motions_TRAIN.ts").write_bytes(
        (
            head.format(labels="true walking running") + "".join(f"{c}:{y}\r\n" for c, y in train)
        ).encode()
    )
    (root / "Motions_TEST.ts").write_bytes(
        (head.format(labels="false") + "".join(f"{c}\r\n" for c, _ in test)).encode()
    )
    return [y for _, y in test]


def _levels(root: Path) -> list[float]:
    """Univariate cases whose target is their mean level (``@targetlabel true``)."""
    rs = np.random.RandomState(1)
    head = (
        "@problemName Levels\n@timeStamps false\n@missing false\n@univariate true\n"
        "@equalLength true\n@seriesLength 24\n@targetlabel true\n@data\n"
    )

    def case() -> tuple[str, float]:
        level = rs.uniform(-5, 5)
        return ",".join(f"{v:.3f}" for v in level + 0.2 * rs.randn(24)), round(level, 3)

    train = [case() for _ in range(80)]
    test = [case() for _ in range(20)]
    (root / "Levels_TRAIN.ts").write_text(head + "".join(f"{c}:{y}\n" for c, y in train))
    (root / "Levels_TEST.ts").write_text(head + "".join(f"{c}:0\n" for c, _ in test))
    return [y for _, y in test]


def _run(root: Path, card: str, workdir: Path) -> pd.DataFrame:
    """The card's notebook for the task at ``root``, run in ``workdir`` (``./input``: the task's
    folder) with sktime hidden; the submission it wrote."""
    nb = OfflinePolicy(load_task(root), RunConfig()).init_solution(ModelCard(card, ""))
    workdir.mkdir(parents=True)
    (workdir / "input").symlink_to(root.resolve(), target_is_directory=True)
    scope: dict[str, Any] = {"__name__": "__notebook__"}
    here = Path.cwd()
    os.chdir(workdir)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            for cell in nb.nb.cells:
                if cell.cell_type == "code":
                    exec(compile(cell.source, "cell", "exec"), scope)  # noqa: S102 - our templates
    finally:
        os.chdir(here)
    found = sorted(workdir.rglob("submission.csv"))
    assert found, "the notebook wrote no submission.csv"
    return pd.read_csv(found[0])


@pytest.fixture
def no_sktime(monkeypatch: pytest.MonkeyPatch) -> None:
    """``import sktime`` fails, as on a plain install."""
    for name in [m for m in sys.modules if m == "sktime" or m.startswith("sktime.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "sktime", None)


@pytest.mark.usefixtures("no_sktime")
def test_multivariate_unequal_length_series_with_missing_values(tmp_path: Path) -> None:
    root = tmp_path / "motions"
    root.mkdir()
    (root / "README.md").write_text(
        README.format(
            name="motions", goal="Classify each case; submit `id,label`.", metric="Accuracy"
        )
    )
    want = _motions(root)
    sub = _run(root, "ts_stats_gbm", tmp_path / "work")
    assert list(sub.columns) == ["id", "label"] and sub["id"].tolist() == list(range(20))
    assert (sub["label"].to_numpy() == np.array(want)).mean() > 0.8


@pytest.mark.usefixtures("no_sktime")
def test_a_regression_target_of_ts_files(tmp_path: Path) -> None:
    root = tmp_path / "levels"
    root.mkdir()
    (root / "README.md").write_text(
        README.format(name="levels", goal="Predict each case's `level`.", metric="RMSE")
    )
    want = _levels(root)
    sub = _run(root, "minirocket", tmp_path / "work")
    assert len(sub) == 20 and sub.shape[1] == 2
    rmse = float(np.sqrt(np.mean((sub.iloc[:, 1].to_numpy() - np.array(want)) ** 2)))
    assert rmse < 1.0  # the level spread is 5.8 (uniform on -5..5)
