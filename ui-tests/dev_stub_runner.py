"""DEVELOPMENT ONLY: a stand-in for ``mlestar run`` to work on the UI before the agent exists.

The Galata tests do NOT use it unless ``MLESTAR_UI_STUB=1`` is set (see
``jupyter_server_test_config.py``); the real tests run the real offline backend.

Same CLI shape as ``mlestar run``; it writes the run folder through the real ``RunJournal`` and
proposes two changes to real cells of ``--notebook`` (the model block, then the evaluate
block), honouring ``--mode step`` (waits for each decision) and the stop control.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import nbformat

from mlestar_jupyter.journal import RunJournal


def _code_cells(path: Path) -> list[dict]:
    nb = nbformat.read(path, as_version=4)
    return [c for c in nb.cells if c.cell_type == "code"]


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("cmd", choices=["run"])
    ap.add_argument("task_dir")
    ap.add_argument("--out", required=True)
    ap.add_argument("--notebook", required=True)
    ap.add_argument("--backend", default="offline")
    ap.add_argument("--model")
    ap.add_argument("--mode", default="autopilot")
    ap.add_argument("--time-limit", type=float, default=60)
    for flag in ("--models", "--inner", "--outer", "--parallel", "--ensemble-rounds"):
        ap.add_argument(flag, type=int)
    ap.add_argument("--no-progress", action="store_true")
    args, _ = ap.parse_known_args(argv)

    cells = _code_cells(Path(args.notebook))
    j = RunJournal.create(Path(args.out), {"task_dir": args.task_dir, "backend": args.backend})
    task = {"id": "bc", "metric_name": "roc_auc", "direction": "maximize"}
    j.emit("run_started", key="start", task=task, config={"mode": args.mode}, backend=args.backend)
    j.emit("phase", key="phase:refine", phase="refine", path=0)
    j.emit(
        "candidate",
        key="c:n1",
        node_id="n1",
        parent_id=None,
        phase="init",
        path=0,
        label="start",
        block_id=None,
        score=0.91,
        ok=True,
        error=None,
        duration=0.5,
        notebook="start.ipynb",
    )
    t0 = time.time()
    best = 0.91
    for i, cell in enumerate(cells[1:3], start=1):
        time.sleep(1.0)
        pid = f"p{i}"
        new = cell.source + f"\n# stub proposal {i}: tuned"
        score = round(best + 0.01, 4)
        j.emit(
            "candidate",
            key=f"c:n{i + 1}",
            node_id=f"n{i + 1}",
            parent_id="n1",
            phase="refine",
            path=0,
            label=f"refine {cell.metadata['mlestar']['block_id']}",
            block_id=cell.metadata["mlestar"]["block_id"],
            score=score,
            ok=True,
            error=None,
            duration=0.5,
            notebook="start.ipynb",
        )
        j.emit(
            "proposal",
            key=f"p:{pid}",
            proposal_id=pid,
            path=0,
            node_id=f"n{i + 1}",
            block_id=cell.metadata["mlestar"]["block_id"],
            cell_id=cell.get("id"),
            old_source=cell.source,
            new_source=new,
            plan=f"Stub plan {i}.",
            score_before=best,
            score_after=score,
        )
        best = score
        while args.mode == "step" and not j.decision(pid):
            if j.control().get("stop") or time.time() - t0 > args.time_limit:
                break
            time.sleep(0.1)
        d = j.decision(pid)
        if d:
            j.emit(
                "decision", key=f"d:{pid}", proposal_id=pid, decision=d["decision"], by=d.get("by")
            )
    j.emit("phase", key="phase:done", phase="done", path=0)
    j.emit(
        "final",
        key="final",
        score=best,
        notebook="final/solution.ipynb",
        submission="final/submission.csv",
        rung=0,
        valid=True,
        reason="",
    )
    j.emit("run_finished", key="end", status="done", best_score=best, elapsed=time.time() - t0)
    j.update_meta(status="done")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
