"""The refinable parts of a user's notebook: a whole cell, or one segment of a mixed cell."""

from __future__ import annotations

from dataclasses import dataclass

from ...notebook import SolutionNotebook
from ...notebook.roles import REFINABLE_ROLES, analyze, models_log_of
from .pinned import pinned_by


@dataclass(frozen=True)
class Part:
    """One refinable part of a user's notebook."""

    block_id: str
    role: str
    fragment: str | None  # None: the whole cell
    source: str
    # why the rest of the notebook needs the model's class as it is (``pinned``): "" when
    # nothing does; strategies that change the class are left out otherwise
    pinned: str = ""
    # the notebook models the log of its target already (``y = np.log1p(df.price)``): a log
    # target again would take a second log
    logged_target: bool = False

    @property
    def label(self) -> str:
        """How the part is named in an ablation: ``b3 (model, part of the cell)``."""
        return f"{self.block_id} ({self.role}{', part of the cell' if self.fragment else ''})"


def parts(nb: SolutionNotebook) -> list[Part]:
    """The refinable parts of ``nb`` (cells the agent added are never refined), model first."""
    analysis = analyze(nb)
    sources = [b.source for b in nb.code_blocks]
    logged = bool(analysis.target) and models_log_of(nb, str(analysis.target))
    out: list[Part] = []
    for c in analysis.cells:
        if nb.block(c.block_id).origin.startswith("mlestar"):
            continue
        for s in c.segments:
            if s.role not in REFINABLE_ROLES:
                continue
            whole = len(c.segments) == 1
            pin = pinned_by(s.source, sources) if s.role in ("model", "train") else ""
            fragment = None if whole else s.source
            out.append(Part(c.block_id, s.role, fragment, s.source, pin, logged))
    return sorted(out, key=lambda p: REFINABLE_ROLES.index(p.role))


def apply(nb: SolutionNotebook, part: Part, new: str, origin: str) -> SolutionNotebook:
    """``nb`` with ``part`` replaced by ``new``."""
    if part.fragment is None:
        return nb.replace_block(part.block_id, new, origin=origin)
    return nb.replace_in_block(part.block_id, part.fragment, new, origin=origin)
