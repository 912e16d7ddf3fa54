"""``mlestar task import --from-mlebench``: an MLE-bench competition folder → the unified task.json."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd

from mlestar_jupyter.cli import main
from mlestar_jupyter.evaluator import grade_submission
from mlestar_jupyter.task import load_task

from .competitions import PAGES, house_prices


def _mlebench_folder(root: Path) -> Path:
    pub = root / "prepared" / "public"
    house_prices(root / "dl")
    shutil.copytree(root / "dl" / "house", pub)
    train = pd.read_csv(pub / "train.csv")
    answers = train.iloc[:40]
    (root / "prepared" / "private").mkdir(parents=True)
    answers[["Id", "SalePrice"]].to_csv(root / "prepared" / "private" / "test.csv", index=False)
    train.iloc[40:].to_csv(pub / "train.csv", index=False)
    answers.drop(columns=["SalePrice"]).to_csv(pub / "test.csv", index=False)
    pd.DataFrame({"Id": answers["Id"], "SalePrice": 180000.0}).to_csv(
        pub / "sample_submission.csv", index=False
    )
    shutil.copy(PAGES / "house_prices.md", root / "description.md")
    shutil.copy(PAGES / "house_prices.md", pub / "description.md")
    pd.DataFrame({"teamId": range(4), "score": [0.1, 0.2, 0.3, 0.4]}).to_csv(
        root / "leaderboard.csv", index=False
    )
    return root


def test_mlebench_folder_becomes_a_unified_task(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    comp = _mlebench_folder(tmp_path / "house-prices")
    out = tmp_path / "task"
    assert main(["task", "import", "--from-mlebench", str(comp), "--out", str(out), "--json"]) == 0
    spec = json.loads(capsys.readouterr().out)
    assert spec["metric"] == {"metric_name": "rmsle", "direction": "minimize", "metric_formula": ""}
    assert spec["target_col"] == "SalePrice" and spec["id_col"] == "Id"
    assert spec["id"] == "house-prices" and spec["import"]["sources"] == ["description.md"]
    assert sorted(p.name for p in (out / "input").iterdir()) == [
        "sample_submission.csv",
        "test.csv",
        "train.csv",
    ]
    task = load_task(out)
    assert (
        task.source_format == "tam_bench"
        and task.answers_path == out.parent / "answers" / out.name / "answers.csv"
    )
    answers = pd.read_csv(task.answers_path)
    sub = tmp_path / "sub.csv"
    answers.to_csv(sub, index=False)
    graded = grade_submission(out, sub)
    assert graded.valid_submission and graded.score == 0.0


def test_not_an_mlebench_folder_is_one_line(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "empty").mkdir()
    assert (
        main(
            [
                "task",
                "import",
                "--from-mlebench",
                str(tmp_path / "empty"),
                "--out",
                str(tmp_path / "t"),
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert "--from-mlebench" in err and "description.md" in err
