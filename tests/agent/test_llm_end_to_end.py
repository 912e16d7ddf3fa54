"""The whole MLE-STAR loop through the real ``openai`` client against the scripted local server.

Every role is answered by the server.  The answers include broken code (the debugger must fix it),
a leaky block (the leakage checker must fix it), a solution that ignores a provided file (the
data-usage checker must add it) and a script with a missing import (repaired before it runs).
A second run on the same journal must re-pay no LLM call.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mlestar_jupyter.agent.config import Budget, RunConfig
from mlestar_jupyter.agent.run import run_mlestar
from mlestar_jupyter.execution import Executor
from mlestar_jupyter.journal import RunJournal, read_events
from mlestar_jupyter.llm.client import LLMClient
from mlestar_jupyter.llm.testing import FakeLLMServer, Reply
from mlestar_jupyter.policies import grounded_llm_policy
from mlestar_jupyter.task import load_task

pytestmark = pytest.mark.slow

LOAD = """# %% load
import pandas as pd
from sklearn.model_selection import train_test_split
df = pd.read_csv("input/train.csv")
X = df.drop(columns=["id", "target"])
y = df["target"]
X_tr, X_val, y_tr, y_val = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
"""
LOAD_WITH_EXTRA = LOAD.replace(
    'df = pd.read_csv("input/train.csv")',
    'df = pd.read_csv("input/train.csv").merge(pd.read_csv("input/extra.csv"), on="id")',
)
MODEL = """# %% model
model = make_pipeline(StandardScaler(), LogisticRegression(C=0.001, max_iter=300))
model.fit(X_tr, y_tr)
"""  # make_pipeline / StandardScaler / LogisticRegression never imported: repaired before running
EVAL = """# %% evaluate
from sklearn.metrics import roc_auc_score
print(f"Final Validation Performance: {roc_auc_score(y_val, model.predict_proba(X_val)[:, 1]):.6f}")
"""
STUMP = """# %% model
from sklearn.tree import DecisionTreeClassifier
model = DecisionTreeClassifier(max_depth=1, random_state=0)
model.fit(X_tr, y_trr)
"""  # a typo the debugger fixes
LEAKY_BLOCK = """scaler = StandardScaler().fit(pd.concat([X_tr, X_val]))
model = LogisticRegression(C=0.01, max_iter=300).fit(scaler.transform(X_tr), y_tr)
model = make_pipeline(scaler, model)"""
CLEAN_BLOCK = """scaler = StandardScaler().fit(X_tr)
model = LogisticRegression(C=0.01, max_iter=300).fit(scaler.transform(X_tr), y_tr)
model = make_pipeline(scaler, model)"""
PREDICT = """# %% predict
import os
test = pd.read_csv("input/test.csv").merge(pd.read_csv("input/extra.csv"), on="id")
model.fit(X, y)
os.makedirs("final", exist_ok=True)
pd.DataFrame({"id": test["id"], "target": model.predict_proba(test[X.columns])[:, 1]}).to_csv("final/submission.csv", index=False)
"""


def fence(code: str) -> str:
    return f"```python\n{code}\n```"


def _code_in(prompt: str) -> str:
    m = re.search(r"```python\n(.*?)```", prompt, re.S)
    return m.group(1) if m else ""


def script_server(srv: FakeLLMServer) -> None:
    srv.on(
        "recent, effective models",
        Reply(
            text=json.dumps(
                [
                    {
                        "model_name": "Logistic regression",
                        "example_code": "LogisticRegression().fit(X, y)",
                    },
                    {
                        "model_name": "Decision stump",
                        "example_code": "DecisionTreeClassifier(max_depth=1)",
                    },
                ]
            )
        ),
        repeat=True,
    )
    srv.on(
        lambda r: "first, simple solution" in r.text and "Logistic regression" in r.text,
        fence(LOAD + MODEL + EVAL),
        repeat=True,
    )
    srv.on(
        lambda r: "first, simple solution" in r.text and "Decision stump" in r.text,
        fence(LOAD + STUMP + EVAL),
        repeat=True,
    )
    srv.on(
        "Fix the error",
        lambda r: Reply(text=fence(_code_in(r.text).replace("y_trr", "y_tr"))),
        repeat=True,
    )
    srv.on(
        "Integrate the reference solution",
        lambda r: Reply(text=fence(_code_in(r.text).replace("C=0.001", "C=0.0001"))),
        repeat=True,
    )
    srv.on(
        "use all the information provided",
        lambda r: Reply(
            text=fence(
                _code_in(r.text).replace(
                    'df = pd.read_csv("input/train.csv")',
                    'df = pd.read_csv("input/train.csv").merge(pd.read_csv("input/extra.csv"), on="id")',
                )
            )
        ),
        repeat=True,
    )
    srv.on(
        "Look for data leakage",
        lambda r: Reply(
            text=json.dumps(
                {
                    "leakage": True,
                    "code_block": "scaler = StandardScaler().fit(pd.concat([X_tr, X_val]))",
                    "reason": "the scaler sees validation rows",
                }
                if "pd.concat([X_tr, X_val])" in r.text
                else {"leakage": False, "code_block": "", "reason": ""}
            )
        ),
        repeat=True,
    )
    srv.on(
        "leaks validation or test information",
        fence("scaler = StandardScaler().fit(X_tr)"),
        repeat=True,
    )
    srv.on(
        "runs an ablation study",
        fence(
            'print("Ablation baseline: 0.95")\nprint("Ablation no scaler: 0.90")\nprint("Ablation C=1: 0.97")'
        ),
        repeat=True,
    )
    srv.on(
        "Summarise the result",
        Reply(
            text=json.dumps(
                {
                    "summary": "The model block matters most.",
                    "results": [
                        {"name": "baseline", "score": 0.95},
                        {"name": "no scaler", "score": 0.90},
                    ],
                }
            )
        ),
        repeat=True,
    )
    # the first extractor answer quotes code that is not in the solution: it must be re-asked
    srv.on(
        "choose the one code block",
        Reply(
            text=json.dumps(
                {"block_id": "b9", "code_block": "model = SomethingElse()", "plan": "x"}
            )
        ),
        lambda r: Reply(
            text=json.dumps(
                {
                    "block_id": "b2",
                    "code_block": re.search(r"model = make_pipeline\(.*\)", r.text).group(0),
                    "plan": "Regularise less: raise C.",
                }
            )
        ),
        repeat=True,
    )
    srv.on(
        "Rewrite this code block",
        fence(LEAKY_BLOCK),
        fence("model = make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=300))"),
        repeat=True,
    )
    srv.on("Propose a new plan", "Use C=1.0 with standard scaling.", repeat=True)
    srv.on(
        "final one that predicts the test data",
        lambda r: Reply(text=fence(_code_in(r.text.split("# Solution", 1)[1]) + "\n" + PREDICT)),
        repeat=True,
    )


@pytest.fixture
def task_with_extra_file(tabular_task: Path) -> Path:
    ids = pd.concat(
        [
            pd.read_csv(tabular_task / "input" / "train.csv")["id"],
            pd.read_csv(tabular_task / "input" / "test.csv")["id"],
        ]
    )
    rng = np.random.default_rng(0)
    pd.DataFrame({"id": ids, "extra_noise": rng.normal(size=len(ids))}).to_csv(
        tabular_task / "input" / "extra.csv", index=False
    )
    return tabular_task


def _run(task_dir: Path, run_dir: Path, srv: FakeLLMServer, executor: Executor) -> tuple:  # type: ignore[type-arg]
    task = load_task(task_dir)
    cfg = RunConfig(
        num_models=2,
        inner_steps=2,
        outer_steps=1,
        parallel_solutions=1,
        ensemble_rounds=0,
        debug_rounds=2,
        backend="openai",
        budget=Budget(wall_seconds=900, exec_timeout=90),
    )
    journal = (
        RunJournal.create(run_dir, {})
        if not (run_dir / "run.json").exists()
        else RunJournal.open(run_dir)
    )
    calls: list[dict] = []  # type: ignore[type-arg]
    client = LLMClient.from_settings(
        srv.settings("openai"), cache_dir=run_dir / "llm", on_call=calls.append
    )
    policy = grounded_llm_policy(task, cfg, client)
    out = run_mlestar(task, cfg, journal, executor, lambda i: policy)
    journal.close()
    return out, calls


def test_llm_loop_end_to_end_and_no_repay_on_rerun(
    task_with_extra_file: Path, tmp_path: Path
) -> None:
    run_dir = tmp_path / "run"
    with Executor(timeout=90, max_parallel=1, pool_size=1) as ex:
        with FakeLLMServer() as srv:
            script_server(srv)
            out, calls = _run(task_with_extra_file, run_dir, srv, ex)
            n_requests = len(srv.requests)
        evs = read_events(run_dir / "events.jsonl")
        cands = {e.data["id"]: e.data for e in evs if e.type == "candidate"}
        # the missing imports were repaired: the logistic-regression init ran first time
        assert cands["init-m1"]["ok"], cands["init-m1"]
        # the stump's typo was fixed by the debugger
        assert cands["init-m2"]["ok"] is False and cands["init-m2-d1"]["ok"] is True
        # the data-usage checker added the ignored file
        du = next(e.data for e in evs if e.type == "data_usage")
        assert "extra.csv" in du["unused_files"] and du["fixed"] is True
        # the leaky coder answer was caught and fixed before it ran
        leak = next(e.data for e in evs if e.type == "leakage")
        assert leak["leaky"] and leak["fixed"]
        ran = (run_dir / "candidates" / f"{leak['node_id']}.ipynb").read_text()
        assert "pd.concat([X_tr, X_val])" not in ran and "StandardScaler().fit(X_tr)" in ran
        # a valid submission, every test row, written by the LLM's notebook
        assert out.final.ok and out.final.rung == "best"
        sub = pd.read_csv(out.final.submission)
        assert len(sub) == len(
            pd.read_csv(task_with_extra_file / "input" / "sample_submission.csv")
        )
        assert sum(1 for c in calls if not c.get("cached")) == n_requests > 10
        extract_asks = [r for r in srv.requests if "choose the one code block" in r.text]
        assert len(extract_asks) == 2 and "Valid block ids" in extract_asks[1].text

        # the same run again: every answer comes from the cache, the server is never asked
        with FakeLLMServer() as silent:
            silent.default = lambda req: Reply.error(500, "must not be called")
            out2, calls2 = _run(task_with_extra_file, run_dir, silent, ex)
            assert silent.requests == []
        assert out2.final.ok and all(c.get("cached") for c in calls2)


def test_llm_loop_with_two_paths_and_two_ensemble_rounds(
    task_with_extra_file: Path, tmp_path: Path
) -> None:
    """L=2, R=2 against the fake server: each path asks its own retriever (the first asker is
    told only the stump, so the two runs differ), writes its own initial solutions and refines,
    two ensemble plans are asked for and run, and the pick says whether an ensemble or a single
    solution won, and why."""
    task = load_task(task_with_extra_file)
    cfg = RunConfig(
        num_models=2,
        inner_steps=1,
        outer_steps=1,
        parallel_solutions=2,
        ensemble_rounds=2,
        debug_rounds=2,
        backend="openai",
        budget=Budget(wall_seconds=900, exec_timeout=90),
    )
    stump_only = json.dumps([{"model_name": "Decision stump", "example_code": "Tree(max_depth=1)"}])
    with Executor(timeout=90, max_parallel=1, pool_size=1) as ex, FakeLLMServer() as srv:
        srv.on("recent, effective models", Reply(text=stump_only))  # once, before the script's
        script_server(srv)
        srv.on("combine these 2 solutions", "Average the two models' probabilities.", repeat=True)
        srv.on(
            "carries out the ensemble plan",
            lambda r: Reply(text=fence(_code_in(r.text))),
            repeat=True,
        )
        journal = RunJournal.create(tmp_path / "run", {})
        client = LLMClient.from_settings(srv.settings("openai"), cache_dir=tmp_path / "run" / "llm")
        policies = {i: grounded_llm_policy(task, cfg, client, path_index=i) for i in range(2)}
        out = run_mlestar(task, cfg, journal, ex, lambda i: policies[i])
        ens_asks = [r for r in srv.requests if "combine these 2 solutions" in r.text]
        retrievals = [r for r in srv.requests if "recent, effective models" in r.text]
    evs = read_events(tmp_path / "run" / "events.jsonl")
    assert len(retrievals) == 2  # one retrieval per path, not one shared
    models = {e.key: [c["name"] for c in e.data["cards"]] for e in evs if e.type == "models"}
    assert set(models) == {"models", "models/p1"} and models["models"] != models["models/p1"]
    cands = {e.data["node_id"] for e in evs if e.type == "candidate"}
    assert {"init-m1", "p1-init-m1"} <= cands
    paths = {e.data.get("path") for e in evs if e.type == "candidate"}
    assert {"p0", "p1", "ens"} <= paths
    assert [e.data["r"] for e in evs if e.type == "ensemble_plan"] == [0, 1]
    assert len(ens_asks) == 2 and "Ensemble plans tried" in ens_asks[1].text
    pick = next(e.data for e in evs if e.type == "ensemble_pick")
    assert pick["kind"] in ("ensemble", "single") and pick["reason"]
    assert out.final.ok
