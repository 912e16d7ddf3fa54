"""``LLMPolicy``: every MLE-STAR role answered by a language model through the ``llm`` layer.

The policy only orchestrates: each role lives in its own module under ``agent/roles`` (template,
context, answer schema, parser), one ``RoleCaller`` asks for all of them, one ``RoleContext``
holds what the prompts show of the task.  Around the model, they keep what a small model gets
wrong out of the executions:

- the environment manifest (Python, installed packages, CPU/GPU) is in every system prompt;
- code is pre-screened before it costs an execution: syntax, names used but never imported
  (repaired), modules that are not installed (sent back to the model with the reason);
- the metric and its direction always come from the task;
- prompts are sized to the model's context: long code, tracebacks and logs keep head and tail;
- cells are separated by ``# %% <role>`` markers; block ids survive a round trip through a script
  (``agent.percent_script``);
- the leakage check starts with the grounded policy's static check (``agent.leakage_check``).

Errors the model caused are re-asked and, where a role has one, fallen back from; infrastructure
errors (``AuthFailed``, ``Unavailable`` ...) propagate; a spent LLM budget raises ``RunStopped``.

A burst of rate limits (``RateLimited``: still refused after the retries, each honouring the
server's ``Retry-After`` within the run's time) is no reason to lose the step where the offline
policy has an answer that fits any notebook: the retriever takes the catalog's models, the
initial solution the catalog's notebook for the card, the summary the printed scores, the
debugger the deterministic fixes, the leakage and data-usage checks their static parts, and the
submission the notebook's own files.  The roles that write new code from a plan (ablation,
extractor, planner, coder, merger, ensembler) have no such counterpart and fail as before.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from typing import TypeVar

from ..codecheck.static_checks import modules_in
from ..llm.client import LLMClient
from ..llm.errors import RateLimited
from ..notebook import SolutionNotebook
from ..task import Task
from . import leakage_check
from .config import RunConfig
from .environment import Environment
from .percent_script import script_to_notebook
from .policy import (
    AblationStudy,
    AblationSummary,
    CardCatalog,
    DataUsageReport,
    GroundedPolicy,
    LeakageReport,
    ModelCard,
    Plan,
    RefineTarget,
)
from .roles import (
    ablation,
    coder,
    data_usage,
    debugger,
    ens_planner,
    ensembler,
    extractor,
    init,
    merger,
    novelty,
    planner,
    retriever,
    submission,
    summarize,
)
from .roles.ablation import parse_ablation_lines
from .roles.base import without_stray_fences as _without_stray_fences  # noqa: F401 - tests import it here
from .roles.caller import CallSettings, RoleCaller, llm_settings, make_client, with_starter
from .roles.context import RoleContext, system_prompt
from .roles.extractor import resolve_target
from .roles.retriever import RetrievalFallback, source_url

log = logging.getLogger("mlestar.agent")
T = TypeVar("T")

__all__ = [
    "CallSettings",
    "LLMPolicy",
    "RetrievalFallback",
    "llm_settings",
    "make_client",
    "parse_ablation_lines",
    "resolve_target",
    "script_to_notebook",
    "source_url",
    "with_starter",
]


class LLMPolicy:
    """MLE-STAR's roles played by an LLM (see the module docstring).

    Parameters
    ----------
    task, config:       the run's task and settings.
    client:             the run's LLM client (cache, journal, budgets).
    path_index:         which of the run's L paths this policy serves (salted into its requests).
    catalog:            the local model catalog: user cards, examples for cards without code.
    fallback:           a policy that needs no LLM (the offline one, in a run): static leakage
                        check, starter cells, row count, and models when retrieval falls short.
    context_tokens, max_reasks, max_answer_tokens:  see ``CallSettings``.
    """

    name = "llm"

    def __init__(
        self,
        task: Task,
        config: RunConfig,
        client: LLMClient,
        *,
        path_index: int = 0,
        catalog: CardCatalog | None = None,
        fallback: GroundedPolicy | None = None,
        context_tokens: int = 32768,
        max_reasks: int = 2,
        max_answer_tokens: int | None = None,
    ) -> None:
        self.task = task
        self.config = config
        self.client = client
        self.path_index = path_index
        self.catalog = catalog
        self.fallback = fallback
        self.settings = CallSettings(context_tokens, max_reasks, max_answer_tokens)
        self.system = system_prompt(task)
        self.caller = RoleCaller(
            client,
            self.system,
            self.settings,
            path_index=path_index,
            local_modules=modules_in(task.input_dir),
        )
        self.context = RoleContext(task, config, self.settings.context_chars, fallback)
        self.retrieval_fallback: RetrievalFallback | None = None  # set when the catalog filled in
        self.offline_answers: list[tuple[str, str]] = []
        """(role, why) of each answer the offline policy gave because the model was rate-limited."""
        self.on_offline_answer: Callable[[str, str], None] | None = None
        """Told (role, why) of each such answer as it is given (the run journals a warning)."""

    def report_fallbacks_to(self, report: Callable[[str, str], None]) -> None:
        """``FallbackReporter``: tell ``report(role, why)`` of each answer the offline policy gives
        because the model stayed rate-limited."""
        self.on_offline_answer = report

    def use_environment(self, env: Environment) -> None:
        """``MachineAware``: the system prompt describes ``env``, where the kernels run."""
        self.system = self.caller.system = system_prompt(self.task, env)

    @property
    def static(self) -> GroundedPolicy | None:
        """The grounded fall-back policy (the run factory passes the offline one), whose static
        leakage checks, starter cells and row count help the LLM's roles; None runs without."""
        return self.fallback

    def hear_score_feedback(self, message: str) -> None:
        """The harness found a printed score it could not take as printed (``CandidateRunner``):
        the next debugger and coder prompts quote the latest such messages."""
        self.context.hear_score_feedback(message)

    # ------------------------------------------------------------------ roles
    def retrieve(self, m: int) -> list[ModelCard]:
        """A_retriever: ``m`` models; ``retrieval_fallback`` says when the catalog filled in."""
        found = retriever.retrieve(
            self.caller, self.context, m, catalog=self.catalog, fallback=self.fallback
        )
        self.retrieval_fallback = found.fallback
        return found.cards

    def init_solution(self, card: ModelCard) -> SolutionNotebook:
        """A_init: a first notebook using ``card`` (rate-limited: the catalog's notebook for it)."""
        return self._offline_if_rate_limited(
            "init",
            lambda: init.ask(self.caller, self.context, card),
            lambda f: f.init_solution(card),
        )

    def merge(self, base: SolutionNotebook, reference: SolutionNotebook) -> SolutionNotebook:
        """A_merger: ``reference`` integrated into ``base``."""
        return merger.ask(self.caller, self.context, base, reference)

    def ablation(
        self, solution: SolutionNotebook, previous: list[AblationSummary]
    ) -> AblationStudy:
        """A_abl: one program running an ablation study of ``solution``."""
        return ablation.ask(self.caller, self.context, solution, previous)

    def summarize_ablation(
        self,
        study: AblationStudy,
        baseline: float | None,
        output: str,
        variant_scores: dict[str, float | None],
    ) -> AblationSummary:
        """A_summarize: the study's output summarised (the printed lines when the answer fails)."""
        return summarize.ask(self.caller, self.context, study, baseline, output)

    def extract(
        self, solution: SolutionNotebook, summary: AblationSummary, refined: list[str]
    ) -> RefineTarget:
        """A_extractor: the block to refine and a first plan."""
        return extractor.ask(self.caller, self.context, solution, summary, refined)

    def code(self, solution: SolutionNotebook, target: RefineTarget, plan: Plan) -> str:
        """A_coder: the target's new code."""
        return coder.ask(self.caller, self.context, solution, target, plan)

    def plan(
        self,
        solution: SolutionNotebook,
        target: RefineTarget,
        history: list[tuple[Plan, float | None]],
    ) -> Plan:
        """A_planner: a new plan for the target block."""
        return planner.ask(self.caller, self.context, solution, target, history)

    def ensemble_plan(
        self, solutions: list[SolutionNotebook], history: list[tuple[Plan, float | None]]
    ) -> Plan:
        """A_ens_planner: a new plan to combine ``solutions``."""
        return ens_planner.ask(self.caller, self.context, solutions, history)

    def ensemble(self, solutions: list[SolutionNotebook], plan: Plan) -> SolutionNotebook:
        """A_ensembler: the ensemble notebook."""
        return ensembler.ask(self.caller, self.context, solutions, plan)

    def debug(
        self, solution: SolutionNotebook, error: str, failed_block: str | None
    ) -> SolutionNotebook:
        """A_debugger: ``solution`` with ``error`` fixed (rate-limited: the deterministic fixes)."""
        return self._offline_if_rate_limited(
            "debugger",
            lambda: debugger.ask(self.caller, self.context, solution, error),
            lambda f: f.debug(solution, error, failed_block),
        )

    def check_leakage(self, solution: SolutionNotebook) -> LeakageReport:
        """Static check first (free); then the LLM detector; a leak found is fixed in its block
        (rate-limited: the static check alone)."""
        return self._offline_if_rate_limited(
            "leakage check",
            lambda: leakage_check.check_leakage(self.caller, self.context, solution, self.static),
            lambda f: replace(
                f.check_leakage(solution),
                note="the leakage detector was rate-limited; static check only",
            ),
        )

    def check_data_usage(self, solution: SolutionNotebook) -> DataUsageReport:
        """Data-usage checker: the files never read, and the notebook using them (rate-limited:
        the files never read, the notebook unchanged)."""
        return self._offline_if_rate_limited(
            "data-usage check",
            lambda: data_usage.ask(self.caller, self.context, solution),
            lambda _: data_usage.unread_files(self.context, solution),
        )

    def check_novelty(self, solution: SolutionNotebook, reference: str) -> str:
        """The paper's contamination check: ``"Novel"`` or ``"Same"`` against a reference text."""
        return novelty.ask(self.caller, self.context, solution, reference)

    def make_submission(self, solution: SolutionNotebook) -> SolutionNotebook:
        """A_test: the final notebook writing ``./final/submission.csv`` (rate-limited: the
        notebook's own files written there, and a cell predicting the test rows if it has none)."""
        return self._offline_if_rate_limited(
            "submission",
            lambda: submission.ask(self.caller, self.context, solution),
            lambda f: f.make_submission(solution),
        )

    # ------------------------------------------------------------------ rate limits
    def _offline_if_rate_limited(
        self, role: str, ask: Callable[[], T], offline: Callable[[GroundedPolicy], T]
    ) -> T:
        """``ask()``; when the model stays rate-limited (its retries spent) and the run has an
        offline policy, ``offline(policy)``'s answer, noted in ``offline_answers``."""
        try:
            return ask()
        except RateLimited as e:
            if self.fallback is None:
                raise
            log.warning("%s: %s; the offline policy answers instead", role, e)
            why = f"RateLimited: {str(e)[:300]}"
            self.offline_answers.append((role, why))
            answer = offline(self.fallback)
            if self.on_offline_answer is not None:
                self.on_offline_answer(role, why)
            return answer
