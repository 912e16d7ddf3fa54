"""Constraint pass: static rules, the LLM judge interface, and 'not judged'."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mlestar_jupyter.evaluator.constraints import (
    judge_constraints,
    parse_judge_reply,
    pass_rate,
    read_code,
    render_judge_prompt,
)

MFCC_CODE = "import librosa\nfeats = librosa.feature.mfcc(y=y, sr=sr, n_mfcc=20)\nmodel.fit(feats, labels)\n"
TORCH_CODE = (
    "import torch\nimport torch.nn as nn\nnet = nn.Sequential(nn.Conv2d(1, 8, 3), nn.ReLU())\n"
)
SKLEARN_CODE = "from sklearn.ensemble import RandomForestClassifier\nclf = RandomForestClassifier(random_state=0).fit(X, y)\n"
DOWNLOAD_CODE = "import urllib.request\nurllib.request.urlretrieve('https://example.org/extra.csv', 'extra.csv')\n"


def _one(instruction: str, code: str, judge=None):  # noqa: ANN001, ANN202
    return judge_constraints([instruction], code, judge)[0]


@pytest.mark.parametrize(
    ("instruction", "code", "verdict"),
    [
        (
            "Must use MFCC (Mel-frequency cepstral coefficient) features of the audio.",
            MFCC_CODE,
            "pass",
        ),
        (
            "Must use MFCC (Mel-frequency cepstral coefficient) features of the audio.",
            SKLEARN_CODE,
            "fail",
        ),
        (
            "Must-use features: Consider extracting MFCCs or spectrograms for model input.",
            "S = scipy.signal.spectrogram(x)",
            "pass",
        ),
        ("Must use PyTorch to build a convolutional neural network.", TORCH_CODE, "pass"),
        ("Must use PyTorch to build a convolutional neural network.", SKLEARN_CODE, "fail"),
        ("Do not use external data: train only on the files in input/.", SKLEARN_CODE, "pass"),
        ("Do not use external data: train only on the files in input/.", DOWNLOAD_CODE, "fail"),
        (
            "Do not use external data or pretrained models.",
            "m = timm.create_model('resnet18', pretrained=True)",
            "fail",
        ),
        ("Do not use external data or pretrained models.", TORCH_CODE, "pass"),
        (
            "Must use TF-IDF features of the text.",
            "vec = TfidfVectorizer(ngram_range=(1, 2))",
            "pass",
        ),
        ("Do not use LightGBM.", "import lightgbm as lgb", "fail"),
        ("Do not use LightGBM.", SKLEARN_CODE, "pass"),
        (
            "Use cross-validation to choose the model's hyper-parameters.",
            "from sklearn.model_selection import KFold",
            "pass",
        ),
        ("Use a fixed random seed so the result is reproducible.", SKLEARN_CODE, "pass"),
        (
            "Use a fixed random seed so the result is reproducible.",
            "clf = LogisticRegression().fit(X, y)",
            "fail",
        ),
    ],
)
def test_static_rules(instruction: str, code: str, verdict: str) -> None:
    v = _one(instruction, code)
    assert (v.verdict, v.method) == (verdict, "static"), v.reason


def test_instruction_without_rule_is_not_judged_without_a_judge() -> None:
    v = _one(
        "Handle the variable-length series without truncating every series to the shortest one.",
        SKLEARN_CODE,
    )
    assert (v.verdict, v.method) == ("not_judged", "none")


def test_judge_gets_the_prompt_and_its_verdict_is_used() -> None:
    prompts: list[str] = []

    def judge(prompt: str) -> str:
        prompts.append(prompt)
        return 'Sure. {"verdict": "fail", "reason": "series are cut with x[:100]"}'

    ins = "Handle the variable-length series without truncating every series to the shortest one."
    v = judge_constraints([ins], "x = x[:100]", judge, task_goal="Classify appliances")[0]
    assert (v.verdict, v.method, v.reason) == ("fail", "llm", "series are cut with x[:100]")
    assert ins in prompts[0] and "x = x[:100]" in prompts[0] and "Classify appliances" in prompts[0]
    assert '"verdict"' in prompts[0]


def test_static_rules_win_unless_the_judge_is_preferred() -> None:
    calls: list[str] = []

    def judge(prompt: str) -> str:
        calls.append(prompt)
        return json.dumps({"verdict": "fail", "reason": "judge says no"})

    assert _one("Must use MFCC features.", MFCC_CODE, judge).method == "static" and not calls
    v = judge_constraints(["Must use MFCC features."], MFCC_CODE, judge, prefer_judge=True)[0]
    assert (v.verdict, v.method) == ("fail", "llm") and len(calls) == 1


def test_bad_judge_reply_or_crash_leaves_it_unjudged() -> None:
    assert parse_judge_reply("x", "I think it passes").verdict == "not_judged"
    assert parse_judge_reply("x", '{"verdict": "maybe"}').verdict == "not_judged"

    def broken(prompt: str) -> str:
        raise TimeoutError("judge timed out")

    v = _one("Handle variable-length series carefully.", "pass", broken)
    assert v.verdict == "not_judged" and "judge timed out" in v.reason


def test_pass_rate_counts_judged_only() -> None:
    vs = judge_constraints(
        ["Must use MFCC features.", "Must use PyTorch.", "Write tidy code."], MFCC_CODE
    )
    assert [v.verdict for v in vs] == ["pass", "fail", "not_judged"]
    assert pass_rate(vs) == 0.5
    assert pass_rate(vs[2:]) is None


def test_read_code_from_notebook(tmp_path: Path) -> None:
    nb = {
        "cells": [
            {"cell_type": "markdown", "source": "# uses mfcc? no"},
            {"cell_type": "code", "source": ["import torch\n", "x = 1"]},
            {"cell_type": "code", "source": "y = 2"},
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    p = tmp_path / "solution.ipynb"
    p.write_text(json.dumps(nb))
    assert read_code(p) == "import torch\nx = 1\n\ny = 2"


def test_prompt_template_renders_strictly() -> None:
    text = render_judge_prompt("Must use MFCC.", "print(1)")
    assert "Must use MFCC." in text and "print(1)" in text and "{{" not in text
