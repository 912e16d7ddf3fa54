"""The final blend: the best solutions of two paths, refitted side by side in the final phase,
submitted as a weighted mean of their predictions when that mean scores better on the run's
validation rows than either alone.

The ensemble phase (Algorithm 3) combines the paths' solutions in one notebook that runs them one
after the other, and at a short budget it often has no time left (a 120 s run on a 24 000-row
table: two solutions of 16 s each, 8 s left).  The final phase refits the best solution on all
rows anyway, on one core, while the other idles; refitting the other path's best there costs no
wall-clock time, and their validation predictions (each model fitted without the validation rows)
say whether, and with which weight, their mean is better.  Only numbers are averaged: regression
targets and class probabilities, never class labels.

``choose_weights`` picks the weight on the validation predictions (scored by the harness's own
``ValidationScorer``), ``blend_submissions`` applies it to the test predictions, and
``blend_notebook`` writes the notebook that reproduces the blended file in one kernel: the first
solution's cells, its test predictions kept (and the kernel's variables cleared), the second's
cells, the weighted mean.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
import pandas as pd

from ..task.layout.tables import read_args
from ..task.text_format import call_args
from .scoring import ROW_COL, ValidationScorer

WEIGHT_STEPS = 10  # the first member's weight is tried at 0, 0.1, ..., 1


@dataclass(frozen=True)
class BlendChoice:
    """The first member's weight (the second gets the rest) and the scores on validation."""

    weight: float
    score: float
    alone: tuple[float, float]  # each member's own score, measured the same way

    @property
    def weights(self) -> tuple[float, float]:
        """Both members' weights."""
        return (self.weight, round(1.0 - self.weight, 6))


def numeric_predictions(frame: pd.DataFrame, key: str | None) -> list[str] | None:
    """The prediction columns of ``frame`` (all but ``key``) when every one holds numbers, else
    ``None`` (a class label column is never averaged)."""
    cols = [c for c in frame.columns if c != key]
    if not cols or not all(pd.api.types.is_numeric_dtype(frame[c]) for c in cols):
        return None
    return cols


def mean_of(
    frames: list[pd.DataFrame], weights: tuple[float, ...], key: str | None
) -> pd.DataFrame:
    """The weighted mean of ``frames``' prediction columns, aligned on ``key`` (the first
    frame's rows and order; by position without a key)."""
    first = frames[0]
    cols = numeric_predictions(first, key)
    if cols is None:
        raise ValueError("only numeric predictions can be blended")
    out = first.copy()
    if key is None:
        parts = [f[cols].to_numpy(dtype=float) for f in frames]
    else:
        parts = [f.set_index(key).loc[first[key], cols].to_numpy(dtype=float) for f in frames]
    out[cols] = sum(w * p for w, p in zip(weights, parts, strict=True))
    return out


def choose_weights(
    scorer: ValidationScorer, files: tuple[Path, Path], scratch: Path, better: Any
) -> BlendChoice | None:
    """The weight whose blend of the two validation prediction files scores best, when that
    blend is strictly ``better`` (``better(a, b)``: score ``a`` beats ``b``) than either file
    alone; ``None`` when it is not, or when the files cannot be blended (other rows, labels)."""
    frames = [pd.read_csv(f, **read_args(f)) for f in files]  # as written, as the scorer does
    if any(ROW_COL not in f.columns for f in frames):
        return None
    if sorted(frames[0][ROW_COL]) != sorted(frames[1][ROW_COL]):
        return None  # validated on other rows (a hold-out and a k-fold): not comparable
    if numeric_predictions(frames[0], ROW_COL) is None:
        return None
    if numeric_predictions(frames[1], ROW_COL) != numeric_predictions(frames[0], ROW_COL):
        return None
    scratch.mkdir(parents=True, exist_ok=True)
    scores: dict[float, float] = {}
    for step in range(WEIGHT_STEPS + 1):
        w = round(step / WEIGHT_STEPS, 6)
        path = scratch / f"blend-{step}.csv"
        mean_of(frames, (w, 1.0 - w), ROW_COL).to_csv(path, index=False)
        measured, _, _ = scorer.measure(path)
        if measured is not None:
            scores[w] = measured
    if 0.0 not in scores or 1.0 not in scores:
        return None

    def clearly(a: float, b: float) -> bool:  # better by more than float rounding
        return bool(better(a, b)) and abs(a - b) > 1e-9 * max(1.0, abs(b))

    best = scores[1.0]
    choice = 1.0
    for w, s in scores.items():
        if clearly(s, best):
            best, choice = s, w
    if choice in (0.0, 1.0) or not (clearly(best, scores[1.0]) and clearly(best, scores[0.0])):
        return None
    return BlendChoice(choice, best, (scores[1.0], scores[0.0]))


