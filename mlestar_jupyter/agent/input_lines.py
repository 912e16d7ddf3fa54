"""A notebook that asks its user for values: ``n = int(input("How many trees? "))``.

A run's kernels have nobody to answer, so such a call fails (``StdinNotImplementedError``) and
the notebook was set aside as not understood.  JupyterLab saves each answer its user typed in
the cell's outputs (a ``stdin`` stream: the prompt, a space, the answer).  :func:`answer_inputs`
writes those saved answers into the calls that asked for them, ``int('100')``, as a change of
kind "input" (a proposal gives the user's notebook its ``input(...)`` back).

Left alone, to fail with :func:`asks_for_input`'s advice: a cell saved without its answers, a
call in a loop or a function (how often it asks is not in the code), a prompt that is not a
plain string, a hidden answer (``getpass``), and cells that do not parse as Python.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from ..notebook import SolutionNotebook
from .changes import PathChange

_REPEATS = (ast.For, ast.AsyncFor, ast.While, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_HIDDEN = "·"  # how JupyterLab saves a password's characters


def answer_inputs(nb: SolutionNotebook) -> tuple[SolutionNotebook, tuple[PathChange, ...]]:
    """``nb`` with each ``input(...)`` call answered by the answer saved in its cell's outputs
    (see the module docstring); the changed lines, or ``nb`` itself and none.  Runs before the
    outputs are cleared."""
    out, changes = nb, []
    for block in nb.code_blocks:
        answers = _saved_answers(nb.cell(block.id).get("outputs", []))
        if not answers:
            continue
        lines = _answered_lines(block.source, answers)
        if not lines:
            continue
        source_lines = block.source.split("\n")
        for i, new in lines.items():
            changes.append(PathChange(block.id, source_lines[i], new, kind="input"))
            source_lines[i] = new
        out = out.replace_block(block.id, "\n".join(source_lines))
    return out, tuple(changes)


def asks_for_input(error: str, source: str) -> str:
    """What to do when a notebook stopped because it asked for input (``error`` says so and
    ``source``, its code, shows the call); ``""`` otherwise."""
    if "StdinNotImplementedError" not in error and "input requests" not in error:
        return ""
    m = re.search(r"\b(?:input|getpass)\([^)\n]*\)", source)
    call = f" ({m.group(0)})" if m else ""
    return (
        f"it asks for input{call}, and a run's kernels have nobody to answer: write the value "
        "into the code instead, or run the notebook once in JupyterLab, answer, and save it "
        "(a run answers each input() with the answer saved with its cell)"
    )


def _saved_answers(outputs: list[Any]) -> list[str]:
    """The lines of the cell's saved ``stdin`` outputs, in order (JupyterLab merges one after
    another into one output)."""
    lines: list[str] = []
    for o in outputs:
        if o.get("output_type") == "stream" and o.get("name") == "stdin":
            text = o.get("text", "")
            text = "".join(text) if isinstance(text, list) else str(text)
            lines += text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")
    return lines


def _answered_lines(source: str, answers: list[str]) -> dict[int, str]:
    """The lines (from 0) of ``source`` whose ``input()`` calls are answered by ``answers``,
    rewritten; empty unless every call is answered, each once, in order."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    calls = _input_calls(tree)
    if not calls or len(calls) != len(answers):
        return {}
    values = []
    for call, line in zip(calls, answers, strict=True):
        value = _answer(call, line) if call is not None else None
        if value is None:
            return {}
        values.append(value)
    rows = source.split("\n")
    edits: dict[int, list[tuple[int, int, str]]] = {}
    for call, value in zip(calls, values, strict=True):
        assert call is not None
        raw = rows[call.lineno - 1].encode("utf-8")  # ast offsets count UTF-8 bytes
        start = len(raw[: call.col_offset].decode("utf-8"))
        end = len(raw[: call.end_col_offset].decode("utf-8"))
        edits.setdefault(call.lineno - 1, []).append((start, end, repr(value)))
    out = {}
    for i, spans in edits.items():
        line = rows[i]
        for start, end, text in sorted(spans, reverse=True):
            line = line[:start] + text + line[end:]
        out[i] = f"{line}  # MLE-STAR: the answer saved with this cell"
    return out


def _input_calls(tree: ast.Module) -> list[ast.Call | None]:
    """The ``input(...)`` calls of ``tree`` in the order they run; ``None`` for one that may
    run another number of times (in a loop, a function or a comprehension) or spans lines."""
    found: list[ast.Call | None] = []

    def visit(node: ast.AST, repeated: bool) -> None:
        for child in ast.iter_child_nodes(node):
            again = repeated or isinstance(child, _REPEATS + _COMPREHENSIONS)
            if (
                isinstance(child, ast.Call)
                and isinstance(child.func, ast.Name)
                and child.func.id == "input"
            ):
                visit(child, again)  # its own arguments first, as Python evaluates them
                single = child.lineno == child.end_lineno
                found.append(child if single and not again else None)
                continue
            visit(child, again)

    visit(tree, False)
    return found


def _answer(call: ast.Call, line: str) -> str | None:
    """The answer in a saved ``stdin`` line (``prompt + " " + answer``) to ``call``, whose
    prompt must be a plain string (or none); ``None`` when the line is not its answer."""
    if call.keywords or len(call.args) > 1:
        return None
    prompt = ""
    if call.args:
        arg = call.args[0]
        if not isinstance(arg, ast.Constant) or not isinstance(arg.value, str):
            return None
        prompt = arg.value
    head = prompt + " "
    if not line.startswith(head):
        return None
    value = line[len(head) :]
    return None if value and set(value) == {_HIDDEN} else value


__all__ = ["answer_inputs", "asks_for_input"]
