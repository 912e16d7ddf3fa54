"""MLE-STAR's Algorithm 2 (the paper's Appendix B): T outer steps of ablation → target block →
K plans for that block, each candidate kept when it is not worse than the best so far.  In step
mode each kept step is proposed cell by cell and waits for the user's decision.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..journal import RunJournal
from ..notebook import BlockMatchError, SolutionNotebook
from .candidates import Candidate
from .data_paths import restore_paths
from .errors import NothingLeftToRefine, RunStopped
from .executions import error_text
from .policy import AblationSummary, Plan, Policy, RefineTarget
from .search import Context, Solution, block_digest, fmt, guard, try_candidate

log = logging.getLogger("mlestar.agent")


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
            if ctx.runner.refine_over(best.node.id):
                ctx.journal.emit(
                    "budget",
                    key=f"budget/{path}/refine/{t}",
                    what="refine",
                    message="refinement time used; moving on",
                )
                break
            s_t = best
            summary = run_ablation(ctx, policy, s_t, summaries, path, t)
            try:
                target = _choose_target(ctx, policy, s_t, summary, refined, path, t)
            except NothingLeftToRefine as e:
                _nothing_left(ctx, path, t, str(e), policy_said=True)
                break
            summaries.append(summary)
            if target is None:
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
            # in autopilot a kept plan is the run's best at once (a stop inside the loop keeps
            # it); in step mode only what the user accepts is
            kept = on_best if ctx.config.mode == "autopilot" else None
            step = _inner_loop(ctx, policy, s_t, best, target, (path, t), kept)
            refined.append(target.block_id)
            if step.best is not best:
                best = _propose(ctx, s_t, step.best, target, step.plan, path, t)
                on_best(best)
            if step.out_of_time and t + 1 < ctx.config.outer_steps:
                # the next step's plans cost what these did, and its ablation, extraction and
                # plans would be paid for (LLM calls) only to be skipped in turn
                _nothing_left(
                    ctx,
                    path,
                    t + 1,
                    "no candidate of its last step could start",
                )
                break
    except RunStopped:
        log.info("[%s] refinement stopped; keeping the best so far", path)
        on_best(best)
        raise
    return best


def _nothing_left(ctx: Context, path: str, t: int, why: str, *, policy_said: bool = False) -> None:
    """Journal that ``path``'s refinement ends at outer step ``t``: nothing is left to refine
    (``policy_said``: ``why`` is the policy's own word on its notebook, kept as the event's
    ``why`` for the run's end message)."""
    said = why if policy_said else ""
    left = ctx.runner.clock.remaining()
    unused = f"; {left:.0f} s of the budget left" if 0 < left < float("inf") else ""
    skipped = ctx.runner.skipped_on(path)
    if skipped:  # strategies were left, but not the time to run them
        why = (
            f"{why}; {skipped} of its candidates were not started, as they would not have "
            "finished in the time left"
        )
    ctx.journal.emit(
        "budget",
        key=f"budget/{path}/refine-done",
        what="refine",
        message=f"{path}: refinement ends after {t} outer step{'s' if t != 1 else ''}: {why}{unused}",
        why=said,
    )


def run_ablation(
    ctx: Context, policy: Policy, s_t: Solution, previous: list[AblationSummary], path: str, t: int
) -> AblationSummary:
    """A_abl → exec → A_summarize.  Variants are scored one by one; a study notebook is run once."""
    study = guard(ctx, "ablation", f"{path}-t{t}-abl", lambda: policy.ablation(s_t.nb, previous))
    output, scores = "", {}
    if study is not None:
        if study.notebook is not None:
            rec = _run_ablation_study(ctx, policy, study.notebook, f"{path}-t{t}-abl")
            output = (rec.get("stdout") or "") + (
                "\n" + str(rec.get("error")) if rec.get("error") else ""
            )
        for j, v in enumerate(study.variants, start=1):
            variant = Candidate(
                v.notebook,
                f"{path}-t{t}-abl{j}",
                "ablation",
                f"ablation: {v.name}",
                path=path,
                parent_id=s_t.node.id,
                block_id=v.block_id,
                debug=False,
                leakage=False,
            )
            scores[v.name] = ctx.runner.evaluate(variant, policy).score
    summary = (
        guard(
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
        fixed = guard(
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
    target = guard(
        ctx, "extractor", f"{path}-t{t}-extract", lambda: policy.extract(s_t.nb, summary, refined)
    )
    if not isinstance(target, RefineTarget):
        return None
    if ctx.config.target_block and target.block_id != ctx.config.target_block:
        target = RefineTarget(ctx.config.target_block, target.plan, None)
    return target


@dataclass(frozen=True)
class StepResult:
    """What one outer step's inner loop gave: its best, the plan that produced it, and whether
    it tried candidates and every one was left unstarted for lack of time (``skipped``)."""

    best: Solution
    plan: str
    out_of_time: bool


def _inner_loop(
    ctx: Context,
    policy: Policy,
    s_t: Solution,
    best: Solution,
    target: RefineTarget,
    step: tuple[str, int],
    on_kept: Callable[[Solution], None] | None,
) -> StepResult:
    """K plans for one block; every candidate is compared with the best so far (``on_kept``
    hears of each one kept)."""
    path, t = step
    history: list[tuple[Plan, float | None]] = []
    kept_plan = ""
    tried_any, started_any = False, False
    for k in range(ctx.config.inner_steps):
        if k and ctx.runner.refine_over(best.node.id):
            break
        plan = (
            target.plan
            if k == 0
            else guard(
                ctx,
                "planner",
                f"{path}-t{t}k{k}-plan",
                lambda: policy.plan(s_t.nb, target, history),
            )
        )
        if not isinstance(plan, Plan) or plan.exhausted:
            break
        cand = _refinement(ctx, policy, s_t, target, plan, (path, t, k))
        if cand is None:
            history.append((plan, None))
            continue
        tried = try_candidate(ctx, policy, cand, best, at=(t, k), ties_win=True)
        tried_any = True
        started_any = started_any or tried.outcome.status != "skipped"
        history.append((plan, tried.outcome.score))
        if tried.kept:
            note = f"**Refinement {t + 1}.{k + 1}** ({target.block_id}): {plan.text}\n\nValidation {ctx.task.metric_name}: {fmt(best.score)} → {fmt(tried.outcome.score)}"
            ran = tried.outcome.notebook.insert_markdown_before(target.block_id, note)
            best, kept_plan = Solution(ran, tried.outcome.node), plan.text
            if on_kept is not None:
                on_kept(best)
    return StepResult(best, kept_plan, tried_any and not started_any)


def _refinement(
    ctx: Context,
    policy: Policy,
    s_t: Solution,
    target: RefineTarget,
    plan: Plan,
    step: tuple[str, int, int],
) -> Candidate | None:
    """Journal plan k of step t and let the coder implement it in the target block: the
    candidate to run, or ``None`` when the coder gave nothing usable or changed no code."""
    path, t, k = step
    ctx.journal.emit(
        "plan",
        key=f"plan/{path}/{t}/{k}",
        path=path,
        t=t,
        k=k,
        block_id=target.block_id,
        plan=plan.text,
    )
    key = f"{path}-t{t}k{k}"
    nb = _apply(ctx, policy, s_t.nb, target, plan, key)
    if nb is not None and nb.digest == s_t.nb.digest:
        ctx.journal.emit(
            "warning",
            key=f"warn/{key}-same",
            message=f"plan {k + 1} for {target.block_id} changed no code; not run",
        )
        return None
    if nb is None:
        return None
    return Candidate(
        nb,
        key,
        "refine",
        f"t{t} k{k}: {plan.text[:60]}",
        path=path,
        parent_id=s_t.node.id,
        block_id=target.block_id,
        plan=plan,
    )


def _apply(
    ctx: Context, policy: Policy, nb: SolutionNotebook, target: RefineTarget, plan: Plan, key: str
) -> SolutionNotebook | None:
    src = guard(ctx, "coder", f"{key}-code", lambda: policy.code(nb, target, plan))
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
        if ctx.user_paths:  # the user's cells keep their own data paths
            for side in ("old_source", "new_source"):
                change[side] = restore_paths(change[side], bid, ctx.user_paths)
        pid = f"{path}-t{t}" if bid == target.block_id else f"{path}-t{t}-{bid}"
        # the same change proposed by another path (both refine the user's notebook): the
        # user decides it once, and both paths follow that decision
        same = (bid, change["old_source"], change["new_source"])
        earlier = ctx.proposed.setdefault(same, pid)
        pids.append((earlier, bid))
        if earlier != pid:
            log.info("[%s] %s is %s again: its decision is followed", path, pid, earlier)
            continue
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
            ctx.rejected.add((bid, block_digest(new.nb, bid)))
        return s_t
    return new


def proposals_made(journal: RunJournal) -> dict[tuple[str, str, str], str]:
    """The changes already proposed in this run's journal, each with the proposal that offered it:
    a resumed run lets a path that offers one again follow that proposal, whichever path gets
    there first this time."""
    made: dict[tuple[str, str, str], str] = {}
    for ev in journal.of_type("proposal"):
        d = ev.data
        made.setdefault((d["block_id"], d["old_source"], d["new_source"]), d["proposal_id"])
    return made


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
    """Block until the UI writes ``decisions/<pid>.json`` (or a stop is requested); the wait
    is the user's time, not the run's budget."""
    with ctx.runner.clock.waiting():
        return _decision(ctx, pid)


def _decision(ctx: Context, pid: str) -> str:
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
