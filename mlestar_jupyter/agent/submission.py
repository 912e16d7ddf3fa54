"""The final phase: A_test on the best solution, checked against the sample submission, with a
fall-back ladder that always ends in a valid submission when anything can produce one.

Rungs, in order (the one that produced the result is journaled in the ``final`` event):
``best`` (the chosen solution), ``debugged`` (the debugger fixed its submission),
``previous`` (the next-best solution that ran), ``catalog`` (the offline catalog's template),
``baseline`` (prior predictions from the training targets in the sample submission's exact shape,
so even a run where nothing else worked ends with a valid file).  Before the ladder, ``blend``:
the best solution of another path is refitted beside the best one, and their weighted mean is
submitted when it scores better on the validation rows (``blend.py``).

A rung's file counts only when it passes ``submission_problems``: the sample submission's
columns and ids, no missing values, and values the metric can use (``evaluator.values``: training
classes in a label column, probabilities in [0, 1], finite numbers); otherwise the ladder goes on.
"""

from __future__ import annotations

import functools
import json
import logging
import re
import shutil
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import nbformat

from ..journal import Node
from ..metrics import get_metric
from ..notebook import SolutionNotebook
from ..task import Task
from ..task.class_submission import class_header
from ..task.errors import TaskError
from ..task.layout import inspect_task
from ..task.layout.tables import (
    class_columns_renamed,
    format_name,
    index_column_dropped,
    read_args,
    read_head,
    read_submission,
    submission_args,
    table_for,
    write_submission,
)
from ..task.text_format import call_args
from . import blend, subsampling
from .candidates import Candidate, Outcome
from .errors import RunStopped
from .own_submission import adopt_own_submission
from .policy import Policy
from .scoring import VAL_PREDICTIONS_FILE
from .search import Context, Solution, guard
from .submission_warnings import final_file_warnings

if TYPE_CHECKING:
    from ..evaluator.values import ValueSpec

log = logging.getLogger("mlestar.agent")


# rungs that hand in a file no searched solution made: the catalog's template, the prior-only
FALLBACK_RUNGS = ("catalog", "baseline")


@dataclass(frozen=True)
class FinalResult:
    ok: bool
    rung: str
    score: float | None
    submission: Path | None
    notebook: Path | None
    reason: str = ""


def value_spec(task: Task) -> ValueSpec | None:
    """What the submission's values must be, for the sample submission's columns (else the id
    and target columns); ``None`` when the sample cannot be read."""
    import pandas as pd

    from ..evaluator.values import ValueSpec

    path = task.sample_submission_path
    if path is None:
        columns = [*([task.id_col] if task.id_col else []), *_expected_columns(task)]
        if not task.target_cols:
            return None
        return ValueSpec.for_task(task, columns, from_sample=False)
    try:
        header = pd.read_csv(path, nrows=0, **read_args(path)).columns
        return ValueSpec.for_task(task, class_header(task, header))
    except (OSError, ValueError):
        return None


def _expected_columns(task: Task) -> tuple[str, ...]:
    """The prediction columns of a task without a sample submission: the header its task file
    names, else its targets, or one probability column per class (``submission_columns``)."""
    from ..task.layout.tables import submission_columns

    return submission_columns(task)


