"""`mlestar bench grade --judge openai`: special instructions judged by a real client against the local server."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from mlestar_jupyter.cli import main
from mlestar_jupyter.llm.testing import FakeLLMServer


def test_grade_with_llm_judge(tabular_task: Path, tmp_path: Path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    sub = tmp_path / "submission.csv"
    shutil.copy(tabular_task / "private" / "answers.csv", sub)
    code = tmp_path / "solution.py"
    code.write_text("model.predict_proba(X_test)[:, 1]\n")
    with FakeLLMServer() as srv:
        srv.script(json.dumps({"verdict": "pass", "reason": "it writes predict_proba of class 1"}))
        monkeypatch.setenv("MLESTAR_LLM_BASE_URL", srv.openai_url)
        monkeypatch.setenv("MLESTAR_LLM_API_KEY", "test-key")
        monkeypatch.setenv("MLESTAR_LLM_MODEL", "fake-model")
        rc = main(
            [
                "bench",
                "grade",
                str(tabular_task),
                str(sub),
                "--code",
                str(code),
                "--judge",
                "openai",
                "--json",
            ]
        )
        assert rc == 0
        sent = srv.requests
    report = json.loads(capsys.readouterr().out)
    verdicts = report["constraints"]
    assert [v["method"] for v in verdicts] == ["llm"] and verdicts[0]["verdict"] == "pass"
    assert (
        len(sent) == 1
        and "Predict the probability of class 1." in sent[0].text
        and "predict_proba" in sent[0].text
    )
