"""Where the run is: ``PhaseView`` (phase, step, time, best), ``PlanView``, ``ActivityLog``."""

from __future__ import annotations

from collections import Counter, deque
from typing import Any

import ipywidgets as w

from ..journal import Event, heldout_line
from ._base import RunInfo, View, esc, fmt_score, fmt_seconds, number


class PhaseView(View):
    """Phase and step, elapsed of budget, best score so far, candidates and LLM use."""

    handles = frozenset(
        {
            "run_started",
            "phase",
            "plan",
            "ensemble_plan",
            "candidate",
            "final",
            "llm_call",
            "run_finished",
            "resumed",
        }
    )

    def __init__(self, info: RunInfo) -> None:
        super().__init__(info)
        self.phase = "starting"
        self.path: int | None = None
        self.step = ""
        self.status = "running"
        self.elapsed: float | None = None
        self.html = w.HTML()
        self.progress = w.FloatProgress(
            value=0.0, min=0.0, max=1.0, description="budget", layout=w.Layout(width="320px")
        )
        self.widget = w.VBox([self.html, self.progress])

    def feed(self, ev: Event) -> bool:
        d = ev.data
        if self.info.started is not None and self.status == "running":
            self.elapsed = ev.time - self.info.started
        if ev.type == "phase":
            self.phase, self.path, self.step = d.get("phase") or self.phase, d.get("path"), ""
        elif ev.type == "plan":
            self.step = f"t={d.get('t')} k={d.get('k')} on {d.get('block_id')}"
        elif ev.type == "ensemble_plan":
            self.step = f"ensemble round r={d.get('r')}"
        elif ev.type == "run_finished":
            self.status = d.get("status") or "done"
            self.elapsed = number(d.get("elapsed")) or self.elapsed
        elif ev.type == "resumed":
            self.status = "running"
        return True

    # counts and the best score come from the run's summary (fed by the panel before the views)
    @property
    def best(self) -> float | None:
        """The best score so far (the summary: the submission, else the best solution)."""
        return self.info.summary.best_score

    @property
    def candidates(self) -> int:
        """Candidates run so far."""
        return len(self.info.summary.candidates)

    @property
    def failed(self) -> int:
        """Candidates that failed."""
        return self.info.summary.failed

    @property
    def llm_calls(self) -> int:
        """LLM calls so far."""
        return self.info.summary.llm_calls

    @property
    def cost_usd(self) -> float:
        """LLM cost so far in USD."""
        return self.info.summary.cost_usd

    @property
    def text(self) -> str:
        """The header as plain text."""
        budget = self.info.budget_seconds
        path = str(self.path).strip() if self.path is not None else ""
        parts = [f"{self.phase}" + (f" (path {path})" if path else "")]
        if self.step:
            parts.append(f"step {self.step}")
        parts.append(
            f"{fmt_seconds(self.elapsed)} / {fmt_seconds(budget) if budget else 'no limit'}"
        )
        if self.best is not None:
            parts.append(f"best {self.info.metric} {fmt_score(self.best)}")
        parts.append(f"{self.candidates} candidates ({self.failed} failed)")
        parts.append(f"{self.llm_calls} LLM calls, ${self.cost_usd:.4f}")
        if self.status != "running":
            parts.insert(0, f"[{self.status}]")
        return " · ".join(parts)

    def render(self) -> None:
        self.html.value = f'<div class="mlestar-phase"><b>MLE-STAR</b> · {esc(self.text)}</div>'
        budget = self.info.budget_seconds
        self.progress.value = min(1.0, (self.elapsed or 0.0) / budget) if budget else 0.0
        self.progress.bar_style = {"done": "success", "failed": "danger", "stopped": "warning"}.get(
            self.status, "info"
        )