def submission_problems(
    task: Task, path: Path | None, values: ValueSpec | None = None
) -> list[str]:
    """What is wrong with a submission file, judged against the sample submission (empty: valid).

    ``values`` (from ``value_spec(task)``, built here when not given) says what each prediction
    column must hold; a file with the right shape but wrong values (probabilities in a label
    column, unknown class names, negative RMSLE predictions) is invalid too.
    """
    import pandas as pd

    if path is None or not Path(path).is_file():
        return ["no ./final/submission.csv was written"]
    try:
        sub = read_submission(task, Path(path))  # as the sample is written, else as it is
    except Exception as e:  # noqa: BLE001
        return [f"submission.csv is not a readable CSV ({e})"]
    sample_path = task.sample_submission_path
    problems = []
    if sample_path is None:
        expected = values.pred_cols if values is not None else _expected_columns(task)
        missing = [c for c in expected if c not in sub.columns]
        if missing:
            problems.append(f"missing column(s) {missing}")
        elif not len(sub):
            problems.append("submission.csv has no rows")
        return problems or _value_problems(task, path, values)
    sample = pd.read_csv(sample_path, **read_args(sample_path))  # its own separator
    # its one column replaced by one per class where it cannot hold them (``class_submission``)
    header = class_header(task, sample.columns)
    if list(sub.columns) != header:
        problems.append(f"columns are {list(sub.columns)}, expected {header}")
    if len(sub) != len(sample):
        problems.append(f"{len(sub)} rows, expected {len(sample)} (one per test row)")
    if task.id_col and task.id_col in sub.columns and task.id_col in sample.columns:
        want, got = set(sample[task.id_col].astype(str)), set(sub[task.id_col].astype(str))
        if want - got:
            problems.append(f"missing {len(want - got)} id(s), e.g. {sorted(want - got)[:3]}")
        if got - want:
            problems.append(f"{len(got - want)} unknown id(s), e.g. {sorted(got - want)[:3]}")
    cols = [c for c in header if c in sub.columns]
    if cols and sub[cols].isna().any().any():
        problems.append("submission has missing values (NaN)")
    return problems or _value_problems(task, path, values)


def _value_problems(task: Task, path: Path, values: ValueSpec | None) -> list[str]:
    """The value check of a file whose shape is right (``values``: built here when ``None``)."""

    from ..evaluator.values import check_values

    spec = values if values is not None else value_spec(task)
    if spec is None:
        return []
    text = read_submission(task, path, as_text=True)
    ids = text[task.id_col] if task.id_col in text.columns else None
    problem = check_values(text, spec, ids)
    return [problem] if problem else []


def finalize(
    ctx: Context,
    policy: Policy,
    ranked: list[Solution],
    fallback: Policy | None,
    partner_policy: Policy | None = None,
) -> FinalResult:
    """Turn the best solution into a valid submission, walking down the ladder if needed;
    with ``partner_policy`` (another path's), first try the blend with another path's best."""
    ctx.phase("submission")
    if not _has_rows_to_predict(ctx.task):
        return _notebook_only(ctx, ranked[0] if ranked else None)
    values = value_spec(ctx.task)
    top = ranked[0] if ranked else None
    partner = blend_partner(ctx, ranked) if partner_policy is not None else None
    first = 0  # the number of the first rung's node (final-<i>)
    if partner is not None and partner_policy is not None:
        try:
            blended = _try_blend(ctx, (policy, partner_policy), ranked[0], partner, values)
        except RunStopped as e:
            ctx.runner.stop_if_requested()
            ctx.journal.emit("warning", message=f"submission blend stopped: {e.reason}")
            blended = None
        if blended is not None:
            return _publish(ctx, blended)
        ranked, first = ranked[1:], 1  # the best one's refit ran (and failed) beside the partner's
    tries = ranked[:3]
    fastest = min(ranked, key=lambda s: s.node.duration) if ranked else None
    if (
        fastest is not None and fastest not in tries
    ):  # when time is short, the quickest one may still fit
        tries.append(fastest)
    rungs: list[Callable[[], FinalResult]] = [
        functools.partial(
            _try_solution, ctx, policy, sol, f"final-{i}", "best" if i == 0 else "previous", values
        )
        for i, sol in enumerate(tries, start=first)
    ]
    if not ranked and ctx.as_written is not None:  # the user's own model, not a constant
        rungs.append(functools.partial(_try_as_written, ctx, policy, ctx.as_written, values))
    catalog = _catalog_policy(ctx, policy, ranked, fallback)
    if catalog is not None:
        rungs.append(functools.partial(_try_catalog, ctx, catalog, values))
    rungs.append(functools.partial(_try_baseline, ctx, policy, values))
    last = ""
    for rung in rungs:
        try:
            res = rung()
        except RunStopped as e:  # an LLM budget spent mid-ladder: go on down
            ctx.runner.stop_if_requested()  # ...but Ctrl-C ends the run here
            ctx.journal.emit("warning", message=f"submission rung stopped: {e.reason}")
            continue
        if res.ok:
            if res.rung in FALLBACK_RUNGS and last:  # say why the searched notebooks are not it
                res = replace(res, reason=f"no searched solution wrote a valid file ({last[:300]})")
            return _publish(ctx, res)
        last = last or res.reason  # the best solution's own problem says most
    if top is not None:  # the searched notebooks are a result even without a submission
        return _notebook_only(ctx, top, f"no solution produced a valid submission ({last[:300]})")
    return _no_result(ctx, "no solution produced a valid submission")


