"""Merge and ensemble notebooks: run several solutions one after another, keep each one's
validation and test predictions, then combine them in one last cell.

Solution notebooks share the data cells (setup, load, subsample) when they are identical, so a
merged notebook reads like one script with several models.  Every solution ends with ``val_pred``,
``y_val``, ``test_pred`` (and ``classes_``); a *stash* cell files them under the model's name, and
the *combine* cell (role ``ensemble``) averages, weighs, rank-averages or stacks them.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass

import nbformat

from ..agent.policy import Plan
from ..metrics import AUC_AVERAGES, get_metric
from ..notebook import META, SolutionNotebook
from ..task.layout import DataLayout
from .catalog import Catalog

SHARED_ROLES = ("setup", "load", "subsample")
LOG_METRICS = ("rmsle", "msle")  # regression metrics on log(1 + value): members are combined there
# metrics of the scores' order alone (every ROC AUC, Gini = 2 AUC - 1, average precision): a
# rank average suits them
RANK_METRICS = (*AUC_AVERAGES, "gini", "average_precision")
_FINAL = re.compile(r"Final Validation Performance")


@dataclass(frozen=True)
class EnsembleStrategy:
    id: str
    text: str


STRATEGIES: dict[str, EnsembleStrategy] = {
    s.id: s
    for s in (
        EnsembleStrategy("mean", "average the models' predictions with equal weights."),
        EnsembleStrategy(
            "weighted",
            "weigh the models: greedy ensemble selection on the validation rows for classes "
            "(Caruana et al.), non-negative least-squares weights summing to 1 for numbers.",
        ),
        EnsembleStrategy("rank", "average the ranks of the models' scores, ignoring their scales."),
        EnsembleStrategy(
            "median", "take the median of the models' predictions, robust to one model's outliers."
        ),
        EnsembleStrategy("geometric", "take the geometric mean of the predicted probabilities."),
        EnsembleStrategy(
            "stacking",
            "fit a linear model on the models' validation predictions (stacking, cross-validated; "
            "non-negative coefficients for numbers).",
        ),
    )
}


def strategy_order(layout: DataLayout) -> list[str]:
    """The ensemble strategies that suit this task, in the order the planner walks them."""
    metric = get_metric(layout.metric)
    if not layout.is_classification:
        return ["mean", "weighted", "stacking", "median"]
    order = ["mean", "weighted", "stacking"]
    if metric.name in RANK_METRICS:
        order.append("rank")
    order.append("geometric")
    return order


def _kind(cell: nbformat.NotebookNode) -> str:
    return str(cell.metadata.get(META, {}).get("offline", {}).get("kind", ""))


def _cell_name(cell: nbformat.NotebookNode) -> str:
    meta = cell.metadata.get(META, {})
    return str(meta.get("offline", {}).get("card") or "solution")


def solution_name(nb: SolutionNotebook) -> str:
    """A short name for a solution: the card of its model cell, else 'solution'."""
    for cell in nb.nb.cells:
        if cell.cell_type == "code" and cell.metadata.get(META, {}).get("role") == "model":
            return _cell_name(cell)
    return "solution"


def _unique(name: str, taken: set[str]) -> str:
    out, i = name, 2
    while out in taken:
        out, i = f"{name}_{i}", i + 1
    taken.add(out)
    return out


def _code_cell(role: str, source: str, kind: str, origin: str) -> nbformat.NotebookNode:
    meta = {"role": role, "origin": origin, "offline": {"kind": kind}}
    return nbformat.v4.new_code_cell(source, metadata={META: meta})


def _stash_source(store: str, name: str, first: bool, clf: bool) -> str:
    init = (
        f"{store} = {{}}  # each model's validation and test predictions, by name\n"
        if first
        else ""
    )
    classes = "classes_" if clf else "None"
    return (
        f"{init}# Keep {name}'s predictions for the ensemble.\n"
        f'{store}["{name}"] = {{"val": val_pred, "test": test_pred, "y_val": y_val, "classes": {classes}, '
        '"hold_out": globals().get("hold_out_predictions")}'
    )


class NotebookCombiner:
    """Builds merged and ensembled notebooks for one task."""

    def __init__(self, catalog: Catalog, layout: DataLayout) -> None:
        self.catalog = catalog
        self.layout = layout

    # -- cells of one member -----------------------------------------------------------------
    def _member_cells(
        self, nb: SolutionNotebook, seen: list[str], *, keep_stash: bool
    ) -> list[nbformat.NotebookNode]:
        """``nb``'s cells minus shared data cells already present and (unless kept) its ensemble cells."""
        out = []
        for cell in copy.deepcopy(nb.nb.cells):
            if cell.cell_type != "code":
                out.append(cell)
                continue
            meta = cell.metadata.setdefault(META, {})
            meta.pop("block_id", None)  # new ids in the new notebook
            cell.outputs, cell.execution_count = [], None
            if meta.get("role") in SHARED_ROLES and cell.source in seen:
                continue
            if _kind(cell) == "combine" or (_kind(cell) == "stash" and not keep_stash):
                continue
            seen.append(cell.source)
            cell.source = _FINAL.sub("Validation performance of this model", cell.source)
            out.append(cell)
        return out

    def _combine_cell(self, store: str, plan: Plan, origin: str) -> nbformat.NotebookNode:
        strategy = plan.strategy or "mean"
        source = self.catalog.env.get_template("_ensemble.py.j2").render(
            store=store,
            strategy=strategy,
            plan_text=plan.text,
            L=self.layout,
            clf=self.layout.is_classification,
            proba_sub=get_metric(self.layout.metric).needs_proba,
            higher=get_metric(self.layout.metric).higher_is_better,
            log_space=get_metric(self.layout.metric).name in LOG_METRICS,
        )
        return _code_cell("ensemble", source.strip("\n"), "combine", origin)

    def _notebook(self, cells: list[nbformat.NotebookNode]) -> SolutionNotebook:
        nb = nbformat.v4.new_notebook()
        nb.metadata["kernelspec"] = {
            "name": "python3",
            "display_name": "Python 3",
            "language": "python",
        }
        nb.cells = cells
        return SolutionNotebook(nb)

    # -- A_merger -----------------------------------------------------------------------------
    def merge(self, base: SolutionNotebook, reference: SolutionNotebook) -> SolutionNotebook:
        """``base`` (one model or an earlier merge) plus ``reference``'s model, averaged (for
        regression weighted, so that a weaker model added to a strong one gets little weight)."""
        clf = self.layout.is_classification
        seen: list[str] = []
        cells = self._member_cells(base, seen, keep_stash=True)
        stashes = [c for c in cells if c.cell_type == "code" and _kind(c) == "stash"]
        taken = {str(c.metadata[META]["offline"].get("member")) for c in stashes}
        if not stashes:
            name = _unique(solution_name(base), taken)
            cells.append(self._stash(name, first=True, clf=clf))
        ref_name = _unique(solution_name(reference), taken)
        cells.append(nbformat.v4.new_markdown_cell(f"## Second model: {ref_name}"))
        cells += self._member_cells(reference, seen, keep_stash=False)
        cells.append(self._stash(ref_name, first=False, clf=clf))
        how = "mean" if clf else "weighted"
        cells.append(
            self._combine_cell("members", Plan(STRATEGIES[how].text, how), "offline:merge")
        )
        return self._notebook(cells)

    def _stash(
        self, name: str, *, first: bool, clf: bool, store: str = "members"
    ) -> nbformat.NotebookNode:
        cell = _code_cell(
            "ensemble", _stash_source(store, name, first, clf), "stash", "offline:merge"
        )
        cell.metadata[META]["offline"]["member"] = name
        return cell

    # -- A_ensembler ----------------------------------------------------------------------------
    def ensemble(self, solutions: list[SolutionNotebook], plan: Plan) -> SolutionNotebook:
        """All ``solutions`` run one after another, then combined as ``plan.strategy`` says."""
        clf = self.layout.is_classification
        seen: list[str] = []
        taken: set[str] = set()
        cells: list[nbformat.NotebookNode] = []
        for i, sol in enumerate(solutions):
            name = _unique(f"solution_{i + 1}", taken)
            cells.append(nbformat.v4.new_markdown_cell(f"## Solution {i + 1}"))
            # Keep a merged solution's own combine cell (it produces that solution's predictions).
            own = [copy.deepcopy(c) for c in sol.nb.cells]
            for c in own:
                if c.cell_type == "code" and _kind(c) == "combine":
                    c.metadata[META]["offline"]["kind"] = "inner_combine"
            cells += self._member_cells(self._notebook(own), seen, keep_stash=True)
            stash = _code_cell(
                "ensemble",
                _stash_source("solutions", name, i == 0, clf),
                "outer_stash",
                "offline:ensemble",
            )
            cells.append(stash)
        cells.append(self._combine_cell("solutions", plan, "offline:ensemble"))
        return self._notebook(cells)
