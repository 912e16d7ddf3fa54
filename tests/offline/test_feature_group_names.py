"""The ablation that drops a cell's engineered columns drops their names from the cell's list
of feature columns too (hunt E, session 28: ``FEATS = [..., 'dow', 'month', 't']`` kept them,
and every variant failed with ``KeyError: "['dow', 'month', 't'] not in index"``)."""

from __future__ import annotations

import ast

from mlestar_jupyter.offline.user_code.feature_edits import drop_feature_group

CELL = (
    "train = pd.read_csv('train.csv', parse_dates=['date'])\n"
    "for df in (train, test):\n"
    "    df['dow'] = df['date'].dt.dayofweek\n"
    "    df['month'] = df['date'].dt.month\n"
    "train['t'] = (train['date'] - pd.Timestamp('2021-01-01')).dt.days\n"
    "FEATS = ['store', 'temperature',\n         'dow', 'month', 't']\n"
    "CATS = ('store', 'dow')\n"
    "DROP = ['dow']  # every name dropped: left as it is\n"
)


def test_the_dropped_columns_leave_the_lists_of_feature_names() -> None:
    out = drop_feature_group(CELL)
    assert out is not None
    ast.parse(out)
    assert "dayofweek" not in out and "Timestamp" not in out
    assert "FEATS = ['store', 'temperature']" in out
    assert "CATS = ('store',)" in out
    assert "DROP = ['dow']" in out
    assert "parse_dates=['date']" in out  # a call's list is no list of features


def test_a_cell_that_adds_no_columns_is_no_variant() -> None:
    assert drop_feature_group("FEATS = ['a', 'b']\nX = train[FEATS]") is None
