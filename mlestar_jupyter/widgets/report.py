"""A run as one standalone HTML page: the same pictures as the panel, for people without Jupyter
(``mlestar show RUN --html report.html``): score trajectory, ablation bars, ensemble plans, solution tree."""

from __future__ import annotations

from pathlib import Path

from ._base import esc
from .panel import RunPanel

SECTIONS = (
    ("Score trajectory", "trajectory"),
    ("Ablation results", "ablation"),
    ("Ensemble plans", "ensemble"),
    ("Solution tree", "tree"),
)


def run_report_html(run_dir: str | Path) -> str:
    """The run's pictures as a self-contained HTML document (inline SVG, no scripts)."""
    panel = RunPanel(run_dir)
    panel.replay()
    parts = [
        f"<h1>MLE-STAR run <code>{esc(str(Path(run_dir).name))}</code></h1>",
        _html_of(panel.phase.widget),
    ]
    for title, attr in SECTIONS:
        parts.append(
            f"<section><h2>{esc(title)}</h2>{_html_of(getattr(panel, attr).widget)}</section>"
        )
    style = "body{font-family:sans-serif;max-width:960px;margin:2em auto;color:#222} section{margin:1.5em 0} code{background:#f3f3f3;padding:0 .2em}"
    return f"<!doctype html><html><head><meta charset='utf-8'><title>MLE-STAR run</title><style>{style}</style></head><body>{''.join(parts)}</body></html>"


def _html_of(widget: object) -> str:
    """The HTML a widget shows: its ``value``, or its children's, in order (VBox/HBox)."""
    value = getattr(widget, "value", None)
    if isinstance(value, str):
        return value
    return "".join(_html_of(c) for c in getattr(widget, "children", ()))


def write_run_report(run_dir: str | Path, out: str | Path) -> Path:
    """Write ``run_report_html(run_dir)`` to ``out``."""
    p = Path(out)
    p.write_text(run_report_html(run_dir), encoding="utf-8")
    return p
