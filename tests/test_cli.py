"""The ``mlestar`` command: bad input, run + show, and resume after ``kill -9``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from mlestar_jupyter.cli import main
from mlestar_jupyter.journal import RunJournal, read_events

SMALL = [
    "-M",
    "2",
    "-K",
    "2",
    "-T",
    "1",
    "-L",
    "1",
    "-R",
    "0",
    "--time-limit",
    "600",
    "--no-progress",
]


def test_bad_task_folder_is_one_line_exit_2(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "task.json").write_text("{oops")
    assert main(["run", str(tmp_path / "t"), "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "task.json: is not valid JSON" in err[0] and "Traceback" not in err[0]


def test_notebook_without_code_cells_is_rejected(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """In a folder that is no task by itself (in a task folder the run starts from the task's
    own solutions instead: ``test_start_notebook``)."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("only words")]
    nbformat.write(nb, tmp_path / "empty.ipynb")
    assert (
        main(
            [
                "run",
                str(tmp_path),
                "--notebook",
                str(tmp_path / "empty.ipynb"),
                "--out",
                str(tmp_path / "r"),
            ]
        )
        == 2
    )
    assert "no code cells" in capsys.readouterr().err


def test_a_notebook_given_as_the_task_is_the_start_notebook_in_its_folder(
    tmp_path: Path, capsys
) -> None:  # type: ignore[no-untyped-def]
    """`mlestar run my_notebook.ipynb`, as people type it: the notebook is the run's start and
    its folder the task's (before: "expected a task folder, got a file")."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("only words")]
    nbformat.write(nb, tmp_path / "Mine.IPYNB")
    assert main(["run", str(tmp_path / "Mine.IPYNB"), "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert "no code cells" in err and "got a file" not in err  # read as the notebook
    assert not (tmp_path / "r").exists()
    from mlestar_jupyter import api
    from mlestar_jupyter.notebook import NoCodeCellsError

    with pytest.raises(NoCodeCellsError, match="no code cells"):  # the API reads it alike
        api.run(tmp_path / "Mine.IPYNB", out=tmp_path / "r")
    other = ["--notebook", str(tmp_path / "Mine.IPYNB")]
    assert main(["run", str(tmp_path / "Mine.IPYNB"), *other, "--out", str(tmp_path / "r")]) == 2
    assert "one notebook alone" in capsys.readouterr().err


def test_a_notebook_for_another_language_is_refused_with_what_to_do(
    tabular_task: Path, tmp_path: Path, capsys
) -> None:  # type: ignore[no-untyped-def]
    """An R notebook (its kernelspec says so) is refused before anything runs: every cell would
    be a Python syntax error and the run would end 'no model fit found'."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("library(randomForest)\nfit <- randomForest(y ~ ., d)")]
    nb.metadata["kernelspec"] = {"name": "ir", "display_name": "R", "language": "R"}
    nbformat.write(nb, tmp_path / "mine.ipynb")
    args = ["run", str(tabular_task), "--notebook", str(tmp_path / "mine.ipynb")]
    assert main([*args, "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert "written for the R kernel" in err and "Python notebooks" in err


def test_unknown_backend_and_bad_run_folder(tabular_task: Path, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert (
        main(["run", str(tabular_task), "--backend", "nonsense", "--out", str(tmp_path / "r")]) == 2
    )
    assert "unknown backend 'nonsense'" in capsys.readouterr().err
    assert main(["show", str(tmp_path / "nothing")]) == 2
    assert "not a run folder" in capsys.readouterr().err


@pytest.mark.slow
def test_run_then_show(tabular_task: Path, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "run"
    assert (
        main(
            [
                "run",
                str(tabular_task),
                "--out",
                str(out),
                "--json",
                "--max-train-rows",
                "300",
                *SMALL,
            ]
        )
        == 0
    )
    res = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert res["status"] == "done" and res["best_score"] > 0.9
    config = json.loads((out / "run.json").read_text())["config"]
    assert config["max_train_rows"] == 300 and config["adapt_train_rows"] is False  # as given
    sub = pd.read_csv(res["submission"])
    assert list(sub.columns) == ["id", "target"] and len(sub) == len(
        pd.read_csv(tabular_task / "input" / "test.csv")
    )
    assert main(["show", str(out)]) == 0
    shown = capsys.readouterr().out
    assert "best validation score" in shown and "submission:" in shown


@pytest.mark.slow
def test_resume_after_kill_9_reexecutes_nothing(tabular_task: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mlestar_jupyter",
            "run",
            str(tabular_task),
            "--out",
            str(out),
            *SMALL,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
        start_new_session=True,
    )
    deadline = time.time() + 240
    while time.time() < deadline:
        done = [e for e in read_events(out / "events.jsonl") if e.type == "candidate"]
        if len(done) >= 2:
            break
        time.sleep(0.3)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(30)
    before = {p.name: p.read_bytes() for p in (out / "executions").iterdir()}
    cands_before = [
        e.data["id"] for e in read_events(out / "events.jsonl") if e.type == "candidate"
    ]
    assert len(cands_before) >= 2 and not any(
        e.type == "run_finished" for e in read_events(out / "events.jsonl")
    )

    r = subprocess.run(
        [
            *(sys.executable, "-m", "mlestar_jupyter", "resume", str(out), "--no-progress"),
            *("--time-limit", "777", "--max-llm-calls", "5"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    after = {p.name: p.read_bytes() for p in (out / "executions").iterdir()}
    for name, data in before.items():
        assert after[name] == data, f"{name} was executed again"
    evs = read_events(out / "events.jsonl")
    ids = [e.data["id"] for e in evs if e.type == "candidate"]
    assert len(ids) == len(set(ids)), "a finished candidate was journaled twice"
    assert any(e.type == "resumed" for e in evs) and evs[-1].type == "run_finished"
    assert (out / "final" / "submission.csv").exists()
    budget = json.loads((out / "run.json").read_text())["config"]["budget"]
    assert (budget["wall_seconds"], budget["max_llm_calls"]) == (777, 5)


def test_with_budget_replaces_only_given_limits() -> None:
    from mlestar_jupyter import api
    from mlestar_jupyter.agent.config import Budget, RunConfig

    base = RunConfig(budget=Budget(wall_seconds=100, exec_timeout=30, max_tokens=9))
    assert api.with_budget(base) is base
    new = api.with_budget(base, time_limit=250, max_cost=1.5)
    assert (new.budget.wall_seconds, new.budget.max_cost_usd) == (250, 1.5)
    assert (new.budget.exec_timeout, new.budget.max_tokens) == (30, 9)
    assert RunConfig.from_json(new.to_json()).budget == new.budget
    with pytest.raises(ValueError, match="positive"):
        api.with_budget(base, time_limit=0)


def test_exec_timeout_zero_is_refused_alike_by_cli_api_and_server(
    tabular_task: Path, tmp_path: Path, capsys
) -> None:  # type: ignore[no-untyped-def]
    """0 used to mean "the default" silently; it is refused everywhere, saying what to give."""
    from pydantic import ValidationError

    from mlestar_jupyter import api
    from mlestar_jupyter.agent.errors import InvalidConfig
    from mlestar_jupyter.server.launch import agent_argv
    from mlestar_jupyter.server.models import StartRun

    out = tmp_path / "r"
    assert main(["run", str(tabular_task), "--exec-timeout", "0", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--exec-timeout" in err[0] and "got 0" in err[0], err
    assert "leave --exec-timeout out for the default" in err[0] and not out.exists()
    assert main(["run", str(tabular_task), "--max-train-rows", "0", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--max-train-rows" in err[0] and "got 0" in err[0], err
    for bad in (0, 0.0, -5):
        with pytest.raises(InvalidConfig, match="number of seconds > 0"):
            api.make_config(exec_timeout=bad)
        with pytest.raises(ValidationError, match="exec_timeout"):
            StartRun(exec_timeout=bad)
    # a value above 0 is kept as given, left out it is the default, on each path
    assert api.make_config(exec_timeout=7).budget.exec_timeout == 7
    assert api.make_config(time_limit=400).budget.exec_timeout == 100
    argv = agent_argv(["mlestar"], StartRun(exec_timeout=7.5), tmp_path, out, None, 3600.0)
    assert argv[argv.index("--exec-timeout") + 1] == "7.5"
    assert "--exec-timeout" not in agent_argv(["mlestar"], StartRun(), tmp_path, out, None, 3600.0)


def test_show_into_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    """`mlestar show RUN | head -1`: the reader closes the pipe; no traceback, exit 0."""
    run = tmp_path / "run"
    RunJournal.create(run, {"task_dir": "x"}).close()
    proc = subprocess.Popen(
        [sys.executable, "-m", "mlestar_jupyter", "show", str(run)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(60) == 0 and "Traceback" not in err, err


def test_a_target_and_a_metric_from_the_dialog_reach_the_run_command(tmp_path: Path) -> None:
    """The run dialog's two fields travel as ``--target=...`` / ``--metric=...``: one argument
    each, so a column named like a flag stays a value."""
    from mlestar_jupyter.cli import build_parser
    from mlestar_jupyter.server.launch import agent_argv
    from mlestar_jupyter.server.models import StartRun

    req = StartRun(target="-log price", metric="MAP@3")
    argv = agent_argv(["mlestar"], req, tmp_path, tmp_path / "r", tmp_path / "nb.ipynb", 3600.0)
    assert argv[-2:] == ["--target=-log price", "--metric=MAP@3"]
    args = build_parser().parse_args(argv[1:])
    assert (args.target, args.metric) == ("-log price", "MAP@3")
    plain = agent_argv(["mlestar"], StartRun(), tmp_path, tmp_path / "r", None, 3600.0)
    assert not any(a.startswith(("--target", "--metric")) for a in plain)


def test_a_metric_for_a_task_folder_is_refused_before_a_run_folder_is_made(  # type: ignore[no-untyped-def]
    tabular_task, tmp_path: Path, capsys
) -> None:
    out = tmp_path / "r"
    assert main(["run", str(tabular_task), "--metric", "mae", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "--metric cannot apply here" in err and "pass --notebook too" in err
    assert not out.exists()
