"""A_test's first half: the subsampling is found, removed and verified gone, and the final run's
reported number of training rows is checked against the task's."""

from __future__ import annotations

from pathlib import Path

from mlestar_jupyter.agent.subsampling import (
    check_training_rows,
    find_subsampling,
    prepare_final,
    remove_subsampling,
    reported_training_rows,
)
from mlestar_jupyter.journal import RunJournal
from mlestar_jupyter.notebook import SolutionNotebook

NB = SolutionNotebook.new(
    [
        (
            "load",
            'import pandas as pd\ndf = pd.read_csv("input/train.csv", nrows=30000)\n'
            "df = df.sample(frac=1, random_state=0)",
        ),
        (
            "subsample",
            "if len(df) > 30000:\n    df = df.sample(n=30000, random_state=0)\n"
            "small = df.head(MAX_ROWS)",
        ),
        (
            "features",
            "val = df.sample(frac=0.2, random_state=1)\nX = X.iloc[:5000]\nprint(df.head())",
        ),
    ]
)


def test_subsampling_is_found_and_removed_but_shuffles_and_splits_stay() -> None:
    found = [s.line for s in find_subsampling(NB)]
    assert found == [
        'df = pd.read_csv("input/train.csv", nrows=30000)',
        "df = df.sample(n=30000, random_state=0)",
        "small = df.head(MAX_ROWS)",
        "X = X.iloc[:5000]",
    ]
    out = remove_subsampling(NB)
    src = out.source
    assert "nrows" not in src and "n=30000" not in src and "iloc[:5000]" not in src
    assert "small = df\n" in src + "\n" and "    df = df\n" in src
    assert "df.sample(frac=1, random_state=0)" in src  # a shuffle is not subsampling
    assert "val = df.sample(frac=0.2" in src  # nor is a split into a new name
    assert "print(df.head())" in src
    assert find_subsampling(out) == []
    compile(out.to_script(), "final", "exec")


def test_columns_selected_by_position_are_not_subsampling() -> None:
    """A student's lab: ``X = df.iloc[:, 1:-1].values`` in the split's cell was read as rows cut
    short and rewritten to ``X = df.values`` (and ``y`` to the whole table): every final
    notebook failed and the run handed in a constant."""
    cells = (
        "X = df.iloc[:, 1:-1].values\ny = df.iloc[:, -1].values\nz = arr[:, 0]\n"
        "w = df.iloc[:]\nX_tr, X_va, y_tr, y_va = train_test_split(X, y)"
    )
    nb = SolutionNotebook.new([("subsample", cells)])
    assert find_subsampling(nb) == []
    assert remove_subsampling(nb).source == nb.source
    cut = SolutionNotebook.new([("subsample", "X = df.iloc[:N_ROWS]\ny = y[: 500]")])
    assert [s.line for s in find_subsampling(cut)] == ["X = df.iloc[:N_ROWS]", "y = y[: 500]"]
    assert remove_subsampling(cut).source == "X = df\ny = y"


def test_prepare_final_journals_what_it_found_and_that_it_is_gone(tmp_path: Path) -> None:
    journal = RunJournal.create(tmp_path / "run", {})
    out = prepare_final(journal, NB, "final-0")
    (ev,) = journal.of_type("subsampling")
    assert ev.data["removed"] is True and ev.data["remaining"] == [] and len(ev.data["found"]) == 4
    assert find_subsampling(out) == []


def test_training_rows_the_final_run_reports_are_checked(tmp_path: Path) -> None:
    journal = RunJournal.create(tmp_path / "run", {})
    assert reported_training_rows("fit...\nTraining rows: 30,000\n") == 30000
    problem = check_training_rows(journal, "final-0", "Training rows: 30000", 100_000)
    assert problem is not None and "30000 of the task's 100000" in problem
    assert check_training_rows(journal, "final-1", "Training rows: 80000", 100_000) is None
    assert check_training_rows(journal, "final-2", "no count printed", 100_000) is None
    rows = [e.data for e in journal.of_type("subsampling")]
    assert [r["rows_reported"] for r in rows] == [30000, 80000, None]
