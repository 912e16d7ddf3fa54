"""The retriever (paper §3.1) against the fake Gemini server: grounded search, re-asks with the
error quoted, one source page per model, and a journaled fall-back to the local catalog."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from mlestar_jupyter.agent.algorithms import Context, retrieve_and_init
from mlestar_jupyter.agent.config import RunConfig
from mlestar_jupyter.agent.llm_policy import LLMPolicy, source_url
from mlestar_jupyter.journal import RunJournal
from mlestar_jupyter.llm.client import LLMClient
from mlestar_jupyter.llm.testing import FakeLLMServer, Reply
from mlestar_jupyter.offline import OfflinePolicy
from mlestar_jupyter.policies import grounded_llm_policy
from mlestar_jupyter.task import load_task

LGBM = "import lightgbm as lgb\nmodel = lgb.LGBMClassifier(n_estimators=200)\nmodel.fit(X, y)"
XGB = "import xgboost as xgb\nmodel = xgb.XGBClassifier(n_estimators=200)\nmodel.fit(X, y)"
SOURCES = (
    ("https://example.org/xgboost-tutorial", "XGBoost tutorial"),
    ("https://example.org/lightgbm-guide", "LightGBM: a guide"),
)


def _gemini_policy(srv: FakeLLMServer, task_dir: Path, tmp: Path) -> LLMPolicy:
    task = load_task(task_dir)
    config = RunConfig(backend="gemini")
    return grounded_llm_policy(
        task,
        config,
        LLMClient.from_settings(srv.settings("gemini"), cache_dir=tmp / "llm"),
        fallback=OfflinePolicy(task, config),
    )


def test_each_model_keeps_its_own_source_page(tabular_task: Path, tmp_path: Path) -> None:
    answer = [
        {"model_name": "LightGBM", "example_code": LGBM},
        {"model_name": "XGBoost", "example_code": XGB, "source_url": "https://xgb.example/cited"},
    ]
    with FakeLLMServer() as srv:
        srv.script(Reply(json.dumps(answer), sources=SOURCES))
        cards = _gemini_policy(srv, tabular_task, tmp_path).retrieve(2)
        assert srv.requests[0].wants_search
    assert [(c.name, c.source, c.url) for c in cards] == [
        ("LightGBM", "web", "https://example.org/lightgbm-guide"),  # not the first source
        ("XGBoost", "web", "https://xgb.example/cited"),  # the page the answer cites
    ]
    assert source_url("CatBoost", "", [SimpleNamespace(uri=u, title=t) for u, t in SOURCES]) == ""


def test_unparsable_grounded_answer_is_asked_again_with_the_error(
    tabular_task: Path, tmp_path: Path
) -> None:
    good = [{"model_name": "LightGBM", "example_code": LGBM}]
    with FakeLLMServer() as srv:
        srv.script(
            Reply("Here are some great models: LightGBM and XGBoost!", sources=SOURCES),
            Reply(json.dumps(good), sources=SOURCES),
        )
        policy = _gemini_policy(srv, tabular_task, tmp_path)
        cards = policy.retrieve(1)
        second = srv.requests[1]
    assert [c.name for c in cards] == ["LightGBM"] and cards[0].source == "web"
    assert second.wants_search and "could not be used" in second.text
    assert "great models" in second.text  # the bad answer is quoted back
    assert policy.retrieval_fallback is None


def test_fall_back_to_the_catalog_is_a_journaled_event(tabular_task: Path, tmp_path: Path) -> None:
    with FakeLLMServer() as srv:
        srv.script(*[Reply(f"no JSON here, sorry ({i})", sources=SOURCES) for i in range(3)])
        policy = _gemini_policy(srv, tabular_task, tmp_path)
        journal = RunJournal.create(tmp_path / "run", {})
        ctx = Context(
            task=policy.task,
            config=RunConfig(backend="gemini", num_models=2),
            journal=journal,
            runner=SimpleNamespace(stop_if_requested=lambda: None),  # type: ignore[arg-type]
        )
        policy.init_solution = lambda card: None  # type: ignore[method-assign]  # no kernels here
        retrieve_and_init(ctx, policy)
        assert len(srv.requests) == 3  # the first ask and max_reasks=2 re-asks
    events = {e.type: e.data for e in journal.events}
    models = events["models"]["cards"]
    assert len(models) == 2 and all(m["source"] != "web" for m in models)
    fb = events["retrieval_fallback"]
    assert "ReplyFormatError" in fb["reason"] and "re-asks" in fb["reason"]
    assert fb["catalog_models"] == [m["name"] for m in models]
