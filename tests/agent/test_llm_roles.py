"""The role modules: registry, answer kinds and schemas, and which errors a role falls back from.

Errors the model caused (an answer still unusable after the re-asks) are fallen back from where a
role has a fall-back; infrastructure errors (a refused key, a server that is down) propagate out
of every role, so the run says what is wrong instead of carrying on with degraded answers.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mlestar_jupyter.agent.config import RunConfig
from mlestar_jupyter.agent.llm_policy import LLMPolicy
from mlestar_jupyter.agent.policy import AblationStudy
from mlestar_jupyter.agent.roles import PROMPTS, ROLES
from mlestar_jupyter.llm.client import LLMClient
from mlestar_jupyter.llm.errors import AuthFailed, LLMError, ReplyFormatError, Unavailable
from mlestar_jupyter.llm.testing import FakeLLMServer, Reply
from mlestar_jupyter.notebook import SolutionNotebook
from mlestar_jupyter.policies import grounded_llm_policy
from mlestar_jupyter.task import load_task

NB = SolutionNotebook.new(
    [
        ("load", "import pandas as pd\ndf = pd.read_csv('input/train.csv')"),
        ("model", "print(df.shape)"),
    ]
)
STUDY = AblationStudy(notebook=SolutionNotebook.new([("other", "print('Ablation baseline: 0.9')")]))
PRINTED = "Ablation baseline: 0.9\nAblation no scaling: 0.8\n"

# The JSON schemas sent with the requests are part of the cache key of every recorded answer: a
# changed schema (a docstring on an answer model becomes its "description") re-pays every call
# of a resumed or replayed run.  Change these only on purpose.
SCHEMA_SHA256 = {
    "retriever": "d71f1c68a0066be7",
    "summarize": "44362d4f5c57a329",
    "extractor": "c2819c44d9be13f2",
    "leakage_detect": "b08e4411239e4a1e",
}


def _policy(srv: FakeLLMServer, task_dir: Path, tmp: Path, backend: str = "openai") -> LLMPolicy:
    """A policy on ``srv`` whose client does not retry (each scripted error is final)."""
    client = LLMClient.from_settings(srv.settings(backend, retries=0), cache_dir=tmp / "llm")
    return grounded_llm_policy(load_task(task_dir), RunConfig(backend=backend), client)


def test_every_role_has_its_template_and_every_template_a_role() -> None:
    assert sorted(ROLES) == sorted(p.stem for p in PROMPTS.glob("*.j2"))


def test_json_roles_send_their_schema_and_others_none() -> None:
    for name, role in ROLES.items():
        schema = role.request_schema
        if role.answer == "json":
            assert role.schema is not None and schema is not None, name
            digest = hashlib.sha256(json.dumps(schema, sort_keys=True).encode()).hexdigest()
            assert digest[:16] == SCHEMA_SHA256[name], f"{name}: the request schema changed"
        else:
            assert role.schema is None and schema is None, name
    assert sorted(n for n, r in ROLES.items() if r.answer == "json") == sorted(SCHEMA_SHA256)


def test_each_answer_kind_is_parsed_by_its_role() -> None:
    ans = ROLES["summarize"].parse('{"summary": "scaling helps", "results": []}')
    assert ans.summary == "scaling helps"
    assert ROLES["coder"].parse("```python\nx = 1\n```\n```") == "x = 1"
    assert ROLES["planner"].parse("Use more trees.") == "Use more trees."
    assert ROLES["novelty"].parse("I'd say: same.") == "Same"
    for role, reply in (
        ("summarize", "no JSON"),
        ("coder", "no code"),
        ("planner", " "),
        ("novelty", "?"),
    ):
        with pytest.raises(ReplyFormatError):
            ROLES[role].parse(reply)


ROLE_CALLS: dict[str, Callable[[LLMPolicy], Any]] = {
    "retriever": lambda p: p.retrieve(2),
    "summarize": lambda p: p.summarize_ablation(STUDY, 0.9, PRINTED, {}),
    "leakage": lambda p: p.check_leakage(NB),
}


@pytest.mark.parametrize("backend", ["openai", "gemini"])
@pytest.mark.parametrize("role", sorted(ROLE_CALLS))
@pytest.mark.parametrize(
    ("reply", "error"),
    [
        (Reply.error(401, "Incorrect API key provided"), AuthFailed),
        (Reply.unavailable(), Unavailable),
    ],
)
def test_infrastructure_errors_propagate_out_of_roles_that_fall_back(
    tabular_task: Path,
    tmp_path: Path,
    backend: str,
    role: str,
    reply: Reply,
    error: type[LLMError],
) -> None:
    """These three roles used to catch everything but ``RunStopped``: a refused key or a server
    that was down became a silent fall-back to the catalog, the printed scores, the static check."""
    with FakeLLMServer() as srv:
        srv.on(lambda r: True, reply, repeat=True)
        policy = _policy(srv, tabular_task, tmp_path, backend)
        with pytest.raises(error):
            ROLE_CALLS[role](policy)
        assert not any("could not be used" in r.text for r in srv.requests)  # not the model's


def test_a_rate_limited_retriever_falls_back_to_the_catalog(
    tabular_task: Path, tmp_path: Path
) -> None:
    """Five 429s on the run's first call (a burst): the search ended with no models at all and
    the run "all_failed" with most of its budget left.  The catalog fills in, and says why."""
    with FakeLLMServer() as srv:
        srv.on(lambda r: True, Reply.rate_limited(), repeat=True)
        policy = _policy(srv, tabular_task, tmp_path)
        cards = policy.retrieve(2)
        assert len(cards) == 2 and policy.retrieval_fallback is not None
        assert "RateLimited" in policy.retrieval_fallback.reason


def test_unusable_answers_still_fall_back(tabular_task: Path, tmp_path: Path) -> None:
    with FakeLLMServer() as srv:
        srv.on(lambda r: True, Reply("I cannot answer in JSON, sorry."), repeat=True)
        policy = _policy(srv, tabular_task, tmp_path)
        summary = policy.summarize_ablation(STUDY, 0.9, PRINTED, {})
        assert summary.baseline == 0.9 and [(r.name, r.score) for r in summary.results] == [
            ("no scaling", 0.8)
        ]
        report = policy.check_leakage(NB)  # the static check's verdict, and why only it
        assert not report.leaky and "could not be used" in report.note
        cards = policy.retrieve(2)
        assert len(cards) == 2 and policy.retrieval_fallback is not None
        assert "ReplyFormatError" in policy.retrieval_fallback.reason
        # each role asked again twice with the problem quoted: the second re-ask, the same
        # words as the first, is sent again (salted), not answered from the cache
        assert sum("could not be used" in r.text for r in srv.requests) == 6


def test_the_coder_and_init_prompts_name_the_runs_time_limit_file() -> None:
    """Code the model writes can size a search by ``./time_limit.txt`` (the harness writes it)."""
    coder = ROLES["coder"].render(block="x = 1", plan="search the settings", score_notes=[])
    assert "`./time_limit.txt`" in coder and "stop well within it" in coder
    card = type("Card", (), {"name": "lightgbm", "description": "trees", "example_code": "..."})
    init = ROLES["init"].render(
        task="t", data="", card=card, starter="", subsample=False, max_rows=30000
    )
    assert "`./time_limit.txt`" in init