def _no_result(ctx: Context, reason: str) -> FinalResult:
    """The run ends without a result: a ``final`` event saying why."""
    ctx.journal.emit(
        "final",
        key="final",
        score=None,
        notebook=None,
        submission=None,
        rung="none",
        valid=False,
        reason=reason,
    )
    return FinalResult(False, "none", None, None, None, reason)


def _try_solution(
    ctx: Context,
    policy: Policy,
    sol: Solution,
    node_id: str,
    rung: str,
    values: ValueSpec | None = None,
) -> FinalResult:
    """A_test on ``sol``: its submission notebook (subsampling out) run on all the data; a file
    in the wrong shape gets one debugger round quoting the problems."""
    in_time = ctx.runner.clock.remaining() > 0
    base = subsampling.prepare_final(ctx.journal, sol.nb, node_id)  # A_test: subsampling out
    sub_nb = guard(ctx, "submission role", node_id, lambda: policy.make_submission(base))
    if not isinstance(sub_nb, SolutionNotebook):
        return FinalResult(False, rung, None, None, None, "the submission role produced nothing")
    sub_nb = subsampling.prepare_final(ctx.journal, sub_nb, f"{node_id}-code")  # verified gone
    cand = Candidate(
        sub_nb,
        node_id,
        "submission",
        f"submission from {sol.node.label}",
        path="final",
        parent_id=sol.node.id,
        submission=True,
        need_score=False,
        # all rows and a refit: give it a few times what the search run took, even past the budget
        min_timeout=3 * sol.node.duration + 30,
        debug=in_time,  # past the budget, walk down the ladder instead of debugging
    )
    out = ctx.runner.evaluate(cand, policy)
    node = _with_own_submission(ctx, out.node, values)
    problems = _node_problems(ctx, node, values)
    rows = subsampling.check_training_rows(
        ctx.journal, node.id, node.stdout_tail, subsampling.expected_training_rows(policy)
    )
    problems += [rows] if node.ok and rows else []
    if node.ok and not problems:
        return FinalResult(
            True, rung, sol.score, Path(node.submission or ""), _nb_path(ctx, node.notebook)
        )
    if node.ok and in_time:  # it ran, but the file is wrong: one debugger round
        fixed = _fix_format(ctx, policy, out, f"{node_id}-fmt", problems, values)
        if fixed is not None:
            return FinalResult(
                True,
                "debugged",
                sol.score,
                Path(fixed.submission or ""),
                _nb_path(ctx, fixed.notebook),
            )
    ctx.journal.emit(
        "warning",
        key=f"warn/{node_id}-invalid",
        message=f"submission from {sol.node.id} is invalid: {'; '.join(problems)}",
    )
    return FinalResult(False, rung, None, None, None, "; ".join(problems))


def _try_as_written(
    ctx: Context, policy: Policy, nb: SolutionNotebook, values: ValueSpec | None = None
) -> FinalResult:
    """The user's notebook run as written (its data paths pointed at ./input), for the file it
    writes itself: a notebook the run could not score (a model fitted inside a function) still
    predicts with the user's own model, where the ladder's next rung is a constant."""
    cand = Candidate(
        nb,
        "final-yours",
        "submission",
        "your notebook as written",
        path="final",
        submission=True,
        need_score=False,
        min_timeout=max(60.0, ctx.runner.clock.remaining()),
        debug=False,  # the user's code: a failure is theirs to see, not to rewrite here
    )
    out = ctx.runner.evaluate(cand, policy)
    node = _with_own_submission(ctx, out.node, values)
    problems = _node_problems(ctx, node, values) if node.ok else [out.error or "it failed"]
    if node.ok and not problems:
        return FinalResult(
            True, "yours", None, Path(node.submission or ""), _nb_path(ctx, node.notebook)
        )
    ctx.journal.emit(
        "warning",
        key="warn/final-yours-invalid",
        message=f"your notebook as written wrote no valid submission: {'; '.join(problems)[:300]}",
        what="submission",  # told whatever the display: why the file is not the user's
    )
    return FinalResult(False, "yours", None, None, None, "; ".join(problems))


