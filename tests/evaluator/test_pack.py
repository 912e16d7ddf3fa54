"""The tiny pack: folders load with Task.load, hold what a Kaggle-style task holds, and are deterministic."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from mlestar_jupyter.evaluator.errors import SourceMissing
from mlestar_jupyter.evaluator.pack import build as pack_build
from mlestar_jupyter.evaluator.pack.base import PackTask
from mlestar_jupyter.evaluator.pack.build import TINY, prepare, prepare_pack
from mlestar_jupyter.task import Task

EXPECTED = {
    "tiny-breast-cancer": ("roc_auc", "maximize", "tabular", "classification"),
    "tiny-wine": ("log_loss", "minimize", "tabular", "classification"),
    "tiny-diabetes": ("rmse", "minimize", "tabular", "regression"),
    "tiny-digits": ("f1_macro", "maximize", "image", "classification"),
}


@pytest.mark.parametrize("name", TINY)
def test_tiny_task_loads_with_task_load(tiny_pack: Path, name: str) -> None:
    task = Task.load(tiny_pack / name)
    metric, direction, modality, task_type = EXPECTED[name]
    assert (task.metric_name, task.direction, task.modality, task.task_type) == (
        metric,
        direction,
        modality,
        task_type,
    )
    assert task.answers_path == tiny_pack / "answers" / name / "answers.csv"
    assert not (tiny_pack / name / "private").exists()  # nothing secret in the run's folder
    assert task.sample_submission_path is not None and task.sample_submission_path.is_file()
    assert len(task.special_instructions) >= 2
    assert task.source_format == "tam_bench"


@pytest.mark.parametrize("name", TINY)
def test_labels_stay_outside_input(tiny_pack: Path, name: str) -> None:
    root = tiny_pack / name
    task = Task.load(root)
    answers = pd.read_csv(tiny_pack / "answers" / name / "answers.csv")
    sample = pd.read_csv(root / "input" / "sample_submission.csv")
    assert list(answers[task.id_col]) == list(sample[task.id_col])
    assert not any(
        p.name in ("answers.csv", "leaderboard.csv") for p in (root / "input").rglob("*")
    )
    test_csv = root / "input" / "test.csv"
    if test_csv.exists():  # tabular: the test table lacks the target column
        assert not set(task.target_cols) & set(pd.read_csv(test_csv, nrows=1).columns)
        assert len(pd.read_csv(test_csv)) == len(answers)
    else:  # images: one file per test id
        assert sorted(p.stem for p in (root / "input" / "test").glob("*.png")) == sorted(
            answers[task.id_col].astype(str)
        )


@pytest.mark.parametrize("name", TINY)
def test_leaderboard_and_difficulty_are_written(tiny_pack: Path, name: str) -> None:
    root = tiny_pack / name
    board = pd.read_csv(root / "leaderboard.csv")
    assert len(board) >= 15
    assert list(board["rank"]) == list(range(1, len(board) + 1))
    direction = EXPECTED[name][1]
    assert (
        board["score"].is_monotonic_decreasing
        if direction == "maximize"
        else board["score"].is_monotonic_increasing
    )
    assert board["score"].nunique() >= 8  # references of really different strength
    diff = json.loads((root / "task.json").read_text())["difficulty"]
    assert diff["level"] in ("easy", "medium", "hard") and diff["participants"] == len(board)


def test_task_json_follows_tam_bench_schema(tiny_pack: Path) -> None:
    spec = json.loads((tiny_pack / "tiny-digits" / "task.json").read_text())
    for key in (
        "task_type",
        "goal_description",
        "metric",
        "target_col",
        "data_information",
        "output_format",
        "special_instructions",
    ):
        assert key in spec
    assert {"metric_name", "direction"} <= set(spec["metric"])
    info = spec["data_information"]
    assert info["data_type"] == "Image" and {"data_location", "data_description"} <= set(
        info["train"]
    )
    assert spec["special_instructions"].startswith("1. ")


def test_build_is_deterministic(tiny_pack: Path, tmp_path: Path) -> None:
    again = prepare_pack(tmp_path, ["tiny-wine"], quick=True, log=lambda _: None)[0]
    for rel in (
        "input/train.csv",
        "input/test.csv",
        "input/sample_submission.csv",
        "../answers/tiny-wine/answers.csv",
    ):
        assert (again / rel).read_bytes() == (tiny_pack / "tiny-wine" / rel).read_bytes(), rel
    a, b = (
        pd.read_csv(again / "leaderboard.csv"),
        pd.read_csv(tiny_pack / "tiny-wine" / "leaderboard.csv"),
    )
    pd.testing.assert_series_equal(a["score"], b["score"])


def test_missing_source_is_skipped_with_install_hint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def build(_inp: Path):  # noqa: ANN202
        raise SourceMissing("fake-task", "the PyPI package nothere")

    monkeypatch.setattr(
        pack_build,
        "PACK",
        (*pack_build.PACK, PackTask("fake-task", "tabular", False, "nothere", build)),
    )
    lines: list[str] = []
    results = prepare(tmp_path, ["fake-task"], log=lines.append)
    assert results[0].path is None
    assert "scripts/install_bench_deps.sh" in (results[0].skipped or "") and "nothere" in (
        results[0].skipped or ""
    )
    assert any("install_bench_deps.sh" in line for line in lines)
    assert not (tmp_path / "fake-task").exists() and not list(tmp_path.glob(".fake-task*"))


def test_unknown_task_name_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown pack task"):
        prepare(tmp_path, ["no-such-task"])
