"""A task.json from another author: three-class log loss and no sample submission.  The
submission had one column, the catalog notebooks wrote the second class's probability in it, and
the run scored its candidates on that (validation log loss 0.50 where the same models score 0.05).
Without a sample, a probability metric of more than two classes now asks for one column per
class, everywhere: the data layout, the run's submission check and its value check."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from sklearn.datasets import load_wine

from mlestar_jupyter.agent.submission import submission_problems, value_spec
from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.layout import inspect_task
from mlestar_jupyter.task.layout.tables import class_probability_columns


def _wine(root: Path, metric: str, classes: int = 3, with_id: bool = True) -> Path:
    df = load_wine(as_frame=True).frame.sample(frac=1.0, random_state=0)
    df = df[df.target < classes]
    if with_id:
        df.insert(0, "ID", range(len(df)))
    (root / "input").mkdir(parents=True)
    df.iloc[:100].to_csv(root / "input" / "train.csv", index=False)
    df.iloc[100:].drop(columns="target").to_csv(root / "input" / "test.csv", index=False)
    spec = {"goal": "cultivar", "metric": metric, "target_col": "target"}
    if with_id:
        spec["id_col"] = "ID"
    (root / "task.json").write_text(json.dumps(spec))
    return root


def test_three_classes_and_log_loss_ask_for_a_column_per_class(tmp_path: Path) -> None:
    task = load_task(_wine(tmp_path / "w", "log loss"))
    assert class_probability_columns(task) == ("0", "1", "2")
    layout = inspect_task(task)
    assert layout.submission_kind == "proba_columns" and layout.target_cols == ("0", "1", "2")
    spec = value_spec(task)
    assert spec is not None and spec.mode == "proba_columns"
    test = pd.read_csv(task.input_dir / "test.csv")
    good = pd.DataFrame({"ID": test.ID, "0": 0.2, "1": 0.3, "2": 0.5})
    good.to_csv(tmp_path / "good.csv", index=False)
    assert submission_problems(task, tmp_path / "good.csv") == []
    one = pd.DataFrame({"ID": test.ID, "target": 0.5})  # what the notebooks wrote before
    one.to_csv(tmp_path / "one.csv", index=False)
    assert "missing column(s) ['0', '1', '2']" in submission_problems(task, tmp_path / "one.csv")[0]


@pytest.mark.parametrize(("metric", "classes"), [("accuracy", 3), ("log loss", 2)])
def test_labels_or_two_classes_keep_one_column(tmp_path: Path, metric: str, classes: int) -> None:
    task = load_task(_wine(tmp_path / "w", metric, classes))
    assert class_probability_columns(task) is None
    assert inspect_task(task).target_cols == ("target",)


def test_without_an_id_every_class_column_is_checked(tmp_path: Path) -> None:
    """No id column either: the first class column was taken for the id, and its values went
    unchecked (a label in it passed)."""
    task = load_task(_wine(tmp_path / "w", "log loss", with_id=False))
    assert task.id_col is None
    spec = value_spec(task)
    assert spec is not None and spec.pred_cols == ("0", "1", "2")
    rows = len(pd.read_csv(task.input_dir / "test.csv"))
    good = pd.DataFrame({"0": [0.2] * rows, "1": 0.3, "2": 0.5})
    good.to_csv(tmp_path / "good.csv", index=False)
    assert submission_problems(task, tmp_path / "good.csv", spec) == []
    bad = good.assign(**{"0": "class_0"})  # a label where a probability belongs
    bad.to_csv(tmp_path / "bad.csv", index=False)
    assert submission_problems(task, tmp_path / "bad.csv", spec) != []


@pytest.mark.parametrize(
    ("written", "named"),
    [
        (["class_0", "class_1", "class_2"], True),  # the hunt's wine notebook (session 22)
        (["p0", "p1", "p2"], True),
        (["0_prob", "1_prob", "2_prob"], True),
        (["0", "1", "2"], False),  # already the classes: nothing to do
        (["a", "b", "c"], False),  # no class around which they are named
        (["class_0", "class_1"], False),  # a class missing
    ],
)
def test_class_columns_named_around_the_class_are_named_as_the_classes(
    tmp_path: Path, written: list[str], named: bool
) -> None:
    """A notebook's own format without a sample submission (``class_0`` ...): the run's check
    wanted ``0, 1, 2`` and handed in nothing though the refined notebook validated at 0.004."""
    from mlestar_jupyter.agent.own_submission import adopt_own_submission
    from mlestar_jupyter.task.layout.tables import class_columns_renamed

    task = load_task(_wine(tmp_path / "w", "log loss"))
    test = pd.read_csv(task.input_dir / "test.csv")
    work = tmp_path / "work"
    work.mkdir()
    own = work / "submission.csv"
    frame = pd.DataFrame({"ID": test.ID, **{c: 1 / len(written) for c in written}})
    frame.to_csv(own, index=False)
    out = tmp_path / "renamed.csv"
    renamed = class_columns_renamed(task, own, out)
    assert bool(renamed) is named and out.is_file() is named
    adopted = adopt_own_submission(
        work,
        lambda p: submission_problems(task, p),
        lambda a, b: class_columns_renamed(task, a, b),
    )
    if named:
        assert renamed == dict(zip(written, ["0", "1", "2"], strict=True))
        assert adopted is not None and submission_problems(task, adopted[1]) == []
        assert list(pd.read_csv(adopted[1]).columns) == ["ID", "0", "1", "2"]
    else:
        assert (adopted is not None) is (written == ["0", "1", "2"])
        if adopted is None:
            assert not (work / "final" / "submission.csv").exists()


def test_a_final_file_written_with_such_columns_is_named_in_place(tmp_path: Path) -> None:
    """The final phase's notebook wrote ``final/submission.csv`` itself (``class_0`` ...):
    named as the classes where it lies, with a warning saying so."""
    from types import SimpleNamespace

    from mlestar_jupyter.agent.submission import _with_own_submission
    from mlestar_jupyter.journal.node import Node

    task = load_task(_wine(tmp_path / "w", "log loss"))
    test = pd.read_csv(task.input_dir / "test.csv")
    sub = tmp_path / "final" / "submission.csv"
    sub.parent.mkdir()
    pd.DataFrame({"ID": test.ID, "class_0": 0.2, "class_1": 0.3, "class_2": 0.5}).to_csv(
        sub, index=False
    )
    said: list[dict] = []
    ctx = SimpleNamespace(task=task, journal=SimpleNamespace(emit=lambda t, **d: said.append(d)))
    node = Node("final-0", None, "final", "final", "", None, "", None, True, submission=str(sub))
    assert _with_own_submission(ctx, node, value_spec(task)) == node  # type: ignore[arg-type]
    assert submission_problems(task, sub) == []
    assert said and "class_0 → 0, class_1 → 1, class_2 → 2" in said[0]["message"]
    said.clear()
    assert _with_own_submission(ctx, node, value_spec(task)) == node  # type: ignore[arg-type]
    assert said == []  # a valid file is left as it is
