"""Errors of the notebook layer."""

from __future__ import annotations


class NotebookError(Exception):
    """Base of every notebook-layer error."""


class NoCodeCellsError(NotebookError):
    """The notebook holds no code cell, so there is nothing to run or refine."""


class NotPythonError(NotebookError):
    """The notebook is written for another language's kernel (R, Julia, ...)."""


class NotebookFormatError(NotebookError, ValueError):
    """The file is JSON but not a notebook nbformat can read, even with its missing keys filled."""


class UnknownBlockError(NotebookError, KeyError):
    """No code block has that id."""

    def __str__(self) -> str:  # KeyError quotes its message; keep it readable
        return str(self.args[0]) if self.args else "unknown block"


class BlockMatchError(NotebookError):
    """A code fragment to replace is not found in the block, even after normalising whitespace."""

    def __init__(self, block_id: str, fragment: str) -> None:
        self.block_id = block_id
        self.fragment = fragment
        head = fragment.strip().splitlines()[0][:80] if fragment.strip() else "<empty>"
        super().__init__(
            f"block {block_id}: the fragment starting {head!r} is not in the cell, even ignoring whitespace; "
            "quote an exact excerpt of the cell (or the whole cell)"
        )

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (type(self), (self.block_id, self.fragment))
