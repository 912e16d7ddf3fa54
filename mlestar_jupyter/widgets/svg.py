"""Tiny inline-SVG charts (strings), so a widget's value stays bounded and needs no kernel."""

from __future__ import annotations

from collections.abc import Sequence

from ._base import esc


def bar_chart(items: Sequence[tuple[str, float]], *, width: int = 520, bar_height: int = 18) -> str:
    """Horizontal bars around a zero line (negative left, red; positive right, green)."""
    if not items:
        return '<svg class="mlestar-bars" width="0" height="0"></svg>'
    label_w, value_w = 190, 70
    plot_w = width - label_w - value_w
    extent = max(abs(v) for _, v in items) or 1.0
    has_neg = any(v < 0 for _, v in items)
    has_pos = any(v > 0 for _, v in items)
    zero = label_w + (plot_w if not has_pos else plot_w / 2 if has_neg else 0)
    scale = plot_w / 2 if has_neg and has_pos else plot_w
    h = len(items) * (bar_height + 6) + 6
    parts = [
        f'<svg class="mlestar-bars" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{h}" font-size="11">'
    ]
    for i, (name, v) in enumerate(items):
        y = 6 + i * (bar_height + 6)
        length = abs(v) / extent * scale
        x = zero - length if v < 0 else zero
        color = "#d9534f" if v < 0 else "#5cb85c"
        label = name if len(name) <= 30 else name[:29] + "…"
        parts.append(
            f'<text x="{label_w - 6}" y="{y + bar_height - 5}" text-anchor="end">{esc(label)}</text>'
        )
        parts.append(
            f'<rect class="bar" x="{x:.1f}" y="{y}" width="{max(length, 1):.1f}" height="{bar_height}" fill="{color}"><title>{esc(name)}: {v:+.4f}</title></rect>'
        )
        parts.append(f'<text x="{width - value_w + 6}" y="{y + bar_height - 5}">{v:+.4f}</text>')
    parts.append(f'<line x1="{zero:.1f}" x2="{zero:.1f}" y1="0" y2="{h}" stroke="#555"/></svg>')
    return "".join(parts)


def line_chart(
    points: Sequence[tuple[float, float]],
    best: Sequence[tuple[float, float]],
    *,
    width: int = 520,
    height: int = 200,
    ylabel: str = "",
) -> str:
    """Each point a dot, the best-so-far a step line; axes labelled with the y range."""
    if not points:
        return '<svg class="mlestar-trajectory" width="0" height="0"></svg>'
    left, right, top, bottom = 56, 10, 10, 24
    xs = [p[0] for p in points]
    ys = [p[1] for p in points] + [b[1] for b in best]
    x0, x1 = min(xs), max(xs) if max(xs) > min(xs) else min(xs) + 1
    y0, y1 = min(ys), max(ys)
    if y1 - y0 < 1e-12:
        y0, y1 = y0 - 0.5 * (abs(y0) or 1) * 0.01, y1 + 0.5 * (abs(y1) or 1) * 0.01

    def px(x: float) -> float:
        return left + (x - x0) / (x1 - x0) * (width - left - right)

    def py(y: float) -> float:
        return top + (y1 - y) / (y1 - y0) * (height - top - bottom)

    parts = [
        f'<svg class="mlestar-trajectory" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-size="11">',
        f'<line x1="{left}" x2="{left}" y1="{top}" y2="{height - bottom}" stroke="#888"/>',
        f'<line x1="{left}" x2="{width - right}" y1="{height - bottom}" y2="{height - bottom}" stroke="#888"/>',
        f'<text x="{left - 4}" y="{top + 8}" text-anchor="end">{y1:.4g}</text>',
        f'<text x="{left - 4}" y="{height - bottom}" text-anchor="end">{y0:.4g}</text>',
        f'<text x="{width - right}" y="{height - 6}" text-anchor="end">candidate #</text>',
        f'<text x="4" y="{height / 2}" >{esc(ylabel)}</text>',
    ]
    if best:
        steps: list[str] = []
        for i, (x, y) in enumerate(best):
            if i:
                steps.append(f"{px(x):.1f},{py(best[i - 1][1]):.1f}")
            steps.append(f"{px(x):.1f},{py(y):.1f}")
        parts.append(
            f'<polyline class="best" points="{" ".join(steps)}" fill="none" stroke="#337ab7" stroke-width="2"/>'
        )
    for x, y in points:
        parts.append(
            f'<circle class="point" cx="{px(x):.1f}" cy="{py(y):.1f}" r="3.5" fill="#f0ad4e"><title>#{x:g}: {y:.4f}</title></circle>'
        )
    parts.append("</svg>")
    return "".join(parts)
