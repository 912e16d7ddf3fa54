"""A notebook that tells text columns by pandas 2's dtype ``object``, run under pandas 3.

Kaggle notebooks encode text columns in a loop such as ``for col in train.columns: if
train[col].dtype == 'object': ...``.  pandas 3 reads text as dtype ``str``, so that test is
never true, the columns stay text and the model's fit fails ("DataFrame.dtypes for data must be
int, float, bool or category ... Invalid columns: Sex: str"): the run set the notebook aside.
:func:`text_as_object` puts a setup cell first (``ORIGIN``, never refined) that switches pandas
back to reading text as ``object`` (its own option, ``future.infer_string``), when the notebook
compares a dtype with ``object`` and the installed pandas reads text as ``str``.
"""

from __future__ import annotations

import re

import pandas as pd

from ..notebook import SolutionNotebook

ORIGIN = "mlestar:text-dtype"
# ``.dtype == 'object'``, ``dtypes != object``, ``dtype in ['object', ...]``, ``dtype == 'O'``,
# ``dtype.name == 'object'``, ``dtype.kind == 'O'``, ``dtype is np.object_``
_OBJECT_TEST = re.compile(
    r"\.dtypes?(?:\.(?:name|kind))?\s*(?:==|!=|\bis\b|\bin\b)\s*[(\[]?\s*"
    r"(?:['\"](?:object|O)['\"]|object\b|(?:np|numpy)\.object_?\b)"
)
CELL = (
    "# Added by MLE-STAR: this notebook tells text columns by their dtype 'object', as pandas 2\n"
    "# read them; pandas 3 reads text as 'str', so here text is read as 'object' again.\n"
    "import pandas as _pd\n\n"
    '_pd.set_option("future.infer_string", False)\n'
)


def reads_text_as_str() -> bool:
    """Whether the installed pandas reads text columns as dtype ``str`` (pandas 3)."""
    return str(pd.Series(["a"]).dtype) == "str"


def text_as_object(nb: SolutionNotebook, *, text_is_str: bool | None = None) -> SolutionNotebook:
    """``nb`` with a first cell reading text as ``object`` again (see the module docstring), or
    ``nb`` itself when none of its cells compares a dtype with ``object``, it has that cell
    already, or pandas reads text as ``object`` anyway (``text_is_str``: what pandas does, for
    tests)."""
    text_is_str = reads_text_as_str() if text_is_str is None else text_is_str
    blocks = nb.code_blocks
    if not text_is_str or any(b.origin == ORIGIN for b in blocks):
        return nb
    if not any(_OBJECT_TEST.search(b.source) for b in blocks):
        return nb
    return nb.insert_block_after(None, CELL, role="setup", origin=ORIGIN)


__all__ = ["ORIGIN", "reads_text_as_str", "text_as_object"]
