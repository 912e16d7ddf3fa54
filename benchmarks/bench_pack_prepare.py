"""Build the full task pack and check every task end to end; print sizes and timings.

    python benchmarks/bench_pack_prepare.py [--out DIR] [--tasks NAME ...] [--quick] [--json FILE]

For each task: build it (skipped tasks say which package is missing), load it with Task.load,
grade the private answers as a submission (must be valid and rank first) and the sample
submission (must be valid), and report the leaderboard's spread and the TAM-Bench difficulty.
Needs the packages of scripts/install_bench_deps.sh for the non-tiny tasks.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import pandas as pd  # noqa: E402

from mlestar_jupyter.evaluator import grade_submission  # noqa: E402
from mlestar_jupyter.evaluator.pack.build import pack_task_names, prepare  # noqa: E402
from mlestar_jupyter.task import Task  # noqa: E402


def check(task_dir: Path) -> dict:
    """Grade the answers and the sample submission of one built task."""
    task = Task.load(task_dir)
    with tempfile.TemporaryDirectory() as tmp:
        perfect = Path(tmp) / "perfect.csv"
        answers = pd.read_csv(task.answers_path, dtype=str)
        sample = pd.read_csv(task.sample_submission_path, dtype=str)
        if list(answers.columns) != list(
            sample.columns
        ):  # class-probability columns: one-hot answers
            label = [c for c in answers.columns if c != task.id_col][0]
            answers = pd.DataFrame(
                {
                    task.id_col: answers[task.id_col],
                    **{c: (answers[label] == c).astype(float) for c in sample.columns[1:]},
                }
            )
        answers.to_csv(perfect, index=False)
        best = grade_submission(task, perfect)
        base = grade_submission(task, task.sample_submission_path)
    board = pd.read_csv(task_dir / "leaderboard.csv")
    spec = json.loads((task_dir / "task.json").read_text())
    n_files = sum(1 for p in (task_dir / "input").rglob("*") if p.is_file())
    return {
        "modality": task.modality,
        "metric": task.metric_name,
        "entries": len(board),
        "board_best": float(board.score.iloc[0]),
        "board_worst": float(board.score.iloc[-1]),
        "difficulty": spec["difficulty"]["score"],
        "level": spec["difficulty"]["level"],
        "input_files": n_files,
        "answers_valid": best.valid_submission,
        "answers_rank": best.rank,
        "answers_score": best.score,
        "sample_valid": base.valid_submission,
        "sample_rank_pct": base.rank_pct,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None, help="pack folder (default: a temporary one)")
    ap.add_argument("--tasks", nargs="+", choices=pack_task_names())
    ap.add_argument("--quick", action="store_true", help="capped reference ladder")
    ap.add_argument("--json", help="write the results here as JSON")
    args = ap.parse_args(argv)
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="mlestar-pack-"))
    t0 = time.perf_counter()
    results = prepare(out, args.tasks, quick=args.quick, log=lambda s: print(s, flush=True))
    rows, ok = [], True
    for r in results:
        row = {
            "task": r.name,
            "seconds": round(r.seconds, 1),
            "MB": round(r.bytes / 1e6, 2),
            "skipped": r.skipped,
        }
        if r.path is not None:
            row.update(check(r.path))
            ok &= bool(row["answers_valid"] and row["answers_rank"] == 1 and row["sample_valid"])
        rows.append(row)
    df = pd.DataFrame(rows)
    print(df.drop(columns=["skipped"]).to_string(index=False))
    for r in results:
        if r.skipped:
            print("skipped:", r.skipped)
    print(f"total {time.perf_counter() - t0:.0f}s in {out}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2, default=str))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
