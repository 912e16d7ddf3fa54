"""Code as chat UIs and small models hand it over, made whole again (for ``extract_code``).

- ``joined_cells``: one notebook sent as several fenced blocks (under ``### Cell 1``,
  ``### Cell 2`` …, or each block using what an earlier one defines) is one program: its blocks
  joined in order.  Blocks that are alternatives (each whole on its own, or an excerpt of an
  earlier one) are not joined.
- ``straightened``: curly quotes that delimit strings (“…”, ‘…’) made straight, and non-breaking
  spaces (U+00A0, U+202F, U+2007) outside string literals made plain spaces, as chat UIs paste
  them.  Text inside straight-quoted literals and comments is never touched; callers keep the
  result only when the code did not parse before and does after.
"""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Sequence

CURLY_DOUBLE = "\u201c\u201d\u201e\u201f"  # “ ” „ ‟
CURLY_SINGLE = "\u2018\u2019\u201a\u201b"  # ‘ ’ ‚ ‛
ODD_SPACES = "\u00a0\u202f\u2007"  # no-break, narrow no-break, figure space
_PASTED = frozenset(CURLY_DOUBLE + CURLY_SINGLE + ODD_SPACES)

# a heading naming a numbered cell: "### Cell 2", "**Cell 2:**", "Cell 2 - training", "# Step 3"
_CELL_HEADING = re.compile(r"^[ \t>#*_-]*(?:cell|step|part)[ \t]*#?[ \t]*(\d+)\b", re.I | re.M)
# prose between blocks that offers another way rather than the next part
_ALTERNATIVE = re.compile(
    r"\b(?:alternative(?:ly)?|instead|option\s*\d|or you (?:can|could)|another (?:way|approach|version))\b",
    re.I,
)


# ----------------------------------------------------------------------------- parsing


def without_magics(code: str) -> str:
    """Code with notebook magics and shell lines (``%…``, ``!…``) blanked, for syntax checks."""
    return "\n".join(
        "" if line.lstrip().startswith(("%", "!")) else line for line in code.splitlines()
    )


def parses(code: str) -> bool:
    """Whether ``code`` is valid Python (notebook magics and shell lines allowed)."""
    try:
        ast.parse(without_magics(code))
    except (SyntaxError, ValueError):
        return False
    return True


# ----------------------------------------------------------------------------- cells


def joined_cells(blocks: Sequence[tuple[str, str]]) -> str | None:
    """The code of ``blocks`` (each: the prose before it, its code) joined in order when they are
    consecutive cells of one program; None when they are not (the caller then picks one).

    They are when every block and the whole parse, and either each block sits under a heading
    numbering its cell (``Cell 1``, ``Cell 2`` …, increasing), or each later block uses a name
    that only the blocks before it define, is no excerpt of them, and the prose before it
    offers no alternative ("instead", "alternatively", "option 2" …)."""
    if len(blocks) < 2 or not all(parses(code) for _, code in blocks):
        return None
    codes = [code.strip("\n") for _, code in blocks]
    joined = "\n\n".join(codes) + "\n"
    if not parses(joined):
        return None
    if _numbered_cells([before for before, _ in blocks]) or _each_builds_on_the_last(
        codes, [before for before, _ in blocks[1:]]
    ):
        return joined
    return None


def _numbered_cells(befores: Sequence[str]) -> bool:
    """Whether the prose before each block ends with a heading numbering a cell, increasing."""
    numbers = []
    for text in befores:
        found = _CELL_HEADING.findall(text)
        if not found:
            return False
        numbers.append(int(found[-1]))
    return all(a < b for a, b in zip(numbers, numbers[1:], strict=False))


def _each_builds_on_the_last(codes: Sequence[str], betweens: Sequence[str]) -> bool:
    """Whether each block after the first reads a name only earlier blocks define and repeats
    more than their lines, with no alternative offered in the prose before it."""
    if any(_ALTERNATIVE.search(text) for text in betweens):
        return False
    defined, _ = _names(codes[0])
    seen = _lines(codes[0])
    for code in codes[1:]:
        binds, needs = _names(code)
        if not needs & defined or _lines(code) <= seen:
            return False
        defined |= binds
        seen |= _lines(code)
    return True


def _names(code: str) -> tuple[set[str], set[str]]:
    """(the names ``code`` binds anywhere, the names it reads but never binds and that are no
    builtins): what a block defines for later ones, and what it needs from earlier ones.  (The
    ``codecheck`` layer has the full analysis; ``llm`` sits below it.)"""
    bound: set[str] = set()
    read: set[str] = set()
    for node in ast.walk(ast.parse(without_magics(code))):
        if isinstance(node, ast.Name):
            (read if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return bound, read - bound - set(dir(builtins))


def _lines(code: str) -> set[str]:
    return {ln.strip() for ln in code.splitlines() if ln.strip()}


# ----------------------------------------------------------------------------- pasted characters


def has_pasted_characters(code: str) -> bool:
    """Whether ``code`` holds curly quotes or non-breaking spaces (what ``straightened`` fixes)."""
    return not _PASTED.isdisjoint(code)


def straightened(code: str) -> str:
    """``code`` with curly quotes that open and close a string on one line made straight (the
    string's text kept, a straight quote inside it escaped) and non-breaking spaces outside
    string literals made plain spaces.  Straight-quoted literals and comments are copied as
    they are, so a curly quote inside a valid string stays.  Whether the result parses is the
    caller's check."""
    out: list[str] = []
    i, n = 0, len(code)
    while i < n:
        c = code[i]
        if c == "#":  # a comment, to the end of its line
            end = code.find("\n", i)
            end = n if end < 0 else end
        elif c in "\"'":
            end = _literal_end(code, i)
        elif c in CURLY_DOUBLE or c in CURLY_SINGLE:
            closers = CURLY_DOUBLE if c in CURLY_DOUBLE else CURLY_SINGLE
            close = _closing(code, i + 1, closers)
            if close < 0:  # no closing quote on the line: not a delimiter, left as it is
                out.append(c)
                i += 1
                continue
            out.append(_quoted(code[i + 1 : close], '"' if c in CURLY_DOUBLE else "'"))
            i = close + 1
            continue
        else:
            out.append(" " if c in ODD_SPACES else c)
            i += 1
            continue
        out.append(code[i:end])
        i = end
    return "".join(out)


def _literal_end(code: str, start: int) -> int:
    """The index just past the straight-quoted literal opening at ``start`` (single or triple
    quoted; a one-line literal left open ends at its line's end)."""
    q = code[start]
    delim = q * 3 if code.startswith(q * 3, start) else q
    i = start + len(delim)
    while i < len(code):
        if code[i] == "\\":
            i += 2
        elif code.startswith(delim, i):
            return i + len(delim)
        elif code[i] == "\n" and len(delim) == 1:
            return i
        else:
            i += 1
    return len(code)


def _closing(code: str, start: int, closers: str) -> int:
    """The index of the first of ``closers`` from ``start`` on the same line, else -1."""
    for i in range(start, len(code)):
        if code[i] == "\n":
            return -1
        if code[i] in closers:
            return i
    return -1


def _quoted(text: str, quote: str) -> str:
    """``text`` as a straight-quoted literal, ``quote`` preferred, the other when ``text``
    holds ``quote`` only, escaped when it holds both."""
    if quote not in text:
        return f"{quote}{text}{quote}"
    other = "'" if quote == '"' else '"'
    if other not in text:
        return f"{other}{text}{other}"
    return quote + text.replace(quote, "\\" + quote) + quote
