"""Hunt, session 24: a notebook written for older library versions (``OneHotEncoder(sparse=
False)``, ``mean_squared_error(..., squared=False)``, XGBoost's ``fit(...,
early_stopping_rounds=50)``) failed at that call and was never refined, although
``codecheck.api_drift`` repairs exactly those calls in LLM answers.  The run's copy now has them
rewritten, the note says so, and a proposal gives the user's lines back."""

from __future__ import annotations

from mlestar_jupyter.agent.changes import note_for, restore_paths
from mlestar_jupyter.agent.old_calls import repair_old_calls

from .notebooks import code_notebook


def test_old_calls_are_rewritten_noted_and_given_back() -> None:
    cells = (
        "enc = OneHotEncoder(sparse=False, handle_unknown='ignore')\nX = enc.fit_transform(df)",
        "print('RMSE:', mean_squared_error(y_va, pred, squared=False))",
        "%time model.fit(X, y)",  # no Python: left alone
    )
    nb = code_notebook(*cells)
    out, changes = repair_old_calls(nb)
    first, second, third = (b.source for b in out.code_blocks)
    assert "OneHotEncoder(sparse_output=False, handle_unknown='ignore')" in first
    assert second.split("\n") == [
        "from sklearn.metrics import root_mean_squared_error",
        "print('RMSE:', root_mean_squared_error(y_va, pred))",
    ]
    assert third == cells[2]
    assert {c.kind for c in changes} == {"old_api"}
    note = note_for(changes)
    assert "written for older library versions" in note and "sparse=False" in note
    for block, cell in zip(out.code_blocks, cells, strict=True):
        assert restore_paths(block.source, block.id, changes) == cell


def test_a_notebook_of_current_calls_is_left_as_it_is() -> None:
    nb = code_notebook("enc = OneHotEncoder(sparse_output=False)")
    out, changes = repair_old_calls(nb)
    assert out is nb and changes == ()
