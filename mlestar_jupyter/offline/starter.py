"""Starter code for a model that writes its own solution: cells that load the task's data and
split off the validation rows the run scores on, taken from the best card's notebook."""

from __future__ import annotations

import ast
import re

from ..codecheck.static_checks import repair_imports
from ..task.layout import DataLayout
from .catalog import Card, Catalog
from .render import RenderContext, render_notebook

_USAGE = {  # how a model uses the starter's helpers, said where it will read it
    "image": "\n\n# e.g. pixels = load_images(X).reshape(len(X), -1) / 255.0  (one row of pixel values per image)",
    "audio": "\n\n# e.g. F = audio_features(X)  (one row of clip statistics per recording)",
}


def starter_script(catalog: Catalog, card: Card, ctx: RenderContext, task_type: str) -> str:
    """Cells that load this task's data correctly (a percent script), for a model to build on:
    the ``load`` cell of ``card``'s notebook, and the helper functions of its ``features`` cell
    (e.g. ``load_images``) for data that is not a table."""
    layout = ctx.layout
    nb = render_notebook(catalog, card, ctx)
    load = "\n\n".join(b.source.strip() for b in nb.blocks_by_role("load"))
    load = re.sub(r"\n\w+\.head\(\)\s*$", "", load)  # a display that is no longer last
    split = split_code(task_type, layout)
    cells = [("load", f'INPUT = Path("./input")\n{load}\n\n{split}')]
    if layout.modality in _USAGE:  # data a model cannot load in a line or two
        helpers = "\n\n\n".join(
            h for b in nb.blocks_by_role("features") if (h := _helpers_of(b.source))
        )
        if helpers:
            cells.append(("features", helpers + _USAGE[layout.modality]))
    script = "\n\n".join(f"# %% {role}\n{repair_imports(src)}" for role, src in cells)
    return script.strip() + "\n"


def split_code(task_type: str, layout: DataLayout | None = None) -> str:
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
    columns: list[str | None] = list(layout.target_cols) or [layout.label_col]
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


def _helpers_of(source: str) -> str:
    """The function definitions of ``source`` and the constants they read (other statements go)."""
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
