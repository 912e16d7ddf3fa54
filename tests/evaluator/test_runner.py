"""`bench run` with a fake agent: grading of every outcome, and the md/html/json report."""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

import pandas as pd
import pytest

from mlestar_jupyter.evaluator.runner import AgentOutcome, CliAgent, run_bench

from ._util import answers_of, sample_of

NOTEBOOK = {
    "cells": [
        {
            "cell_type": "code",
            "metadata": {},
            "outputs": [],
            "execution_count": None,
            "source": "import pandas as pd\nfrom sklearn.linear_model import LogisticRegression\nclf = LogisticRegression(random_state=0)\n",
        }
    ],
    "metadata": {},
    "nbformat": 4,
    "nbformat_minor": 5,
}


def fake_agent(task_dir: Path, out_dir: Path, agent: str, time_limit: float) -> AgentOutcome:
    """Perfect on breast cancer, invalid on wine, nothing on diabetes, crashes on digits."""
    final = out_dir / "final"
    final.mkdir(parents=True, exist_ok=True)
    if task_dir.name == "tiny-digits":
        raise RuntimeError("kernel died")
    if task_dir.name == "tiny-diabetes":
        return AgentOutcome(None, None, 1.5, "ran out of time")
    sub = final / "submission.csv"
    if task_dir.name == "tiny-breast-cancer":
        answers_of(task_dir).to_csv(sub, index=False)
    else:
        sample_of(task_dir).iloc[:-3].to_csv(sub, index=False)
    nb = final / "solution.ipynb"
    nb.write_text(json.dumps(NOTEBOOK))
    return AgentOutcome(sub, nb, 2.0, None)


def test_bench_run_grades_and_writes_reports(tiny_pack: Path, tmp_path: Path) -> None:
    tasks = [
        tiny_pack / n for n in ("tiny-breast-cancer", "tiny-wine", "tiny-diabetes", "tiny-digits")
    ]
    lines: list[str] = []
    report = run_bench(
        tasks, tmp_path / "out", "offline", 60, run_agent=fake_agent, log=lines.append
    )
    g = {r.grade.task_id: r.grade for r in report.tasks}
    assert g["tiny-breast-cancer"].valid_submission and g["tiny-breast-cancer"].medal == "gold"
    assert g["tiny-wine"].made_submission and not g["tiny-wine"].valid_submission
    assert g["tiny-wine"].invalid_reason.startswith("missing 3 ids, first: ")
    assert (
        not g["tiny-diabetes"].made_submission
        and g["tiny-diabetes"].invalid_reason == "no submission file"
    )
    assert not g["tiny-digits"].made_submission and "kernel died" in (
        report.tasks[3].agent_error or ""
    )
    bc = g["tiny-breast-cancer"].constraints
    assert [v.verdict for v in bc] == [
        "not_judged",
        "pass",
    ]  # "probability" needs a judge; "no external data" is static
    s = report.summary
    assert (s.made_submission_rate, s.valid_submission_rate, s.any_medal_rate) == (0.5, 0.25, 0.25)
    r_bc = g["tiny-breast-cancer"].rank_pct
    # three tabular tasks weigh 1/3 each, the image task 1: failed tasks count as RankPct 1.0
    assert s.weighted_rank_pct == pytest.approx(((r_bc + 1 + 1) / 3 + 1) / 2)
    assert s.rank_pct_by_modality["image"] == 1.0

    out = tmp_path / "out"
    md, html, js = (
        (out / "report.md").read_text(),
        (out / "report.html").read_text(),
        json.loads((out / "report.json").read_text()),
    )
    assert "tiny-breast-cancer" in md and "![Rates](rates.png)" in md and "missing 3 ids" in md
    assert html.count("data:image/png;base64,") == 3
    png = base64.b64decode(html.split("data:image/png;base64,")[1].split("'")[0])
    assert png.startswith(b"\x89PNG")
    for name in ("scores.png", "ranks.png", "rates.png"):
        assert (out / name).read_bytes().startswith(b"\x89PNG")
    assert js["summary"]["valid_submission_rate"] == 0.25 and len(js["tasks"]) == 4
    assert js["tasks"][0]["grade"]["score"] == pytest.approx(1.0)
    assert any("report:" in line for line in lines)


FAKE_MLESTAR = """
import shutil, sys
from pathlib import Path
args = sys.argv[1:]
assert args[0] == "run" and args[2] == "--backend" and args[4] == "--time-limit" and args[6] == "--out", args
task, backend, out = Path(args[1]), args[3], Path(args[7])
print("fake mlestar", backend)
if backend == "broken":
    sys.exit(3)
if backend == "slow":
    import time; time.sleep(30)
(out / "final").mkdir(parents=True)
shutil.copy(task.parent / "answers" / task.name / "answers.csv", out / "final" / "submission.csv")
(out / "final" / "solution.ipynb").write_text('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}')
"""


def test_cli_agent_runs_the_command_and_collects_final(tiny_pack: Path, tmp_path: Path) -> None:
    agent = CliAgent(command=(sys.executable, "-c", FAKE_MLESTAR), grace_factor=0, grace_s=10)
    ok = agent(tiny_pack / "tiny-wine", tmp_path / "ok", "offline", 5)
    assert ok.error is None and ok.submission_path == tmp_path / "ok" / "final" / "submission.csv"
    assert (
        ok.solution_notebook_path is not None
        and "fake mlestar offline" in (tmp_path / "ok" / "agent.log").read_text()
    )
    bad = agent(tiny_pack / "tiny-wine", tmp_path / "bad", "broken", 5)
    assert bad.submission_path is None and "exited with 3" in (bad.error or "")
    slow = CliAgent(command=(sys.executable, "-c", FAKE_MLESTAR), grace_factor=0, grace_s=1)(
        tiny_pack / "tiny-wine", tmp_path / "slow", "slow", 5
    )
    assert slow.submission_path is None and "was stopped" in (slow.error or "")


def test_reports_survive_a_bench_of_invalid_runs(tiny_pack: Path, tmp_path: Path) -> None:
    def nothing(task_dir: Path, out_dir: Path, agent: str, time_limit: float) -> AgentOutcome:
        return AgentOutcome(None, None, 0.0, "no backend")

    report = run_bench([tiny_pack / "tiny-wine"], tmp_path, run_agent=nothing, log=lambda _: None)
    assert report.summary.weighted_rank_pct == 1.0
    assert report.summary.constraint_pass_rate == 0.0  # passed / all: no code, none passed
    assert (tmp_path / "report.html").is_file()
    assert pd.read_json(tmp_path / "report.json", typ="series")["agent"] == "offline"
