"""``OfflinePolicy``: MLE-STAR's roles played deterministically over the local model catalog.

It needs no API key and never calls a model: it renders the catalog's notebook templates for the
task, turns refinement plans into template params, and combines solutions with fixed ensemble
recipes.  Given the same task, config and seed it answers every call the same way.

A solution whose blocks came from the catalog is refined by ``CardRefiner`` (re-rendering a
card's template with other params); a user's own notebook by ``UserCodeRefiner`` (edits of its
code).  The debugger's fixes are in ``debug_fixes``, the checkers in ``notebook_checks``.
"""

from __future__ import annotations

from ..agent.config import RunConfig
from ..agent.policy import (
    AblationStudy,
    AblationSummary,
    AblationVariant,
    DataUsageReport,
    LeakageReport,
    ModelCard,
    Plan,
    RefineTarget,
)
from ..metrics import Direction, Score, best_of, get_metric
from ..notebook import SolutionNotebook
from ..task import Task
from ..task.layout import count_train_rows, inspect_task
from . import debug_fixes, notebook_checks, user_code
from .ablation_summary import summarize_ablation
from .card_refiner import CardRefiner
from .catalog import Card, Catalog, load_catalog
from .catalog_blocks import CatalogBlocks, source_key
from .ensemble import STRATEGIES, NotebookCombiner, strategy_order
from .errors import NoCardError, UserCodeEnsembleError
from .final_notebook import final_notebook
from .multi_output import one_model_per_column
from .render import RenderContext, render_block, render_notebook
from .starter import starter_script
from .target_shape import log_target_mode
from .user_code.column_edits import unused_columns, usable_columns
from .user_code.proba_submission import probabilities_written
from .user_code.search_edits import tuning_strategies
from .user_code.submission_cell import with_submission_cell
from .user_refiner import UserCodeRefiner


