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
            rendered = render_block(catalog, catalog[off["card"]], ctx, b.role, {}, final=True)
            source = _keep_seeds(b.source, rendered)
        else:
            source = _all_rows(b.source)
        if source.strip() != b.source.strip():
            out = out.replace_block(b.id, source, origin="offline:submission")
    return out


_SEEDS = re.compile(r"^(SEED|SPLIT_SEED) = .*$", re.MULTILINE)


def _keep_seeds(old: str, new: str) -> str:
    """``new`` with the seeds ``old`` ran with: a solution of another path (seed + l) keeps its
    own seed, so the final run trains the models that were scored."""
    seeds = {m.group(1): m.group(0) for m in _SEEDS.finditer(old)}
    return _SEEDS.sub(lambda m: seeds.get(m.group(1), m.group(0)), new)


def _all_rows(source: str) -> str:
    """A setup block not rendered from a card, set to train on every row."""
    source = re.sub(r"^MAX_TRAIN_ROWS = .*$", "MAX_TRAIN_ROWS = None", source, flags=re.MULTILINE)
    return re.sub(
        r"^REFIT_ON_ALL_ROWS = False", "REFIT_ON_ALL_ROWS = True", source, flags=re.MULTILINE
    )
