"""A catalog notebook made final: no subsampling, every model retrained on train + validation."""

from __future__ import annotations

import re

from ..notebook import META, SolutionNotebook
from .catalog import Catalog
from .render import RenderContext, render_block


def final_notebook(
    solution: SolutionNotebook, catalog: Catalog, ctx: RenderContext
) -> SolutionNotebook:
    """``solution`` with its setup and subsample blocks rendered (or rewritten) for the final run."""
    out = solution
    for b in solution.code_blocks:
        if b.role not in ("setup", "subsample"):
            continue
        off = solution.cell(b.id).metadata.get(META, {}).get("offline", {})
        if off.get("card") in catalog:
            source = render_block(catalog, catalog[off["card"]], ctx, b.role, {}, final=True)
        else:
            source = _all_rows(b.source)
        if source.strip() != b.source.strip():
            out = out.replace_block(b.id, source, origin="offline:submission")
    return out


def _all_rows(source: str) -> str:
    """A setup block not rendered from a card, set to train on every row."""
    source = re.sub(r"^MAX_TRAIN_ROWS = .*$", "MAX_TRAIN_ROWS = None", source, flags=re.MULTILINE)
    return re.sub(
        r"^REFIT_ON_ALL_ROWS = False", "REFIT_ON_ALL_ROWS = True", source, flags=re.MULTILINE
    )