PARTNER_SLOWER = 1.5  # a partner whose search run took longer than this times the best's waits


def origin_path(node: Node) -> str:
    """The search path a solution came from: its ``path``, or for an initial solution (path
    ``init``) the prefix of its id (``p1-init-m2``; path 0's have none: ``init-m2``)."""
    if re.fullmatch(r"p\d+", node.path):
        return node.path
    m = re.match(r"(p\d+)-", node.id)
    return m.group(1) if m else "p0"


def blend_partner(ctx: Context, ranked: list[Solution]) -> Solution | None:
    """The best solution of another path than the best one's, to refit beside it and blend:
    neither an ensemble, different code, not much slower, two kernels at once, time left, the
    run on autopilot, a metric on numbers (a regression target or class probabilities:
    class labels are never averaged, so a partner's refit would be wasted), and validation
    predictions written by both search runs (to weigh the blend on)."""
    if not ranked or ctx.runner.clock.remaining() <= 0 or ctx.config.mode != "autopilot":
        return None  # (in step mode the submission is what the user accepted)
    if ctx.task.task_type != "regression" and not get_metric(ctx.task.metric_name).needs_proba:
        return None
    if getattr(ctx.runner.executor, "max_parallel", 1) < 2:
        return None  # the two refits would run one after the other
    best = ranked[0]
    if best.node.phase == "ensemble" or not _wrote_val_predictions(ctx, best.node):
        return None  # (a user's own code writes none: nothing to weigh a blend on)
    for sol in ranked[1:]:
        node = sol.node
        if not _wrote_val_predictions(ctx, node):
            continue
        if origin_path(node) != origin_path(best.node) and node.phase != "ensemble":
            slower = node.duration > PARTNER_SLOWER * best.node.duration + 5
            return None if slower or node.digest == best.node.digest else sol
    return None


def _search_workdir(ctx: Context, node: Node) -> Path:
    """The working folder of ``node``'s search run: its submission's (a cached run points at
    the run it reuses), else ``work/<node id>``."""
    if node.submission:
        return Path(node.submission).parent.parent
    return ctx.journal.path("work", node.id)


def _wrote_val_predictions(ctx: Context, node: Node) -> bool:
    """Whether ``node``'s search run wrote the validation predictions a blend is weighed on
    (the catalog's solutions do; a user's own cells do not)."""
    return (_search_workdir(ctx, node) / VAL_PREDICTIONS_FILE).is_file()


def _try_blend(
    ctx: Context,
    policies: tuple[Policy, Policy],
    best: Solution,
    partner: Solution,
    values: ValueSpec | None,
) -> FinalResult | None:
    """Refit ``best`` and ``partner`` side by side; the blend when it validates better than
    either, else ``best``'s own result (None when that failed: the ladder goes on)."""
    jobs = ((best, "final-0", "best"), (partner, "final-blend", "blend partner"))
    with ThreadPoolExecutor(2, thread_name_prefix="final") as pool:
        futures = [
            pool.submit(_try_solution, ctx, p, sol, nid, rung, values)
            for p, (sol, nid, rung) in zip(policies, jobs, strict=True)
        ]
        main = futures[0].result()
        try:
            other: FinalResult | None = futures[1].result()
        except RunStopped:
            raise
        except Exception as e:  # noqa: BLE001 - the partner is optional; the best one's file stands
            log.exception("the blend partner's refit failed")
            ctx.journal.emit("warning", message=f"the blend partner's refit failed: {e}")
            other = None
    if not main.ok:
        return None
    if other is None or not other.ok or main.submission is None or other.submission is None:
        return main
    try:
        return _blend(ctx, (main, other), (best, partner), values) or main
    except (OSError, ValueError, KeyError) as e:  # unreadable files: the best one's file stands
        ctx.journal.emit("warning", message=f"no blend: {type(e).__name__}: {e}")
        return main


