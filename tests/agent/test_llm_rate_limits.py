"""A burst of rate limits (HTTP 429 after the retries) on an LLM policy's roles.

Only the retriever fell back (to the offline catalog); every other role failed, so a burst
late in a run lost its debug rounds, its checks and its submission.  Roles whose offline
counterpart fits any notebook now use it; the roles that write new code from a plan still fail.
Also: the summarizer's scores written as strings ("95.2%", "0.95").
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mlestar_jupyter.agent.config import RunConfig
from mlestar_jupyter.agent.llm_policy import LLMPolicy
from mlestar_jupyter.agent.policy import (
    AblationStudy,
    DataUsageReport,
    FallbackReporter,
    LeakageReport,
    ModelCard,
)
from mlestar_jupyter.llm.client import LLMClient
from mlestar_jupyter.llm.errors import RateLimited
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


def _policy(srv: FakeLLMServer, task_dir: Path, tmp: Path, *, offline: bool = True) -> LLMPolicy:
    """A policy on ``srv`` whose client does not retry (each scripted 429 is the burst's end)."""
    client = LLMClient.from_settings(srv.settings("openai", retries=0), cache_dir=tmp / "llm")
    task = load_task(task_dir)
    if not offline:
        return grounded_llm_policy(task, RunConfig(backend="openai"), client, fallback=None)
    return grounded_llm_policy(task, RunConfig(backend="openai"), client)


def test_roles_with_an_offline_counterpart_use_it_when_rate_limited(
    tabular_task: Path, tmp_path: Path
) -> None:
    with FakeLLMServer() as srv:
        srv.on(lambda r: True, Reply.rate_limited(), repeat=True)
        policy = _policy(srv, tabular_task, tmp_path)
        told: list[str] = []
        assert isinstance(policy, FallbackReporter)  # so the run gives it its journal's warning
        policy.report_fallbacks_to(lambda role, why: told.append(role))  # the run journals these
        first = policy.init_solution(ModelCard("LightGBM", "gradient boosted trees"))
        assert isinstance(first, SolutionNotebook) and first.code_blocks  # the catalog's notebook
        fixed = policy.debug(NB, "NameError: name 'np' is not defined", "b2")
        assert isinstance(fixed, SolutionNotebook)
        leak = policy.check_leakage(NB)
        assert isinstance(leak, LeakageReport) and "rate-limited" in leak.note
        usage = policy.check_data_usage(NB)
        assert isinstance(usage, DataUsageReport) and usage.fixed is None
        assert "test.csv" in " ".join(usage.unused_files)
        final = policy.make_submission(NB)
        assert isinstance(final, SolutionNotebook)
        summary = policy.summarize_ablation(STUDY, 0.9, PRINTED, {})  # the printed scores
        assert [(r.name, r.score) for r in summary.results] == [("no scaling", 0.8)]
        roles = [role for role, _ in policy.offline_answers]
        assert roles == ["init", "debugger", "leakage check", "data-usage check", "submission"]
        assert told == roles
        assert all("RateLimited" in why for _, why in policy.offline_answers)


def test_roles_that_write_new_code_still_fail_when_rate_limited(
    tabular_task: Path, tmp_path: Path
) -> None:
    with FakeLLMServer() as srv:
        srv.on(lambda r: True, Reply.rate_limited(), repeat=True)
        policy = _policy(srv, tabular_task, tmp_path)
        with pytest.raises(RateLimited):
            policy.ablation(NB, [])
        assert policy.offline_answers == []


def test_without_an_offline_policy_a_rate_limit_propagates(
    tabular_task: Path, tmp_path: Path
) -> None:
    with FakeLLMServer() as srv:
        srv.on(lambda r: True, Reply.rate_limited(), repeat=True)
        policy = _policy(srv, tabular_task, tmp_path, offline=False)
        with pytest.raises(RateLimited):
            policy.init_solution(ModelCard("LightGBM", "gradient boosted trees"))


@pytest.mark.parametrize(
    ("score", "read"), [('"95.2%"', 0.952), ('"0.95"', 0.95), ('"n/a"', None), ("0.8", 0.8)]
)
def test_the_summarizers_scores_written_as_strings_are_read(
    tabular_task: Path, tmp_path: Path, score: str, read: float | None
) -> None:
    """The task's metric is ROC AUC (a fraction): "95.2%" is 0.952, on the baseline's scale."""
    answer = (
        '{"summary": "scaling helps", "results": [{"name": "baseline", "score": "96%"}, '
        f'{{"name": "no scaling", "score": {score}}}]}}'
    )
    with FakeLLMServer() as srv:
        srv.on(lambda r: True, Reply(answer), repeat=True)
        policy = _policy(srv, tabular_task, tmp_path)
        summary = policy.summarize_ablation(STUDY, 0.9, PRINTED, {})
    assert summary.text == "scaling helps" and summary.baseline == pytest.approx(0.96)
    [(name, got)] = [(r.name, r.score) for r in summary.results]
    assert name == "no scaling" and (
        got == pytest.approx(read) if read is not None else got is None
    )
    assert not any("could not be used" in r.text for r in srv.requests)  # never re-asked


def test_the_run_journals_each_offline_answer_as_a_warning(tmp_path: Path) -> None:
    from mlestar_jupyter.agent.run import _offline_answer_warning
    from mlestar_jupyter.journal import RunJournal, read_events

    journal = RunJournal.create(tmp_path / "run", {})
    _offline_answer_warning(journal, "debugger", "RateLimited: 429 Too Many Requests")
    (event,) = [e.data for e in read_events(journal.events_path) if e.type == "warning"]
    assert event["message"].startswith("debugger: the model stayed rate-limited")
    assert "429" in event["message"]


def test_the_offline_policy_reports_no_fallbacks(tabular_task: Path) -> None:
    """Only a policy that can answer from a fall-back is given the run's warning (the offline
    policy is its own answer)."""
    from mlestar_jupyter.offline import OfflinePolicy
    from mlestar_jupyter.task import load_task

    assert not isinstance(OfflinePolicy(load_task(tabular_task), RunConfig()), FallbackReporter)
