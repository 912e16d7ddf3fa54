"""benchmarks/real_model_lane.py: its calls checked against the fake server (always), and the real
lane itself (only with MLESTAR_REAL_MODEL=1 and llama_cpp installed)."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

from .fake_server import FakeLLMServer

LANE = Path(__file__).resolve().parents[2] / "benchmarks" / "real_model_lane.py"


def _lane():
    spec = importlib.util.spec_from_file_location("real_model_lane", LANE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_lane_calls_pass_against_a_llama_cpp_like_server(capsys):
    lane = _lane()
    with FakeLLMServer(reject_json_schema=True, retry_after_ms=1) as srv:
        srv.on(
            "estimator",
            '{"model_name": "LogisticRegression", "reason": "simple", "hyperparameters": {"C": 1.0}}',
        )
        srv.on(
            "rmse",
            "```python\nimport math\n\ndef rmse(a, b):\n    return math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b)) / len(a))\n```",
        )
        assert lane.main(["--base-url", srv.openai_url]) == 0
    out = capsys.readouterr().out
    assert "mode=json_object" in out and "OK" in out and "PASS" in out


def test_lane_reports_wrong_code(capsys):
    lane = _lane()
    with FakeLLMServer(retry_after_ms=1) as srv:
        srv.on("estimator", '{"model_name": "X", "reason": "r"}')
        srv.on("rmse", "```python\ndef rmse(a, b):\n    return 0.0\n```")
        assert lane.main(["--base-url", srv.openai_url]) == 1
    assert "WRONG" in capsys.readouterr().out


@pytest.mark.real_model
def test_real_model_lane():
    if os.environ.get("MLESTAR_REAL_MODEL") != "1":
        pytest.skip(
            "set MLESTAR_REAL_MODEL=1 to run the real-model lane (downloads/assembles ~1.1 GB)"
        )
    pytest.importorskip("llama_cpp.server")
    assert _lane().main(["--strict"]) == 0
