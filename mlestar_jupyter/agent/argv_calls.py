"""A script turned notebook that reads its settings from the command line: given none.

``args = parser.parse_args()`` reads ``sys.argv``, which in a Jupyter kernel is the kernel's
own (``ipykernel_launcher.py -f .../kernel-1234.json``): argparse stops the cell with
"unrecognized arguments: -f" (``SystemExit: 2``), at top level or inside the ``main()`` the
notebook calls, and the run set the notebook aside.  :func:`empty_argv` writes
``parse_args(args=[])`` (and ``parse_known_args(args=[])``) in its place, so each setting keeps
its ``default=``, as the notebook's author meant when running it as a script without options.
Each rewritten line is a change of kind "argv", said in the run's note and given back as the
user wrote it in a proposal.  A call given its arguments (``parse_args([])``,
``parse_args(args=sys.argv[2:])``) is left alone, as is a notebook that does not use argparse.
"""

from __future__ import annotations

import ast

from ..notebook import SolutionNotebook
from ..notebook.roles import strip_magics
from ..notebook.spans import node_span, replace_spans
from .changes import PathChange

_PARSE_CALLS = ("parse_args", "parse_known_args", "parse_intermixed_args")


def empty_argv(nb: SolutionNotebook) -> tuple[SolutionNotebook, tuple[PathChange, ...]]:
    """``nb`` with each argparse parse call given no arguments (``parser.parse_args()``) made
    to parse an empty command line (``parser.parse_args(args=[])``); the lines changed, or
    ``nb`` itself and none."""
    if not any("argparse" in b.source or "ArgumentParser" in b.source for b in nb.code_blocks):
        return nb, ()
    out, changes = nb, []
    for block in nb.code_blocks:
        if not any(f".{name}(" in block.source for name in _PARSE_CALLS):
            continue
        try:
            tree = ast.parse(strip_magics(block.source))
        except SyntaxError:
            continue
        spans = []
        for node in ast.walk(tree):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in _PARSE_CALLS
                and not node.args
                and not any(kw.arg in ("args", None) for kw in node.keywords)
            ):
                continue
            where = node_span(block.source, node.func)  # ``parser.parse_args``, then "("
            opened = block.source.find("(", where[1]) + 1 if where else 0
            if opened <= 0:
                continue
            args = "args=[]" + (", " if node.keywords else "")
            spans.append((opened, opened, args))
        if not spans:
            continue
        source = replace_spans(block.source, spans)
        old, new = block.source.split("\n"), source.split("\n")
        changes += [
            PathChange(block.id, a, b, kind="argv") for a, b in zip(old, new, strict=True) if a != b
        ]
        out = out.replace_block(block.id, source)
    return out, tuple(changes)


__all__ = ["empty_argv"]
