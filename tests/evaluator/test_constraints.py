"""Constraint pass: static rules, the LLM judge interface, and 'not judged'."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mlestar_jupyter.evaluator.constraints import (
    code_without_comments,
    judge_constraints,
    method_counts,
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


def test_the_judge_decides_unless_static_rules_are_preferred() -> None:
    calls: list[str] = []

    def judge(prompt: str) -> str:
        calls.append(prompt)
        return json.dumps({"verdict": "fail", "reason": "judge says no"})

    v = _one("Must use MFCC features.", MFCC_CODE, judge)
    assert (v.verdict, v.method) == ("fail", "llm") and len(calls) == 1
    v = judge_constraints(["Must use MFCC features."], MFCC_CODE, judge, prefer_judge=False)[0]
    assert v.method == "static" and len(calls) == 1


def test_bad_judge_reply_or_crash_leaves_it_unjudged() -> None:
    assert parse_judge_reply("x", "I think it passes").verdict == "not_judged"
    assert parse_judge_reply("x", '{"verdict": "maybe"}').verdict == "not_judged"

    def broken(prompt: str) -> str:
        raise TimeoutError("judge timed out")

    v = _one("Handle variable-length series carefully.", "pass", broken)
    assert v.verdict == "not_judged" and "judge timed out" in v.reason


def test_pass_rate_is_passed_over_all_constraints() -> None:
    vs = judge_constraints(
        ["Must use MFCC features.", "Must use PyTorch.", "Write tidy code."], MFCC_CODE
    )
    assert [v.verdict for v in vs] == ["pass", "fail", "not_judged"]
    assert pass_rate(vs) == pytest.approx(1 / 3)
    assert pass_rate(vs[2:]) == 0.0
    assert pass_rate([]) is None
    assert method_counts(vs) == {"static": 2, "judge": 0, "not judged": 1}


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


# The TAM-Bench paper's own example (appendix A.8, Figure 6): the speech-commands task's three
# special instructions and OpenHands' final code, which computes mean/std/energy/ZCR/FFT-bin
# features only.  Here the code also *mentions* MFCCs and spectrograms, in a comment and a string.
PAPER_CONSTRAINTS = [
    "The unknown label should be used for any command that is not one of the first 10 labels "
    "(yes, no, up, down, left, right, on, off, stop, go) or that is not silence.",
    "Use the `_background_noise_` folder to generate additional silence samples for training if "
    "needed.",
    "Must-use features: Consider extracting acoustic features such as MFCCs (Mel-Frequency "
    "Cepstral Coefficients) or spectrograms for model input.",
]
PAPER_CODE = """import numpy as np
from sklearn.ensemble import RandomForestClassifier

target_labels = ['yes', 'no', 'up', 'down', 'left', 'right', 'on', 'off', 'stop', 'go']

def extract_features(signal, rate):
    # TODO: MFCC features (librosa.feature.mfcc) or a spectrogram would be better here
    signal = signal.astype(np.float32)
    fft = np.abs(np.fft.rfft(signal, n=512))[:10]
    return np.array([np.mean(signal), np.std(signal)] + list(fft))

print("features: mfcc-like spectrogram summary")
clf = RandomForestClassifier(n_estimators=100, random_state=42).fit(X, y)
"""


def test_keyword_only_in_a_comment_or_string_is_no_evidence() -> None:
    vs = judge_constraints(PAPER_CONSTRAINTS, PAPER_CODE)
    assert (vs[2].verdict, vs[2].method) == ("fail", "static"), vs[2].reason
    assert [v.verdict for v in vs[:2]] == ["not_judged", "not_judged"]
    # passed / all: nothing passed (before, the comment made it 1 of 1 judged = 100 %)
    assert pass_rate(vs) == 0.0
    real = PAPER_CODE.replace(
        "fft = np.abs", "mf = librosa.feature.mfcc(y=signal, sr=rate)\n    fft = np.abs"
    )
    assert _one(PAPER_CONSTRAINTS[2], real).verdict == "pass"


def test_paper_judge_format_and_figure_6_rate() -> None:
    prompts: list[str] = []

    def judge(prompt: str) -> str:  # answers as the paper's prompt asks: two lines
        prompts.append(prompt)
        if "Must-use features" in prompt:
            return "Answer: No\nReason: extract_features computes FFT bins only, no MFCCs."
        return "Answer: Yes\nReason: the code does this."

    vs = judge_constraints(PAPER_CONSTRAINTS, PAPER_CODE, judge)
    assert [(v.verdict, v.method) for v in vs] == [
        ("pass", "llm"),
        ("pass", "llm"),
        ("fail", "llm"),
    ]
    assert vs[2].reason == "extract_features computes FFT bins only, no MFCCs."
    assert pass_rate(vs) == pytest.approx(2 / 3)  # the paper's 66.7 %
    assert len(prompts) == 3 and 'conservatively answer "fail"' in prompts[0]


def test_code_without_comments_keeps_layout_and_code() -> None:
    code = "import torch  # mfcc\ns = 'spectrogram'\n%pip install lightgbm\nx = mfcc(s)\n"
    bare = code_without_comments(code)
    assert "mfcc(s)" in bare and "import torch" in bare
    assert "spectrogram" not in bare and "lightgbm" not in bare and "# mfcc" not in bare
    assert len(bare.splitlines()) == len(code.splitlines())
    assert "spectrogram" in code_without_comments(code, strings=False)
    assert code_without_comments("x = (  # mfcc\n").strip() == "x = ("


def test_forbidden_url_in_a_string_still_fails_but_not_in_a_comment() -> None:
    ins = "Do not use external data: train only on the files in input/."
    assert _one(ins, "df = pd.read_csv('https://example.org/x.csv')").verdict == "fail"
    assert (
        _one(ins, "# data from https://example.org\ndf = pd.read_csv('train.csv')").verdict
        == "pass"
    )
    assert _one("Do not use LightGBM.", "# we tried lightgbm\nimport xgboost").verdict == "pass"
