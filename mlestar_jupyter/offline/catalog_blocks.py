"""Which blocks of a notebook were rendered from the catalog, from which card, role and params.

The offline policy refines a block by re-rendering its card's template with new params, so it
needs to know, for a block's current source, where it came from: ``CatalogBlocks`` remembers
every source it rendered (keyed by a hash of the source) and otherwise reads the cell's
``mlestar.offline`` metadata, accepting it only when re-rendering gives the same source.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from ..notebook import META, SolutionNotebook
from .catalog import Card, Catalog
from .render import ROLES_WITH_PARAMS, RenderContext, merged_params, render_block

REFINE_ORDER = ("model", "features", "preprocess", "train")

BlockInfo = tuple[Card, str, dict[str, Any]]  # (card, role, params) of a rendered block


def source_key(source: str) -> str:
    """A short hash of ``source`` (surrounding whitespace ignored)."""
    return hashlib.sha256(source.strip().encode()).hexdigest()[:16]


def row_cap(solution: SolutionNotebook) -> str:
    """The ``MAX_TRAIN_ROWS = ...`` value of the notebook's setup ("" when it has none)."""
    for b in solution.blocks_by_role("setup"):
        m = re.search(r"^MAX_TRAIN_ROWS = (.+)$", b.source, re.MULTILINE)
        if m:
            return m.group(1).strip()
    return ""


@dataclass
class CatalogBlocks:
    """The rendered sources seen so far: source key -> (card name, role, params)."""

    catalog: Catalog
    ctx: RenderContext
    known: dict[str, tuple[str, str, dict[str, Any]]] = field(default_factory=dict)

    def remember(self, source: str, card: str, role: str, params: dict[str, Any]) -> None:
        """Record that ``source`` is ``card``'s ``role`` block rendered with ``params``."""
        self.known[source_key(source)] = (card, role, dict(params))

    def remember_all(self, nb: SolutionNotebook) -> None:
        """Record every cell of ``nb`` whose metadata names the card it was rendered from."""
        for cell in nb.nb.cells:
            off = cell.metadata.get(META, {}).get("offline", {}) if cell.cell_type == "code" else {}
            if off.get("card"):
                self.remember(
                    cell.source, off["card"], cell.metadata[META]["role"], off.get("params", {})
                )

    def info(self, solution: SolutionNotebook, block_id: str) -> BlockInfo | None:
        """(card, role, params) when the block's current source was rendered from the catalog."""
        block = solution.block(block_id)
        known = self.known.get(source_key(block.source))
        off = solution.cell(block_id).metadata.get(META, {}).get("offline", {})
        # Two cards can render the same source (the default train block): the cell's own card wins.
        if known and known[0] in self.catalog and off.get("card") in (None, known[0]):
            return self.catalog[known[0]], known[1], known[2]
        if off.get("card") in self.catalog and block.role in ROLES_WITH_PARAMS:
            card = self.catalog[off["card"]]
            params = merged_params(card, {block.role: off.get("params", {})})[block.role]
            if (
                render_block(self.catalog, card, self.ctx, block.role, params).strip()
                == block.source.strip()
            ):
                self.remember(block.source, card.name, block.role, params)
                return card, block.role, params
        return None

    def refinable(self, solution: SolutionNotebook) -> list[str]:
        """Ids of the catalog blocks whose card has params to refine, in ``REFINE_ORDER``."""
        ids = []
        for role in REFINE_ORDER:
            for b in solution.blocks_by_role(role):
                info = self.info(solution, b.id)
                if info and info[0].params.get(role):
                    ids.append(b.id)
        return ids
