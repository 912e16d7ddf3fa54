"""A stand-in for ``mlestar run`` used by the server tests: same CLI shape, same run folder.

It writes the run folder through the real ``RunJournal`` (run.json, events.jsonl, decisions),
emits a realistic sequence (run_started, phase, candidates, a proposal with a cell id), then waits
for decisions and controls like the real loop does.  Knobs (environment variables):
``FAKE_RUN_SECONDS`` (how long before finishing, default 30), ``FAKE_RUN_STUBBORN=1`` (ignore the
stop control, so only a signal ends it).  ``argv.json`` and ``env.json`` record what it was given.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from mlestar_jupyter.journal import RunJournal


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("cmd", choices=["run"])
    ap.add_argument("task_dir")
    ap.add_argument("--out", required=True)
    ap.add_argument("--notebook")
    ap.add_argument("--backend", default="offline")
    ap.add_argument("--model")
    ap.add_argument("--mode", default="autopilot")
    ap.add_argument("--time-limit", type=float)
    ap.add_argument("--block")
    for flag in ("--models", "--inner", "--outer", "--parallel", "--ensemble-rounds"):
        ap.add_argument(flag, type=int)
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)

    out = Path(args.out)
    (out / "argv.json").write_text(json.dumps(argv))
    (out / "env.json").write_text(json.dumps(dict(os.environ)))
    j = RunJournal.create(out, {"task_dir": args.task_dir, "backend": args.backend})
    task = {"id": "bc", "metric_name": "roc_auc", "direction": "maximize"}
    j.emit("run_started", key="start", task=task, config={"mode": args.mode}, backend=args.backend)
    j.emit("phase", key="phase:init", phase="init", path=0)
    j.emit(
        "candidate",
        key="c:n1",
        node_id="n1",
        parent_id=None,
        phase="init",
        path=0,
        label="lgbm",
        block_id=None,
        score=0.91,
        ok=True,
        error=None,
        duration=1.2,
        notebook="candidates/n1.ipynb",
    )
    j.emit("phase", key="phase:refine", phase="refine", path=0)
    j.emit(
        "candidate",
        key="c:n2",
        node_id="n2",
        parent_id="n1",
        phase="refine",
        path=0,
        label="refine b2",
        block_id="b2",
        score=0.93,
        ok=True,
        error=None,
        duration=1.1,
        notebook="candidates/n2.ipynb",
    )
    j.emit(
        "proposal",
        key="p:p1",
        proposal_id="p1",
        path=0,
        node_id="n2",
        block_id="b2",
        cell_id="cell-2",
        old_source="model = LGBMClassifier()",
        new_source="model = LGBMClassifier(n_estimators=400)",
        plan="More trees.",
        score_before=0.91,
        score_after=0.93,
    )
    seconds = float(os.environ.get("FAKE_RUN_SECONDS", "30"))
    stubborn = os.environ.get("FAKE_RUN_STUBBORN") == "1"
    t0 = time.time()
    while time.time() - t0 < seconds:
        d = j.decision("p1")
        if d and not j.has("d:p1"):
            j.emit("decision", key="d:p1", proposal_id="p1", decision=d["decision"], by=d.get("by"))
        if j.control().get("stop") and not stubborn:
            j.emit(
                "run_finished",
                key="end",
                status="stopped",
                best_score=0.93,
                elapsed=time.time() - t0,
            )
            j.update_meta(status="stopped")
            return 0
        time.sleep(0.05)
    j.emit("phase", key="phase:done", phase="done", path=0)
    j.emit(
        "final",
        key="final",
        score=0.94,
        notebook="final/solution.ipynb",
        submission="final/submission.csv",
        rung=0,
        valid=True,
        reason="",
    )
    j.emit("run_finished", key="end", status="done", best_score=0.94, elapsed=time.time() - t0)
    j.update_meta(status="done")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
