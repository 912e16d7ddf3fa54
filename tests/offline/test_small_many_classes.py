"""Small data with many classes (issue 21, part 4): 234 training rows of 52 classes.  A
stratified 80/20 split cannot be made (47 held-out rows < 52 classes), so the split adapts, the
offline debugger knows the error, and the run ends on a real model, not the prior baseline."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import train_test_split

from mlestar_jupyter.agent.run import RunOutcome
from mlestar_jupyter.agent.scoring import make_split
from mlestar_jupyter.offline import split_repair
from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.layout import inspect_task

N_CLASSES, N_TRAIN, N_TEST, LENGTH = 52, 234, 60, 48


def _many_class_series(root: Path) -> Path:
    """Sines of 52 frequencies (one class each), 234 training series of 4 to 6 per class."""
    rng = np.random.RandomState(0)
    n = N_TRAIN + N_TEST
    labels = np.arange(n) % N_CLASSES
    labels[N_TRAIN - 1] = labels[0]  # uneven classes
    t = np.linspace(0, 1, LENGTH)
    rows = [np.sin(2 * np.pi * (1 + 0.5 * c) * t) + 0.1 * rng.randn(LENGTH) for c in labels]
    df = pd.DataFrame(np.round(rows, 4), columns=[f"t{j}" for j in range(LENGTH)])
    df.insert(0, "id", np.arange(n))
    df["label"] = [f"c{c:02d}" for c in labels]
    inp = root / "input"
    inp.mkdir(parents=True)
    df.iloc[:N_TRAIN].to_csv(inp / "train.csv", index=False)
    df.iloc[N_TRAIN:].drop(columns=["label"]).to_csv(inp / "test.csv", index=False)
    sample = pd.DataFrame({"id": df["id"].iloc[N_TRAIN:], "label": "c00"})
    sample.to_csv(inp / "sample_submission.csv", index=False)
    (root / "private").mkdir()
    df.iloc[N_TRAIN:][["id", "label"]].to_csv(root / "private" / "answers.csv", index=False)
    spec = {
        "goal_description": "Classify each series into one of 52 frequencies.",
        "task_type": "classification",
        "metric": {"metric_name": "accuracy"},
        "target_col": "label",
        "data_information": {"data_type": "time series"},
    }
    (root / "task.json").write_text(json.dumps(spec))
    return root


def _tabular_copy(series_task: Path, root: Path) -> Path:
    """The same rows as a tabular task (the harness's split applies to tables)."""
    import shutil

    shutil.copytree(series_task, root)
    spec = json.loads((root / "task.json").read_text())
    spec["data_information"]["data_type"] = "tabular"
    (root / "task.json").write_text(json.dumps(spec))
    return root


def test_the_stratified_split_really_fails_on_this_data(tmp_path: Path) -> None:
    """The premise: sklearn refuses a stratified 20% hold-out of these labels."""
    y = pd.read_csv(_many_class_series(tmp_path / "t") / "input" / "train.csv")["label"]
    assert y.nunique() == N_CLASSES and len(y) == N_TRAIN
    with pytest.raises(ValueError, match="greater or equal to the number of classes"):
        train_test_split(np.arange(len(y)), test_size=0.2, stratify=y)


def test_harness_split_does_not_crash_on_52_classes(tmp_path: Path) -> None:
    root = _tabular_copy(_many_class_series(tmp_path / "ts"), tmp_path / "tab")
    task = load_task(root)
    split = make_split(task, inspect_task(task), seed=0, max_rows=None)
    assert split is not None and len(split.rows) == 47 and split.n_labelled == N_TRAIN


def test_drop_stratify_rewrites_every_stratified_call() -> None:
    src = (
        "a, b = train_test_split(X, test_size=0.2, stratify=stratify_by(y.iloc[pool]))\n"
        "c = f(stratify=None)\n"
        "d = g(x, stratify=y,\n      random_state=0)  # é\n"
    )
    out = split_repair.drop_stratify(src)
    assert "stratify=stratify_by" not in out and "stratify=y" not in out
    assert out.count("stratify=None") == 3 and "random_state=0)  # é" in out
    assert split_repair.drop_stratify("x = (") == "x = ("  # does not parse: unchanged


def test_offline_debugger_knows_the_stratify_error(tmp_path: Path) -> None:
    from mlestar_jupyter.agent.config import RunConfig
    from mlestar_jupyter.offline import OfflinePolicy

    task = load_task(_many_class_series(tmp_path / "t"))
    policy = OfflinePolicy(task, RunConfig())
    nb = policy.init_solution(policy.retrieve(1)[0])
    # the split as a solution written elsewhere may have it (the LLM's, the user's)
    old = "X_train, X_val, y_train, y_val = train_test_split(X, y, test_size=0.2, stratify=y)"
    sub = nb.blocks_by_role("subsample")[0]
    broken = nb.replace_block(sub.id, old)
    error = (
        "ValueError: The test_size = 47 should be greater or equal to the number of classes = 52"
    )
    fixed = policy.debug(broken, error, sub.id)
    assert fixed.block(sub.id).source == old.replace("stratify=y", "stratify=None")
    one = "ValueError: The least populated class in y has only 1 member, which is too few."
    assert "stratify=None" in policy.debug(broken, one, None).block(sub.id).source


@pytest.mark.slow
def test_a_run_on_234_rows_of_52_classes_ends_on_a_real_model(
    tmp_path: Path, short_run: Callable[..., RunOutcome]
) -> None:
    root = _many_class_series(tmp_path / "task")
    out = short_run(root, time_limit=240, models=2)
    assert out.status == "done", out.stop_reason
    assert out.final.ok and out.final.rung in ("best", "previous"), out.final
    sub = pd.read_csv(out.final.submission)
    truth = pd.read_csv(root / "private" / "answers.csv")
    assert sub["id"].tolist() == truth["id"].tolist()
    accuracy = float((sub["label"].astype(str) == truth["label"]).mean())
    assert accuracy > 0.3  # a prior-only baseline scores about 1/52


def test_a_time_series_notebook_holds_out_one_row_per_class(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The card's own split (no harness split for series): 53 held-out rows, stratified, so every
    class is both trained on and validated."""
    from mlestar_jupyter.agent.config import RunConfig
    from mlestar_jupyter.offline import OfflinePolicy

    root = _many_class_series(tmp_path / "t")
    policy = OfflinePolicy(load_task(root), RunConfig())
    nb = policy.init_solution(policy.retrieve(1)[0])
    code = "\n".join(
        b.source for role in ("setup", "load", "subsample") for b in nb.blocks_by_role(role)
    )
    monkeypatch.chdir(root)
    scope: dict = {}
    exec(compile(code, "notebook", "exec"), scope)  # noqa: S102 - our own rendered template
    y_train, y_val = scope["y_train"], scope["y_val"]
    assert len(y_val) == 53 and len(y_train) == N_TRAIN - 53
    assert set(y_val) == set(y_train) and len(set(y_val)) == N_CLASSES
