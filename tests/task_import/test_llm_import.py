"""The LLM extractor end to end: ``mlestar task import --backend openai|gemini`` against the
scripted fake servers, through the real SDKs.  Answers that do not validate (an unknown metric,
a column the data lacks) are sent back with the problem quoted, until one validates."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from mlestar_jupyter.cli import main
from mlestar_jupyter.llm.testing import FakeLLMServer
from mlestar_jupyter.task import load_task

from .competitions import Competition

Download = Callable[[str], tuple[Competition, Path]]

GOOD = {
    "task_type": "classification",
    "goal_description": "Estimate the probability that a telecom customer churns next month.",
    "metric": {"metric_name": "AUC", "direction": "maximize", "metric_formula": ""},
    "target_col": ["Churn"],
    "id_col": None,
    "data_type": "Tabular",
    "train_files": ["train.csv"],
    "test_files": ["test.csv"],
    "train_description": "contract, tenure, charges and Churn",
    "test_description": "the same without Churn",
    "special_instructions": ["External data is not allowed.", "Submit probabilities."],
    "guessed": ["task_type"],
}


def _env(monkeypatch: pytest.MonkeyPatch, srv: FakeLLMServer, backend: str) -> None:
    monkeypatch.setenv("MLESTAR_LLM_BASE_URL", srv.openai_url if backend == "openai" else srv.url)
    monkeypatch.setenv("MLESTAR_LLM_API_KEY", "test-key")
    monkeypatch.setenv("MLESTAR_LLM_MODEL", "fake-model")
    monkeypatch.setenv("MLESTAR_LLM_TIMEOUT_S", "10")
    monkeypatch.setenv("MLESTAR_LLM_RETRIES", "0")


@pytest.mark.parametrize("backend", ["openai", "gemini"])
def test_llm_import_reasks_with_the_validation_error_quoted(
    backend: str, download: Download, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:  # type: ignore[no-untyped-def]
    comp, data = download("telco")
    unknown_metric = {**GOOD, "metric": {"metric_name": "Fancy score", "direction": "maximize"}}
    wrong_column = {
        **GOOD,
        "target_col": ["churn_probability"],
        "metric": {"metric_name": "AUC", "direction": "minimize"},
    }
    with FakeLLMServer() as srv:
        srv.script(json.dumps(unknown_metric), json.dumps(wrong_column), json.dumps(GOOD))
        _env(monkeypatch, srv, backend)
        out = tmp_path / "task"
        argv = ["task", "import", *map(str, comp.page_paths()), "--data", str(data)]
        assert main([*argv, "--out", str(out), "--backend", backend]) == 0
        reqs = srv.requests
    assert len(reqs) == 3
    assert "area under the ROC curve" in reqs[0].text and "churn_probability" in reqs[0].text
    assert reqs[0].schema is not None  # asked as structured output
    assert "unknown metric 'Fancy score'" in reqs[1].text
    assert "'churn_probability' is not a column of train.csv" in reqs[2].text
    assert "roc_auc is maximized, not minimized" in reqs[2].text
    task = load_task(out)
    assert (task.metric_name, task.direction, task.target, task.id_col) == (
        "roc_auc",
        "maximize",
        "Churn",
        "customerID",
    )
    spec = json.loads((out / "task.json").read_text())
    assert spec["import"]["backend"] == backend
    assert set(spec["import"]["guessed"]) == {"task_type", "id_col"}
    assert "[guessed:" in capsys.readouterr().out


def test_llm_that_finds_no_metric_gives_an_import_error(
    download: Download, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:  # type: ignore[no-untyped-def]
    comp, data = download("telco")
    with FakeLLMServer() as srv:
        srv.script(json.dumps({**GOOD, "metric": None}))
        _env(monkeypatch, srv, "openai")
        argv = ["task", "import", *map(str, comp.page_paths()), "--data", str(data)]
        assert main([*argv, "--out", str(tmp_path / "t"), "--backend", "openai"]) == 2
    err = capsys.readouterr().err
    assert "metric: the pages state no metric" in err and "Evaluation page" in err
    assert not (tmp_path / "t" / "task.json").exists()


def test_llm_that_never_answers_usably_is_one_error(
    download: Download, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:  # type: ignore[no-untyped-def]
    comp, data = download("telco")
    with FakeLLMServer() as srv:
        srv.script("no idea", "still no idea", "sorry")
        _env(monkeypatch, srv, "gemini")
        argv = ["task", "import", *map(str, comp.page_paths()), "--data", str(data)]
        assert main([*argv, "--out", str(tmp_path / "t"), "--backend", "gemini"]) == 2
    err = capsys.readouterr().err
    assert "the LLM gave no usable task description" in err and "--backend offline" in err
