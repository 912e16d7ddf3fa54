"""Events of the search: ablation, refinement plans, proposals and decisions, ensembles, the
submission and LLM calls."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from .base import EventData, PathName, Row


class AblationRow(Row):
    """One ablation variant's result."""

    name: str = ""
    block_id: str | None = None
    score: float | None = None
    delta: float | None = None


# -- refinement ---------------------------------------------------------------------------------
class AblationEvent(EventData):
    """An ablation study of a solution."""

    TYPE = "ablation"
    path: PathName = ""
    t: int | None = None
    baseline: float | None = None
    summary: str = ""
    results: list[AblationRow] = Field(default_factory=list)


class TargetEvent(EventData):
    """The block (and code fragment) chosen for refinement."""

    TYPE = "target"
    path: PathName = ""
    t: int | None = None
    block_id: str | None = None
    fragment: str | None = None
    plan: str = ""


class PlanEvent(EventData):
    """One refinement plan for the target block."""

    TYPE = "plan"
    path: PathName = ""
    t: int | None = None
    k: int | None = None
    block_id: str | None = None
    plan: str = ""


class ImprovementEvent(EventData):
    """One attempt at improving a solution (a merge has ``t=-1``)."""

    TYPE = "improvement"
    path: PathName = ""
    t: int | None = None
    k: int | None = None
    node_id: str | None = None
    block_id: str | None = None
    old_score: float | None = None
    new_score: float | None = None
    kept: bool = False


class ProposalEvent(EventData):
    """A proposed change of one cell (change, insert or delete)."""

    TYPE = "proposal"
    proposal_id: str | None = None
    path: PathName = ""
    node_id: str | None = None
    kind: Literal["change", "insert", "delete"] = "change"
    block_id: str | None = None
    cell_id: str | None = None
    after_block_id: str | None = None  # insert: the cell the new one goes after (None: the top)
    after_cell_id: str | None = None
    old_source: str = ""
    new_source: str = ""
    plan: str = ""
    score_before: float | None = None
    score_after: float | None = None


class DecisionEvent(EventData):
    """The user's (or the server's) decision on a proposal."""

    TYPE = "decision"
    proposal_id: str | None = None
    decision: Literal["accept", "reject"] | None = None
    by: str | None = None


# -- ensembling and the end ---------------------------------------------------------------------
class EnsemblePlanEvent(EventData):
    """One ensemble round."""

    TYPE = "ensemble_plan"
    r: int | None = None
    plan: str = ""
    node_id: str | None = None
    score: float | None = None


class EnsemblePickEvent(EventData):
    """The ensemble or single solution kept, and why."""

    TYPE = "ensemble_pick"
    chosen: str | None = None
    label: str = ""
    score: float | None = None
    kind: str | None = None  # ensemble | single | blend
    best_ensemble: str | None = None
    best_ensemble_score: float | None = None
    best_single: str | None = None
    best_single_score: float | None = None
    reason: str = ""


class FinalEvent(EventData):
    """The submission (``valid`` False: none could be written, ``reason`` says why)."""

    TYPE = "final"
    score: float | None = None
    notebook: str | None = None
    submission: str | None = None
    rung: str | int | None = None
    valid: bool = False
    reason: str = ""


class HeldoutEvent(EventData):
    """The final submission graded on the rows held out of a dataset (a task made from one
    labelled table, ``importer.dataset_task``) or on a labelled test table's answers
    (``task.layout.labelled_test``): rows the search never saw."""

    TYPE = "heldout"
    score: float | None = None
    held_out_of: str = ""  # what the rows were held out of ("" : the dataset)
    metric: str = ""
    direction: str = ""
    rows: int | None = None  # held-out rows
    validation_score: float | None = None  # the submitted solution's validation score
    valid: bool = False
    reason: str = ""  # why there is no score


class SkippedEvent(EventData):
    """A candidate not started: it could not finish in the time it may run (``estimate`` >
    ``limit``, seconds), or its strategy timed out before on the same block and rows."""

    TYPE = "skipped"
    node_id: str | None = None
    phase: str | None = None
    path: PathName = ""
    label: str = ""
    block_id: str | None = None
    estimate: float | None = None
    limit: float | None = None
    reason: str = ""


class NoveltyEvent(EventData):
    """The contamination check of the final notebook (``skipped``: ``reason`` says why)."""

    TYPE = "novelty"
    verdict: str = ""  # Novel | Same | skipped
    reason: str = ""


class LLMCallEvent(EventData):
    """One LLM call (the full request and answer stay in ``llm/``)."""

    TYPE = "llm_call"
    call_id: str | None = None
    role: str | None = None
    backend: str | None = None
    model: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    latency_s: float | None = None
    cost_usd: float | None = None
    cached: bool | None = None
    error: dict[str, Any] | None = None


class OtherEvent(EventData):
    """An event of a type this version does not know (read from a newer run)."""