def _blend(
    ctx: Context,
    results: tuple[FinalResult, FinalResult],
    sols: tuple[Solution, Solution],
    values: ValueSpec | None,
) -> FinalResult | None:
    """The blended submission and its notebook (under ``work/blend/``, published by the caller)
    when the blend validates better than either solution; None otherwise."""
    (main, other), (best, partner) = results, sols
    assert main.submission is not None and other.submission is not None
    choice = _blend_choice(ctx, results, sols)
    if choice is None:
        return None
    out_dir = ctx.journal.path("work") / "blend"
    sub = blend.blend_submissions(
        (main.submission, other.submission),
        choice.weights,
        ctx.task.id_col,
        out_dir / "submission.csv",
        submission_args(ctx.task),
    )
    problems = submission_problems(ctx.task, sub, values)
    if problems:  # never expected (a mean of two valid files), but a valid file is the bar
        ctx.journal.emit("warning", message=f"blended submission invalid: {'; '.join(problems)}")
        return None
    nb_path = main.notebook
    if main.notebook is not None and other.notebook is not None:
        nb = blend.blend_notebook(
            (main.notebook, other.notebook),
            (best.node.label, partner.node.label),
            choice,
            ctx.task.id_col,
            submission_args(ctx.task),
        )
        nb_path = out_dir / "solution.ipynb"
        nbformat.write(nb, str(nb_path))
    w0, w1 = choice.weights
    ctx.journal.emit(
        "ensemble_pick",
        key="ensemble_pick/blend",
        chosen=best.node.id,
        label=f"blend: {w0:g} × {best.node.id} + {w1:g} × {partner.node.id}",
        score=choice.score,
        kind="blend",
        best_single=best.node.id,
        best_single_score=choice.alone[0],
        reason=(
            f"refitted side by side in the final phase, the weighted mean of {best.node.id} "
            f"and {partner.node.id} (the best of another path) scored {choice.score:.6g} on the "
            f"validation rows against {choice.alone[0]:.6g} and {choice.alone[1]:.6g} alone"
        ),
    )
    return FinalResult(True, "blend", choice.score, sub, nb_path)


def _blend_choice(
    ctx: Context, results: tuple[FinalResult, FinalResult], sols: tuple[Solution, Solution]
) -> blend.BlendChoice | None:
    """The blend's weights, chosen on the final runs' validation predictions (each model fitted
    on all rows but the validation rows), else on the search runs'."""
    scorer = ctx.runner.scorer
    if not scorer.has_rows:
        return None  # too few rows to hold any out: no validation rows to weigh them on
    finals = tuple(Path(str(r.submission)).parent.parent / VAL_PREDICTIONS_FILE for r in results)
    searched = tuple(_search_workdir(ctx, s.node) / VAL_PREDICTIONS_FILE for s in sols)
    scratch = ctx.journal.path("work") / "blend"
    for files in (finals, searched):
        if all(f is not None and f.is_file() for f in files):
            pair = (Path(str(files[0])), Path(str(files[1])))
            return blend.choose_weights(scorer, pair, scratch, ctx.better)
    return None


def _fix_format(
    ctx: Context,
    policy: Policy,
    out: Outcome,
    node_id: str,
    problems: list[str],
    values: ValueSpec | None,
) -> Node | None:
    """One debugger round on a submission that ran but wrote an invalid file, quoting the
    problems; the node of the fixed run (``node_id``) when its file is valid."""
    error = (
        "The submission file is invalid: "
        + "; ".join(problems)
        + f". Expected format:\n{ctx.task.output_format}"
    )
    fix = guard(
        ctx,
        "debugger (submission)",
        node_id,
        lambda: policy.debug(out.notebook, error, None),
    )
    if not isinstance(fix, SolutionNotebook):
        return None
    cand = Candidate(
        fix,
        node_id,
        "submission",
        "submission (format fixed)",
        path="final",
        parent_id=out.node.id,
        submission=True,
        need_score=False,
        debug=False,
    )
    node = ctx.runner.evaluate(cand, policy).node
    return node if node.ok and not _node_problems(ctx, node, values) else None


