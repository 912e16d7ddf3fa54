"""The final submission: the refit on every labelled row alone, or averaged with the validated
model (what the catalog's predict cell does for a card whose training is random, its
``refit_average``), side by side on the same seeds.

    python benchmarks/final_average.py --pack PACK_DIR --cases tiny-digits:small_cnn,tiny-wine:linear
        [--seeds 0,1,2,3,4,5,6,7] [--markdown results.md]

For each ``task:card`` and seed, the card's final notebook (no subsampling, ``REFIT_ON_ALL_ROWS``)
is rendered with that seed and run twice as a script in a fresh folder: once with its predict
cell averaging, once with the refit alone (whichever the card itself does).  Both submissions are
graded on the pack's held-out answers.  It prints each seed's two test scores, their means and
how many seeds each way won; the results file names the commit and the machine's load.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_offline_vs_flaml import git_output  # noqa: E402

from mlestar_jupyter.agent.config import RunConfig  # noqa: E402
from mlestar_jupyter.evaluator.grading import grade_submission  # noqa: E402
from mlestar_jupyter.offline import OfflinePolicy  # noqa: E402
from mlestar_jupyter.offline.final_notebook import final_notebook  # noqa: E402
from mlestar_jupyter.offline.render import render_notebook  # noqa: E402
from mlestar_jupyter.task import Task, load_task  # noqa: E402


def final_script(task: Task, card: str, seed: int, average: bool) -> str:
    """The card's final notebook for ``task`` at ``seed`` as one script, its predict cell
    averaging the refit with the validated model or not (``average``, whatever the card says).
    ``seed`` is both the models' randomness (``SEED``) and the validation split's
    (``SPLIT_SEED``), as two runs' would differ."""
    p = OfflinePolicy(task, RunConfig(seed=seed))  # the split's seed
    ctx = dataclasses.replace(p.ctx, seed=seed)  # the models'
    chosen = dataclasses.replace(p.catalog[card], refit_average=average)
    nb = final_notebook(render_notebook(p.catalog, chosen, ctx), p.catalog, ctx)
    return "\n\n".join(b.source for b in nb.code_blocks)


def run_script(task: Task, source: str) -> float | None:
    """Run ``source`` in a fresh folder holding ``./input``; the submission's test score."""
    with tempfile.TemporaryDirectory(prefix="final-average-") as d:
        os.symlink(task.input_dir, Path(d) / "input")
        (Path(d) / "final_notebook.py").write_text(source)
        r = subprocess.run(
            [sys.executable, "final_notebook.py"], cwd=d, capture_output=True, text=True
        )
        if r.returncode:
            print(r.stderr[-1500:], file=sys.stderr)
            return None
        return grade_submission(task, Path(d) / "final" / "submission.csv").score


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pack", type=Path, required=True)
    ap.add_argument("--cases", required=True, help="comma-separated task:card pairs")
    ap.add_argument("--seeds", default="0,1,2,3,4,5,6,7")
    ap.add_argument("--markdown", type=Path)
    args = ap.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    started, load_start = dt.datetime.now(dt.UTC), os.getloadavg()
    lines = [
        "| task | card | metric | refit alone (mean) | averaged (mean) | seeds averaged better / same / worse | per seed: refit / averaged |",
        "|---|---|---|---|---|---|---|",
    ]
    for case in args.cases.split(","):
        task_name, card = case.split(":")
        task = load_task(args.pack / task_name)
        higher = task.direction == "maximize"
        pairs: list[tuple[float, float]] = []
        for seed in seeds:
            alone = run_script(task, final_script(task, card, seed, average=False))
            averaged = run_script(task, final_script(task, card, seed, average=True))
            print(f"{task_name} {card} seed {seed}: refit {alone}  averaged {averaged}", flush=True)
            if alone is not None and averaged is not None:
                pairs.append((alone, averaged))
        if not pairs:
            continue
        better = sum((b > a) if higher else (b < a) for a, b in pairs)
        same = sum(a == b for a, b in pairs)
        mean_a = statistics.fmean(a for a, _ in pairs)
        mean_b = statistics.fmean(b for _, b in pairs)
        per_seed = ", ".join(f"{a:.4f} / {b:.4f}" for a, b in pairs)
        lines.append(
            f"| {task_name} | {card} | {task.metric_name} {'↑' if higher else '↓'} | {mean_a:.4f} | "
            f"{mean_b:.4f} | {better} / {same} / {len(pairs) - better - same} | {per_seed} |"
        )
    head = [
        f"- commit: `{git_output('rev-parse', 'HEAD')[:12]}` (dirty files under mlestar_jupyter/: "
        f"{len(git_output('status', '--porcelain', '--', 'mlestar_jupyter').splitlines())})",
        f"- date: {started:%Y-%m-%d %H:%M} UTC to {dt.datetime.now(dt.UTC):%H:%M} UTC",
        f"- machine: {os.cpu_count()} CPUs; OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', '')}; "
        f"load average {'/'.join(f'{x:.1f}' for x in load_start)} at the start, "
        f"{'/'.join(f'{x:.1f}' for x in os.getloadavg())} at the end",
        f"- seeds: {', '.join(map(str, seeds))}",
        "",
    ]
    text = "\n".join(head + lines) + "\n"
    print(text)
    if args.markdown:
        args.markdown.write_text(text)
        args.markdown.with_suffix(".json").write_text(json.dumps({"table": lines}, indent=2))


if __name__ == "__main__":
    main()
