"""The contract between the search loop and whoever plays MLE-STAR's roles.

The loop (``agent.loop``) calls one method per role of the paper; a ``Policy`` answers.  Two
policies implement it: ``LLMPolicy`` (prompts in ``agent/roles/prompts``, any ``llm`` backend) and
``OfflinePolicy`` (``offline``: a deterministic policy over the local model catalog).  A policy is
built per run for one task and never executes code: the loop runs, scores and journals.

Role methods raise ``ReplyFormatError`` (from ``llm``) only after their own re-asks are spent;
the loop treats any exception from a role as "this step produced nothing" and carries on.

A policy may also be a ``FallbackReporter`` (define ``report_fallbacks_to(report)``): the run
journals each answer it took from a fall-back.  A policy may also be a ``ScoreListener`` (define ``hear_score_feedback(message)``): the loop
calls it when the harness did not take a candidate's printed score as printed (see
``agent.scoring``), so later prompts can say so; ``LLMPolicy`` quotes the latest messages to its
debugger and coder.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ..notebook import SolutionNotebook
from .environment import Environment


@dataclass(frozen=True)
class ModelCard:
    """A model the retriever proposes: what it is and how to use it."""

    name: str
    description: str
    example_code: str = ""
    modalities: tuple[str, ...] = ()
    task_types: tuple[str, ...] = ()
    source: str = "catalog"  # catalog | user | web
    url: str = ""
    template: str | None = None  # the offline catalog's notebook template id
    requires: tuple[str, ...] = ()  # importable packages it needs


EXHAUSTED = "exhausted"  # a plan's strategy when no change is left for its block


@dataclass(frozen=True)
class Plan:
    """A refinement or ensemble plan: prose for people and LLMs, an optional strategy id for the offline policy."""

    text: str
    strategy: str | None = None
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def exhausted(self) -> bool:
        """The planner has no change left for the block (``strategy`` ``EXHAUSTED``): the inner
        loop ends instead of running the block unchanged."""
        return self.strategy == EXHAUSTED


@dataclass(frozen=True)
class AblationVariant:
    """One ablation: the solution with one block switched off or simplified."""

    name: str
    block_id: str | None
    notebook: SolutionNotebook


@dataclass(frozen=True)
class AblationStudy:
    """Either one notebook that runs every ablation and prints the results (the paper's A_abl),
    or a list of variants the loop executes and scores one by one."""

    notebook: SolutionNotebook | None = None
    variants: tuple[AblationVariant, ...] = ()


@dataclass(frozen=True)
class AblationResult:
    """One ablation variant's outcome: its name, the block it changed (if known), its score and
    the change from the baseline (``None`` when either score is missing)."""

    name: str
    block_id: str | None
    score: float | None
    delta: float | None  # score - baseline, signed so that positive = the block helps


@dataclass(frozen=True)
class AblationSummary:
    """What an ablation study found: the summary text the extractor's prompt quotes, the baseline score
    and one result per variant."""

    text: str
    baseline: float | None
    results: tuple[AblationResult, ...] = ()


@dataclass(frozen=True)
class RefineTarget:
    """The extractor's choice: a block (and optionally an exact fragment of it) and a first plan."""

    block_id: str
    plan: Plan
    fragment: str | None = None  # None: the whole cell


@dataclass(frozen=True)
class LeakageReport:
    """The leakage check's verdict on a notebook: whether it leaks, in which block, why, and the
    block's fixed source when one was written."""

    leaky: bool
    block_id: str | None = None
    reason: str = ""
    fixed_source: str | None = None  # the block's replacement when leaky
    # why the check was less than asked (the LLM detector's answer was unusable: the static
    # check alone); the run journals it as a warning
    note: str = ""


@dataclass(frozen=True)
class DataUsageReport:
    """The data-usage check's verdict: the ``input/`` files the solution never reads, and the
    notebook changed to use them (``None`` when there is nothing to add)."""

    unused_files: tuple[str, ...] = ()
    fixed: SolutionNotebook | None = None  # None: nothing to add (or nothing could be added)


@runtime_checkable
class Policy(Protocol):
    """Answers every role of MLE-STAR for one task."""

    name: str

    def retrieve(self, m: int) -> list[ModelCard]:
        """A_retriever: up to ``m`` models with example code for this task."""

    def init_solution(self, card: ModelCard) -> SolutionNotebook:
        """A_init: a first, simple solution notebook using ``card`` that prints
        ``Final Validation Performance: <score>`` and (if the policy does so) writes ./final/submission.csv."""

    def merge(self, base: SolutionNotebook, reference: SolutionNotebook) -> SolutionNotebook:
        """A_merger: integrate ``reference`` into ``base`` (usually an ensemble of both models)."""

    def ablation(
        self, solution: SolutionNotebook, previous: list[AblationSummary]
    ) -> AblationStudy:
        """A_abl: an ablation study of 2–3 parts not studied before."""

    def summarize_ablation(
        self,
        study: AblationStudy,
        baseline: float | None,
        output: str,
        variant_scores: dict[str, float | None],
    ) -> AblationSummary:
        """A_summarize: the study's result in a few lines, with per-ablation scores."""

    def extract(
        self, solution: SolutionNotebook, summary: AblationSummary, refined: list[str]
    ) -> RefineTarget:
        """A_extractor: the block to refine (preferring ones not in ``refined``) and a first plan."""

    def code(self, solution: SolutionNotebook, target: RefineTarget, plan: Plan) -> str:
        """A_coder: the new source of the target block (or fragment) implementing ``plan``."""

    def plan(
        self,
        solution: SolutionNotebook,
        target: RefineTarget,
        history: list[tuple[Plan, float | None]],
    ) -> Plan:
        """A_planner: a new plan for the same block, given every earlier plan and its score."""

    def ensemble_plan(
        self, solutions: list[SolutionNotebook], history: list[tuple[Plan, float | None]]
    ) -> Plan:
        """A_ens_planner: a plan to combine the L solutions, given earlier plans and scores."""

    def ensemble(self, solutions: list[SolutionNotebook], plan: Plan) -> SolutionNotebook:
        """A_ensembler: one notebook implementing ``plan`` over ``solutions``."""

    def debug(
        self, solution: SolutionNotebook, error: str, failed_block: str | None
    ) -> SolutionNotebook:
        """A_debugger: the notebook with the error fixed."""

    def check_leakage(self, solution: SolutionNotebook) -> LeakageReport:
        """Data-leakage checker: find (and fix) preprocessing that lets validation/test data shape training."""

    def check_data_usage(self, solution: SolutionNotebook) -> DataUsageReport:
        """Data-usage checker: make sure every provided file is used."""

    def make_submission(self, solution: SolutionNotebook) -> SolutionNotebook:
        """A_test: train on all training data (no subsampling) and write ./final/submission.csv for every test row."""


@runtime_checkable
class ScoreListener(Protocol):
    """An optional capability of a policy: it hears when the harness did not take a printed
    score as printed (``isinstance(policy, ScoreListener)`` tells)."""

    def hear_score_feedback(self, message: str) -> None:
        """Keep ``message`` (a mismatch or untrusted score) for the next prompts."""


@runtime_checkable
class FallbackReporter(Protocol):
    """An optional capability of a policy: some of its answers may come from a fall-back (an LLM
    policy answers a rate-limited role from the offline policy), and it reports each one to the
    callback the run gives it (``isinstance(policy, FallbackReporter)`` tells)."""

    def report_fallbacks_to(self, report: Callable[[str, str], None]) -> None:
        """Call ``report(role, why)`` for every answer given by the fall-back from now on."""


@runtime_checkable
class MachineAware(Protocol):
    """An optional capability of a policy: it tells its model where the code will run (the
    prompts' environment manifest), and the run gives it the kernels' machine when they run
    elsewhere than the agent (a Kernel Gateway's), before the first role is asked."""

    def use_environment(self, env: Environment) -> None:
        """Describe ``env`` (Python, packages, cores, GPU) to the model from now on."""


class CatalogCard(Protocol):
    """One entry of a local model catalog, as an LLM policy reads it."""

    @property
    def name(self) -> str:
        """The model's name."""

    @property
    def description(self) -> str:
        """What the model is and why it fits."""

    @property
    def example_code(self) -> str:
        """A short example of its use."""

    @property
    def source(self) -> str:
        """``catalog`` for a shipped card, ``user`` for one from a user's folder."""

    def to_model_card(self) -> ModelCard:
        """The card as the search loop's ``ModelCard``."""


class CardCatalog(Protocol):
    """A local catalog of model cards (the shipped one plus a user's folders)."""

    def matching(self, modality: str, task_type: str) -> Sequence[CatalogCard]:
        """Cards that fit this modality and task type (and whose packages are installed)."""

    def closest(self, model_name: str, modality: str, task_type: str) -> CatalogCard | None:
        """The card most like ``model_name``, or None."""


@runtime_checkable
class GroundedPolicy(Policy, Protocol):
    """A policy that also knows the task's data layout without an LLM: an LLM policy leans on it
    for starter cells, the training-row count, static checks and a catalog to fall back on."""

    def starter_code(self) -> str:
        """Cells that load this task's data into ``X``, ``y``, ``X_test`` ... ("" when none)."""

    def train_rows(self) -> int | None:
        """How many training rows the task has (None when unknown)."""