def _catalog_policy(
    ctx: Context, policy: Policy, ranked: list[Solution], fallback: Policy | None
) -> Policy | None:
    """The policy whose catalog template is the ladder's rung before the training prior: the
    run's fall-back policy (the offline one behind an LLM); without one (the offline backend),
    the run's own policy, when its catalog can still add a model: no solution scored (no time
    was left for it), or the run refined the user's notebook and never tried the catalog (a
    notebook refined without writing a submission too).  ``None``: no catalog rung."""
    if fallback is not None:
        return fallback
    if not ranked or ctx.journal.meta.get("notebook"):
        return policy
    return None


def _try_catalog(ctx: Context, fallback: Policy, values: ValueSpec | None = None) -> FinalResult:
    try:
        cards = fallback.retrieve(1)
        if not cards:
            return FinalResult(
                False, "catalog", None, None, None, "the catalog has no model for this task"
            )
        nb = fallback.init_solution(cards[0])
    except RunStopped:
        raise
    except Exception as e:  # noqa: BLE001
        return FinalResult(False, "catalog", None, None, None, f"catalog template failed: {e}")
    label = f"catalog: {cards[0].name}"
    cand = Candidate(nb, "final-catalog-init", "init", label, path="final", model=cards[0].name)
    out = ctx.runner.evaluate(cand, fallback)
    sol = Solution(out.notebook, out.node)
    res = _try_solution(ctx, fallback, sol, "final-catalog", "catalog", values)
    return FinalResult(res.ok, "catalog", res.score, res.submission, res.notebook, res.reason)


BASELINE = """import pandas as pd
from pathlib import Path

# Last resort: predict the training prior in the sample submission's exact shape.
{read_sample}
submission = sample.copy()
train_csv = [p for p in Path("input").glob("*.csv") if p.name != "{sample}"]
train = next((pd.read_csv(p{train_args}) for p in train_csv if "{target}" in pd.read_csv(p, nrows=0{train_args}).columns), None)
targets = [c for c in sample.columns if c != "{id_col}"]
if train is not None:
    y = train["{target}"].dropna()
    freq = y.value_counts(normalize=True)
{fill}
Path("final").mkdir(exist_ok=True)
submission.to_csv("final/submission.csv", index=False{write_args})
print("wrote a prior-only submission with", len(submission), "rows")
"""

# Several targets of numbers or 0/1 labels (multi-target, multi-label): each its own mean.
PER_TARGET_FILL = (
    "    for col in targets:  # each target column its own mean (a 0/1 label: its frequency)\n"
    "        submission[col] = train[col].mean() if col in train else y.mean()"
)
# What the baseline writes, per kind of submission (``ValueSpec.mode``).
BASELINE_FILL = {
    "label": "    submission[targets] = y.mode()[0]  # the most frequent class, as in the training data",
    "regression": "    submission[targets] = y.mean()",
    "proba_single": (
        "    positive = sorted(freq.index, key=str)[-1]  # numeric 0/1 targets: their mean\n"
        "    submission[targets] = y.mean() if pd.api.types.is_numeric_dtype(y) else freq[positive]"
    ),
    "proba_columns": (
        "    for col in targets:  # one probability column per class: the class frequency\n"
        '        label = next((k for k in freq.index if col in (str(k), f"class_{{k}}") or col.endswith(str(k))), None)\n'
        "        submission[col] = freq.get(label, 1.0 / max(1, len(targets)))\n"
        "    submission[targets] = submission[targets].div(submission[targets].sum(axis=1), axis=0)"
    ),
}


