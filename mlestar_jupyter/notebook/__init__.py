"""Solution notebooks: every code cell is a code block with a stable id and a role."""

from .errors import (
    BlockMatchError,
    NoCodeCellsError,
    NotebookError,
    NotebookFormatError,
    NotPythonError,
    UnknownBlockError,
)
from .solution import BLOCK_ROLES, META, CodeBlock, SolutionNotebook, find_normalised

__all__ = [
    "BLOCK_ROLES",
    "META",
    "BlockMatchError",
    "CodeBlock",
    "NoCodeCellsError",
    "NotebookError",
    "NotebookFormatError",
    "NotPythonError",
    "SolutionNotebook",
    "UnknownBlockError",
    "find_normalised",
]
