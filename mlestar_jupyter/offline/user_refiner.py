"""The offline policy's ablation, extractor, planner and coder for a user's own notebook.

``OfflinePolicy`` hands a notebook here when none of its cells came from the catalog.  The parts
to study and refine, their ablations and the strategy library are in ``user_code``; this class
keeps what one path has done, so that refinement is targeted and never repeats itself:

- the ablation studies up to three parts (one variant each, parts not studied before first, at
  least two variants), and the extractor picks the part with the largest measured effect among
  blocks not refined yet (among all parts with a strategy left once each was refined) (path ``seed`` takes the ``seed``-th one at its first step, so parallel
  paths start from different targets and diverge);
- an ablation's own change (``ADOPT``: the model's defaults, a linear model) is a refinement
  only of a part whose ablation measured it better, and no change an ablation measured no
  better (dropping the feature group it switched off at an equal score) is tried again;
- a strategy is never applied twice to the same block (across every outer step of the path), and
  path ``seed`` of ``L`` tries the strategies ``seed, seed + L, ...`` first, so that parallel
  paths try different changes and the ensemble gets distinct members;
- a part that builds a collection of models the notebook compares in a loop is changed at the
  model the comparison kept in the last run, and its plan names that model, or says that which
  one won is not known (``user_code.compared``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..agent.errors import NothingLeftToRefine
from ..agent.policy import (
    EXHAUSTED,
    AblationStudy,
    AblationSummary,
    AblationVariant,
    Plan,
    RefineTarget,
)
from ..notebook import SolutionNotebook
from . import user_code
from .multi_output import wrapped_swap
from .user_code import Part
from .user_code.compared import changed_entries, plan_text
from .user_code.syntax import call_name, model_call

UNSTUDIED = 1e-12  # the effect an unstudied part ranks by: above none measured, below any
# an ablation's own change, applied as a refinement only where that ablation measured it better
# (elsewhere it is the variant already run, and its plan's "measured better" would be untrue)
_ADOPTED = frozenset(s.id for s in user_code.ADOPT)


class NothingToRefine(NothingLeftToRefine, ValueError):
    """No part of the notebook has a refinement strategy left."""


@dataclass
class UserCodeRefiner:
    """One path's ablations and refinements of user-written code."""

    seed: int = 0
    target_block: str | None = None
    paths: int = 1  # L: path ``seed`` tries strategies seed, seed + L, ... first
    extra: tuple[user_code.Strategy, ...] = ()  # strategies built for the task's data
    # the task has several target columns: a model swapped in that fits one column only is
    # wrapped to fit one per column as the refinement is written (``multi_output``)
    multi_target: bool = False
    applied: dict[str, set[str]] = field(default_factory=dict)  # block id -> strategies applied
    _variant_part: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    # part -> strategies whose change an ablation measured better than the original
    _promoted: dict[tuple[str, str | None], list[str]] = field(default_factory=dict)
    # part -> strategies whose change an ablation measured no better (not run again)
    _not_better: dict[tuple[str, str | None], set[str]] = field(default_factory=dict)
    _steps: int = 0

    # ------------------------------------------------------------------ parts
    def parts(self, solution: SolutionNotebook) -> list[Part]:
        """Refinable parts with at least one ablation or strategy left."""
        out = []
        for p in user_code.parts(solution):
            if self.target_block and p.block_id != self.target_block:
                continue
            if user_code.ablations(p) or self._untried(p, set()):
                out.append(p)
        return out

    def _untried(self, part: Part, tried: set[str]) -> list[tuple[user_code.Strategy, str]]:
        done = self.applied.get(part.block_id, set()) | tried
        first = self._promoted.get((part.block_id, part.fragment), [])
        measured = self._not_better.get((part.block_id, part.fragment), set())
        found = [
            (s, new)
            for s, new in user_code.applicable(part, self.extra)
            if s.id not in done and (s.id not in _ADOPTED or s.id in first) and s.id not in measured
        ]
        found.sort(key=lambda sn: first.index(sn[0].id) if sn[0].id in first else len(first))
        every = max(1, self.paths)
        mine = found[self.seed % every :: every]  # parallel paths try different strategies first
        return mine + [f for f in found if f not in mine]

    # ------------------------------------------------------------------ A_abl
    def ablation(
        self, solution: SolutionNotebook, previous: list[AblationSummary]
    ) -> AblationStudy:
        """One variant per part (parts not studied before first), two at least, three at most."""
        studied = {r.name for s in previous for r in s.results}
        candidates: list[tuple[Part, str, str]] = [
            (p, f"{p.label}: {name}", new)
            for p in self.parts(solution)
            for name, new in user_code.ablations(p)
        ]
        fresh = [c for c in candidates if c[1] not in studied]
        chosen: list[tuple[Part, str, str]] = []
        for c in fresh + [c for c in candidates if c not in fresh]:
            if len(chosen) < 3 and all(x[0] != c[0] for x in chosen):
                chosen.append(c)
        for c in fresh + candidates:
            if len(chosen) < 2 and c not in chosen:
                chosen.append(c)
        variants = []
        for part, name, new in chosen:
            try:
                nb = user_code.apply(solution, part, new, "offline:ablation")
            except Exception:  # noqa: BLE001 - a part that no longer matches is not studied
                continue
            self._variant_part[name] = (part.block_id, part.fragment)
            variants.append(AblationVariant(name, part.block_id, nb))
        return AblationStudy(variants=tuple(variants))

    # ------------------------------------------------------------------ A_extractor
    def extract(
        self, solution: SolutionNotebook, summary: AblationSummary, refined: list[str]
    ) -> RefineTarget:
        """The part with the largest measured effect whose block was not refined yet; once
        every part was refined, the one with the largest effect among those with strategies
        left (a notebook whose only refinable code is one model cell is refined for as long as
        the outer steps and the budget last, not for one step)."""
        parts = [p for p in self.parts(solution) if self._untried(p, set())]
        open_parts = [p for p in parts if p.block_id not in refined] or parts
        if not open_parts:
            raise NothingToRefine(self._why_nothing(solution))
        effect: dict[tuple[str, str | None], float] = {}
        for r in summary.results:
            key = self._variant_part.get(r.name, (r.block_id or "", None))
            if r.delta is not None:
                effect[key] = max(effect.get(key, 0.0), abs(r.delta))
            adopt = user_code.ADOPT_ABLATION.get(r.name.rsplit(": ", 1)[-1])
            if r.delta is not None and r.delta < 0 and adopt:  # switching it off did better
                self._promoted.setdefault(key, []).append(adopt)
            elif r.delta is not None and adopt:  # measured no better: the same change again
                self._not_better.setdefault(key, set()).add(adopt)
        # a part the ablation found to make no difference ranks below one it could not study
        # (a hand-picked feature list has no ablation, and may be what holds the score back)
        ranked = sorted(
            range(len(open_parts)),
            key=lambda i: (
                -effect.get((open_parts[i].block_id, open_parts[i].fragment), UNSTUDIED),
                i,
            ),
        )
        first = not refined and self._steps == 0
        pick = open_parts[ranked[self.seed % len(ranked) if first else 0]]
        self._steps += 1
        plan = self._plan_for(pick, set())
        return RefineTarget(pick.block_id, plan, pick.fragment)

    def _why_nothing(self, solution: SolutionNotebook) -> str:
        """Why no part of ``solution`` has a strategy left: none is refinable, a model the rest
        of the notebook needs as the class it is has no change left that keeps its class, or
        every strategy was tried."""
        every = [
            p
            for p in user_code.parts(solution)
            if not self.target_block or p.block_id == self.target_block
        ]
        if not every:
            return (
                "no cell builds a model, trains it, or prepares its features in a way the "
                "strategies can change (a model built in a function, in the list a loop goes "
                "over, or only read from a file, is not)"
            )
        pinned = next((p for p in every if p.pinned), None)
        if pinned is not None and not self.applied:
            call = model_call(pinned.source)
            cls = call_name(call) if call is not None else "its model"
            return (
                f"the model of {pinned.block_id} must stay a {cls}, as {pinned.pinned}, and no "
                "change the strategies make that keeps its class applies to it"
            )
        return "every strategy for the notebook's parts has been tried"

    # ------------------------------------------------------------------ A_planner, A_coder
    def _plan_for(self, part: Part, tried: set[str]) -> Plan:
        left = self._untried(part, tried)
        if not left:
            return Plan(
                f"Every strategy for this {part.role} code has been tried; keep it as it is.",
                EXHAUSTED,
            )
        s, new = left[0]
        if part.compares:  # say which of the compared models it changes (``user_code.compared``)
            changed = changed_entries(part.source, new, part.compares)
            return Plan(
                plan_text(s.text, part.compares, part.kept, changed), s.id, {"role": part.role}
            )
        return Plan(s.text, s.id, {"role": part.role})

    def plan(
        self,
        solution: SolutionNotebook,
        target: RefineTarget,
        history: list[tuple[Plan, float | None]],
    ) -> Plan:
        """The next strategy not applied to this block yet."""
        part = self._part(solution, target, history[0][0] if history else None)
        return self._plan_for(part, {p.strategy for p, _ in history if p.strategy})

    def code(self, solution: SolutionNotebook, target: RefineTarget, plan: Plan) -> str:
        """The part's new source for ``plan`` (recorded as applied to the block)."""
        part = self._part(solution, target, plan)
        choice = next(
            (
                (s, new)
                for s, new in user_code.applicable(part, self.extra)
                if s.id == plan.strategy
            ),
            None,
        )
        if choice is None:
            return part.source
        self.applied.setdefault(part.block_id, set()).add(choice[0].id)
        if self.multi_target:  # HistGradientBoosting swapped in: one per column, not a failure
            return wrapped_swap(solution, part.source, choice[1])
        return choice[1]

    def _part(self, solution: SolutionNotebook, target: RefineTarget, plan: Plan | None) -> Part:
        role = str((plan.params.get("role") if plan else None) or "")
        for p in user_code.parts(solution):
            if p.block_id == target.block_id and p.fragment == target.fragment:
                return p
        source = target.fragment or solution.block(target.block_id).source
        return Part(target.block_id, role or "model", target.fragment, source)


__all__ = ["NothingToRefine", "UserCodeRefiner"]