def _try_baseline(ctx: Context, policy: Policy, values: ValueSpec | None = None) -> FinalResult:
    mode = values.mode if values is not None else "label"

    def args(path: Path | None) -> str:
        found = read_args(path) if path is not None and path.is_file() else {}
        # the ids are copied as written (``0154`` stays ``0154``, not 154)
        as_text = f", dtype={{{ctx.task.id_col!r}: str}}" if ctx.task.id_col else ""
        return call_args(found) + as_text

    sample = ctx.task.sample_submission
    test = table_for(ctx.task, "test")
    if sample is not None:
        shape = sample.path
        read_sample = f'sample = pd.read_csv("input/{shape}"{args(ctx.task.input_dir / shape)})'
        if ctx.task.class_columns:  # one column per class in the place of the sample's one
            header = class_header(ctx.task, read_head(ctx.task.input_dir / shape, n=1).columns)
            read_sample += f".reindex(columns={header!r})"
    elif test is not None and mode != "proba_columns":
        # no sample: the test rows' ids (or their order) and the target columns
        shape = test
        kept = f"[[{ctx.task.id_col!r}]]" if ctx.task.id_col else ".iloc[:, :0]"
        read_sample = (
            f'sample = pd.read_csv("input/{test}"{args(ctx.task.input_dir / test)}){kept}.copy()\n'
            f"sample[{list(_expected_columns(ctx.task))!r}] = None"
        )
    else:
        return FinalResult(
            False, "baseline", None, None, None, "no sample submission to copy the shape from"
        )

    train = table_for(ctx.task, "train")
    code = BASELINE.format(
        sample=shape,
        read_sample=read_sample,
        train_args=args(ctx.task.input_dir / train if train else None),
        target=ctx.task.target,
        id_col=ctx.task.id_col or "",
        fill=PER_TARGET_FILL
        if len(ctx.task.target_cols) > 1 and mode in ("regression", "proba_single")
        else BASELINE_FILL[mode],
        write_args="".join(f", {k}={json.dumps(v)}" for k, v in submission_args(ctx.task).items()),
    )
    nb = SolutionNotebook.new([("predict", code)], origin="baseline")
    cand = Candidate(
        nb,
        "final-baseline",
        "submission",
        "prior-only baseline",
        path="final",
        submission=True,
        need_score=False,
        debug=False,
        leakage=False,
    )
    node = ctx.runner.evaluate(cand, policy).node
    problems = _node_problems(ctx, node, values)
    if node.ok and not problems:
        return FinalResult(
            True, "baseline", None, Path(node.submission or ""), _nb_path(ctx, node.notebook)
        )
    return FinalResult(False, "baseline", None, None, None, "; ".join(problems))


def _with_own_submission(ctx: Context, node: Node, values: ValueSpec | None) -> Node:
    """``node``, with the submission its notebook wrote under a name of its own
    (``my_submission.csv``) when it wrote no ``./final/submission.csv`` (``own_submission``);
    a file in a near format (``_mended``) is handed in mended, saying so."""
    if not node.ok:
        return node
    if node.submission:
        _mend_final(ctx, node, values)
        return node
    work = ctx.journal.path("work", node.id)
    said: list[str] = []

    def mend(own: Path, final: Path) -> bool:
        said[:] = _mended(ctx.task, own, final)
        return bool(said)

    adopted = adopt_own_submission(work, lambda p: submission_problems(ctx.task, p, values), mend)
    if adopted is None:
        return node
    own, final = adopted
    ctx.journal.emit(
        "warning",
        key=f"warn/{node.id}-own-file",
        message=f"{node.id} wrote its submission as {own.relative_to(work)}, not "
        "final/submission.csv; that file passed the submission check and is handed in"
        + (f", {said[0]}" if said else ""),
    )
    return replace(node, submission=str(final))


def _mend_final(ctx: Context, node: Node, values: ValueSpec | None) -> None:
    """Mend ``node``'s submission when it fails the check for a near format (``_mended``),
    saying so."""
    sub = Path(node.submission or "")
    if not sub.is_file() or not submission_problems(ctx.task, sub, values):
        return
    said = _mended(ctx.task, sub, sub)
    if said:
        ctx.journal.emit(
            "warning",
            key=f"warn/{node.id}-mended",
            message=f"{node.id} wrote its submission with {said[0]}",
            what="submission",
        )


def _mended(task: Task, source: Path, target: Path) -> list[str]:
    """What was mended writing the submission ``source`` to ``target``: its class columns named
    around the classes (``class_0``: a notebook's own format) named as them, or the row numbers
    ``to_csv`` writes without ``index=False`` left out; empty (nothing written) for neither."""
    renamed = class_columns_renamed(task, source, target)
    if renamed:
        columns = ", ".join(f"{a} → {b}" for a, b in renamed.items())
        return [f"its class columns named as the task's classes ({columns})"]
    if index_column_dropped(task, source, target):
        return ["its first column left out: the row numbers to_csv writes without index=False"]
    return []


def _node_problems(ctx: Context, node: Node, values: ValueSpec | None = None) -> list[str]:
    """Why the submission a final-phase run wrote is unusable (empty: it is valid)."""
    if not node.ok:
        return [node.error or "failed"]
    return submission_problems(ctx.task, Path(node.submission) if node.submission else None, values)


