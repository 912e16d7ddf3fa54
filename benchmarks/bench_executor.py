"""Benchmark: a small candidate through the warm kernel pool vs ``python script.py``.

Prints the ratio ``executor_seconds / subprocess_seconds`` (the target is <= 1.2).  Both run
the same code on the same data (a logistic regression on scikit-learn's breast-cancer set);
the executor's time covers everything the search loop pays per candidate: making the work
folder and input view, taking a warm kernel, running the cells, killing the kernel and
checking the input.  The warm pool's kernels pre-import ``COMMON_PREIMPORTS`` (numpy, pandas, sklearn parts).

    python benchmarks/bench_executor.py [--repeat 3] [--threads 1] [--json out.json]

On a shared, oversubscribed machine keep ``--threads 1``: OpenMP/BLAS threads with
``OMP_WAIT_POLICY=PASSIVE`` make small fits many times slower there, on both sides.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mlestar_jupyter.execution import COMMON_PREIMPORTS, Executor
from mlestar_jupyter.execution.sandbox import THREAD_VARS
from mlestar_jupyter.notebook import SolutionNotebook

CELLS = (
    ("load", "import pandas as pd\ntrain = pd.read_csv('input/train.csv')"),
    (
        "model",
        "from sklearn.linear_model import LogisticRegression\n"
        "from sklearn.pipeline import make_pipeline\n"
        "from sklearn.preprocessing import StandardScaler\n"
        "from sklearn.model_selection import train_test_split\n"
        "from sklearn.metrics import roc_auc_score\n"
        "X, y = train.drop(columns=['target']), train['target']\n"
        "Xtr, Xva, ytr, yva = train_test_split(X, y, test_size=0.25, random_state=0)\n"
        "model = make_pipeline(StandardScaler(), LogisticRegression()).fit(Xtr, ytr)\n"
        "print(f'Final Validation Performance: {roc_auc_score(yva, model.predict_proba(Xva)[:, 1])}')",
    ),
    (
        "submission",
        "import os\nos.makedirs('final', exist_ok=True)\n"
        "pd.DataFrame({'id': range(len(Xva)), 'target': model.predict_proba(Xva)[:, 1]})"
        ".to_csv('final/submission.csv', index=False)",
    ),
)


def make_input(root: Path) -> Path:
    """Write the breast-cancer set as ``train.csv`` under ``root/input``."""
    from sklearn.datasets import load_breast_cancer

    inp = root / "input"
    inp.mkdir(parents=True)
    load_breast_cancer(as_frame=True).frame.to_csv(inp / "train.csv", index=False)
    return inp


def time_subprocess(source: str, workdir: Path, input_dir: Path, threads: int) -> float:
    """Seconds for ``python script.py`` in a work folder laid out like the executor's, with the
    kernel's thread caps (so both sides do the same numeric work)."""
    workdir.mkdir(parents=True)
    (workdir / "input").symlink_to(input_dir)
    (workdir / "script.py").write_text(source)
    t0 = time.perf_counter()
    env = {**os.environ, **dict.fromkeys(THREAD_VARS, str(threads)), "OMP_WAIT_POLICY": "PASSIVE"}
    cmd = [sys.executable, "script.py"]
    done = subprocess.run(cmd, cwd=workdir, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if done.returncode or "Final Validation Performance" not in done.stdout:
        raise SystemExit(f"the script failed:\n{done.stderr}")
    return seconds


def main() -> None:
    """Run the comparison and print the ratio."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--repeat", type=int, default=1, help="pairs of runs (median reported)")
    ap.add_argument("--threads", type=int, default=1, help="thread cap on both sides")
    ap.add_argument("--json", type=Path, help="also write the numbers here")
    args = ap.parse_args()
    nb = SolutionNotebook.new(CELLS)
    with tempfile.TemporaryDirectory(prefix="bench-exec-") as tmp:
        root = Path(tmp)
        input_dir = make_input(root)
        executor = Executor(
            timeout=120, pool_size=1, preimport=COMMON_PREIMPORTS, threads_per_kernel=args.threads
        )
        try:
            script, pooled = [], []
            for i in range(args.repeat):
                executor.warm_up()  # the search loop's pool refills while the LLM thinks
                t0 = time.perf_counter()
                r = executor.run(nb, input_dir=input_dir, workdir=root / f"nb{i}")
                pooled.append(time.perf_counter() - t0)
                if not r.ok or r.score is None:
                    raise SystemExit(f"the notebook failed: {r.error}\n{r.traceback}")
                script.append(time_subprocess(nb.source, root / f"py{i}", input_dir, args.threads))
            with Executor(timeout=120, threads_per_kernel=args.threads) as cold_executor:
                t0 = time.perf_counter()
                cold_executor.run(nb, input_dir=input_dir, workdir=root / "cold")
                cold = time.perf_counter() - t0
        finally:
            executor.close()
    out = {
        "subprocess_s": statistics.median(script),
        "executor_s": statistics.median(pooled),
        "cold_executor_s": cold,
        "repeat": args.repeat,
        "threads": args.threads,
        "sandboxed": r.sandboxed,
        "score": r.score,
    }
    out["ratio"] = out["executor_s"] / out["subprocess_s"]
    print(
        f"python script.py: {out['subprocess_s']:.3f}s  executor (warm pool): {out['executor_s']:.3f}s  "
        f"ratio: {out['ratio']:.2f} (target <= 1.2)"
    )
    print(f"for reference, no pool (fresh kernel per run): {cold:.3f}s")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