class OfflinePolicy:
    """Plays every role of MLE-STAR for one task, deterministically, from the model catalog."""

    name = "offline"

    def __init__(
        self,
        task: Task,
        config: RunConfig,
        catalog: Catalog | None = None,
        seed: int = 0,
        path: int = 0,
    ) -> None:
        self.task = task
        self.path = path  # which of the L parallel runs this policy plays (its retrieval order)
        self.config = config
        self.catalog = catalog or load_catalog()
        self.layout = inspect_task(task)
        self.ctx = RenderContext(
            task,
            self.layout,
            seed=seed,
            split_seed=config.seed,
            max_train_rows=config.max_train_rows,
            kfold_rows=config.kfold_rows,
        )
        self.combiner = NotebookCombiner(self.catalog, self.layout)
        self.higher = get_metric(task.metric_name).higher_is_better
        self.blocks = CatalogBlocks(self.catalog, self.ctx)  # which blocks came from which card
        self._previous: dict[str, str] = {}  # source key of a rewritten block -> what it replaced
        self._n_rows: int | None = None  # labelled examples in the task (counted when needed)
        self._log_mode: str | None = None  # see _log_target (worked out when needed)
        # catalog blocks: ablations and strategies from the cards' params
        self.cards = CardRefiner(
            self.blocks,
            self.layout,
            self.higher,
            self._log_target,
            config.target_block,
            rows=self.train_rows,
            exec_limit=config.budget.exec_timeout,
            lane=(path, config.parallel_solutions),
        )
        # a user's own notebook (no catalog cell): ablations and strategies read from its code
        columns = usable_columns(task, self.layout)
        data_strategy = unused_columns(columns) if columns else None
        self.user = UserCodeRefiner(
            seed,
            config.target_block,
            config.parallel_solutions,
            extra=(
                *((data_strategy,) if data_strategy else ()),
                *tuning_strategies(task.metric_name),
            ),
            multi_target=len(task.target_cols) > 1
            and self.layout.submission_kind == "multi_target",
        )

    # ------------------------------------------------------------------ A_retriever, A_init
    def retrieve(self, m: int) -> list[ModelCard]:
        """Up to ``m`` installed cards for the task's modality and type, best first; parallel run
        ``path`` l draws the same models rotated by l (its own order, and its own seed)."""
        top = self._cards()[:m]
        r = self.path % len(top) if top else 0
        return [c.to_model_card() for c in top[r:] + top[:r]]

    def _cards(self) -> list[Card]:
        cards = self.catalog.matching(self.layout.modality, self.layout.task_type)
        if not cards and self.layout.modality != "tabular":
            cards = self.catalog.matching("tabular", self.layout.task_type)
        if not cards:
            raise NoCardError(
                f"no installed catalog card handles {self.layout.modality} {self.layout.task_type}; "
                "add one with load_catalog(extra_dirs=[...]) or install a card's required packages"
            )
        return cards

    def init_solution(self, card: ModelCard) -> SolutionNotebook:
        """The card's template rendered for this task (an unknown card falls back to the best one)."""
        name = card.template or card.name
        chosen = self.catalog[name] if name in self.catalog else self._cards()[0]
        train = chosen.params.get("train", {})
        log = {"train": {"log_target": True}} if self._log_target() == "default" else None
        nb = render_notebook(self.catalog, chosen, self.ctx, log if "log_target" in train else None)
        self.blocks.remember_all(nb)
        return nb

    def _log_target(self) -> str:
        """How a regression's target is best fitted (``target_shape.log_target_mode``, once)."""
        if self._log_mode is None:
            self._log_mode = log_target_mode(self.task, self.layout)
        return self._log_mode

    def starter_code(self) -> str:
        """Cells that load this task's data correctly (a percent script), for a model to build on:
        the ``load`` cell of the best card's notebook, and the helper functions of its ``features``
        cell (e.g. ``load_images``) for data that is not a table."""
        return starter_script(self.catalog, self._cards()[0], self.ctx, self.task.task_type)

    # ------------------------------------------------------------------ A_merger, A_ensembler
    def merge(self, base: SolutionNotebook, reference: SolutionNotebook) -> SolutionNotebook:
        """``base`` and ``reference``'s model in one notebook, their predictions averaged."""
        return self.combiner.merge(base, reference)

    def ensemble_plan(
        self, solutions: list[SolutionNotebook], history: list[tuple[Plan, float | None]]
    ) -> Plan:
        """The next ensemble recipe in order (mean, weighted, stacking, ...); once all are tried,
        the best again.  Solutions refined from a user's notebook are not ensembled: the
        combining cell reads the catalog's ``val_pred``/``test_pred``, which user code lacks
        (every round failed with ``NameError`` and its debugger runs, all for nothing)."""
        if any(not self.blocks.refinable(s) for s in solutions):
            raise UserCodeEnsembleError(
                "the solutions are your notebook's own code, and the offline ensembler joins "
                "solutions built from its model catalog (their val_pred / test_pred); the run "
                "keeps the best single solution. An LLM backend (--backend gemini or openai) "
                "writes an ensemble of any code"
            )
        tried = {p.strategy for p, _ in history}
        for sid in strategy_order(self.layout):
            if sid not in tried:
                s = STRATEGIES[sid]
                return Plan(f"Combine the {len(solutions)} solutions: {s.text}", sid)
        scored = [(s, p) for p, s in history if s is not None]
        if not scored:
            return Plan(
                f"Combine the {len(solutions)} solutions: {STRATEGIES['mean'].text}", "mean"
            )
        direction: Direction = "maximize" if self.higher else "minimize"
        best = best_of([Score(s, direction) for s, _ in scored])
        return scored[best if best is not None else 0][1]

    def ensemble(self, solutions: list[SolutionNotebook], plan: Plan) -> SolutionNotebook:
        """One notebook running every solution, then combining them as ``plan`` says."""
        if plan.strategy not in STRATEGIES:
            plan = Plan(plan.text, "mean")
        return self.combiner.ensemble(solutions, plan)

    # ------------------------------------------------------------------ A_abl, A_summarize
    def ablation(
        self, solution: SolutionNotebook, previous: list[AblationSummary]
    ) -> AblationStudy:
        """Two or three variants, each switching off or simplifying one block not studied before
        (catalog blocks: the card's ablations; a user's notebook: edits of its code)."""
        if not self.blocks.refinable(solution):
            return self.user.ablation(solution, previous)
        return self.cards.ablation(solution, previous)

    def _ablation_variants(
        self, solution: SolutionNotebook, *, skip: set[tuple[str, str]]
    ) -> list[AblationVariant]:
        """Every card-defined simplification of every block, except the (block, name) in ``skip``."""
        return self.cards.variants(solution, skip=skip)

    def summarize_ablation(
        self,
        study: AblationStudy,
        baseline: float | None,
        output: str,
        variant_scores: dict[str, float | None],
    ) -> AblationSummary:
        """Each variant's score and its delta (positive: the block it changed helps)."""
        return summarize_ablation(
            study, baseline, variant_scores, higher=self.higher, metric_name=self.task.metric_name
        )

    # ------------------------------------------------------------------ A_extractor, A_planner, A_coder
    def extract(
        self, solution: SolutionNotebook, summary: AblationSummary, refined: list[str]
    ) -> RefineTarget:
        """The block with the largest measured effect not refined yet (a user-named block wins)."""
        refinable = self.blocks.refinable(solution)
        if not refinable:
            return self.user.extract(solution, summary, refined)
        target = self.cards.choose(solution, summary, refinable, refined)
        if isinstance(target, RefineTarget):
            return target
        return RefineTarget(target, self.plan(solution, RefineTarget(target, Plan("")), []))

    def plan(
        self,
        solution: SolutionNotebook,
        target: RefineTarget,
        history: list[tuple[Plan, float | None]],
    ) -> Plan:
        """The next untried strategy for the block, guided by how earlier plans scored."""
        info = self.blocks.info(solution, target.block_id)
        if info is None:
            return self.user.plan(solution, target, history)
        return self.cards.plan(solution, target, history, info)

    def code(self, solution: SolutionNotebook, target: RefineTarget, plan: Plan) -> str:
        """The block's new source for ``plan`` (a prose-only plan gets the next strategy instead)."""
        block = solution.block(target.block_id)
        info = self.blocks.info(solution, target.block_id)
        if info is None:
            new = self.user.code(solution, target, plan)
            if target.fragment:  # the debugger undoes a failed strategy on the whole cell
                whole = block.source.replace(target.fragment, new, 1)
                self._previous[source_key(whole)] = block.source
        else:
            new = self.cards.code(solution, target, plan, info)
        self._previous[source_key(new)] = block.source
        return new

    # ------------------------------------------------------------------ A_debugger
    def debug(
        self, solution: SolutionNotebook, error: str, failed_block: str | None
    ) -> SolutionNotebook:
        """Deterministic fixes: a plain split, a missing drawing package stood in for, a missing
        folder made for a write, a single-output model given several target columns fitted
        once per column (``multi_output``), undo a failed strategy, add missing imports, halve the
        training rows."""
        bid = failed_block if failed_block in solution.block_ids else None
        if debug_fixes.is_timeout(error):
            self.cards.note_timeout(solution)
        fixed = debug_fixes.plain_split(solution, error, bid)  # few rows, many classes
        if fixed is None:
            fixed = debug_fixes.drawing_package(solution, error)  # no seaborn in the kernel
        if fixed is None:
            fixed = debug_fixes.missing_folder(solution, error, bid)  # to_csv('outputs/...')
        if fixed is None:  # HistGradientBoosting given train[["y1", "y2"]]: one per column
            fixed = one_model_per_column(solution, error, bid)
        if fixed is None and bid is not None:
            fixed = self._undo(solution, bid)
        if fixed is None:
            fixed = debug_fixes.missing_imports(solution, error, bid)
        if fixed is None:
            fixed = debug_fixes.fewer_rows(solution, error, self.train_rows)
        return solution if fixed is None else fixed

    def _undo(self, solution: SolutionNotebook, bid: str) -> SolutionNotebook | None:
        """The failed block as it was before its last rewrite, or a catalog block at its card's
        default params."""
        source = solution.block(bid).source
        before = self._previous.get(source_key(source))
        if before is not None and before.strip() != source.strip():
            return solution.replace_block(bid, before, origin="offline:debug")
        info = self.blocks.info(solution, bid)
        if info is not None and info[2] != info[0].params.get(info[1], {}):
            card, role = info[0], info[1]
            default = render_block(self.catalog, card, self.ctx, role, card.params.get(role, {}))
            return solution.replace_block(bid, default, origin="offline:debug")
        return None

    def train_rows(self) -> int | None:
        """Labelled training examples of the task (counted once), or None when unknown."""
        if self._n_rows is None:
            self._n_rows = count_train_rows(self.task, self.layout) or 0
        return self._n_rows or None

    # ------------------------------------------------------------------ checkers
    def check_leakage(self, solution: SolutionNotebook) -> LeakageReport:
        """Static leakage check over the whole notebook; fit-on-test leaks are fixed in their block."""
        return notebook_checks.check_leakage(solution, self.layout.label_col)

    def check_data_usage(self, solution: SolutionNotebook) -> DataUsageReport:
        """Input files the notebook never names; joinable tables among them are added after loading."""
        return notebook_checks.check_data_usage(solution, self.task, self.layout)

    # ------------------------------------------------------------------ A_test
    def make_submission(self, solution: SolutionNotebook) -> SolutionNotebook:
        """The final notebook: no subsampling, and every model retrained on train + validation rows."""
        if not self.blocks.refinable(solution):  # a user's notebook: its own files go to ./final/
            # (one that predicts no test rows gets a cell that does)
            # (and one that writes labels for a probability metric writes probabilities)
            final = probabilities_written(user_code.final_outputs(solution), self.task)
            return with_submission_cell(final, self.task)
        return final_notebook(solution, self.catalog, self.ctx)


__all__ = ["OfflinePolicy"]
