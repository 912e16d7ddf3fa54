"""An untagged user notebook through the openai backend on the in-repo fake server: the roles
inferred from its code (and the validation cell MLE-STAR adds) reach the LLM's prompts."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from mlestar_jupyter.agent.config import Budget, RunConfig
from mlestar_jupyter.agent.run import run_mlestar
from mlestar_jupyter.execution import Executor
from mlestar_jupyter.journal import RunJournal, read_events
from mlestar_jupyter.llm.client import LLMClient
from mlestar_jupyter.llm.testing import FakeLLMServer, Reply
from mlestar_jupyter.notebook import SolutionNotebook
from mlestar_jupyter.policies import grounded_llm_policy
from mlestar_jupyter.task import load_task

pytestmark = pytest.mark.slow

ROOT = Path(__file__).parents[2]
TASK = ROOT / "example_notebooks" / "tasks" / "breast-cancer"
NOTEBOOK = ROOT / "tests" / "files" / "user_notebooks" / "bc_random_forest.ipynb"
MODEL_LINE = "rf = RandomForestClassifier(n_estimators=10, max_depth=2, random_state=42)"


def fence(code: str) -> str:
    return f"```python\n{code}\n```"


def script(srv: FakeLLMServer) -> None:
    srv.on("runs an ablation study", fence('print("Ablation shallow forest: 0.95")'), repeat=True)
    srv.on(
        "Summarise the result",
        Reply(text=json.dumps({"summary": "The forest matters most.", "results": []})),
        repeat=True,
    )
    srv.on(
        "choose the one code block",
        Reply(
            text=json.dumps(
                {"block_id": "b4", "code_block": MODEL_LINE, "plan": "More and deeper trees."}
            )
        ),
        repeat=True,
    )
    srv.on(
        "Rewrite this code block",
        fence("rf = RandomForestClassifier(n_estimators=200, max_depth=6, random_state=42)"),
        repeat=True,
    )
    srv.on(
        "Look for data leakage",
        Reply(text=json.dumps({"leakage": False, "code_block": "", "reason": ""})),
        repeat=True,
    )
    srv.on("Propose a new plan", "Use 300 trees.", repeat=True)


def test_user_notebook_roles_feed_the_llm_prompts(tmp_path: Path) -> None:
    task = load_task(TASK)
    cfg = RunConfig(
        num_models=1,
        inner_steps=1,
        outer_steps=1,
        parallel_solutions=1,
        ensemble_rounds=0,
        debug_rounds=1,
        backend="openai",
        budget=Budget(wall_seconds=300, exec_timeout=60),
    )
    run_dir = tmp_path / "run"
    journal = RunJournal.create(run_dir, {})
    with Executor(timeout=60, max_parallel=1, pool_size=1) as ex, FakeLLMServer() as srv:
        script(srv)
        client = LLMClient.from_settings(srv.settings("openai"), cache_dir=run_dir / "llm")
        policy = grounded_llm_policy(task, cfg, client)
        run_mlestar(
            task,
            cfg,
            journal,
            ex,
            lambda i: policy,
            start_notebook=SolutionNotebook.read(NOTEBOOK),
        )
        prompts = [r.text for r in srv.requests]
    journal.close()
    ablation = next(p for p in prompts if "runs an ablation study" in p)
    assert re.search(r"# %% b4 \(model\)", ablation)  # inferred, the notebook has no tags
    assert "# %% b2 (load)" in ablation and "_mlestar_score(rf, X_valid, y_valid)" in ablation
    evs = read_events(run_dir / "events.jsonl")
    user = next(e.data for e in evs if e.type == "candidate" and e.data["id"] == "user")
    proposals = [e.data for e in evs if e.type == "proposal"]
    assert user["score"] is not None
    assert any(p["block_id"] == "b4" and p["score_after"] > user["score"] for p in proposals)
    assert any(e.type == "run_finished" for e in evs)
