"""A notebook that asks its user for values (``int(input("How many trees? "))``): a run's kernel
has nobody to answer, so it failed with ``StdinNotImplementedError`` and was set aside.  The
answers JupyterLab saved with the cell are written into the calls; without them the run says
what to do."""

from __future__ import annotations

import nbformat
import pytest

from mlestar_jupyter.agent.changes import note_for, restore_paths
from mlestar_jupyter.agent.input_lines import answer_inputs, asks_for_input
from mlestar_jupyter.notebook import SolutionNotebook

STDIN_ERROR = (
    "StdinNotImplementedError: raw_input was called, but this frontend does not support "
    "input requests."
)


def _nb(*cells: tuple[str, list[str]]) -> SolutionNotebook:
    """Code cells, each with the ``stdin`` outputs JupyterLab saves (``prompt + " " + answer``)."""
    nb = nbformat.v4.new_notebook()
    for source, saved in cells:
        cell = nbformat.v4.new_code_cell(source)
        cell.outputs = [nbformat.v4.new_output("stream", name="stdin", text=t) for t in saved]
        nb.cells.append(cell)
    return SolutionNotebook(nb)


def test_saved_answers_are_written_into_the_calls_and_given_back() -> None:
    asked = (
        'n = int(input("How many trees? "))\n'
        "depth = input('Depth:') or None; name = input()\n"
        "print(n, depth, name)"
    )
    nb = _nb(("import pandas as pd", []), (asked, ["How many trees?  150\nDepth: 6\n", " é\n"]))
    out, changes = answer_inputs(nb)
    source = out.code_blocks[1].source
    assert source.split("\n")[0].startswith("n = int('150')  # MLE-STAR")
    assert source.split("\n")[1].startswith("depth = '6' or None; name = 'é'")
    assert source.split("\n")[2] == "print(n, depth, name)"
    exec(compile(source.replace("print(n, depth, name)", ""), "cell", "exec"), {})  # runs
    assert {c.kind for c in changes} == {"input"} and len(changes) == 2
    block = out.code_blocks[1]
    assert restore_paths(block.source, block.id, changes) == asked  # the user's cell as written
    assert "`n = int(input(\"How many trees? \"))` → `n = int('150')`" in note_for(changes)


@pytest.mark.parametrize(
    ("source", "saved"),
    [
        ("n = int(input('How many? '))", []),  # saved without its answers
        ("for i in range(2):\n    x = input('Next: ')", ["Next:  a\nNext:  b\n"]),  # a loop
        ("xs = [input('x? ') for _ in range(2)]", ["x?  1\nx?  2\n"]),
        ("def ask():\n    return input('q? ')\nask()", ["q?  1\n"]),  # in a function
        ("name = 'k'\nv = input(f'{name}? ')", ["k?  3\n"]),  # not a plain string
        ("key = input('Key: ')", ["Key:  ········\n"]),  # a hidden answer
        ("a = input('a? ')\nb = input('b? ')", ["a?  1\n"]),  # one answer of two
        ("a = input('a? ')", ["b?  1\n"]),  # another question's answer
        ("!ls\na = input('a? ')", ["a?  1\n"]),  # no Python
    ],
)
def test_calls_without_their_answers_are_left_alone(source: str, saved: list[str]) -> None:
    nb = _nb((source, saved))
    out, changes = answer_inputs(nb)
    assert out is nb and changes == ()


def test_a_notebook_that_stopped_at_a_question_says_what_to_do() -> None:
    said = asks_for_input(STDIN_ERROR, "x = 1\nn = int(input('How many trees? '))")
    assert "input('How many trees? ')" in said and "write the value into the code" in said
    assert "save it" in said
    assert asks_for_input("KeyError: 'price'", "input('q')") == ""