def _has_rows_to_predict(task: Task) -> bool:
    """Whether the task has test examples to write a submission for: a test file or a sample
    submission, else arrays or series files to predict that the task's files name no role for
    (``X_test.npy``, ``GunPoint_TEST.ts`` beside a README: hunt I found the run ending with
    "the task has no test table, so there is no submission")."""
    if task.test_files or task.sample_submission is not None:
        return True
    try:
        layout = inspect_task(task)
    except (TaskError, ValueError, OSError):
        return False
    return bool(layout.npy_files.get("X_test") or layout.ts_files or layout.test_media)


def _notebook_only(ctx: Context, best: Solution | None, why: str = "") -> FinalResult:
    """A task with no rows to predict (a notebook's own task without a test table), or one
    where no rung wrote a valid submission (``why``): the best notebook, as it ran, is the
    result, with its validation score and no submission (and without a scored notebook, no
    result: the ladder's fall-backs predict test rows, which there are none of)."""
    if best is None:
        return _no_result(ctx, "the task has no test table and no notebook gave a validation score")
    final_dir = ctx.journal.path("final")
    final_dir.mkdir(parents=True, exist_ok=True)
    nb = final_dir / "solution.ipynb"
    ran = _nb_path(ctx, best.node.notebook)  # with its outputs, when the journal has them
    if ran is not None and ran.exists():
        shutil.copyfile(ran, nb)
    else:
        best.nb.write(nb)
    reason = (
        f"{why or 'the task has no test table'}, so there is no submission: the result is the "
        f"best notebook ({best.node.id}) and its validation score"
    )
    ctx.journal.emit(
        "final",
        key="final",
        score=best.score,
        notebook=ctx.journal.rel(nb),
        submission=None,
        rung="best",
        valid=not why,  # a task with test rows and no submission: the run failed, its work kept
        reason=reason,
    )
    return FinalResult(not why, "best", best.score, None, nb, reason)


def _nb_path(ctx: Context, rel: str | None) -> Path | None:
    return ctx.journal.path(rel) if rel else None


def _hand_in(ctx: Context, source: Path, target: Path) -> None:
    """Copy the submission to ``final/``, in the sample submission's format: a file written
    otherwise (a comma-separated file for a ``;`` sample with decimal commas) is rewritten, with a
    ``warning`` event, since a grader reads the submission the way it reads the sample."""
    try:
        was = write_submission(ctx.task, source, target)
    except (OSError, ValueError) as e:  # (never expected: the check read it) hand it in as is
        log.warning("submission not rewritten in the sample's format: %s", e)
        if source.resolve() != target.resolve():
            shutil.copyfile(source, target)
        return
    if was is not None:
        want = submission_args(ctx.task)
        ctx.journal.emit(
            "warning",
            key="warn/submission-format",
            message=f"the submission was written {format_name(was)}; it is handed in "
            f"{format_name(want)}, "
            + (
                "as the sample submission is written"
                if ctx.task.sample_submission is not None
                else "the format a submission takes when no sample submission shows another"
            ),
            what="submission",
        )


def _publish(ctx: Context, res: FinalResult) -> FinalResult:
    final_dir = ctx.journal.path("final")
    final_dir.mkdir(parents=True, exist_ok=True)
    sub = final_dir / "submission.csv"
    nb = final_dir / "solution.ipynb"
    if res.submission:
        _hand_in(ctx, Path(res.submission), sub)
        for key, message in final_file_warnings(ctx.task, sub, baseline=res.rung == "baseline"):
            ctx.journal.emit("warning", key=key, message=message, what="submission")
    if (
        res.notebook
        and Path(res.notebook).exists()
        and Path(res.notebook).resolve() != nb.resolve()
    ):
        shutil.copyfile(res.notebook, nb)
    ctx.journal.emit(
        "final",
        key="final",
        score=res.score,
        notebook=ctx.journal.rel(nb),
        submission=ctx.journal.rel(sub),
        rung=res.rung,
        valid=True,
        reason=res.reason,
    )
    return FinalResult(True, res.rung, res.score, sub, nb, res.reason)
