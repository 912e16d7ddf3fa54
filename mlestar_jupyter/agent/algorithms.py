"""MLE-STAR's three algorithms (the paper's Appendix B) over notebook cells.

Each reads like the paper: ask a role, run the candidate, compare scores, record.  The roles come
from a ``Policy``; running, debugging and journaling from ``CandidateRunner``; comparing from
``search.try_candidate``.  Algorithms 1 and 3 are here, Algorithm 2 in ``refinement``.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from ..notebook import SolutionNotebook
from ..task.layout import TABLE_EXT
from .candidates import Candidate
from .errors import NotEnsembled
from .policy import ModelCard, Plan, Policy
from .refinement import cell_changes, refine, run_ablation, wait_for_decision
from .search import Context, Solution, fmt, guard, rank, try_candidate

# the search loop's names, importable from here as before the split into modules
__all__ = [
    "Context",
    "Solution",
    "cell_changes",
    "check_data_usage",
    "ensemble",
    "merge_initial",
    "rank",
    "refine",
    "retrieve_and_init",
    "run_ablation",
    "try_candidate",
    "wait_for_decision",
]

log = logging.getLogger("mlestar.agent")
_guard = guard  # the name submission and older callers use


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
    pre = f"{path}-" if path else ""
    cards = _retrieve(ctx, policy, path)
    ctx.phase("init", path)

    def one(i: int, card: ModelCard) -> Solution | None:
        nid = f"{pre}init-m{i}"
        nb = guard(ctx, f"init ({card.name})", nid, lambda: policy.init_solution(card))
        if not isinstance(nb, SolutionNotebook):
            return None
        cand = Candidate(nb, nid, "init", f"init: {card.name}", path="init", model=card.name)
        out = ctx.runner.evaluate(cand, policy)
        if not out.has_score:
            return None
        sol = Solution(out.notebook, out.node)
        if on_found is not None:
            on_found(sol)
        return sol

    with ThreadPoolExecutor(max(1, parallel)) as pool:
        found = list(pool.map(lambda ic: one(ic[0] + 1, ic[1]), enumerate(cards)))
    sols = [s for s in found if s is not None]
    return rank(ctx, sols)


def _retrieve(ctx: Context, policy: Policy, path: str) -> list[ModelCard]:
    """Line 1: A_retriever's M models, journaled (with the fall-back, when the retriever's
    answer was not used in full)."""
    pre, post = (f"{path}-", f"/{path}") if path else ("", "")
    where = {"path": path} if path else {}
    ctx.phase("retrieve", path)
    cards = (
        guard(ctx, "retriever", f"{pre}retrieve", lambda: policy.retrieve(ctx.config.num_models))
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
    return cards


def merge_initial(ctx: Context, policy: Policy, ranked: list[Solution], path: str) -> Solution:
    """Lines 6–17: merge the others into the best one; stop at the first merge that does not improve."""
    ctx.phase("merge", path)
    s0 = ranked[0]
    for i, ref in enumerate(ranked[1:], start=1):
        nid = f"{path}-merge{i}"
        merged = guard(ctx, "merger", nid, functools.partial(policy.merge, s0.nb, ref.nb))
        if not isinstance(merged, SolutionNotebook):
            break
        label = f"merge {ref.node.label}"
        inputs = (s0.node.id, ref.node.id)  # it runs both models: it costs what they cost
        cand = Candidate(merged, nid, "merge", label, path, s0.node.id, inputs=inputs)
        tried = try_candidate(ctx, policy, cand, s0, at=(-1, i))
        if not tried.kept:
            break
        s0 = tried.solution
    return s0


def check_data_usage(ctx: Context, policy: Policy, s0: Solution, path: str) -> Solution:
    """The data-usage checker on the initial solution: every provided file should be used."""
    report = guard(
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
        _say_unused(ctx, unused)
        return s0
    cand = Candidate(
        fixed_nb,
        f"{path}-data",
        "data_usage",
        "use every provided file",
        path=path,
        parent_id=s0.node.id,
    )
    out = ctx.runner.evaluate(cand, policy)
    ctx.journal.emit(
        "data_usage",
        key=f"data/{path}",
        path=path,
        unused_files=unused,
        fixed=out.has_score,
        score=out.score,
    )
    if not out.has_score:
        _say_unused(ctx, unused)
    return Solution(out.notebook, out.node) if out.has_score else s0


def _say_unused(ctx: Context, unused: list[str]) -> None:
    """Tell the user (once a run) which of the task's files no solution reads: the journal's
    ``data_usage`` event alone said it (hunt F, session 28: a ``transactions.csv`` of many rows
    per customer, where the signal was, was left out without a word, AUC 0.48)."""
    unused = [f for f in unused if f.lower().endswith(TABLE_EXT)]  # (a README is no data)
    if not unused:
        return
    shown = ", ".join(unused[:4]) + (f" and {len(unused) - 4} more" if len(unused) > 4 else "")
    ctx.journal.emit(
        "warning",
        key="data/unused",
        what="task",
        message=(
            f"no solution reads {shown} (the offline backend joins a table only when it has one "
            "row per key the training table has); if it holds what predicts the target (several "
            "rows per key: transactions, visits), add its per-key aggregates (counts, means, "
            "latest values) as columns of the training and test tables, or run from a notebook "
            "of yours that does"
        ),
    )


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
        try:
            plan = guard(
                ctx,
                "ensemble planner",
                f"ens-r{r}-plan",
                lambda: policy.ensemble_plan(nbs, history),
            )
        except NotEnsembled as e:  # not a failure: the best single solution goes on
            ctx.journal.emit("warning", key="warn/not-ensembled", message=f"no ensemble: {e}")
            break
        if not isinstance(plan, Plan):
            break
        nb = guard(ctx, "ensembler", f"ens-r{r}", functools.partial(policy.ensemble, nbs, plan))
        score = None
        if isinstance(nb, SolutionNotebook):
            label = f"ensemble: {plan.text[:60]}"
            inputs = tuple(s.node.id for s in singles)
            cand = Candidate(nb, f"ens-r{r}", "ensemble", label, "ens", plan=plan, inputs=inputs)
            attempt = try_candidate(ctx, policy, cand, None)
            score = attempt.outcome.score
            if attempt.kept:
                tried.append(attempt.solution)
        history.append((plan, score))
        ctx.journal.emit(
            "ensemble_plan",
            key=f"ensplan/{r}",
            r=r,
            plan=plan.text,
            node_id=f"ens-r{r}",
            score=score,
        )
    return _pick(ctx, singles, tried)


def _pick(ctx: Context, singles: list[Solution], tried: list[Solution]) -> Solution:
    """Line 9: the best ensemble, unless a single solution scores as well or better (it is the
    simpler and cheaper submission: on a tie it is kept); journaled with why."""
    best = rank(ctx, singles + tried)[0]  # stable: a tie keeps the single solution first
    best_ens = rank(ctx, tried)[0] if tried else None
    kind = "ensemble" if best_ens is best else "single"
    if best_ens is None:
        reason = "no ensemble ran to a score: the best single solution is kept"
    elif kind == "single":
        than = "as well as" if not ctx.better(best.score, best_ens.score) else "better than"
        reason = (
            f"the single solution {best.node.id} ({fmt(best.score)}) scores {than} the best "
            f"ensemble {best_ens.node.id} ({fmt(best_ens.score)}): the single solution is kept"
        )
    else:
        reason = f"the best ensemble beats the best single solution ({fmt(singles[0].score)})"
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
