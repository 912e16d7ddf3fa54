"""What a refinement step proposes: changed, added and removed cells, the target first."""

from __future__ import annotations

from mlestar_jupyter.agent.algorithms import cell_changes
from mlestar_jupyter.notebook import SolutionNotebook


def _old() -> SolutionNotebook:
    return SolutionNotebook.new(
        [
            ("load", "import pandas as pd"),
            ("features", "X = df[cols]"),
            ("model", "clf = Ridge()"),
            ("other", "print('debug')"),
        ]
    )


def test_changed_added_and_removed_cells_are_all_proposed() -> None:
    old = _old()
    new = old.replace_block("b3", "clf = Ridge(alpha=3.0)")
    new = new.insert_block_after("b1", "import numpy as np").delete_block("b4")
    added = [b.id for b in new.code_blocks if b.id not in old.block_ids]
    assert len(added) == 1
    changes = cell_changes(old, new, first="b3")
    assert [(c["kind"], c["block_id"]) for c in changes] == [
        ("change", "b3"),
        ("insert", added[0]),
        ("delete", "b4"),
    ]
    change, insert, delete = changes
    assert change["old_source"] == "clf = Ridge()" and change["cell_id"] == old.cell("b3")["id"]
    assert insert["after_block_id"] == "b1" and insert["after_cell_id"] == old.cell("b1")["id"]
    assert insert["new_source"] == "import numpy as np" and insert["old_source"] == ""
    assert insert["cell_id"] == new.cell(added[0])["id"]
    assert delete["old_source"] == "print('debug')" and delete["new_source"] == ""


def test_a_cell_added_at_the_top_goes_before_the_first_code_cell() -> None:
    old = _old()
    new = old.insert_block_after(None, "SEED = 0", block_id="b9")
    (only,) = cell_changes(old, new)
    assert only["kind"] == "insert" and only["after_block_id"] is None
    assert only["after_cell_id"] is None and only["block_id"] == "b9"


def test_no_change_no_proposal() -> None:
    assert cell_changes(_old(), _old()) == []
