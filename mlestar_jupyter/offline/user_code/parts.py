"""The refinable parts of a user's notebook: a whole cell, or one segment of a mixed cell."""

from __future__ import annotations

from dataclasses import dataclass, replace

from ...notebook import SolutionNotebook
from ...notebook.roles import REFINABLE_ROLES, analyze, models_log_of
from .compared import Comparison, comparisons, entries
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
    # the collection of models the part builds and the notebook compares in a loop (``models``;
    # ``compared``), and the entry the last run kept (``rf``); "" when none / not known
    compares: str = ""
    kept: str = ""

    @property
    def label(self) -> str:
        """How the part is named in an ablation: ``b3 (model, part of the cell)``."""
        return f"{self.block_id} ({self.role}{', part of the cell' if self.fragment else ''})"


def parts(nb: SolutionNotebook) -> list[Part]:
    """The refinable parts of ``nb`` (cells the agent added are never refined), model first."""
    analysis = analyze(nb)
    sources = [b.source for b in nb.code_blocks]
    logged = bool(analysis.target) and models_log_of(nb, str(analysis.target))
    compared = comparisons(nb, analysis)
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
            built = next((k for k in compared if len(entries(s.source, k.collection)) > 1), None)
            if built is None or s.role not in ("model", "train"):
                built = Comparison("")
            part = Part(c.block_id, s.role, fragment, s.source, pin, logged)
            out.append(replace(part, compares=built.collection, kept=built.kept))
    return sorted(out, key=lambda p: REFINABLE_ROLES.index(p.role))


def apply(nb: SolutionNotebook, part: Part, new: str, origin: str) -> SolutionNotebook:
    """``nb`` with ``part`` replaced by ``new``."""
    if part.fragment is None:
        return nb.replace_block(part.block_id, new, origin=origin)
    return nb.replace_in_block(part.block_id, part.fragment, new, origin=origin)
