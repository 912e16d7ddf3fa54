"""Kaggle's encoding loop ``if train[col].dtype == 'object'`` under pandas 3, which reads text as
dtype ``str``: the test was never true, XGBoost refused the text columns and the run set the
notebook aside (hunt, session 26).  A first cell reads text as ``object`` again."""

from __future__ import annotations

import io

import pandas as pd
import pytest

from mlestar_jupyter.agent.text_dtype import CELL, ORIGIN, reads_text_as_str, text_as_object

from .notebooks import code_notebook as _nb


@pytest.mark.parametrize(
    "test",
    [
        "if train[col].dtype == 'object':",
        'if df[c].dtype == "O":',
        "if X[c].dtypes != object:",
        "cats = [c for c in df.columns if df[c].dtype.name == 'object']",
        "if df[c].dtype.kind == 'O':",
        "if df[c].dtype in ['object', 'category']:",
        "objs = df.dtypes[df.dtypes == 'object'].index",
        "if df[c].dtype is np.object_:",
    ],
)
def test_a_notebook_that_tests_for_object_columns_reads_text_as_object(test: str) -> None:
    nb = _nb("import pandas as pd", f"for col in train.columns:\n    {test}\n        pass")
    out = text_as_object(nb, text_is_str=True)
    first = out.code_blocks[0]
    assert first.origin == ORIGIN and first.role == "setup" and first.source == CELL.strip("\n")
    assert [b.source for b in out.code_blocks[1:]] == [b.source for b in nb.code_blocks]
    assert text_as_object(out, text_is_str=True) is out  # once
    assert text_as_object(nb, text_is_str=False) is nb  # pandas 2 reads text as object anyway


@pytest.mark.parametrize(
    "code",
    [
        "cats = df.select_dtypes(include='object').columns",  # pandas 3 includes str here
        "obj = {'dtype': 'object'}",
        "x = np.zeros(3, dtype=object)",
    ],
)
def test_other_notebooks_are_left_as_they_are(code: str) -> None:
    nb = _nb("import pandas as pd", code)
    assert text_as_object(nb, text_is_str=True) is nb


def test_the_cell_makes_text_columns_object_again() -> None:
    before = pd.get_option("future.infer_string")
    try:
        exec(compile(CELL, "cell", "exec"), {})
        frame = pd.read_csv(io.StringIO("Sex,Age\nmale,22\nfemale,38\n"))
        assert frame["Sex"].dtype == "object" and not reads_text_as_str()
    finally:
        pd.set_option("future.infer_string", before)
