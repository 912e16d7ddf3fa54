"""A cell left from an earlier version of a notebook saved without outputs, which raises in the
run and feeds nothing after it, is not run (no kernel; ``tests/offline/test_stale_cell_runs.py``
runs one).

Hunts H and J (session 31): a cleared notebook with ``train['radius'].plot()`` (the column since
renamed: ``KeyError``) or ``print(confusion_matrix(y_val, ...))`` (names of a deleted cell:
``NameError``) after its model cell was set aside whole ("your notebook gave no validation
score (KeyError: 'radius')"); saved with outputs, ``error_cells`` already muted such a cell."""

from __future__ import annotations

import pytest

from mlestar_jupyter.agent.changes import note_for, restore_paths
from mlestar_jupyter.agent.stale_cells import is_users, stale_warning, without_stale_cell

from .notebooks import code_notebook as _nb

LOAD = "train = pd.read_csv('train.csv')\ntest = pd.read_csv('test.csv')"
MODEL = (
    "X = train.drop(columns=['id', 'target'])\nmodel = LogisticRegression().fit(X, train.target)"
)
SUBMIT = "pd.DataFrame({'id': test.id, 'target': model.predict(test[X.columns])}).to_csv('submission.csv')"


@pytest.mark.parametrize(
    ("stale", "error"),
    [
        ("train['radius'].plot(kind='hist', bins=30)\nplt.title('radius')\nplt.show()", "KeyError"),
        ("print(confusion_matrix(y_val, model.predict(X_val)))", "NameError"),
        ("df.groupby('target').mean()", "NameError"),
        ("corr = train.corr()\nsns.heatmap(corr)", "ValueError"),
        # a copy of a table, renamed, to look at: writes no file
        ("view = train.copy().rename(columns=str.upper)\nview['RADIUS'].describe()", "KeyError"),
    ],
)
def test_a_failing_cell_that_feeds_nothing_is_not_run(stale: str, error: str) -> None:
    nb = _nb(LOAD, MODEL, stale, SUBMIT)
    stale_id = nb.block_ids[2]
    muted = without_stale_cell(nb, stale_id, f"{error}: 'radius'")
    assert muted is not None
    out, changes = muted
    lines = out.block(stale_id).source.split("\n")
    assert lines[0] == (
        f"# MLE-STAR: not run: it raised {error} in the run, and no cell after it uses what it makes"
    )
    assert lines[1:] == [f"# {line}" for line in stale.split("\n")]
    compile(out.block(stale_id).source, "cell", "exec")  # nothing of it runs
    assert [b.source for b in out.code_blocks if b.id != stale_id] == [LOAD, MODEL, SUBMIT]
    for block in out.code_blocks:  # proposals give the user's cells back as written
        assert restore_paths(block.source, block.id, changes) == nb.block(block.id).source
    note = note_for(changes)
    assert "no cell after it uses what it makes" in note and "when you ran them" not in note
    assert f"({error})" in stale_warning(changes) and stale.split("\n")[0][:40] in stale_warning(
        changes
    )


@pytest.mark.parametrize(
    "cell",
    [
        # the model cell itself: its model is predicted with below
        "model = LogisticRegression(C=undefined).fit(X, train.target)",
        # a change in place of a table used below
        "train['ratio'] = train['mean_area'] / train['missing']",
        "train.drop(columns=['missing'], inplace=True)",
        "model.fit(X[cols], train.target)",
        "add_features(train)",  # the notebook's own function, given a table used below
        # a file written (a later cell or the run may read it)
        "train[cols].to_csv('clean.csv')",
        "def helper(x):\n    return x.missing",  # defined, then called below
        "import missing_module as mm",  # imported, then used below
        "x = (",  # does not parse
    ],
)
def test_a_failing_cell_that_may_feed_what_follows_is_left(cell: str) -> None:
    later = "y = helper(train)\nz = mm.f()\nprint(x)" if "def " in cell or "import" in cell else ""
    own = "def add_features(df):\n    df['a'] = 1"
    refit = f"model.fit(train[X.columns], train.target)\n{SUBMIT}"  # train and model read below
    nb = _nb(own, LOAD, MODEL, cell, refit, *([later] if later else []))
    assert without_stale_cell(nb, nb.block_ids[3], "KeyError: 'missing'") is None


def test_the_last_cell_and_unknown_blocks() -> None:
    nb = _nb(LOAD, MODEL, SUBMIT)
    assert without_stale_cell(nb, None, "KeyError: 'x'") is None
    assert without_stale_cell(nb, "nope", "KeyError: 'x'") is None
    assert without_stale_cell(nb, nb.block_ids[2], "KeyError: 'x'") is None  # writes the file


def test_the_users_node_run_again_is_still_the_users() -> None:
    assert is_users("user") and is_users("user-s1") and is_users("user-s12")
    assert not is_users("user-d1") and not is_users("p0-t1k2") and not is_users("users")
