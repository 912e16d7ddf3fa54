"""A notebook that ends itself (``raise SystemExit``, ``sys.exit()`` at a cell's top, no
kernel): the line and what Run All would not reach are not run; proposals give them back."""

from __future__ import annotations

import pytest

from mlestar_jupyter.agent.changes import note_for, restore_paths
from mlestar_jupyter.agent.exit_lines import AFTER_EXIT, NO_EXIT, stop_at_exit

from .notebooks import code_notebook as _nb


@pytest.mark.parametrize(
    "line",
    [
        "raise SystemExit('stop here')",
        "raise SystemExit",
        "sys.exit()",
        "exit()",
        "quit()",
        "os._exit(0)",
        "sys.exit(0)  # the end",
    ],
)
def test_an_exit_at_a_cells_top_ends_the_run_s_notebook_there(line: str) -> None:
    cells = ("x = 1", f"print(x)\n{line}\nprint('after')", "broken(", "y = 2")
    nb = _nb(*cells)
    out, changes = stop_at_exit(nb)
    first, second, third, fourth = (b.source for b in out.code_blocks)
    assert first == "x = 1"
    assert second == f"print(x)\npass  # {line}{NO_EXIT}\n# print('after')"
    assert third.startswith(AFTER_EXIT) and "# broken(" in third
    assert fourth == f"{AFTER_EXIT}\n# y = 2"
    assert {c.kind for c in changes} == {"stop"}
    for block in out.code_blocks:  # the user's own cells come back as written
        assert restore_paths(block.source, block.id, changes) == nb.block(block.id).source
    assert f"ends itself at `{line}`" in note_for(changes)


@pytest.mark.parametrize(
    "cell",
    [
        "if df.isna().any().any():\n    sys.exit(1)",  # a condition the notebook checks
        "try:\n    main()\nexcept KeyError:\n    raise SystemExit('bad column')",
        "def stop():\n    exit()",
        "x = 1; sys.exit()",  # not alone on its line
        "!ls\nraise SystemExit",  # no Python (a shell line): left alone
        "sys.exit_code = 3",
    ],
)
def test_conditional_or_other_exits_are_left_alone(cell: str) -> None:
    nb = _nb(cell, "y = 2")
    out, changes = stop_at_exit(nb)
    assert out is nb and changes == ()
