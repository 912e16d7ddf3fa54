"""MLE-STAR's three algorithms (the paper's Appendix B) over notebook cells.

Each reads like the paper: ask a role, run the candidate, compare scores, record.  The roles come
from a ``Policy``; running, debugging and journaling from ``CandidateRunner``.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ..journal import RunJournal
from ..notebook import BlockMatchError, SolutionNotebook
from ..task import Task
from .candidates import CandidateRunner, Node
from .candidates import _error_text as error_text
from .config import RunConfig
from .errors import RunStopped
from .policy import AblationSummary, ModelCard, Plan, Policy, RefineTarget

log = logging.getLogger("mlestar.agent")
T = TypeVar("T")


@dataclass(frozen=True)
class Solution:
    """A notebook that ran, with its node (and so its score)."""

    nb: SolutionNotebook
    node: Node

    @property
    def score(self) -> float | None:
        return self.node.score


@dataclass
class Context:
    """What every algorithm needs for one run."""

    task: Task
    config: RunConfig
    journal: RunJournal
    runner: CandidateRunner
    rejected: set[tuple[str, str]] = field(
        default_factory=set
    )  # (block_id, source digest) the user rejected

    def better(self, a: float | None, b: float | None) -> bool:
        return self.task.score(a).better_than(self.task.score(b))

    def at_least(self, a: float | None, b: float | None) -> bool:
        return self.task.score(a).at_least(self.task.score(b))

    def phase(self, name: str, path: str = "") -> None:
        self.journal.emit("phase", key=f"phase/{path}/{name}", phase=name, path=path)


def _guard(ctx: Context, what: str, key: str, fn: Callable[[], T]) -> T | None:
    """Call a role; a failure (other than a stop) is journaled and yields ``None``."""
    try:
        return fn()
    except RunStopped:
        raise
    except Exception as e:  # noqa: BLE001 - the model's failure is data, not a crash
        ctx.runner.stop_if_requested()  # cut off by Ctrl-C: not the model's failure
        log.warning("%s failed: %s", what, e)
        ctx.journal.emit(
            "warning",
            key=f"warn/{key}",
            message=f"{what} failed: {type(e).__name__}: {str(e)[:400]}",
        )
        return None


# --------------------------------------------------------------------------- Algorithm 1
def retrieve_and_init(
    ctx: Context,
    policy: Policy,
    parallel: int = 1,
    on_found: Callable[[Solution], None] | None = None,
    path: str = "",
) -> list[Solution]:
    """Lines 1–5: retrieve M models, write and evaluate one candidate per model; best first.
    ``on_found`` hears of each scored candidate at once, so a budget that runs out while other
    models are still being written or debugged loses none of them.  ``path`` names a parallel
    run other than the first (``p1``, ...): its journal keys and node ids carry it, so each run
    has its own retrieval and initial candidates ("" keeps the first run's plain keys)."""
    pre, post = (f"{path}-", f"/{path}") if path else ("", "")
    where = {"path": path} if path else {}
    ctx.phase("retrieve", path)
    cards = (
        _guard(ctx, "retriever", f"{pre}retrieve", lambda: policy.retrieve(ctx.config.num_models))
        or []
    )
    assert isinstance(cards, list)
    ctx.journal.emit(
        "models",
        key=f"models{post}",
        cards=[
            {"name": c.name, "description": c.description, "source": c.source, "url": c.url}
            for c in cards
        ],
        **where,
    )
    fell_back = getattr(policy, "retrieval_fallback", None)
    if fell_back is not None:  # the retriever's answer was not used (in full): say so
        ctx.journal.emit(
            "retrieval_fallback",
            key=f"retrieval_fallback{post}",
            reason=fell_back.reason,
            catalog_models=list(fell_back.catalog_models),
            **where,
        )
    ctx.phase("init", path)

    def one(i: int, card: ModelCard) -> Solution | None:
        nid = f"{pre}init-m{i}"
        nb = _guard(ctx, f"init ({card.name})", nid, lambda: policy.init_solution(card))
        if not isinstance(nb, SolutionNotebook):
            return None
        node, ran = ctx.runner.evaluate(
            nb, policy, node_id=nid, path="init", phase="init", label=f"init: {card.name}"
        )
        if not node.has_score:
            return None
        sol = Solution(ran, node)
        if on_found is not None:
            on_found(sol)
        return sol

    with ThreadPoolExecutor(max(1, parallel)) as pool:
        found = list(pool.map(lambda ic: one(ic[0] + 1, ic[1]), enumerate(cards)))
    sols = [s for s in found if s is not None]
    return rank(ctx, sols)


def merge_initial(ctx: Context, policy: Policy, ranked: list[Solution], path: str) -> Solution:
    """Lines 6–17: merge the others into the best one; stop at the first merge that does not improve."""
    ctx.phase("merge", path)
    s0 = ranked[0]
    for i, ref in enumerate(ranked[1:], start=1):
        merged = _guard(
            ctx,
            "merger",
            f"{path}-merge{i}",
            functools.partial(policy.merge, s0.nb, ref.nb),
        )
        if not isinstance(merged, SolutionNotebook):
            break
        node, ran = ctx.runner.evaluate(
            merged,
            policy,
            node_id=f"{path}-merge{i}",
            path=path,
            phase="merge",
            label=f"merge {ref.node.label}",
            parent_id=s0.node.id,
        )
        kept = node.has_score and ctx.better(node.score, s0.score)
        _improvement(ctx, f"{path}-merge{i}", path, -1, i, node, None, s0.score, kept)
        if not kept:
            break
        s0 = Solution(ran, node)
    return s0


def check_data_usage(ctx: Context, policy: Policy, s0: Solution, path: str) -> Solution:
    """The data-usage checker on the initial solution: every provided file should be used."""
    report = _guard(
        ctx, "data-usage checker", f"{path}-data", lambda: policy.check_data_usage(s0.nb)
    )
    if report is None:
        return s0
    unused = list(getattr(report, "unused_files", ()))
    fixed_nb = getattr(report, "fixed", None)
    if fixed_nb is None:
        ctx.journal.emit(
            "data_usage", key=f"data/{path}", path=path, unused_files=unused, fixed=False
        )
        return s0
    node, ran = ctx.runner.evaluate(
        fixed_nb,
        policy,
        node_id=f"{path}-data",
        path=path,
        phase="data_usage",
        label="use every provided file",
        parent_id=s0.node.id,
    )
    ctx.journal.emit(
        "data_usage",
        key=f"data/{path}",
        path=path,
        unused_files=unused,
        fixed=node.has_score,
        score=node.score,
    )
    return Solution(ran, node) if node.has_score else s0


# --------------------------------------------------------------------------- Algorithm 2
def refine(
    ctx: Context, policy: Policy, s0: Solution, path: str, on_best: Callable[[Solution], None]
) -> Solution:
    """T outer steps of ablation → target block → K plans, keeping candidates that are not worse."""
    ctx.phase("refine", path)
    best = s0
    summaries: list[AblationSummary] = []
    refined: list[str] = []
    try:
        for t in range(ctx.config.outer_steps):
            if ctx.runner.phase_over("refine"):
                ctx.journal.emit(
                    "budget",
                    key=f"budget/{path}/refine/{t}",
                    what="refine",
                    message="refinement time used; moving on",
                )
                break
            s_t = best
            summary = run_ablation(ctx, policy, s_t, summaries, path, t)
            target = _choose_target(ctx, policy, s_t, summary, refined, path, t)
            if target is None:
                summaries.append(summary)
                continue
            ctx.journal.emit(
                "target",
                key=f"target/{path}/{t}",
                path=path,
                t=t,
                block_id=target.block_id,
                fragment=target.fragment,
                plan=target.plan.text,
            )
            step_best, plan_text = _inner_loop(ctx, policy, s_t, best, target, path, t, on_best)
            summaries.append(summary)
            refined.append(target.block_id)
            if step_best is not best:
                best = _propose(ctx, s_t, step_best, target, plan_text, path, t)
                on_best(best)
    except RunStopped:
        log.info("[%s] refinement stopped; keeping the best so far", path)
        on_best(best)
        raise
    return best


def run_ablation(
    ctx: Context, policy: Policy, s_t: Solution, previous: list[AblationSummary], path: str, t: int
) -> AblationSummary:
    """A_abl → exec → A_summarize.  Variants are scored one by one; a study notebook is run once."""
    study = _guard(ctx, "ablation", f"{path}-t{t}-abl", lambda: policy.ablation(s_t.nb, previous))
    output, scores = "", {}
    if study is not None:
        if study.notebook is not None:
            rec = _run_ablation_study(ctx, policy, study.notebook, f"{path}-t{t}-abl")
            output = (rec.get("stdout") or "") + (
                "\n" + str(rec.get("error")) if rec.get("error") else ""
            )
        for j, v in enumerate(study.variants, start=1):
            node, _ = ctx.runner.evaluate(
                v.notebook,
                policy,
                node_id=f"{path}-t{t}-abl{j}",
                path=path,
                phase="ablation",
                label=f"ablation: {v.name}",
                parent_id=s_t.node.id,
                block_id=v.block_id,
                debug=False,
                leakage=False,
            )
            scores[v.name] = node.score
    summary = (
        _guard(
            ctx,
            "ablation summary",
            f"{path}-t{t}-sum",
            lambda: policy.summarize_ablation(study, s_t.score, output, scores),
        )
        if study is not None
        else None
    )
    if not isinstance(summary, AblationSummary):
        summary = AblationSummary(text=output[-1500:] or "no ablation result", baseline=s_t.score)
    ctx.journal.emit(
        "ablation",
        key=f"ablation/{path}/{t}",
        path=path,
        t=t,
        baseline=summary.baseline,
        summary=summary.text,
        results=[
            {"name": r.name, "block_id": r.block_id, "score": r.score, "delta": r.delta}
            for r in summary.results
        ],
    )
    return summary


def _run_ablation_study(
    ctx: Context, policy: Policy, nb: SolutionNotebook, node_id: str
) -> dict[str, Any]:
    """Run the ablation script; one that fails goes to the debugger like any other code (paper
    §3.4), up to ``debug_rounds`` times.  Returns the last run's record."""
    rec = ctx.runner.execute(nb, node_id, "ablation")
    for r in range(1, ctx.config.debug_rounds + 1):
        if rec.get("ok") or rec.get("timed_out"):
            break
        error = error_text(rec)
        fixed = _guard(
            ctx,
            "debugger (ablation)",
            f"{node_id}-d{r}",
            functools.partial(policy.debug, nb, error, rec.get("failed_block")),
        )
        if not isinstance(fixed, SolutionNotebook) or fixed.digest == nb.digest:
            break
        nb, rec = fixed, ctx.runner.execute(fixed, f"{node_id}-d{r}", "ablation")
        ctx.journal.emit(
            "debug",
            key=f"debug/{node_id}/{r}",
            node_id=f"{node_id}-d{r}",
            round=r,
            error=error[-2000:],
            fixed=bool(rec.get("ok")),
        )
    return rec


def _choose_target(
    ctx: Context,
    policy: Policy,
    s_t: Solution,
    summary: AblationSummary,
    refined: list[str],
    path: str,
    t: int,
) -> RefineTarget | None:
    target = _guard(
        ctx, "extractor", f"{path}-t{t}-extract", lambda: policy.extract(s_t.nb, summary, refined)
    )
    if not isinstance(target, RefineTarget):
        return None
    if ctx.config.target_block and target.block_id != ctx.config.target_block:
        target = RefineTarget(ctx.config.target_block, target.plan, None)
    return target


def _inner_loop(
    ctx: Context,
    policy: Policy,
    s_t: Solution,
    best: Solution,
    target: RefineTarget,
    path: str,
    t: int,
    on_best: Callable[[Solution], None],
) -> tuple[Solution, str]:
    """K plans for one block; every candidate is compared with the best so far.
    Returns the step's best and the plan that produced it."""
    history: list[tuple[Plan, float | None]] = []
    kept_plan = ""
    for k in range(ctx.config.inner_steps):
        if k and ctx.runner.phase_over("refine"):
            break
        plan = (
            target.plan
            if k == 0
            else _guard(
                ctx,
                "planner",
                f"{path}-t{t}k{k}-plan",
                lambda: policy.plan(s_t.nb, target, history),
            )
        )
        if not isinstance(plan, Plan):
            break
        ctx.journal.emit(
            "plan",
            key=f"plan/{path}/{t}/{k}",
            path=path,
            t=t,
            k=k,
            block_id=target.block_id,
            plan=plan.text,
        )
        cand = _apply(ctx, policy, s_t.nb, target, plan, f"{path}-t{t}k{k}")
        if cand is not None and cand.digest == s_t.nb.digest:
            ctx.journal.emit(
                "warning",
                key=f"warn/{path}-t{t}k{k}-same",
                message=f"plan {k + 1} for {target.block_id} changed no code; not run",
            )
            cand = None
        if cand is None:
            history.append((plan, None))
            continue
        node, ran = ctx.runner.evaluate(
            cand,
            policy,
            node_id=f"{path}-t{t}k{k}",
            path=path,
            phase="refine",
            label=f"t{t} k{k}: {plan.text[:60]}",
            parent_id=s_t.node.id,
            block_id=target.block_id,
        )
        history.append((plan, node.score))
        rejected = (target.block_id, _block_digest(ran, target.block_id)) in ctx.rejected
        kept = node.has_score and not rejected and ctx.at_least(node.score, best.score)
        _improvement(ctx, f"{path}-t{t}k{k}", path, t, k, node, target.block_id, best.score, kept)
        if kept:
            note = f"**Refinement {t + 1}.{k + 1}** ({target.block_id}): {plan.text}\n\nValidation {ctx.task.metric_name}: {_fmt(best.score)} → {_fmt(node.score)}"
            best = Solution(_annotate(ran, target.block_id, note), node)
            kept_plan = plan.text
    return best, kept_plan


def _improvement(
    ctx: Context,
    key: str,
    path: str,
    t: int,
    k: int,
    node: Node,
    block_id: str | None,
    old_score: float | None,
    kept: bool,
) -> None:
    """Journal one attempt at improving a solution (a merge: ``t=-1``; a refinement: its t and k)."""
    ctx.journal.emit(
        "improvement",
        key=f"impr/{key}",
        path=path,
        t=t,
        k=k,
        node_id=node.id,
        block_id=block_id,
        old_score=old_score,
        new_score=node.score,
        kept=kept,
    )


def _apply(
    ctx: Context, policy: Policy, nb: SolutionNotebook, target: RefineTarget, plan: Plan, key: str
) -> SolutionNotebook | None:
    src = _guard(ctx, "coder", f"{key}-code", lambda: policy.code(nb, target, plan))
    if not isinstance(src, str) or not src.strip():
        return None
    try:
        if target.fragment:
            return nb.replace_in_block(target.block_id, target.fragment, src, origin="coder")
        return nb.replace_block(target.block_id, src, origin="coder")
    except (BlockMatchError, KeyError) as e:
        ctx.journal.emit("warning", key=f"warn/{key}-apply", message=str(e))
        return None


def _propose(
    ctx: Context, s_t: Solution, new: Solution, target: RefineTarget, plan: str, path: str, t: int
) -> Solution:
    """Journal the step's improvement as proposals, one per cell it changed, added or removed (the
    target first, then the cells the debugger or leakage checker also touched, in notebook order);
    in step mode wait for every decision."""
    pids = []
    for change in cell_changes(s_t.nb, new.nb, first=target.block_id):
        bid = change["block_id"]
        pid = f"{path}-t{t}" if bid == target.block_id else f"{path}-t{t}-{bid}"
        pids.append((pid, bid))
        ctx.journal.emit(
            "proposal",
            key=f"proposal/{pid}",
            proposal_id=pid,
            path=path,
            node_id=new.node.id,
            **change,
            plan=plan if bid == target.block_id else f"(needed by: {plan})",
            score_before=s_t.score,
            score_after=new.score,
        )
    if ctx.config.mode != "step" or not pids:
        return new
    decisions = [wait_for_decision(ctx, pid) for pid, _ in pids]
    if "reject" in decisions:
        for _, bid in pids:
            ctx.rejected.add((bid, _block_digest(new.nb, bid)))
        return s_t
    return new


def cell_changes(
    old: SolutionNotebook, new: SolutionNotebook, *, first: str | None = None
) -> list[dict[str, Any]]:
    """The code cells ``new`` changed (``kind="change"``), added (``"insert"``, with the block and
    cell it goes after, ``None`` for the top) or removed (``"delete"``) relative to ``old``;
    block ``first`` leads, the rest keep notebook order."""

    def entry(kind: str, nb: SolutionNotebook, bid: str, before: str, after: str) -> dict[str, Any]:
        cell_id = nb.cell(bid).get("id")
        return {
            "kind": kind,
            "block_id": bid,
            "cell_id": cell_id,
            "old_source": before,
            "new_source": after,
        }

    was = {b.id: b.source for b in old.code_blocks}
    out: list[dict[str, Any]] = []
    prev: str | None = None
    for b in new.code_blocks:
        if b.id not in was:
            out.append(
                entry("insert", new, b.id, "", b.source)
                | {
                    "after_block_id": prev,
                    "after_cell_id": new.cell(prev).get("id") if prev else None,
                }
            )
        elif b.source != was[b.id]:
            out.append(entry("change", old, b.id, was[b.id], b.source))
        prev = b.id
    gone = set(was) - set(new.block_ids)
    out += [entry("delete", old, bid, src, "") for bid, src in was.items() if bid in gone]
    out.sort(key=lambda c: c["block_id"] != first)
    return out


def wait_for_decision(ctx: Context, pid: str) -> str:
    """Block until the UI writes ``decisions/<pid>.json`` (or a stop is requested)."""
    while True:
        d = ctx.journal.decision(pid)
        if d:
            ctx.journal.emit(
                "decision",
                key=f"decision/{pid}",
                proposal_id=pid,
                decision=d["decision"],
                by=d.get("by", "user"),
            )
            return str(d["decision"])
        if ctx.journal.control().get("stop"):
            raise RunStopped("stop requested while waiting for a decision")
        if ctx.runner.stop.wait(0.3):
            ctx.runner.stop_if_requested()


# --------------------------------------------------------------------------- Algorithm 3
def ensemble(ctx: Context, policy: Policy, finals: list[Solution]) -> Solution:
    """R rounds of ensemble plans over the L final solutions; the best ensemble or single solution wins."""
    singles = rank(ctx, finals)
    if len(singles) < 2 or ctx.config.ensemble_rounds <= 0:
        return singles[0]
    ctx.phase("ensemble")
    nbs = [s.nb for s in singles]
    history: list[tuple[Plan, float | None]] = []
    tried: list[Solution] = []
    for r in range(ctx.config.ensemble_rounds):
        if r and ctx.runner.phase_over("ensemble"):
            break
        plan = _guard(
            ctx, "ensemble planner", f"ens-r{r}-plan", lambda: policy.ensemble_plan(nbs, history)
        )
        if not isinstance(plan, Plan):
            break
        nb = _guard(ctx, "ensembler", f"ens-r{r}", functools.partial(policy.ensemble, nbs, plan))
        score = None
        if isinstance(nb, SolutionNotebook):
            node, ran = ctx.runner.evaluate(
                nb,
                policy,
                node_id=f"ens-r{r}",
                path="ens",
                phase="ensemble",
                label=f"ensemble: {plan.text[:60]}",
            )
            score = node.score
            if node.has_score:
                tried.append(Solution(ran, node))
        history.append((plan, score))
        ctx.journal.emit(
            "ensemble_plan",
            key=f"ensplan/{r}",
            r=r,
            plan=plan.text,
            node_id=f"ens-r{r}",
            score=score,
        )
    best = rank(ctx, tried + singles)[0]
    best_ens = rank(ctx, tried)[0] if tried else None
    kind = "ensemble" if best_ens is best else "single"
    if best_ens is None:
        reason = "no ensemble ran to a score: the best single solution is kept"
    elif kind == "single":
        reason = (
            f"the single solution {best.node.id} ({_fmt(best.score)}) scores better than the best "
            f"ensemble {best_ens.node.id} ({_fmt(best_ens.score)}): the single solution is kept"
        )
    else:
        reason = f"the best ensemble beats the best single solution ({_fmt(singles[0].score)})"
    ctx.journal.emit(
        "ensemble_pick",
        key="ensemble_pick",
        chosen=best.node.id,
        label=best.node.label,
        score=best.score,
        kind=kind,
        best_ensemble=best_ens.node.id if best_ens else None,
        best_ensemble_score=best_ens.score if best_ens else None,
        best_single=singles[0].node.id,
        best_single_score=singles[0].score,
        reason=reason,
    )
    return best


# --------------------------------------------------------------------------- helpers
def rank(ctx: Context, sols: list[Solution]) -> list[Solution]:
    """Best first by the task's metric; stable for ties."""
    out: list[Solution] = []
    for s in sols:
        i = next((j for j, o in enumerate(out) if ctx.better(s.score, o.score)), len(out))
        out.insert(i, s)
    return out


def _annotate(nb: SolutionNotebook, block_id: str, note: str) -> SolutionNotebook:
    return nb.insert_markdown_before(block_id, note)


def _block_digest(nb: SolutionNotebook, block_id: str) -> str:
    import hashlib

    try:
        return hashlib.sha256(nb.block(block_id).source.encode()).hexdigest()[:16]
    except KeyError:
        return ""


def _fmt(v: float | None) -> str:
    return "failed" if v is None else f"{v:.5g}"
