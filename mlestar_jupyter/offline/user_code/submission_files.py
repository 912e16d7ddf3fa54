"""Where a user's notebook writes its submission: under ``./final/``, where the run picks it up."""

from __future__ import annotations

import re

from ...notebook import SolutionNotebook

# a CSV file written in the work folder: "x.csv" or "./x.csv" (Kaggle's working folder, pointed
# there by ``agent.data_paths``)
_CSV_WRITE = re.compile(r"""\.to_csv\(\s*(["'])(?:\./)?([^"'/]*\.csv)\1""")


def final_outputs(nb: SolutionNotebook) -> SolutionNotebook:
    """``nb`` with the CSV files its cells write (``df.to_csv("submission.csv")``) written
    under ``./final/`` instead, where the run picks the submission up."""
    out = nb
    for b in nb.code_blocks:
        new = _CSV_WRITE.sub(
            lambda m: f".to_csv({m.group(1)}final/{m.group(2)}{m.group(1)}", b.source
        )
        if new != b.source:
            new = 'import os\n\nos.makedirs("final", exist_ok=True)\n' + new
            out = out.replace_block(b.id, new, origin="offline:submission")
    return out
