"""A notebook saved with a cell that raised when its author ran it, who then ran the cells below
(hunt, session 26): run from the top it stopped there and the run set it aside."""

from __future__ import annotations

import nbformat

from mlestar_jupyter.agent.changes import note_for, restore_paths
from mlestar_jupyter.agent.error_cells import skip_failed_cells
from mlestar_jupyter.notebook import SolutionNotebook


def _nb(*cells: tuple[str, int | None, str | None]) -> SolutionNotebook:
    """Code cells (source, saved execution count, the error saved with it)."""
    nb = nbformat.v4.new_notebook()
    for source, count, error in cells:
        cell = nbformat.v4.new_code_cell(source)
        cell.execution_count = count
        if error:
            cell.outputs = [
                nbformat.v4.new_output("error", ename=error, evalue="boom", traceback=[])
            ]
        nb.cells.append(cell)
    return SolutionNotebook(nb)


def test_a_cell_that_failed_before_later_cells_ran_is_not_run() -> None:
    explore = "df.plot_digits()\n\n# look at the classes\ndf.target.hist()"
    nb = _nb(("df = load()", 1, None), (explore, 2, "AttributeError"), ("fit(df)", 3, None))
    out, changes = skip_failed_cells(nb)
    first, second, third = (b.source for b in out.code_blocks)
    assert (first, third) == ("df = load()", "fit(df)")
    assert second.split("\n")[0].startswith("# MLE-STAR: not run: it raised AttributeError")
    assert second.split("\n")[1:] == [
        "# df.plot_digits()",
        "",
        "# # look at the classes",
        "# df.target.hist()",
    ]
    compile(second, "cell", "exec")  # nothing of it runs
    assert {c.kind for c in changes} == {"error"}
    for block in out.code_blocks:  # proposals give the user's cells back as written
        assert restore_paths(block.source, block.id, changes) == nb.block(block.id).source
    assert "1 cell(s) raised an error when you ran them" in note_for(changes)


def test_a_failure_after_which_nothing_ran_is_left_alone() -> None:
    for cells in (
        (("df = load()", 1, None), ("fit(df)", 2, "KeyError")),  # the last cell run
        (("df = load()", 3, None), ("fit(df)", 4, "KeyError"), ("later()", 2, None)),  # ran before
        (("df = load()", None, None), ("fit(df)", None, "KeyError"), ("later()", None, None)),
    ):
        nb = _nb(*cells)
        out, changes = skip_failed_cells(nb)
        assert out is nb and changes == ()
