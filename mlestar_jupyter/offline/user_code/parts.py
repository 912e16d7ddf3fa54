"""The refinable parts of a user's notebook: a whole cell, or one segment of a mixed cell."""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace

from ...notebook import SolutionNotebook
from ...notebook.roles import REFINABLE_ROLES, Analysis, analyze, models_log_of, strip_magics
from .compared import Comparison, comparisons, entries
from .pinned import pinned_by, stopped_early
from .syntax import call_name, constructors, parse


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
    # the model stops its boosting early (``callbacks=[lgb.early_stopping(30)]``): more trees
    # than it stops at change nothing
    stops_early: bool = False

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
    # parts that build or fit only a baseline (``DummyClassifier``), or a model the notebook
    # sets aside (fitted and scored, and no later cell reads what its part makes)
    aside: list[Part] = []
    dummies = _baseline_names(analysis)
    trees = _later_trees(nb)
    modelling = {  # the user's cells building or fitting a model
        c.block_id
        for c in analysis.cells
        if any(s.role in ("model", "train") for s in c.segments)
        and not nb.block(c.block_id).origin.startswith("mlestar")
    }
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
            early = s.role == "model" and stopped_early(s.source, sources)
            part = replace(part, compares=built.collection, kept=built.kept, stops_early=early)
            modelled = s.role in ("model", "train")
            side = modelled and (
                _only_baseline(s.source, dummies)
                or (
                    any(b in modelling for b in trees[c.block_id][1])
                    and not _read_later(s.source, trees[c.block_id][0])
                )
            )
            (aside if side else out).append(part)
    if not any(p.role in ("model", "train") for p in out):
        out += aside  # no other model: the baseline (or the one set aside) is to refine
    return sorted(out, key=lambda p: REFINABLE_ROLES.index(p.role))


def _later_trees(nb: SolutionNotebook) -> dict[str, tuple[list[ast.Module], list[str]]]:
    """For each code cell: the syntax trees of the code cells after it (the agent's own
    cells too: its validation cell reads the model it scores), and their ids."""
    blocks = nb.code_blocks
    trees = [parse(strip_magics(b.source)) for b in blocks]
    return {
        b.id: (
            [t for t in trees[i + 1 :] if t is not None],
            [x.id for x in blocks[i + 1 :]],
        )
        for i, b in enumerate(blocks)
    }


def _read_later(source: str, later: list[ast.Module]) -> bool:
    """Whether a later cell reads a name the part assigns or fits before assigning it again:
    what it makes (the model, a chosen setting, its scores) is used after it.  A model fitted
    and scored in its cell that no later cell names (``gnb = GaussianNB().fit(X_tr, y_tr);
    print(acc(y_va, gnb.predict(X_va)))``), before a cell building the model the notebook
    submits, is a comparison the notebook set aside: refining it changes neither the score
    nor the submission."""
    tree = parse(strip_magics(source))
    if tree is None:
        return True
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and _stored(n)}
    names |= {
        n.func.value.id
        for n in ast.walk(tree)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr == "fit"
        and isinstance(n.func.value, ast.Name)
    }
    for cell in later:
        if not names:
            return False
        loaded = {n.id for n in ast.walk(cell) if isinstance(n, ast.Name) and not _stored(n)}
        if names & loaded:
            return True
        names -= {n.id for n in ast.walk(cell) if isinstance(n, ast.Name) and _stored(n)}
    return False


def _stored(name: ast.Name) -> bool:
    return isinstance(name.ctx, ast.Store)


def _is_baseline(cls: str) -> bool:
    return cls.startswith("Dummy")


def _baseline_names(analysis: Analysis) -> set[str]:
    """The names only a baseline is ever assigned to (``dummy = DummyClassifier()``)."""
    kinds: dict[str, set[bool]] = {}
    for e in analysis.estimators:
        kinds.setdefault(e.var, set()).add(_is_baseline(e.cls))
    return {var for var, seen in kinds.items() if seen == {True}}


def _only_baseline(source: str, dummies: set[str]) -> bool:
    """Whether a model or training part builds and fits nothing but a baseline: a
    ``DummyClassifier`` / ``DummyRegressor`` fitted and scored as the reference a notebook
    measures its real model against (its refinements would improve the reference, not the
    model the notebook submits)."""
    built = constructors(source)
    if built and not all(_is_baseline(call_name(c)) for c in built):
        return False
    tree = parse(strip_magics(source))
    if tree is None:
        return False
    fitted = [
        n.func.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "fit"
    ]
    for f in fitted:
        if isinstance(f, ast.Call) and _is_baseline(call_name(f)):
            continue  # DummyClassifier().fit(X, y)
        if not (isinstance(f, ast.Name) and f.id in dummies):
            return False
    return bool(built or fitted)


def apply(nb: SolutionNotebook, part: Part, new: str, origin: str) -> SolutionNotebook:
    """``nb`` with ``part`` replaced by ``new``."""
    if part.fragment is None:
        return nb.replace_block(part.block_id, new, origin=origin)
    return nb.replace_in_block(part.block_id, part.fragment, new, origin=origin)
