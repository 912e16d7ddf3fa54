"""The offline policy's ablation, extractor, planner and coder for blocks rendered from the catalog.

A catalog block is refined by rendering its card's template again with other params:

- the ablation renders each card-defined simplification of a block (up to three blocks, one
  variant each, blocks not studied before first, at least two variants);
- the extractor picks a user-named block, else a skewed target's train block (log it early),
  else a features block that still treats ordered scales (grades, sizes) as plain categories
  (their ranks early), else an ablation variant that scored better (kept as it is), else the
  block with the largest measured effect not refined yet; on a table of 5 000+ rows a booster's
  model block whose settings were never searched comes before the last two;
- the planner walks ``strategies.next_plan`` guided by the scores so far, skipping strategies
  that ran past the time limit on the same card, role and row cap; parallel paths take different
  kinds of change first (path i of L: i, i + L, ...), so that they do not try the same ones side by side.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..agent.policy import (
    EXHAUSTED,
    AblationStudy,
    AblationSummary,
    AblationVariant,
    Plan,
    RefineTarget,
)
from ..notebook import META, SolutionNotebook, UnknownBlockError
from ..task.layout import DataLayout
from .card_strategy import forecast_regression
from .catalog_blocks import REFINE_ORDER, BlockInfo, CatalogBlocks, row_cap, source_key
from .model_strategies import MODEL_STRATEGIES
from .render import render_block
from .strategies import next_plan, relevant

SEARCHES = ("search", "search_longer")  # strategies that search a model's settings for seconds
# A search takes at most this share of its execution's time limit (``search_seconds()`` in
# catalog/_search.py.j2): a longer search that this cuts to about the same seconds is not tried.
SEARCH_TIME_SHARE = 0.3
SEARCH_MIN_ROWS = 5_000  # below this many labelled rows the search's 15% is too few to choose by


@dataclass
class CardRefiner:
    """One path's ablations and refinements of catalog blocks."""

    blocks: CatalogBlocks
    layout: DataLayout
    higher: bool  # the metric's direction
    log_target: Callable[[], str]  # "default", "first" or "" (see target_shape.log_target_mode)
    target_block: str | None = None
    baselines: dict[str, float] = field(default_factory=dict)  # block id -> score when extracted
    strategy_of: dict[str, str] = field(default_factory=dict)  # source key -> its plan's id
    # (card, role, MAX_TRAIN_ROWS) -> strategies that ran past the time limit there: never again
    timed_out: dict[tuple[str, str, str], set[str]] = field(default_factory=dict)
    # (block id, ablation name) -> the block's params in that variant (adopted when it won)
    variant_params: dict[tuple[str, str], tuple[str, dict[str, Any]]] = field(default_factory=dict)
    # the task's labelled rows (None: unknown): a search of a model's settings needs many
    rows: Callable[[], int | None] = field(default=lambda: None)
    exec_limit: float | None = None  # the run's limit on one execution, in seconds (None: none)
    # (path i, L paths): path i tries the kinds of change i, i + L, ... first
    lane: tuple[int, int] = (0, 1)

    # ------------------------------------------------------------------ A_abl
    def ablation(
        self, solution: SolutionNotebook, previous: list[AblationSummary]
    ) -> AblationStudy:
        """Two or three variants, each switching off or simplifying one block not studied before;
        once every part has been studied, the same parts again on the refined solution (their
        effect changes as the solution does)."""
        studied = {(r.block_id or "", r.name) for s in previous for r in s.results}
        studied_blocks = {r.block_id for s in previous for r in s.results}
        candidates = self.variants(solution, skip=studied)
        if not candidates:
            candidates = self.variants(solution, skip=set())
            studied_blocks = set()
        fresh = [v for v in candidates if v.block_id not in studied_blocks]
        chosen: list[AblationVariant] = []
        for v in fresh + [v for v in candidates if v not in fresh]:  # one variant per block first
            if len(chosen) < 3 and all(c.block_id != v.block_id for c in chosen):
                chosen.append(v)
        for v in candidates:
            if len(chosen) < 2 and v not in chosen:
                chosen.append(v)
        return AblationStudy(variants=tuple(chosen))

    def variants(
        self, solution: SolutionNotebook, *, skip: set[tuple[str, str]]
    ) -> list[AblationVariant]:
        """Every card-defined simplification of every block, except the (block, name) in ``skip``."""
        catalog, ctx = self.blocks.catalog, self.blocks.ctx
        candidates: list[AblationVariant] = []
        for b in solution.code_blocks:
            info = self.blocks.info(solution, b.id)
            if info is None:
                continue
            card, role, params = info
            for abl in card.ablations:
                changed = {k: v for k, v in abl.params.items() if params.get(k) != v}
                if abl.role != role or not changed or not relevant(changed, self.layout):
                    continue
                name = f"{b.id} ({role}): {abl.name}"
                source = render_block(catalog, card, ctx, role, {**params, **abl.params})
                if (b.id, name) in skip or source.strip() == b.source.strip():
                    continue
                self.variant_params[(b.id, name)] = (role, {**params, **abl.params})
                candidates.append(
                    AblationVariant(
                        name, b.id, solution.replace_block(b.id, source, origin="offline:ablation")
                    )
                )
        return candidates

    # ------------------------------------------------------------------ A_extractor
    def choose(
        self,
        solution: SolutionNotebook,
        summary: AblationSummary,
        refinable: list[str],
        refined: list[str],
    ) -> str | RefineTarget:
        """The block to refine next (its plan still to make), or an ablation variant that scored
        better, as a target whose plan keeps the variant."""
        target = self.target_block if self.target_block in solution.block_ids else None
        if target is None and forecast_regression(self.layout):  # a forecast: its trend early
            target = self._train_block_without("detrend", solution, refinable, refined)
        if target is None and self.log_target() == "first":  # a skewed target: log it early
            target = self._train_block_without("log_target", solution, refinable, refined)
        if target is None and self.layout.ordered_cols:  # grades, sizes: their ranks early
            target = self._unranked_features_block(solution, refinable, refined)
        if target is None:  # many rows: a booster's settings searched before smaller changes
            target = self._unsearched_model_block(solution, refinable, refined)
        if target is None and (adopted := self._better_variant(summary, refinable)):
            return adopted
        if target is None:
            target = self._largest_effect(summary, refinable, refined)
        if target is None:
            target = next(
                (b.id for role in REFINE_ORDER for b in solution.blocks_by_role(role)),
                solution.block_ids[-1],
            )
        if summary.baseline is not None:
            self.baselines[target] = summary.baseline
        return target

    def _train_block_without(
        self, param: str, solution: SolutionNotebook, refinable: list[str], refined: list[str]
    ) -> str | None:
        """A train block not refined yet whose card has ``param`` (``log_target``, ``detrend``)
        switched off."""
        return next(
            (
                b.id
                for b in solution.blocks_by_role("train")
                if b.id in refinable
                and b.id not in refined
                and (info := self.blocks.info(solution, b.id)) is not None
                and info[2].get(param) is False
            ),
            None,
        )

    def _unranked_features_block(
        self, solution: SolutionNotebook, refinable: list[str], refined: list[str]
    ) -> str | None:
        """A features block not refined yet whose ordered scales are still plain categories."""
        return next(
            (
                b.id
                for b in solution.blocks_by_role("features")
                if b.id in refinable
                and b.id not in refined
                and (info := self.blocks.info(solution, b.id)) is not None
                and info[2].get("ordered") is False
            ),
            None,
        )

    def _unsearched_model_block(
        self, solution: SolutionNotebook, refinable: list[str], refined: list[str]
    ) -> str | None:
        """On a table of ``SEARCH_MIN_ROWS`` or more, a booster's model block whose settings were
        never searched (nor timed out searching): on the benchmark's mid-size tables the search
        was the step that paid most, and at short budgets the ablation's order never reached it."""
        if not self._rows_to_search():
            return None
        for b in solution.blocks_by_role("model"):
            info = self.blocks.info(solution, b.id)
            if b.id not in refinable or b.id in refined or info is None:
                continue
            card, role, params = info
            searchable = "search_seconds" in card.params.get(role, {})
            if searchable and not params.get("search_seconds"):
                if not self._timed_out(card.name, role, solution) & set(SEARCHES):
                    return b.id
        return None

    def _rows_to_search(self) -> bool:
        """Whether the task has enough labelled rows for a search's 15% to choose by."""
        rows = self.rows()
        return rows is not None and rows >= SEARCH_MIN_ROWS

    def _longer_search_pays(self) -> bool:
        """Whether the longer search gets at least 1.5 times the first search's seconds under
        the run's execution limit (at 120 s a run's 30 s limit cuts both to about 8 s)."""
        if self.exec_limit is None:
            return True
        cap = SEARCH_TIME_SHARE * self.exec_limit
        first, longer = (min(cap, _search_seconds(sid)) for sid in SEARCHES)
        return longer >= 1.5 * first

    def _timed_out(self, card: str, role: str, solution: SolutionNotebook) -> set[str]:
        """The strategies that ran past the time limit on ``card``'s ``role`` block at
        ``solution``'s row cap."""
        return self.timed_out.get((card, role, row_cap(solution)), set())

    @staticmethod
    def _largest_effect(
        summary: AblationSummary, refinable: list[str], refined: list[str]
    ) -> str | None:
        measured = sorted(
            (
                r
                for r in summary.results
                if r.block_id in refinable and r.block_id not in refined and r.delta is not None
            ),
            key=lambda r: -abs(r.delta or 0.0),
        )
        order = [r.block_id for r in measured] + [b for b in refinable if b not in refined]
        return next((b for b in order + refinable if b is not None), None)

    def _better_variant(
        self, summary: AblationSummary, refinable: list[str]
    ) -> RefineTarget | None:
        """An ablation variant that scored better than the solution is the first plan to try,
        on a block refined before too: the variant ran already (its candidate is the cached
        run), and keeping a measured gain beats the paper's rule of moving on to a block not
        refined yet (cps-wages: a single fit without bagging, 0.3 RMSE better at the last outer
        step, was dropped because bagging had been that block's refinement)."""
        better = [
            r
            for r in summary.results
            if r.delta is not None
            and r.delta < 0
            and r.block_id in refinable
            and (r.block_id, r.name) in self.variant_params
        ]
        if not better:
            return None
        best = min(better, key=lambda r: r.delta or 0.0)
        role, params = self.variant_params[(str(best.block_id), best.name)]
        if summary.baseline is not None:
            self.baselines[str(best.block_id)] = summary.baseline
        text = (
            f"Keep the ablation's variant ({best.name.split(': ', 1)[-1]}): it scored "
            f"{best.score:.5g} against {summary.baseline:.5g} for the current block."
            if best.score is not None and summary.baseline is not None
            else f"Keep the ablation's variant ({best.name})."
        )
        plan = Plan(text, "ablation_variant", {"role": role, "role_params": params})
        return RefineTarget(str(best.block_id), plan)

    # ------------------------------------------------------------------ A_planner, A_coder
    def plan(
        self,
        solution: SolutionNotebook,
        target: RefineTarget,
        history: list[tuple[Plan, float | None]],
        info: BlockInfo,
    ) -> Plan:
        """The next untried strategy for the block, guided by how earlier plans scored."""
        card, role, params = info
        baseline = _last_score(solution, target.block_id)
        baseline = baseline if baseline is not None else self.baselines.get(target.block_id)
        ruled_out = frozenset(self._timed_out(card.name, role, solution))
        prefer = "log_target" if self.log_target() == "first" else None
        if role == "train" and forecast_regression(self.layout):  # the trend before the rest
            prefer = "detrend"
        if role == "features" and self.layout.ordered_cols:  # the ranks of ordered scales first
            prefer = "ordered_codes"
        if not self._rows_to_search():  # few rows: k-fold validation, no search
            ruled_out |= frozenset(SEARCHES)
        elif role == "model":  # many rows: searching the settings pays first (a log target is
            prefer = SEARCHES[0]  # the train block's change, not this one's)
        # a longer search the time limit cuts short is not proposed (nor counted as tried: the
        # search's kind of change keeps its place in the order)
        skip = frozenset() if self._longer_search_pays() else frozenset({SEARCHES[1]})
        catalog, ctx = self.blocks.catalog, self.blocks.ctx
        # a plan whose code is the block's as it is, or an earlier plan's, is a no-op here (e.g.
        # the ridge penalty of a card that classifies with C): counted as tried, not proposed
        seen = {solution.block(target.block_id).source.strip()} | {
            render_block(catalog, card, ctx, role, p.params["role_params"]).strip()
            for p, _ in history
            if isinstance(p.params.get("role_params"), dict)
        }
        while True:
            plan = next_plan(
                role,
                card.params.get(role, {}),
                params,
                self.layout,
                history,
                baseline,
                self.higher,
                prefer,
                skip,
                self.lane,
                ruled_out,
            )
            if plan is None:
                return Plan(
                    f"Every strategy for this {role} block has been tried; keep it as it is.",
                    EXHAUSTED,
                    {"role": role, "role_params": params},
                )
            source = render_block(catalog, card, ctx, role, plan.params["role_params"]).strip()
            if source not in seen:
                return plan
            seen.add(source)
            history = [
                *history,
                (Plan("changes nothing in the code", plan.strategy, plan.params), None),
            ]

    def code(
        self, solution: SolutionNotebook, target: RefineTarget, plan: Plan, info: BlockInfo
    ) -> str:
        """The block rendered with ``plan``'s params (a prose-only plan gets the next strategy)."""
        card, role, _ = info
        if "role_params" not in plan.params:
            plan = self.plan(solution, target, [], info)
        params = plan.params.get("role_params", info[2])
        new = render_block(self.blocks.catalog, card, self.blocks.ctx, role, params)
        self.blocks.remember(new, card.name, role, params)
        self.strategy_of[source_key(new)] = str(plan.strategy)
        return new

    def note_timeout(self, solution: SolutionNotebook) -> None:
        """Remember the strategies in ``solution``'s blocks as too slow for their card, role and
        row cap: ``plan`` never proposes them there again (a halved cap may try them anew)."""
        rows = row_cap(solution)
        for b in solution.code_blocks:
            key = source_key(b.source)
            sid, known = self.strategy_of.get(key), self.blocks.known.get(key)
            if sid and known and sid != EXHAUSTED:
                # "a+b": b was tried on top of a, b is the new (slow) change
                slow = self.timed_out.setdefault((known[0], known[1], rows), set())
                slow.add(sid.split("+")[-1])


def _search_seconds(strategy: str) -> float:
    """The seconds a search strategy asks for."""
    return float(next(s.params["search_seconds"] for s in MODEL_STRATEGIES if s.id == strategy))


def _last_score(solution: SolutionNotebook, block_id: str) -> float | None:
    try:
        scores = solution.cell(block_id).metadata.get(META, {}).get("scores", [])
    except UnknownBlockError:
        return None
    real = [s for s in scores if isinstance(s, int | float)]
    return float(real[-1]) if real else None
