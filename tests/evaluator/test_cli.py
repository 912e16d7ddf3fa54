"""`mlestar bench ...` through register_cli / main."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from mlestar_jupyter.evaluator.cli import main, register_cli, resolve_task_dirs
from mlestar_jupyter.evaluator.errors import EvaluatorError

from ._util import answers_of, sample_of


def test_register_cli_adds_bench_with_three_commands() -> None:
    parser = argparse.ArgumentParser(prog="mlestar")
    register_cli(parser.add_subparsers(dest="command"))
    for argv in (
        ["bench", "prepare", "--tiny"],
        ["bench", "run", "--agent", "gemini", "--tasks", "a"],
        ["bench", "grade", "t", "s.csv"],
    ):
        args = parser.parse_args(argv)
        assert callable(args.func) and args.command == "bench"
    with pytest.raises(SystemExit):
        parser.parse_args(["bench", "run", "--agent", "nope"])


def test_grade_command(tiny_pack: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tiny_pack / "tiny-digits"
    good = tmp_path / "good.csv"
    answers_of(root).to_csv(good, index=False)
    assert main(["bench", "grade", str(root), str(good)]) == 0
    out = capsys.readouterr().out
    assert "tiny-digits: f1_macro=1" in out and "medal: gold" in out and "[not_judged]" in out
    bad = tmp_path / "bad.csv"
    sample_of(root).iloc[:10].to_csv(bad, index=False)
    assert main(["bench", "grade", str(root), str(bad), "--json"]) == 2
    assert '"valid_submission": false' in capsys.readouterr().out


def test_prepare_command_and_task_resolution(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(["bench", "prepare", "--out", str(tmp_path), "--tasks", "tiny-wine", "--quick"]) == 0
    )
    assert "prepared 1 task(s), skipped 0" in capsys.readouterr().out
    assert resolve_task_dirs(None, tmp_path) == [tmp_path / "tiny-wine"]
    assert resolve_task_dirs(["tiny-wine"], tmp_path) == [tmp_path / "tiny-wine"]
    with pytest.raises(EvaluatorError, match="bench prepare"):
        resolve_task_dirs(["fashion-mnist"], tmp_path)
    assert (
        main(["bench", "run", "--pack", str(tmp_path / "empty"), "--out", str(tmp_path / "o")]) == 1
    )


def test_grade_without_answers_says_what_is_missing(
    task_copy, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:  # noqa: ANN001
    root = task_copy("tiny-wine")
    (root.parent / "answers" / root.name / "answers.csv").unlink()
    sub = tmp_path / "s.csv"
    sample_of(root).to_csv(sub, index=False)
    assert main(["bench", "grade", str(root), str(sub)]) == 1
    assert "no answers (expected " in capsys.readouterr().err