class PlanView(View):
    """The plan being tried now (refinement step, target block or ensemble round)."""

    handles = frozenset({"plan", "target", "ensemble_plan", "run_finished"})

    def __init__(self, info: RunInfo) -> None:
        super().__init__(info)
        self.title = ""
        self.plan = ""
        self.widget = w.HTML()

    def feed(self, ev: Event) -> bool:
        d = ev.data
        if ev.type == "plan":
            self.title = f"Refining block {d.get('block_id')} (t={d.get('t')}, k={d.get('k')})"
            self.plan = d.get("plan") or ""
        elif ev.type == "target":
            self.title = f"Target block {d.get('block_id')} (t={d.get('t')})"
            self.plan = d.get("plan") or ""
        elif ev.type == "ensemble_plan":
            self.title = f"Ensemble round r={d.get('r')}"
            self.plan = d.get("plan") or ""
        elif ev.type == "run_finished":
            self.title = f"Run {d.get('status') or 'done'}; last plan"
        return True

    def render(self) -> None:
        if not self.plan:
            self.widget.value = "<i>No plan yet.</i>"
            return
        self.widget.value = (
            f'<div class="mlestar-plan"><b>{esc(self.title)}</b>'
            f'<pre style="white-space:pre-wrap">{esc(self.plan)}</pre></div>'
        )


class ActivityLog(View):
    """The latest noteworthy events (newest first, at most ``limit``)."""

    handles = frozenset(
        {
            "models",
            "debug",
            "leakage",
            "data_usage",
            "budget",
            "warning",
            "error",
            "decision",
            "resumed",
            "final",
            "heldout",
            "run_finished",
            "understanding",
            "validation_split",
        }
    )

    def __init__(self, info: RunInfo, limit: int = 50) -> None:
        super().__init__(info)
        self.entries: deque[tuple[str, str]] = deque(maxlen=limit)
        self.widget = w.HTML()

    def feed(self, ev: Event) -> bool:
        d = ev.data
        msg = {
            "models": lambda: (
                "retrieved models: " + ", ".join(str(c.get("name")) for c in d.get("cards") or [])
            ),
            "debug": lambda: (
                f"debug {d.get('node_id')} round {d.get('round')}: {d.get('error')} ({'fixed' if d.get('fixed') else 'not fixed'})"
            ),
            "leakage": lambda: (
                f"leakage check {d.get('node_id')}/{d.get('block_id')}: {'LEAKY' if d.get('leaky') else 'clean'} — {d.get('reason')}"
                + (" (fixed)" if d.get("fixed") else "")
            ),
            "data_usage": lambda: (
                "data usage: "
                + (
                    ("unused " + ", ".join(d.get("unused_files") or []))
                    if d.get("unused_files")
                    else "all files used"
                )
                + (" (fixed)" if d.get("fixed") else "")
            ),
            "budget": lambda: f"budget ({d.get('what')}): {d.get('message')}",
            "warning": lambda: str(d.get("message")),
            "error": lambda: str(d.get("message")),
            "decision": lambda: (
                f"proposal {d.get('proposal_id')}: {d.get('decision')} (by {d.get('by')})"
            ),
            "resumed": lambda: "run resumed",
            "final": lambda: (
                f"final: {self.info.metric} {fmt_score(number(d.get('score')))}, "
                + (
                    f"submission {d.get('submission')} ({'valid' if d.get('valid') else 'INVALID: ' + str(d.get('reason'))})"
                    if d.get("submission") or not d.get("valid")
                    else f"no submission ({d.get('reason')})"
                )
            ),
            "heldout": lambda: heldout_line(d),
            "run_finished": lambda: (
                f"run {d.get('status')} after {fmt_seconds(number(d.get('elapsed')))}"
            ),
            "understanding": lambda: understanding_line(d),
            "validation_split": lambda: validation_split_line(d),
        }[ev.type]()
        self.entries.append((ev.type, msg))
        return True

    def render(self) -> None:
        colors = {"error": "#d9534f", "warning": "#f0ad4e", "budget": "#f0ad4e"}
        rows = "".join(
            f'<li class="mlestar-log-{t}" style="color:{colors.get(t, "inherit")}"><code>{t}</code> {esc(m)}</li>'
            for t, m in reversed(self.entries)
        )
        self.widget.value = (
            f'<ul class="mlestar-log" style="margin:0">{rows}</ul>'
            if rows
            else "<i>Nothing yet.</i>"
        )


