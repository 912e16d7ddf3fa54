"""Press MLE-STAR on plain, untagged user notebooks (offline backend): does it understand them,
ablate them, and propose cells that beat the user's own score?

    python benchmarks/user_notebooks.py [--budget 75] [--pack /tmp/userpack_tasks]
                                        [--only a,b] [--out bench_out/user_notebooks]
                                        [--markdown benchmarks/results/user_notebooks.md]

The notebooks are ``tests/files/user_notebooks/*.ipynb``; the first word of a file's name names
its task: ``bc`` and ``diabetes`` are the shipped ``example_notebooks/tasks``; ``wine``, ``digits``
and ``rotten`` are built by ``mlestar bench prepare`` (``tiny-wine``, ``tiny-digits``,
``rotten-tomatoes``) into ``--pack`` when missing; a notebook whose task cannot be built is
skipped.  Each runs ``mlestar run TASK --notebook NB --time-limit BUDGET -T 2 -K 2 -L 2 -R 1``.

Per notebook the table shows the user's baseline validation score, the best proposal's score,
the proposals (and how many beat the baseline), the ablation variants of the first study, whether
any block was targeted twice or any (block, plan) repeated on a path, and the run's status.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mlestar_jupyter.task import load_task  # noqa: E402

NOTEBOOKS = ROOT / "tests" / "files" / "user_notebooks"
SHIPPED = {
    "bc": ROOT / "example_notebooks" / "tasks" / "breast-cancer",
    "diabetes": ROOT / "example_notebooks" / "tasks" / "diabetes",
}
PACK = {"wine": "tiny-wine", "digits": "tiny-digits", "rotten": "rotten-tomatoes"}


@dataclass
class Row:
    notebook: str
    task: str
    baseline: float | None = None
    best: float | None = None
    proposals: int = 0
    beating: int = 0
    ablation_variants: int = 0
    block_refined_twice: bool = False
    plan_repeated: bool = False
    status: str = ""
    message: str = ""
    seconds: float = 0.0


def task_dir(name: str, pack: Path) -> Path | None:
    """The task folder of a notebook, building pack tasks on first use (None: cannot be built)."""
    key = name.split("_")[0]
    if key in SHIPPED:
        return SHIPPED[key]
    pack_name = PACK.get(key)
    if pack_name is None:
        return None
    if not (pack / pack_name / "task.json").exists():
        from mlestar_jupyter.evaluator import prepare_pack

        prepare_pack(pack, tasks=[pack_name], tiny=True, quick=True, log=lambda _m: None)
    return pack / pack_name if (pack / pack_name / "task.json").exists() else None


def summarize(nb: str, task: str, run_dir: Path, seconds: float, higher: bool) -> Row:
    """The table row of one run, read from its journal."""
    row = Row(nb, task, seconds=seconds)
    events = [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines()]
    targets: dict[str, list[str]] = {}
    plans: dict[str, list[tuple[str, str]]] = {}
    for e in events:
        d, kind = e.get("data", {}), e.get("type")
        if (
            kind == "node"
            and d.get("id") == "user"
            or (kind == "candidate" and d.get("node_id") == "user")
        ):
            row.baseline = d.get("score", row.baseline)
        if kind == "ablation" and d.get("t") == 0 and not row.ablation_variants:
            row.ablation_variants = len(d.get("results", []))
            row.baseline = d.get("baseline") if row.baseline is None else row.baseline
        if kind == "target":
            targets.setdefault(d["path"], []).append(d["block_id"])
        if kind == "plan":
            plans.setdefault(d["path"], []).append((d["block_id"], d["plan"]))
        if kind == "proposal" and not str(d.get("plan", "")).startswith("(needed by"):
            row.proposals += 1
            after = d.get("score_after")
            if after is not None and row.baseline is not None:
                if (after > row.baseline) if higher else (after < row.baseline):
                    row.beating += 1
                    if row.best is None or ((after > row.best) if higher else (after < row.best)):
                        row.best = after
        if kind == "run_finished":
            row.status, row.message = d.get("status", ""), d.get("reason", "")
    if not row.status:
        row.status = "(the run's process ended without run_finished)"
    row.block_refined_twice = any(len(v) != len(set(v)) for v in targets.values())
    row.plan_repeated = any(len(v) != len(set(v)) for v in plans.values())
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--budget", type=int, default=75, help="seconds per notebook")
    ap.add_argument("--pack", type=Path, default=Path("/tmp/userpack_tasks"))
    ap.add_argument("--only", default="", help="comma-separated notebook names (no .ipynb)")
    ap.add_argument("--out", type=Path, default=ROOT / "bench_out" / "user_notebooks")
    ap.add_argument("--markdown", type=Path, default=None)
    args = ap.parse_args()
    only = {n for n in args.only.split(",") if n}
    rows: list[Row] = []
    env = {
        **os.environ,
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }
    for nb in sorted(NOTEBOOKS.glob("*.ipynb")):
        if only and nb.stem not in only:
            continue
        task = task_dir(nb.stem, args.pack)
        if task is None:
            print(f"{nb.stem}: task not available; skipped")
            continue
        run_dir = args.out / nb.stem
        cmd = ["mlestar", "run", str(task), "--notebook", str(nb), "--time-limit", str(args.budget)]
        cmd += ["-T", "2", "-K", "2", "-L", "2", "-R", "1", "--out", str(run_dir)]
        if run_dir.exists():
            import shutil

            shutil.rmtree(run_dir)
        t0 = time.perf_counter()
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=args.budget * 4)
        (args.out / f"{nb.stem}.log").write_text(
            f"$ {' '.join(cmd)}\nexit {done.returncode}\n{done.stdout}\n{done.stderr}"
        )
        secs = time.perf_counter() - t0
        t = load_task(task)
        from mlestar_jupyter.metrics import get_metric

        row = summarize(nb.stem, t.id, run_dir, secs, get_metric(t.metric_name).higher_is_better)
        rows.append(row)
        print(_line(row), flush=True)
    text = _table(rows)
    print(text)
    if args.markdown:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()
        args.markdown.write_text(
            f"# User notebooks on the offline backend\n\ncommit {commit}, budget {args.budget} s "
            f"per notebook, `-T 2 -K 2 -L 2 -R 1`, machine shared (2 cores).\n\n{text}\n\n"
            f"```json\n{json.dumps([asdict(r) for r in rows], indent=1)}\n```\n"
        )


def _fmt(v: float | None) -> str:
    return "—" if v is None else f"{v:.5g}"


def _line(r: Row) -> str:
    return (
        f"| {r.notebook} | {r.task} | {_fmt(r.baseline)} | {_fmt(r.best)} | {r.proposals} "
        f"({r.beating} better) | {r.ablation_variants} | {'yes' if r.block_refined_twice else 'no'} "
        f"| {'yes' if r.plan_repeated else 'no'} | {r.status}{': ' + r.message if r.message else ''} "
        f"| {r.seconds:.0f} |"
    )


def _table(rows: list[Row]) -> str:
    head = (
        "| notebook | task | baseline | best | proposals | ablation variants | block refined twice "
        "| plan repeated | status | s |\n|---|---|---|---|---|---|---|---|---|---|"
    )
    improved = sum(1 for r in rows if r.beating)
    return (
        head
        + "\n"
        + "\n".join(_line(r) for r in rows)
        + f"\n\n{improved}/{len(rows)} notebooks end with at least one proposal that beats the original."
    )


if __name__ == "__main__":
    main()