def blend_submissions(
    files: tuple[Path, Path],
    weights: tuple[float, float],
    key: str | None,
    out: Path,
    args: Mapping[str, str] | None = None,
) -> Path:
    """Write the weighted mean of two submission files to ``out`` (the first file's row order);
    ``args``: the ``read_csv`` / ``to_csv`` keywords of the task's submissions (the sample
    submission's separator, decimal mark and encoding, ``submission_args``), which ``out`` is
    written in.  Each file is read in the sample's format or, when only that gives its columns,
    in its own (``_read_solution``): a notebook may have written it otherwise."""
    found = dict(args or {})
    frames = [_read_solution(f, found, key) for f in files]
    key = key if key is not None and all(key in f.columns for f in frames) else None
    out.parent.mkdir(parents=True, exist_ok=True)
    mean_of(frames, weights, key).to_csv(out, index=False, **found)
    return out


def _read_solution(path: Path, args: Mapping[str, str], key: str | None) -> pd.DataFrame:
    """A solution's submission file, read in the submission format ``args`` (the sample's
    separator and decimal mark) in the file's own encoding (``read_args``: a UTF-8 file read as
    the sample's cp1252 would give ``MÃ¼ller`` for ``Müller``, other ids), or in the file's
    own format when only that gives the submission's columns (``key`` among them, when given,
    and numbers to average: a plain ``to_csv`` for a ``;`` sample with decimal commas reads as
    one column ``id,p`` the sample's way)."""
    own = read_args(path)
    want: dict[str, str | bool] = {k: v for k, v in args.items() if k != "encoding"}
    want |= {"encoding": own["encoding"]} if "encoding" in own else {}
    if own != want:
        for found in (want, own):
            try:
                frame = pd.read_csv(path, **found)
            except ValueError:  # (a parser error)
                continue
            if (key is None or key in frame.columns) and numeric_predictions(frame, key):
                return frame
    return pd.read_csv(path, **want)


_KEEP_FIRST = """# Blend, step 1: keep the first solution's test predictions, then clear the kernel's variables
# so that the second solution runs as it ran on its own.
import shutil

shutil.copyfile("./final/submission.csv", "./final/blend_part_1.csv")
%reset -f"""

_BLEND = """# Blend, step 2: the weighted mean of the two solutions' test predictions. The weights were
# chosen on the run's validation rows, where this mean scored {score} against {alone} alone.
from pathlib import Path

import pandas as pd

first = pd.read_csv("./final/blend_part_1.csv"{args})
second = pd.read_csv("./final/submission.csv"{args})
blend_weights = {weights}
blend_key = {key!r}
columns = [c for c in first.columns if c != blend_key]
if blend_key is not None:
    second = second.set_index(blend_key).loc[first[blend_key]].reset_index()
blended = first.copy()
blended[columns] = blend_weights[0] * first[columns].to_numpy(dtype=float) + blend_weights[1] * second[columns].to_numpy(dtype=float)
blended.to_csv("./final/submission.csv", index=False{args})
Path("./final/blend_part_1.csv").unlink()
print(blended.head())"""


def blend_notebook(
    notebooks: tuple[Path, Path],
    labels: tuple[str, str],
    choice: BlendChoice,
    key: str | None,
    args: Mapping[str, str] | None = None,
) -> nbformat.NotebookNode:
    """One notebook reproducing the blended submission in one kernel: the first solution, its
    predictions kept, the second solution, the weighted mean (``args``: as in
    ``blend_submissions``)."""
    first, second = (nbformat.read(str(p), as_version=4) for p in notebooks)
    w0, w1 = choice.weights
    nb = nbformat.v4.new_notebook(metadata=first.metadata)
    nb.cells = [
        nbformat.v4.new_markdown_cell(
            f"# Final solution: a blend of two solutions\n\n"
            f"{w0:g} × *{labels[0]}* + {w1:g} × *{labels[1]}*: the weighted mean of their "
            f"predictions scored {choice.score:.6g} on the run's validation rows, against "
            f"{choice.alone[0]:.6g} and {choice.alone[1]:.6g} for each alone. Each solution "
            "writes ./final/submission.csv (the kernel's variables are cleared between them); "
            "the last cell replaces it with the blend."
        ),
        nbformat.v4.new_markdown_cell(f"## Solution 1: {labels[0]}"),
        *first.cells,
        nbformat.v4.new_code_cell(_KEEP_FIRST),
        nbformat.v4.new_markdown_cell(f"## Solution 2: {labels[1]}"),
        *second.cells,
        nbformat.v4.new_markdown_cell("## The blend"),
        nbformat.v4.new_code_cell(
            _BLEND.format(
                score=f"{choice.score:.6g}",
                alone=f"{choice.alone[0]:.6g} and {choice.alone[1]:.6g}",
                weights=(w0, w1),
                key=key,
                args=call_args(args or {}),
            )
        ),
    ]
    for i, cell in enumerate(nb.cells):  # the outputs of the runs they came from do not belong
        cell["id"] = f"blend-{i}"  # here, and both solutions' cells may share ids
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    return nb
