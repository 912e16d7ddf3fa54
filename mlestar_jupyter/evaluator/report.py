"""Write a bench run's report: ``report.md``, ``report.html`` (plots embedded), ``report.json``.

Plots (matplotlib, PNG): each task's score against its leaderboard; mean RankPct by modality and
by difficulty; made / valid / constraint / medal rates.  The JSON holds the numbers behind them.
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
from pathlib import Path

from ..task import Task, TaskError
from .bench import BenchReport
from .errors import EvaluatorError
from .grading import GradeReport, load_task_leaderboard
from .leaderboard import Leaderboard


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def _num(x: float | None, fmt: str = ".5g") -> str:
    return "n/a" if x is None or (isinstance(x, float) and not math.isfinite(x)) else format(x, fmt)


def _boards(report: BenchReport) -> dict[str, Leaderboard | None]:
    out: dict[str, Leaderboard | None] = {}
    for r in report.tasks:
        try:
            out[r.grade.task_id] = load_task_leaderboard(Task.load(r.task_dir))
        except (TaskError, EvaluatorError, OSError, ValueError):  # the plot's strip stays empty
            out[r.grade.task_id] = None
    return out


def _figure_png(fig) -> bytes:  # type: ignore[no-untyped-def]
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    import matplotlib.pyplot as plt

    plt.close(fig)
    return buf.getvalue()


def plot_scores(grades: list[GradeReport], boards: dict[str, Leaderboard | None]) -> bytes:
    """One strip per task: leaderboard scores (grey), the agent's score (red), medal lines."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = max(len(grades), 1)
    fig, axes = plt.subplots(n, 1, figsize=(7, 1.1 * n + 0.6), squeeze=False)
    for ax, g in zip(axes[:, 0], grades, strict=False):
        b = boards.get(g.task_id)
        if b is not None:
            ax.scatter(b.scores, [0] * len(b), color="0.6", s=18, label="leaderboard")
            th = b.thresholds()
            for v, c in ((th.gold, "gold"), (th.silver, "silver"), (th.bronze, "peru")):
                ax.axvline(v, color=c, lw=1.2)
        if g.score is not None:
            ax.scatter([g.score], [0], color="red", s=60, marker="D", zorder=3, label="agent")
        verdict = (
            f"rank {g.rank}/{g.participants}"
            if g.rank
            else ("invalid" if g.made_submission else "no submission")
        )
        ax.set_title(
            f"{g.task_id} — {g.metric} ({'higher' if g.direction == 'maximize' else 'lower'} is better): {verdict}",
            fontsize=8,
            loc="left",
        )
        ax.set_yticks([])
        ax.tick_params(labelsize=7)
        if b is not None and g.direction == "minimize":
            ax.invert_xaxis()
    fig.tight_layout()
    return _figure_png(fig)


def plot_ranks(report: BenchReport) -> bytes:
    """Mean RankPct by modality and by difficulty (lower is better)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    s = report.summary
    fig, axes = plt.subplots(1, 2, figsize=(8, 3))
    for ax, (title, d) in zip(
        axes,
        (("by modality", s.rank_pct_by_modality), ("by difficulty", s.rank_pct_by_difficulty)),
        strict=True,
    ):
        ax.bar(list(d), list(d.values()), color="steelblue")
        ax.set_ylim(0, 1)
        ax.set_title(f"mean RankPct {title} (lower is better)", fontsize=9)
        ax.tick_params(labelsize=8)
    fig.tight_layout()
    return _figure_png(fig)


def plot_rates(report: BenchReport) -> bytes:
    """Made, valid, constraint-pass, any-medal and above-median rates."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    s = report.summary
    rates = {
        "made": s.made_submission_rate,
        "valid": s.valid_submission_rate,
        "constraints": s.constraint_pass_rate or 0.0,
        "any medal": s.any_medal_rate,
        "above median": s.above_median_rate,
    }
    fig, ax = plt.subplots(figsize=(6, 3))
    ax.bar(
        list(rates),
        list(rates.values()),
        color=["seagreen", "seagreen", "darkorange", "goldenrod", "slategray"],
    )
    ax.set_ylim(0, 1)
    ax.set_title("rates", fontsize=9)
    ax.tick_params(labelsize=8)
    fig.tight_layout()
    return _figure_png(fig)


def _rows(report: BenchReport) -> list[list[str]]:
    rows = []
    for r in report.tasks:
        g = r.grade
        status = (
            "ok"
            if g.valid_submission
            else ("invalid: " + (g.invalid_reason or "") if g.made_submission else "no submission")
        )
        if r.agent_error:
            status += f" (agent: {r.agent_error})"
        rows.append(
            [
                g.task_id,
                g.modality,
                g.difficulty_level or "n/a",
                g.metric,
                _num(g.score),
                f"{g.rank}/{g.participants}" if g.rank else "n/a",
                _num(g.rank_pct, ".3f"),
                _num(g.beats_pct, ".0f"),
                g.medal,
                _pct(g.constraint_pass_rate),
                f"{r.agent_seconds:.0f}",
                status,
            ]
        )
    return rows


