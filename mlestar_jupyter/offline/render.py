"""Render a card's template for one task into a ``SolutionNotebook``, or one block of it.

Every code cell rendered here carries ``metadata.mlestar.offline = {"card", "params"}``: the card
it came from and the params of its role, so a later step can re-render just that block with
different params (a refinement strategy, an ablation, the final no-subsampling version).
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from typing import Any

import jinja2
import nbformat

from ..metrics import get_metric
from ..notebook import META, SolutionNotebook
from ..task import Task
from ..task.layout import AUDIO_EXT, IMAGE_EXT, DataLayout
from ..task.layout.ts_format import notebook_code as ts_reader_code
from .catalog import Card, Catalog
from .errors import CatalogError
from .metric_code import metric_source

ROLES_WITH_PARAMS = ("features", "preprocess", "model", "train")
KFOLD_MODALITIES = ("tabular", "text", "time_series")  # cheap enough to fit 5-15 times on few rows
_HEADER = re.compile(r"^# %%(.*)$")


@dataclass(frozen=True)
class RenderContext:
    """What every template sees besides its card's params."""

    task: Task
    layout: DataLayout
    seed: int = 0
    split_seed: int = 0
    max_train_rows: int | None = 30_000
    kfold_rows: int = 2_000  # at most this many rows, no harness split: k-fold (0: never)
    cv_seconds: float = 10.0  # what a notebook's k-fold may take (one fold more decides)


@dataclass(frozen=True)
class RenderedCell:
    role: str  # "markdown" for a markdown cell
    source: str


def merged_params(
    card: Card, overrides: dict[str, dict[str, Any]] | None = None
) -> dict[str, dict[str, Any]]:
    """The card's default params per role, updated role by role with ``overrides``."""
    params = {role: dict(card.params.get(role, {})) for role in {*ROLES_WITH_PARAMS, *card.params}}
    for role, values in (overrides or {}).items():
        params.setdefault(role, {}).update(values)
    return params


def render_cells(
    catalog: Catalog,
    card: Card,
    ctx: RenderContext,
    params: dict[str, dict[str, Any]] | None = None,
    *,
    final: bool = False,
) -> list[RenderedCell]:
    """The card's template rendered for ``ctx``, split into cells at its ``# %% <role>`` headers."""
    layout = ctx.layout
    metric_import, metric_def = metric_source(
        layout.metric, layout.task_type, ctx.task.positive_label
    )
    # Tables of examples validate on the run's rows (./val_index.csv, which the harness scores);
    # the other modalities validate themselves.  Either way, with few labelled rows every row is
    # predicted out of fold instead (the harness scores those predictions of a small table too).
    variables = {
        "task": ctx.task,
        "L": layout,
        "card": card,
        "p": merged_params(card, params),
        "seed": ctx.seed,
        "split_seed": ctx.split_seed,
        "max_train_rows": None if final else ctx.max_train_rows,
        "final": final,
        "clf": layout.is_classification,
        "proba_sub": get_metric(layout.metric).needs_proba,
        "positive_label": ctx.task.positive_label,  # the binary probability submitted is its
        "top_k": get_metric(layout.metric).k,  # ranked classes per prediction (MAP@k, top-k)
        "quantile": get_metric(layout.metric).alpha,  # the pinball loss's: boosters fit it
        "refit_average": card.refit_average,
        "multi_output": layout.submission_kind == "multi_target",
        "media_ext": list(IMAGE_EXT if layout.modality == "image" else AUDIO_EXT),
        "metric_import": metric_import,
        "metric_def": metric_def.rstrip(),
        # the .ts reader a series notebook defines (it imports nothing of this package)
        "ts_reader": ts_reader_code() if layout.ts_files else "",
        # a forecast validates on its latest rows only: no shuffled folds
        # (rows grouped by a key whose test values are new groups: no shuffled folds either)
        "kfold": ctx.kfold_rows > 0
        and layout.modality in KFOLD_MODALITIES
        and not layout.forecast_col
        and not layout.group_col,
        "kfold_rows": 0 if layout.forecast_col or layout.group_col else ctx.kfold_rows,
        "cv_seconds": ctx.cv_seconds,
    }
    try:
        text = catalog.env.get_template(card.template).render(**variables)
    except jinja2.TemplateError as e:
        line = getattr(e, "lineno", None)
        where = f" (line {line})" if line else ""
        raise CatalogError(
            f"template {card.template} of card {card.name!r} failed to render{where}: {e}"
        ) from e
    return split_cells(text)


def split_cells(text: str) -> list[RenderedCell]:
    """Split a percent-format script at ``# %% <role>`` / ``# %% [markdown]`` headers; drop empty cells."""
    cells: list[RenderedCell] = []
    role: str | None = None
    lines: list[str] = []
    for line in text.splitlines():
        m = _HEADER.match(line)
        if m:
            if role is not None:
                cells.append(_finish(role, lines))
            head = m.group(1).strip()
            role = "markdown" if head.startswith("[markdown]") else (head.split() or ["other"])[0]
            lines = []
        elif role is not None:
            lines.append(line)
    if role is not None:
        cells.append(_finish(role, lines))
    return [c for c in cells if c.source.strip()]


def _finish(role: str, lines: list[str]) -> RenderedCell:
    if role == "markdown":
        lines = [re.sub(r"^# ?", "", ln) for ln in lines]
    body = re.sub(r"\n{3,}(?=\S)", "\n\n\n", "\n".join(lines)).strip("\n")
    return RenderedCell(role, body)


def render_notebook(
    catalog: Catalog,
    card: Card,
    ctx: RenderContext,
    params: dict[str, dict[str, Any]] | None = None,
    *,
    origin: str = "offline:init",
) -> SolutionNotebook:
    """The card's whole notebook for this task."""
    full = merged_params(card, params)
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    for cell in render_cells(catalog, card, ctx, params):
        if cell.role == "markdown":
            nb.cells.append(nbformat.v4.new_markdown_cell(cell.source))
            continue
        meta = {
            "role": cell.role,
            "origin": origin,
            "offline": {"card": card.name, "params": copy.deepcopy(full.get(cell.role, {}))},
        }
        nb.cells.append(nbformat.v4.new_code_cell(cell.source, metadata={META: meta}))
    return SolutionNotebook(nb)


def render_block(
    catalog: Catalog,
    card: Card,
    ctx: RenderContext,
    role: str,
    role_params: dict[str, Any],
    *,
    final: bool = False,
) -> str:
    """The source of the cell of ``role``, rendered with ``role_params`` for that role."""
    for cell in render_cells(catalog, card, ctx, {role: role_params}, final=final):
        if cell.role == role:
            return cell.source
    return ""  # the template leaves this cell out with these params
