"""``OfflinePolicy``: MLE-STAR's roles played deterministically over the local model catalog.

It needs no API key and never calls a model: it renders the catalog's notebook templates for the
task, turns refinement plans into template params, and combines solutions with fixed ensemble
recipes.  Given the same task, config and seed it answers every call the same way.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

import pandas as pd

from ..agent.config import RunConfig
from ..agent.policy import (
    AblationResult,
    AblationStudy,
    AblationSummary,
    AblationVariant,
    DataUsageReport,
    LeakageReport,
    ModelCard,
    Plan,
    RefineTarget,
)
from ..codecheck import static_checks
from ..metrics import get_metric
from ..notebook import META, SolutionNotebook, UnknownBlockError
from ..task import Task
from ..task.layout import count_train_rows, inspect_task
from . import split_repair, user_code
from .catalog import Card, Catalog, load_catalog
from .ensemble import STRATEGIES, NotebookCombiner, strategy_order
from .errors import NoCardError
from .render import ROLES_WITH_PARAMS, RenderContext, merged_params, render_block, render_notebook
from .strategies import next_plan, relevant
from .user_refiner import UserCodeRefiner

REFINE_ORDER = ("model", "features", "preprocess", "train")


TIMEOUT_ERROR = r"Timeout|timed out"  # how a run past its time limit reads in an error


def _key(source: str) -> str:
    return hashlib.sha256(source.strip().encode()).hexdigest()[:16]


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
        )
        self.combiner = NotebookCombiner(self.catalog, self.layout)
        self.higher = get_metric(task.metric_name).higher_is_better
        self._known: dict[
            str, tuple[str, str, dict[str, Any]]
        ] = {}  # source key -> (card, role, params)
        self._previous: dict[
            str, str
        ] = {}  # source key of a rewritten block -> the source it replaced
        self._baselines: dict[str, float] = {}  # block id -> the score when it was extracted
        self._strategy_of: dict[str, str] = {}  # source key of a refined block -> its plan's id
        # (card, role, MAX_TRAIN_ROWS) -> strategies that ran past the time limit there: never again
        self._timed_out: dict[tuple[str, str, str], set[str]] = {}
        # (block id, ablation name) -> the block's params in that variant (adopted when it won)
        self._variant_params: dict[tuple[str, str], tuple[str, dict[str, Any]]] = {}
        self._n_rows: int | None = None  # labelled examples in the task (counted when needed)
        self._log_mode: str | None = None  # see _log_target (worked out when needed)
        # a user's own notebook (no catalog cell): ablations and strategies read from its code
        self.user = UserCodeRefiner(seed, config.target_block, config.parallel_solutions)

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
        self._remember_all(nb)
        return nb

    def _log_target(self) -> str:
        """How a regression's target is best fitted: "default" on log(1 + y) for RMSLE / MSLE,
        "first" (the first strategy of the train block) for RMSE / MSE on a positive target with a
        long right tail (skewness > 1), else "" (as it is)."""
        if self._log_mode is None:
            self._log_mode = ""
            metric = get_metric(self.task.metric_name).name
            single = self.layout.submission_kind != "multi_target" and self.layout.label_col
            if self.layout.is_classification or not single:
                pass
            elif metric in ("rmsle", "msle"):
                self._log_mode = "default"
            elif metric in ("rmse", "mse") and self.layout.train_table:
                y = _target_sample(self.task.input_dir / self.layout.train_table, single)
                if len(y) >= 20 and y.min() >= 0 and y.skew() > 1:
                    self._log_mode = "first"
        return self._log_mode

    def starter_code(self) -> str:
        """Cells that load this task's data correctly (a percent script), for a model to build on:
        the ``load`` cell of the best card's notebook, and the helper functions of its ``features``
        cell (e.g. ``load_images``) for data that is not a table."""
        from ..codecheck.static_checks import repair_imports

        nb = render_notebook(self.catalog, self._cards()[0], self.ctx)
        load = "\n\n".join(b.source.strip() for b in nb.blocks_by_role("load"))
        load = re.sub(r"\n\w+\.head\(\)\s*$", "", load)  # a display that is no longer last
        split = _split_code(self.task.task_type, self.layout)
        cells = [("load", f'INPUT = Path("./input")\n{load}\n\n{split}')]
        if self.layout.modality in _USAGE:  # data a model cannot load in a line or two
            helpers = "\n\n\n".join(
                h for b in nb.blocks_by_role("features") if (h := _helpers_of(b.source))
            )
            if helpers:
                cells.append(("features", helpers + _USAGE[self.layout.modality]))
        script = "\n\n".join(f"# %% {role}\n{repair_imports(src)}" for role, src in cells)
        return script.strip() + "\n"

    # ------------------------------------------------------------------ A_merger, A_ensembler
    def merge(self, base: SolutionNotebook, reference: SolutionNotebook) -> SolutionNotebook:
        """``base`` and ``reference``'s model in one notebook, their predictions averaged."""
        return self.combiner.merge(base, reference)

    def ensemble_plan(
        self, solutions: list[SolutionNotebook], history: list[tuple[Plan, float | None]]
    ) -> Plan:
        """The next ensemble recipe in order (mean, weighted, stacking, ...); once all are tried, the best again."""
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
        best = (
            max(scored, key=lambda sp: sp[0]) if self.higher else min(scored, key=lambda sp: sp[0])
        )
        return best[1]

    def ensemble(self, solutions: list[SolutionNotebook], plan: Plan) -> SolutionNotebook:
        """One notebook running every solution, then combining them as ``plan`` says."""
        if plan.strategy not in STRATEGIES:
            plan = Plan(plan.text, "mean")
        return self.combiner.ensemble(solutions, plan)

    # ------------------------------------------------------------------ block bookkeeping
    def _remember(self, source: str, card: str, role: str, params: dict[str, Any]) -> None:
        self._known[_key(source)] = (card, role, dict(params))

    def _remember_all(self, nb: SolutionNotebook) -> None:
        for cell in nb.nb.cells:
            off = cell.metadata.get(META, {}).get("offline", {}) if cell.cell_type == "code" else {}
            if off.get("card"):
                self._remember(
                    cell.source, off["card"], cell.metadata[META]["role"], off.get("params", {})
                )

    def _block_info(
        self, solution: SolutionNotebook, block_id: str
    ) -> tuple[Card, str, dict[str, Any]] | None:
        """(card, role, params) when the block's current source was rendered from the catalog."""
        block = solution.block(block_id)
        known = self._known.get(_key(block.source))
        if known and known[0] in self.catalog:
            return self.catalog[known[0]], known[1], known[2]
        off = solution.cell(block_id).metadata.get(META, {}).get("offline", {})
        if off.get("card") in self.catalog and block.role in ROLES_WITH_PARAMS:
            card = self.catalog[off["card"]]
            params = merged_params(card, {block.role: off.get("params", {})})[block.role]
            if (
                render_block(self.catalog, card, self.ctx, block.role, params).strip()
                == block.source.strip()
            ):
                self._remember(block.source, card.name, block.role, params)
                return card, block.role, params
        return None

    def _refinable(self, solution: SolutionNotebook) -> list[str]:
        ids = []
        for role in REFINE_ORDER:
            for b in solution.blocks_by_role(role):
                info = self._block_info(solution, b.id)
                if info and info[0].params.get(role):
                    ids.append(b.id)
        return ids

    # ------------------------------------------------------------------ A_abl, A_summarize
    def ablation(
        self, solution: SolutionNotebook, previous: list[AblationSummary]
    ) -> AblationStudy:
        """Two or three variants, each switching off or simplifying one block not studied before;
        once every part has been studied, the same parts again on the refined solution (their
        effect changes as the solution does)."""
        if not self._refinable(solution):
            return self.user.ablation(solution, previous)
        studied = {(r.block_id or "", r.name) for s in previous for r in s.results}
        studied_blocks = {r.block_id for s in previous for r in s.results}
        candidates = self._ablation_variants(solution, skip=studied)
        if not candidates:
            candidates = self._ablation_variants(solution, skip=set())
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

    def _ablation_variants(
        self, solution: SolutionNotebook, *, skip: set[tuple[str, str]]
    ) -> list[AblationVariant]:
        """Every card-defined simplification of every block, except the (block, name) in ``skip``."""
        candidates: list[AblationVariant] = []
        for b in solution.code_blocks:
            info = self._block_info(solution, b.id)
            if info is None:
                continue
            card, role, params = info
            for abl in card.ablations:
                changed = {k: v for k, v in abl.params.items() if params.get(k) != v}
                if abl.role != role or not changed or not relevant(changed, self.layout):
                    continue
                name = f"{b.id} ({role}): {abl.name}"
                source = render_block(self.catalog, card, self.ctx, role, {**params, **abl.params})
                if (b.id, name) in skip or source.strip() == b.source.strip():
                    continue
                self._variant_params[(b.id, name)] = (role, {**params, **abl.params})
                candidates.append(
                    AblationVariant(
                        name, b.id, solution.replace_block(b.id, source, origin="offline:ablation")
                    )
                )
        return candidates

    def summarize_ablation(
        self,
        study: AblationStudy,
        baseline: float | None,
        output: str,
        variant_scores: dict[str, float | None],
    ) -> AblationSummary:
        """Each variant's score and its delta (positive: the block it changed helps)."""
        results = []
        for v in study.variants:
            score = variant_scores.get(v.name)
            delta = None
            if score is not None and baseline is not None:
                delta = (baseline - score) if self.higher else (score - baseline)
            results.append(AblationResult(v.name, v.block_id, score, delta))
        ordered = sorted(
            results, key=lambda r: -(r.delta if r.delta is not None else float("-inf"))
        )
        lines = [
            f"Baseline validation {self.task.metric_name}: {baseline if baseline is not None else 'unknown'}"
        ]
        for r in ordered:
            if r.score is None:
                lines.append(f"- {r.name}: failed to run")
            else:
                effect = (
                    "helps"
                    if (r.delta or 0) > 0
                    else "hurts"
                    if (r.delta or 0) < 0
                    else "makes no difference"
                )
                lines.append(
                    f"- {r.name}: {r.score:.5g} (delta {r.delta:+.5g}; the original block {effect})"
                )
        measured = sorted(
            (r for r in results if r.delta is not None), key=lambda r: -abs(r.delta or 0.0)
        )
        if measured:
            lines.append(f"The largest effect: {measured[0].name}.")
        return AblationSummary("\n".join(lines), baseline, tuple(results))

    # ------------------------------------------------------------------ A_extractor, A_planner, A_coder
    def extract(
        self, solution: SolutionNotebook, summary: AblationSummary, refined: list[str]
    ) -> RefineTarget:
        """The block with the largest measured effect not refined yet (a user-named block wins)."""
        refinable = self._refinable(solution)
        if not refinable:
            return self.user.extract(solution, summary, refined)
        target = (
            self.config.target_block if self.config.target_block in solution.block_ids else None
        )
        if target is None and self._log_target() == "first":  # a skewed target: log it early
            target = next(
                (
                    b.id
                    for b in solution.blocks_by_role("train")
                    if b.id in refinable
                    and b.id not in refined
                    and (info := self._block_info(solution, b.id)) is not None
                    and info[2].get("log_target") is False
                ),
                None,
            )
        if target is None and (adopted := self._better_variant(summary, refinable, refined)):
            return adopted
        if target is None:
            measured = sorted(
                (
                    r
                    for r in summary.results
                    if r.block_id in refinable and r.block_id not in refined and r.delta is not None
                ),
                key=lambda r: -abs(r.delta or 0.0),
            )
            order = (
                [r.block_id for r in measured]
                + [b for b in refinable if b not in refined]
                + refinable
            )
            target = next((b for b in order if b is not None), None)
        if target is None:
            target = next(
                (b.id for role in REFINE_ORDER for b in solution.blocks_by_role(role)),
                solution.block_ids[-1],
            )
        if summary.baseline is not None:
            self._baselines[target] = summary.baseline
        plan = self.plan(solution, RefineTarget(target, Plan("")), [])
        return RefineTarget(target, plan)

    def _better_variant(
        self, summary: AblationSummary, refinable: list[str], refined: list[str]
    ) -> RefineTarget | None:
        """An ablation variant that scored better than the solution is the first plan to try."""
        better = [
            r
            for r in summary.results
            if r.delta is not None
            and r.delta < 0
            and r.block_id in refinable
            and r.block_id not in refined
            and (r.block_id, r.name) in self._variant_params
        ]
        if not better:
            return None
        best = min(better, key=lambda r: r.delta or 0.0)
        role, params = self._variant_params[(str(best.block_id), best.name)]
        if summary.baseline is not None:
            self._baselines[str(best.block_id)] = summary.baseline
        text = (
            f"Keep the ablation's variant ({best.name.split(': ', 1)[-1]}): it scored "
            f"{best.score:.5g} against {summary.baseline:.5g} for the current block."
            if best.score is not None and summary.baseline is not None
            else f"Keep the ablation's variant ({best.name})."
        )
        plan = Plan(text, "ablation_variant", {"role": role, "role_params": params})
        return RefineTarget(str(best.block_id), plan)

    def plan(
        self,
        solution: SolutionNotebook,
        target: RefineTarget,
        history: list[tuple[Plan, float | None]],
    ) -> Plan:
        """The next untried strategy for the block, guided by how earlier plans scored."""
        info = self._block_info(solution, target.block_id)
        if info is None:
            return self.user.plan(solution, target, history)
        card, role, params = info
        baseline = _last_score(solution, target.block_id)
        baseline = baseline if baseline is not None else self._baselines.get(target.block_id)
        slow = self._timed_out.get((card.name, role, _train_rows_setting(solution)), set())
        history = [*history, *((Plan("timed out", sid, {}), None) for sid in sorted(slow))]
        prefer = "log_target" if self._log_target() == "first" else None
        plan = next_plan(
            role,
            card.params.get(role, {}),
            params,
            self.layout,
            history,
            baseline,
            self.higher,
            prefer,
        )
        if plan is None:
            return Plan(
                f"Every strategy for this {role} block has been tried; keep it as it is.",
                "exhausted",
                {"role": role, "role_params": params},
            )
        return plan

    def code(self, solution: SolutionNotebook, target: RefineTarget, plan: Plan) -> str:
        """The block's new source for ``plan`` (a prose-only plan gets the next strategy instead)."""
        block = solution.block(target.block_id)
        info = self._block_info(solution, target.block_id)
        if info is None:
            new = self.user.code(solution, target, plan)
            if target.fragment:  # the debugger undoes a failed strategy on the whole cell
                self._previous[_key(block.source.replace(target.fragment, new, 1))] = block.source
        else:
            card, role, _ = info
            if "role_params" not in plan.params:
                plan = self.plan(solution, target, [])
            params = plan.params.get("role_params", info[2])
            new = render_block(self.catalog, card, self.ctx, role, params)
            self._remember(new, card.name, role, params)
            self._strategy_of[_key(new)] = str(plan.strategy)
        self._previous[_key(new)] = block.source
        return new

    # ------------------------------------------------------------------ A_debugger
    def debug(
        self, solution: SolutionNotebook, error: str, failed_block: str | None
    ) -> SolutionNotebook:
        """Deterministic fixes: undo a failed strategy, add missing imports, halve the training rows."""
        bid = failed_block if failed_block in solution.block_ids else None
        if re.search(TIMEOUT_ERROR, error, re.IGNORECASE):
            self._note_timeout(solution)
        if split_repair.is_stratify_error(error):  # few rows, many classes: split plainly
            for b in sorted(solution.code_blocks, key=lambda b: b.id != bid):
                plain = split_repair.drop_stratify(b.source)
                if plain != b.source:
                    return solution.replace_block(b.id, plain, origin="offline:debug")
        if bid is not None:
            source = solution.block(bid).source
            before = self._previous.get(_key(source))
            if before is not None and before.strip() != source.strip():
                return solution.replace_block(bid, before, origin="offline:debug")
            info = self._block_info(solution, bid)
            if info is not None and info[2] != info[0].params.get(info[1], {}):
                default = render_block(
                    self.catalog, info[0], self.ctx, info[1], info[0].params.get(info[1], {})
                )
                return solution.replace_block(bid, default, origin="offline:debug")
        if re.search(r"NameError: name '(\w+)' is not defined", error):
            everything = solution.source
            repaired = static_checks.repair_imports(everything)
            if repaired != everything:
                head = [ln for ln in repaired.splitlines() if ln not in everything.splitlines()]
                first = solution.block_ids[0] if bid is None else bid
                return solution.replace_block(
                    first,
                    "\n".join(head) + "\n" + solution.block(first).source,
                    origin="offline:debug",
                )
        if re.search(rf"MemoryError|out of memory|Killed|{TIMEOUT_ERROR}", error, re.IGNORECASE):
            for b in solution.blocks_by_role("setup"):
                m = re.search(r"^MAX_TRAIN_ROWS = (\d+)", b.source, re.MULTILINE)
                if m:
                    # Halve the rows actually trained on (a cap above the data's size changes nothing).
                    rows = min(int(m.group(1)), self.train_rows() or int(m.group(1)))
                    smaller = max(200, rows // 2)
                    if smaller >= int(m.group(1)):
                        continue
                    return solution.replace_block(
                        b.id,
                        b.source.replace(m.group(0), f"MAX_TRAIN_ROWS = {smaller}"),
                        origin="offline:debug",
                    )
        return solution

    def _note_timeout(self, solution: SolutionNotebook) -> None:
        """Remember the strategies in ``solution``'s blocks as too slow for their card, role and
        row cap: ``plan`` never proposes them there again (a halved cap may try them anew)."""
        rows = _train_rows_setting(solution)
        for b in solution.code_blocks:
            sid, known = self._strategy_of.get(_key(b.source)), self._known.get(_key(b.source))
            if sid and known and sid != "exhausted":
                # "a+b": b was tried on top of a, b is the new (slow) change
                slow = self._timed_out.setdefault((known[0], known[1], rows), set())
                slow.add(sid.split("+")[-1])

    def train_rows(self) -> int | None:
        """Labelled training examples of the task (counted once), or None when unknown."""
        if self._n_rows is None:
            self._n_rows = count_train_rows(self.task, self.layout) or 0
        return self._n_rows or None

    # ------------------------------------------------------------------ checkers
    def check_leakage(self, solution: SolutionNotebook) -> LeakageReport:
        """Static leakage check over the whole notebook; fit-on-test leaks are fixed in their block."""
        blocks = solution.code_blocks
        findings = static_checks.find_leakage(solution.source, self.layout.label_col)
        if not findings:
            return LeakageReport(False)
        first = findings[0]
        line, bid, local = 1, blocks[-1].id, first.line
        for b in blocks:  # map the joined source's line back to its block
            n = len(b.source.splitlines()) + 1  # blocks are joined with one blank line between
            if first.line < line + n:
                bid, local = b.id, first.line - line + 1
                break
            line += n
        fixed = static_checks.fix_leakage(
            solution.block(bid).source,
            static_checks.LeakageFinding(first.kind, local, first.reason),
        )
        return LeakageReport(True, bid, first.reason, fixed)

    def check_data_usage(self, solution: SolutionNotebook) -> DataUsageReport:
        """Input files the notebook never names; joinable tables among them are added after loading."""
        unused = tuple(
            static_checks.unused_files(solution.source, [f.path for f in self.task.files])
        )
        joinable = [(f, k) for f, k in self.layout.extra_tables if f in unused]
        loads = solution.blocks_by_role("load")
        if not joinable or not loads or self.layout.modality not in ("tabular", "text"):
            return DataUsageReport(unused)
        lines = []
        for file, key in joinable:
            lines += [
                f"# {file} describes each {key}: join its columns onto both tables.",
                f'extra = pd.read_csv(INPUT / "{file}")',
                f'train_df = train_df.merge(extra, on="{key}", how="left")',
                f'test_df = test_df.merge(extra, on="{key}", how="left")',
            ]
        load = loads[0]
        src = load.source.splitlines()
        # The join must happen before the features are split off: right after the tables are read.
        reads = [i for i, ln in enumerate(src) if "read_csv" in ln or "read_parquet" in ln]
        first_read = reads[-1] + 1 if reads else 0
        fixed = solution.replace_block(
            load.id,
            "\n".join(src[:first_read] + lines + src[first_read:]),
            origin="offline:data_usage",
        )
        return DataUsageReport(unused, fixed)

    # ------------------------------------------------------------------ A_test
    def make_submission(self, solution: SolutionNotebook) -> SolutionNotebook:
        """The final notebook: no subsampling, and every model retrained on train + validation rows."""
        if not self._refinable(solution):  # a user's notebook: its own files go to ./final/
            return user_code.final_outputs(solution)
        out = solution
        for b in solution.code_blocks:
            if b.role not in ("setup", "subsample"):
                continue
            off = solution.cell(b.id).metadata.get(META, {}).get("offline", {})
            if off.get("card") in self.catalog:
                source = render_block(
                    self.catalog, self.catalog[off["card"]], self.ctx, b.role, {}, final=True
                )
            else:
                source = re.sub(
                    r"^MAX_TRAIN_ROWS = .*$", "MAX_TRAIN_ROWS = None", b.source, flags=re.MULTILINE
                )
                source = re.sub(
                    r"^REFIT_ON_ALL_ROWS = False",
                    "REFIT_ON_ALL_ROWS = True",
                    source,
                    flags=re.MULTILINE,
                )
            if source.strip() != b.source.strip():
                out = out.replace_block(b.id, source, origin="offline:submission")
        return out


# ---------------------------------------------------------------------- foreign blocks
def _split_code(task_type: str, layout: Any = None) -> str:
    """The hold-out split a model validates on (``X_test`` has no labels).  For a table of
    examples (tabular, text) it is the run's split, ``./val_index.csv`` written by the harness,
    and ``save_val_predictions`` writes ``./val_predictions.csv`` for the harness to score."""
    stratify = (
        # by class only when each part can hold every class (few rows, many classes: a plain split)
        "y if pd.Series(y).value_counts().min() >= 2 and len(y) // 5 >= pd.Series(y).nunique() else None"
        if task_type == "classification"
        else "None"
    )
    if layout is None or layout.modality not in ("tabular", "text") or not layout.train_table:
        return (
            "# validate on X_val / y_val; X_test has no labels\n"
            "X_train, X_val, y_train, y_val = train_test_split(\n"
            f"    X, y, test_size=0.2, random_state=0, stratify={stratify}\n)"
        )
    columns = list(layout.target_cols) or [layout.label_col]
    fmt = (
        "one probability column per class, in this order"
        if layout.submission_kind == "proba_columns"
        else "the values the submission holds"
    )
    return f"""# Validate on the run's validation rows: ./val_index.csv lists their positions in the training
# table, the same rows for every solution of this run, so their scores compare. X_test has no labels.
if Path("val_index.csv").exists():
    val_rows = pd.read_csv("val_index.csv")["row"].to_numpy()
else:  # outside a run
    _, val_rows = train_test_split(np.arange(len(y)), test_size=0.2, random_state=0, stratify={stratify})
is_val = np.isin(np.arange(len(y)), val_rows)
val_rows = np.flatnonzero(is_val)
X_train, X_val, y_train, y_val = X[~is_val], X[is_val], y[~is_val], y[is_val]
VAL_COLUMNS = {columns!r}  # the submission's prediction columns


def save_val_predictions(pred):
    \"\"\"Write ./val_predictions.csv, from which the harness measures the validation score itself:
    ``pred`` holds one prediction per row of X_val in the submission's format ({fmt}).\"\"\"
    table = pd.DataFrame(np.asarray(pred).reshape(len(val_rows), -1), columns=VAL_COLUMNS)
    table.insert(0, "row", val_rows)
    table.to_csv("val_predictions.csv", index=False)"""


_USAGE = {  # how a model uses the starter's helpers, said where it will read it
    "image": "\n\n# e.g. pixels = load_images(X).reshape(len(X), -1) / 255.0  (one row of pixel values per image)",
    "audio": "\n\n# e.g. F = audio_features(X)  (one row of clip statistics per recording)",
}


def _target_sample(path: Path, column: str, n: int = 20_000) -> pd.Series:
    """Up to ``n`` numeric values of the training table's ``column`` (empty when unreadable)."""
    try:
        if path.suffix == ".parquet":
            values = pd.read_parquet(path, columns=[column])[column].head(n)
        else:
            sep = "\t" if path.suffix == ".tsv" else ","
            values = pd.read_csv(path, usecols=[column], nrows=n, sep=sep)[column]
    except (OSError, ValueError, KeyError):
        return pd.Series(dtype=float)
    return pd.to_numeric(values, errors="coerce").dropna()


def _train_rows_setting(solution: SolutionNotebook) -> str:
    """The ``MAX_TRAIN_ROWS = ...`` value of the notebook's setup ("" when it has none)."""
    for b in solution.blocks_by_role("setup"):
        m = re.search(r"^MAX_TRAIN_ROWS = (.+)$", b.source, re.MULTILINE)
        if m:
            return m.group(1).strip()
    return ""


def _helpers_of(source: str) -> str:
    """The function definitions of ``source`` and the constants they read (other statements go)."""
    import ast

    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ""
    keep = [
        n
        for n in tree.body
        if isinstance(n, ast.FunctionDef | ast.Import | ast.ImportFrom)
        or (isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant))
    ]
    if not any(isinstance(n, ast.FunctionDef) for n in keep):
        return ""
    lines = source.splitlines()
    parts = ["\n".join(lines[n.lineno - 1 : n.end_lineno]) for n in keep if n.end_lineno]
    return "\n".join(p if "\n" not in p else f"\n{p}\n" for p in parts).strip()


def _last_score(solution: SolutionNotebook, block_id: str) -> float | None:
    try:
        scores = solution.cell(block_id).metadata.get(META, {}).get("scores", [])
    except UnknownBlockError:
        return None
    real = [s for s in scores if isinstance(s, int | float)]
    return float(real[-1]) if real else None


__all__ = ["OfflinePolicy"]
