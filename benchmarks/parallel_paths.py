"""L=1 against L=2 parallel runs on the same task, knobs and budget (offline backend).

    python benchmarks/parallel_paths.py [--budget 90] [--task example_notebooks/tasks/breast-cancer]
                                        [--out bench_out/parallel_paths]
                                        [--markdown benchmarks/results/parallel_paths.md]

Each setting runs ``mlestar run TASK --time-limit BUDGET -M 2 -T 1 -K 2 -R 0 -L {1,2}`` one after
the other.  Per run the table shows the wall time, the candidates journaled, the notebooks that
were actually executed (identical code shared between the paths runs once), the best validation
score and the run's status; the speed-up is executed candidates per second of L=2 over L=1.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KNOBS = ["-M", "2", "-T", "1", "-K", "2", "-R", "0", "--no-progress"]


@dataclass
class Row:
    paths: int
    seconds: float
    candidates: int
    executed: int
    best: float | None
    status: str

    @property
    def per_second(self) -> float:
        return self.executed / self.seconds if self.seconds else 0.0


def one_run(task: Path, paths: int, budget: int, out: Path) -> Row:
    """Run the CLI once with ``-L paths`` and read its journal."""
    run_dir = out / f"L{paths}"
    if run_dir.exists():
        shutil.rmtree(run_dir)
    cmd = [sys.executable, "-m", "mlestar_jupyter.cli", "run", str(task), "-L", str(paths)]
    cmd += ["--time-limit", str(budget), "--out", str(run_dir), *KNOBS]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    t0 = time.monotonic()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=budget * 4)
    seconds = time.monotonic() - t0
    if done.returncode != 0:
        print(f"$ {' '.join(cmd)}\nexit {done.returncode}\n{done.stderr[-2000:]}", file=sys.stderr)
    events = [json.loads(x) for x in (run_dir / "events.jsonl").read_text().splitlines() if x]
    cands = [e for e in events if e["type"] == "candidate"]
    finished = [e["data"] for e in events if e["type"] == "run_finished"]
    executions = run_dir / "executions"
    return Row(
        paths=paths,
        seconds=seconds,
        candidates=len(cands),
        executed=len(list(executions.iterdir())) if executions.exists() else 0,
        best=finished[-1].get("best_score") if finished else None,
        status=finished[-1].get("status", "") if finished else "no run_finished",
    )


def markdown(rows: list[Row], budget: int, task: Path, commit: str) -> str:
    """The results table, the speed-up and how the numbers were taken."""
    lines = [
        "# Parallel paths: L=1 against L=2 (offline backend)",
        "",
        f"Commit `{commit}`; task `{task.relative_to(ROOT)}`; budget {budget} s per run; knobs "
        f"`{' '.join(KNOBS)}`; produced by `python benchmarks/parallel_paths.py`.",
        "",
        "| L | wall (s) | candidates journaled | notebooks executed | executed / s | best score | status |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        best = "—" if r.best is None else f"{r.best:.5f}"
        lines.append(
            f"| {r.paths} | {r.seconds:.1f} | {r.candidates} | {r.executed} | "
            f"{r.per_second:.3f} | {best} | {r.status} |"
        )
    base = rows[0].per_second
    ratio = rows[-1].per_second / base if base else float("nan")
    lines += [
        "",
        f"Speed-up (notebooks executed per second, L=2 over L=1): **{ratio:.2f}x**.",
        "",
        "Each of the L=2 paths is its own run of Algorithms 1 and 2 (its own retrieval order and "
        "seed, initial solutions, merge and refinement) in its own kernel; they share only the "
        "execution cache.  The numbers are noisy: the machine (2 cores) was loaded by other jobs "
        "(a CI run) while they were taken, and a run ends when its budget or its steps run out, "
        "so wall times are not a fixed amount of work.",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=int, default=90)
    ap.add_argument("--task", type=Path, default=ROOT / "example_notebooks/tasks/breast-cancer")
    ap.add_argument("--out", type=Path, default=ROOT / "bench_out" / "parallel_paths")
    ap.add_argument("--markdown", type=Path, default=None)
    args = ap.parse_args()
    task = args.task.resolve()
    rows = [one_run(task, paths, args.budget, args.out) for paths in (1, 2)]
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    text = markdown(rows, args.budget, task, commit)
    print(text)
    if args.markdown:
        args.markdown.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