HEADER = [
    "task",
    "modality",
    "difficulty",
    "metric",
    "score",
    "rank",
    "RankPct",
    "beats %",
    "medal",
    "constraints",
    "seconds",
    "status",
]


def _headline(report: BenchReport) -> list[tuple[str, str]]:
    s = report.summary
    return [
        ("tasks", str(s.tasks)),
        ("made submission", _pct(s.made_submission_rate)),
        ("valid submission", _pct(s.valid_submission_rate)),
        ("modality-weighted RankPct (lower is better)", _num(s.weighted_rank_pct, ".3f")),
        ("mean RankPct", _num(s.mean_rank_pct, ".3f")),
        (
            "mean share of leaderboard beaten",
            "n/a" if s.mean_beats_pct is None else f"{s.mean_beats_pct:.1f}%",
        ),
        (
            "any medal",
            f"{_pct(s.any_medal_rate)} (gold {s.medals['gold']}, silver {s.medals['silver']}, bronze {s.medals['bronze']})",
        ),
        ("above median", _pct(s.above_median_rate)),
        (
            "constraint pass rate",
            f"{_pct(s.constraint_pass_rate)} of {s.constraints_total} (passed / all; "
            f"{s.constraints_static} judged statically, {s.constraints_by_judge} by the judge, "
            f"{s.constraints_total - s.constraints_judged} not judged)",
        ),
    ]


def render_markdown(report: BenchReport, images: dict[str, str]) -> str:
    """The report as markdown; ``images`` maps a plot's title to its PNG file name."""
    lines = [
        f"# MLE-STAR bench report — agent `{report.agent}`",
        "",
        f"Started {report.started_at}; time limit {report.time_limit:.0f}s per task; took {report.seconds:.0f}s.",
        "",
    ]
    lines += [f"- **{k}**: {v}" for k, v in _headline(report)] + [""]
    lines += ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in _rows(report)]
    lines.append("")
    for title, name in images.items():
        lines += [f"## {title}", "", f"![{title}]({name})", ""]
    how = {"static": "static rule", "llm": "judge", "none": "not judged"}
    judged = [(r.grade.task_id, v) for r in report.tasks for v in r.grade.constraints]
    if judged:
        lines += (
            ["## Constraints", ""]
            + [
                f"- {t}: **{v.verdict}** ({how[v.method] if v.verdict != 'not_judged' else 'not judged'})"
                f" {v.instruction} — {v.reason}"
                for t, v in judged
            ]
            + [""]
        )
    return "\n".join(lines)


def render_html(report: BenchReport, pngs: dict[str, bytes]) -> str:
    """The report as one self-contained HTML page (plots as base64 PNG)."""
    e = html.escape
    head = "".join(f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in _headline(report))
    table = (
        "<tr>"
        + "".join(f"<th>{e(h)}</th>" for h in HEADER)
        + "</tr>"
        + "".join(
            "<tr>" + "".join(f"<td>{e(c)}</td>" for c in row) + "</tr>" for row in _rows(report)
        )
    )
    figs = "".join(
        f"<h2>{e(t)}</h2><img alt='{e(t)}' src='data:image/png;base64,{base64.b64encode(b).decode()}'/>"
        for t, b in pngs.items()
    )
    style = "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;font-size:13px;text-align:left}"
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>MLE-STAR bench report</title><style>{style}</style></head><body>"
        f"<h1>MLE-STAR bench report — agent {e(report.agent)}</h1><p>Started {e(report.started_at)}; time limit {report.time_limit:.0f}s per task; took {report.seconds:.0f}s.</p>"
        f"<table>{head}</table><table>{table}</table>{figs}</body></html>"
    )


def write_report(report: BenchReport, out_dir: str | Path) -> dict[str, Path]:
    """Write report.md (+ PNGs), report.html and report.json under ``out_dir``; their paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    grades = [r.grade for r in report.tasks]
    pngs = {
        "Scores against the leaderboard": plot_scores(grades, _boards(report)),
        "RankPct by modality and difficulty": plot_ranks(report),
        "Rates": plot_rates(report),
    }
    names = {
        "Scores against the leaderboard": "scores.png",
        "RankPct by modality and difficulty": "ranks.png",
        "Rates": "rates.png",
    }
    paths: dict[str, Path] = {}
    for title, data in pngs.items():
        p = out / names[title]
        p.write_bytes(data)
        paths[names[title]] = p
    paths["md"] = out / "report.md"
    paths["md"].write_text(render_markdown(report, names), encoding="utf-8")
    paths["html"] = out / "report.html"
    paths["html"].write_text(render_html(report, pngs), encoding="utf-8")
    paths["json"] = out / "report.json"
    paths["json"].write_text(json.dumps(report.model_dump(mode="json"), indent=2), encoding="utf-8")
    return paths
