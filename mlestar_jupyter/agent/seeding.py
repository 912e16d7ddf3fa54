"""The same random draws in every execution of a user's notebook.

A notebook written by a person often splits without a seed (``train_test_split(X, y)``), shuffles
folds without one, or fits a forest without ``random_state``.  Then each candidate of a run is
scored on other validation rows, and a refinement's gain is mostly the luck of its split.
:func:`seed_cell` puts one cell first that seeds Python's and NumPy's global generators (and
torch's, when the notebook imports it): scikit-learn draws from NumPy's global generator
whenever ``random_state`` is left out, so every execution of every candidate draws the same.
A notebook that seeds NumPy itself is left as it is.
"""

from __future__ import annotations

import re

from ..notebook import SolutionNotebook

ORIGIN = "mlestar:seed"
_SEEDS = re.compile(r"\b_?(?:np|numpy)\.random\.seed\s*\(")
_TORCH = re.compile(r"^\s*(?:import torch\b|from torch\b)", re.MULTILINE)


def seed_cell(nb: SolutionNotebook, seed: int = 0) -> SolutionNotebook:
    """``nb`` with a first code cell seeding the global random generators (``nb`` itself when
    it seeds NumPy already, or has no code)."""
    sources = [b.source for b in nb.code_blocks]
    if not sources or any(_SEEDS.search(s) for s in sources):
        return nb
    torch = any(_TORCH.search(s) for s in sources)
    code = (
        "# Added by MLE-STAR: the same random draws in every run of this notebook (a split or a\n"
        "# model without random_state draws from these), so scores compare code, not luck.\n"
        "import random as _random\n\n"
        "import numpy as _np\n\n"
        f"_random.seed({seed})\n"
        f"_np.random.seed({seed})\n"
        + (f"import torch as _torch\n\n_torch.manual_seed({seed})\n" if torch else "")
    )
    return nb.insert_block_after(None, code, role="setup", origin=ORIGIN)


__all__ = ["ORIGIN", "seed_cell"]