def understanding_line(d: dict[str, Any]) -> str:
    """How the user's notebook was read (an ``understanding`` event), as the panel's log says
    it: ``read your notebook: 4 cell(s) (1 load, 2 model, 1 train), target y; added validation
    cell b5``, or why it was not understood."""
    if d.get("understood") is False:
        reason = str(d.get("reason") or "").strip().splitlines()
        return "your notebook was not understood" + (f": {reason[0]}" if reason else "")
    roles = d.get("roles")
    roles = roles if isinstance(roles, dict) else {}
    tally = Counter(str(r) for r in roles.values())
    parts = ", ".join(f"{n} {role}" for role, n in tally.items())
    mixed = d.get("mixed")
    mixed = mixed if isinstance(mixed, list) else []
    return (
        f"read your notebook: {len(roles)} cell(s)"
        + (f" ({parts})" if parts else "")
        + (f", target {d['target']}" if d.get("target") else "")
        + (f"; {len(mixed)} mixed cell(s) (refined part by part)" if mixed else "")
        + (f"; added validation cell {d['added_block']}" if d.get("added_block") else "")
        + machine_changes(d.get("data_paths"))
    )


# what each kind of change a run makes to a user's notebook (``agent.changes.PathChange``) is
# called in the log, in the order said; a kind missing here is said as "other change(s)"
CHANGE_KINDS = (
    ("path", "data path(s) pointed at ./input"),
    ("install", "install line(s) not run"),
    ("colab", "line(s) only Colab runs not run"),
    ("shell", "shell line(s) pointed at the run's folders or not run"),
    ("module", "import(s) of missing plot packages stood in for"),
    ("fold", "line(s) added to score every pass of a loop"),
    ("temp", "line(s) added to make Kaggle's scratch folder"),
    ("local", "line(s) of your own modules changed in the copy the kernel imports"),
    ("output", "write(s) into the data folder sent to the work folder"),
    ("stop", "line(s) at or after the notebook's own exit not run"),
    ("keep", "del line(s) keeping what the added validation cell reads"),
    ("old_api", "call(s) of older library versions rewritten"),
    ("input", "input() call(s) given the answer saved with the cell"),
    ("error", "line(s) of cells that failed before you ran the cells below not run"),
    ("cwd", "name(s) of the notebook's own folder pointed at ./input"),
    ("debug", "debug switch(es) turned off"),
    ("gpu", "GPU setting(s) made the CPU's (no GPU here)"),
    ("scoring", "scoring(s) made to score the positive class"),
    ("argv", "argument parser(s) given an empty command line"),
)


def machine_changes(changes: object) -> str:
    """``; changed for this machine: 2 data path(s) pointed at ./input, 1 install line(s) not
    run`` from an ``understanding`` event's ``data_paths`` (``""`` when there are none); every
    change is counted, one of a kind this version does not know as "other change(s)"."""
    rows = [c for c in changes if isinstance(c, list)] if isinstance(changes, list) else []
    kinds = Counter(str(c[3]) if len(c) > 3 else "path" for c in rows)
    said = [f"{kinds[k]} {what}" for k, what in CHANGE_KINDS if kinds[k]]
    other = sum(n for k, n in kinds.items() if k not in dict(CHANGE_KINDS))
    said += [f"{other} other change(s)"] if other else []
    return f"; changed for this machine: {', '.join(said)}" if said else ""


def validation_split_line(d: dict[str, Any]) -> str:
    """The run's harness split (a ``validation_split`` event): ``validation split: 114 of 569
    labelled rows of train.csv (seed 0), scored by the harness``, or that there is none."""
    if not d.get("file"):
        return "no validation split held out: scores are the ones the notebooks print"
    n = d.get("n_labelled")
    seed = d.get("seed")
    return (
        f"validation split: {d.get('rows') or 0}"
        + (f" of {n} labelled" if isinstance(n, int) else "")
        + " rows"
        + (f" of {d['table']}" if d.get("table") else "")
        + (f" (seed {seed})" if isinstance(seed, int) else "")
        + ", scored by the harness"
        + (" (or k-fold on every labelled row)" if d.get("kfold") else "")
    )
