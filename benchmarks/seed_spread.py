"""How much of a score is the seed: ours on a few tasks, once per seed, against a reference.

    python benchmarks/seed_spread.py --pack PACK_DIR --tasks a,b --seeds 0,1,2 [--budget 150]
        [--reference benchmarks/results/offline_vs_flaml.md] [--snapshot | --commit REV]
        [--out bench_out/seed_spread] [--markdown results.md]

Each task runs ``mlestar run TASK --backend offline --time-limit BUDGET --seed S`` once per seed,
one after another (the seed picks the validation split and the models' random states), and is
graded on the held-out answers like ``bench_offline_vs_flaml.py`` does.  For each task it prints
every seed's test score, their mean and standard deviation, and, with ``--reference``, the
``ours`` number of that task in a results file's first table and how many seeds reached it.
A single run's number against a single reference run says little on a test set of a few dozen
rows; this says how far apart two runs of the same code land.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import statistics
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_offline_vs_flaml import git_output, provenance, run_ours, snapshot_source  # noqa: E402

from mlestar_jupyter.metrics import get_metric  # noqa: E402
from mlestar_jupyter.task import load_task  # noqa: E402


@dataclass
class Spread:
    """One task's scores, one per seed, and the reference it is read against."""

    task: str
    metric: str
    higher: bool
    scores: dict[int, float | None] = field(default_factory=dict)
    seconds: dict[int, float] = field(default_factory=dict)
    reference: float | None = None

    def graded(self) -> list[float]:
        return [s for s in self.scores.values() if s is not None]

    def mean(self) -> float | None:
        g = self.graded()
        return statistics.fmean(g) if g else None

    def sd(self) -> float | None:
        g = self.graded()
        return statistics.stdev(g) if len(g) > 1 else None

    def reached(self) -> int:
        """Seeds whose score is at least as good as the reference."""
        if self.reference is None:
            return 0
        ref = self.reference
        return sum(1 for s in self.graded() if (s >= ref if self.higher else s <= ref))


def reference_scores(path: Path) -> dict[str, float]:
    """The ``ours`` column of the first markdown table in ``path`` whose header names it."""
    found: dict[str, float] = {}
    column: int | None = None
    for line in path.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.lstrip().startswith("|"):
            if column is not None:
                break  # the first table ended
            continue
        if column is None:
            if "ours" in cells and cells[0] == "task":
                column = cells.index("ours")
            continue
        if set(line.replace("|", "").strip()) <= {"-", ":", " "}:
            continue  # the header's rule
        m = re.search(r"-?\d+(?:\.\d+)?", cells[column]) if len(cells) > column else None
        if m:
            found[cells[0]] = float(m.group())
    return found


def _fmt(x: float | None) -> str:
    return "–" if x is None else (f"{x:.4f}" if abs(x) < 100 else f"{x:.2f}")


def markdown(rows: list[Spread], seeds: list[int], budget: float, prov: object) -> str:
    p = asdict(prov)  # type: ignore[call-overload]
    lines = [
        f"- commit: `{p['commit'][:12]}`"
        + (" (ours ran from `git archive` of it)" if p["snapshot"] else ""),
        f"- date: {p['started']} to {p['finished']}",
        f"- machine: {p['cpus']} CPUs; OMP_NUM_THREADS={p['omp_threads'] or 'unset'}; load average "
        f"(1/5/15 min) {'/'.join(f'{x:.1f}' for x in p['load_start'])} at the start, "
        f"{'/'.join(f'{x:.1f}' for x in p['load_end'])} at the end",
        f"- budget {budget:g} s per run; seeds {', '.join(map(str, seeds))}",
        "",
        "| task | metric | "
        + " | ".join(f"seed {s}" for s in seeds)
        + " | mean | sd | reference | seeds at least as good |",
        "|---|---|" + "---|" * len(seeds) + "---|---|---|---|",
    ]
    for r in rows:
        arrow = "↑" if r.higher else "↓"
        lines.append(
            f"| {r.task} | {r.metric} {arrow} | "
            + " | ".join(_fmt(r.scores.get(s)) for s in seeds)
            + f" | {_fmt(r.mean())} | {_fmt(r.sd())} | {_fmt(r.reference)} | "
            + (f"{r.reached()} of {len(r.graded())}" if r.reference is not None else "–")
            + " |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pack", type=Path, required=True)
    ap.add_argument("--tasks", required=True, help="comma-separated task folder names")
    ap.add_argument("--seeds", default="0,1,2", help="comma-separated seeds (default 0,1,2)")
    ap.add_argument("--budget", type=float, default=150.0)
    ap.add_argument("--reference", type=Path, help="a results file whose first table has 'ours'")
    ap.add_argument("--snapshot", action="store_true", help="run the committed code (git archive)")
    ap.add_argument(
        "--commit",
        help="run the code of this commit (git archive of it; say, the one that made the reference)",
    )
    ap.add_argument("--out", type=Path, default=Path("bench_out/seed_spread"))
    ap.add_argument("--markdown", type=Path)
    args = ap.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    refs = reference_scores(args.reference) if args.reference else {}
    prov = provenance([args.budget], args.snapshot or bool(args.commit))
    if args.commit:
        prov.commit = git_output("rev-parse", args.commit) or args.commit
    src = snapshot_source(args.out, prov.commit) if prov.snapshot else None
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    rows: list[Spread] = []
    for name in [t for t in args.tasks.split(",") if t]:
        task_dir = args.pack / name
        task = load_task(task_dir)
        higher = get_metric(task.metric_name).higher_is_better
        row = Spread(name, task.metric_name, higher, reference=refs.get(name))
        for seed in seeds:
            out = run_ours(task_dir, args.budget, args.out / f"b{args.budget:g}", higher, src, seed)
            row.scores[seed], row.seconds[seed] = out.score, out.seconds or 0.0
            print(f"{name} seed {seed}: {_fmt(out.score)} ({row.seconds[seed]:.0f} s)", flush=True)
        rows.append(row)
    prov.finished = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    prov.load_end = os.getloadavg()
    (args.out / "spread.json").write_text(
        json.dumps({"provenance": asdict(prov), "rows": [asdict(r) for r in rows]}, indent=1)
    )
    text = markdown(rows, seeds, args.budget, prov)
    print(text)
    if args.markdown:
        args.markdown.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
