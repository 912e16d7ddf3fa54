"""The search's shape: ``EnsemblePanel`` (plans tried, the pick) and ``SolutionTree``."""

from __future__ import annotations

from dataclasses import dataclass

import ipywidgets as w

from ..journal import Event
from ._base import NOT_SOLUTIONS, RunInfo, View, esc, fmt_score, number

BOLD = ' style="font-weight:bold"'


class EnsemblePanel(View):
    """Each ensemble plan with its score, and the solution finally chosen."""

    handles = frozenset({"ensemble_plan", "ensemble_pick"})

    def __init__(self, info: RunInfo) -> None:
        super().__init__(info)
        self.rows: list[dict[str, object]] = []
        self.chosen: dict[str, object] | None = None
        self.widget = w.HTML()

    def feed(self, ev: Event) -> bool:
        if ev.type == "ensemble_plan":
            self.rows.append(ev.data)
        else:
            self.chosen = ev.data
        return True

    def render(self) -> None:
        if not self.rows and not self.chosen:
            self.widget.value = "<i>No ensemble yet.</i>"
            return
        chosen_id = self.chosen.get("chosen") if self.chosen else None
        body = "".join(
            f'<tr class="mlestar-ens"{BOLD if r.get("node_id") == chosen_id else ""}>'
            f"<td>{esc(r.get('r'))}</td><td>{esc(r.get('plan'))}</td><td>{fmt_score(number(r.get('score')))}</td>"
            f"<td>{'✔ chosen' if r.get('node_id') == chosen_id else ''}</td></tr>"
            for r in self.rows
        )
        pick = ""
        if self.chosen:
            pick = (
                f"<div>Chosen: <b>{esc(self.chosen.get('label') or chosen_id)}</b> ({esc(chosen_id)}), "
                f"{self.info.metric} {fmt_score(number(self.chosen.get('score')))}</div>"
            )
            if self.chosen.get("kind") == "single":  # the paper's pick is over ensembles: say why
                pick += (
                    '<div class="mlestar-ens-single">A single solution is kept instead of an '
                    f"ensemble: {esc(self.chosen.get('reason'))}</div>"
                )
        self.widget.value = (
            f'<table class="mlestar-ensemble"><tr><th>r</th><th>plan</th><th>{esc(self.info.metric)}</th>'
            f"<th></th></tr>{body}</table>{pick}"
        )


@dataclass
class TreeNode:
    """A candidate in the tree."""

    node_id: str
    parent_id: str | None
    label: str
    phase: str
    score: float | None


class SolutionTree(View):
    """Candidates nested under their parents; the best marked ★, the ensemble pick ✔."""

    handles = frozenset({"candidate", "ensemble_pick"})

    def __init__(self, info: RunInfo, max_nodes: int = 300) -> None:
        super().__init__(info)
        self.nodes: dict[str, TreeNode] = {}
        self.chosen: str | None = None
        self.max_nodes = max_nodes
        self.widget = w.HTML()

    def children(self) -> dict[str | None, list[TreeNode]]:
        """Nodes by parent id (``None``: the roots, including nodes whose parent is unknown)."""
        kids: dict[str | None, list[TreeNode]] = {}
        for n in self.nodes.values():
            kids.setdefault(n.parent_id if n.parent_id in self.nodes else None, []).append(n)
        return kids

    @property
    def best(self) -> str | None:
        """The best-scoring solution; on a tie, the one the ensemble pick chose (the run's)."""
        best: TreeNode | None = None
        for n in self.nodes.values():
            if n.phase in NOT_SOLUTIONS:
                continue
            tie = best is not None and n.score == best.score and n.node_id == self.chosen
            if tie or self.info.better(n.score, best.score if best else None):
                best = n
        return best.node_id if best else None

    def feed(self, ev: Event) -> bool:
        d = ev.data
        if ev.type == "ensemble_pick":
            self.chosen = str(d.get("chosen"))
            return True
        nid = str(d.get("node_id"))
        parent = d.get("parent_id")
        self.nodes[nid] = TreeNode(
            nid,
            str(parent) if parent is not None else None,
            str(d.get("label") or ""),
            str(d.get("phase") or ""),
            number(d.get("score")) if d.get("ok", True) else None,
        )
        return True

    def render(self) -> None:
        best, shown, kids, seen = self.best, [0], self.children(), set[str]()

        def branch(parent: str | None) -> str:
            items = []
            for n in kids.get(parent, []):
                if shown[0] >= self.max_nodes or n.node_id in seen:
                    break
                seen.add(n.node_id)
                shown[0] += 1
                marks = (" ★" if n.node_id == best else "") + (
                    " ✔" if n.node_id == self.chosen else ""
                )
                score = fmt_score(n.score) if n.score is not None else "✗"
                items.append(
                    f'<li class="mlestar-node" data-node="{esc(n.node_id)}"><code>{esc(n.node_id)}</code> '
                    f"{esc(n.label)} <small>{esc(n.phase)}</small> {score}{marks}{branch(n.node_id)}</li>"
                )
            return f"<ul>{''.join(items)}</ul>" if items else ""

        self.widget.value = branch(None) or "<i>No candidates yet.</i>"
