"""One pydantic model per journal event type: what each line's ``data`` holds.

Strict on write, lenient on read:

- ``check_data(type, data)`` (called by ``RunJournal.emit``) refuses an unknown type, a field
  the type's model does not name, and a value of the wrong type, so a writer cannot drift from
  the schema unnoticed.
- ``parse_data(type, data)`` (``Event.payload``) never fails: an unknown type gives an
  ``OtherEvent``, fields a newer writer added are kept (``model_extra``), and a field that does
  not parse (an older writer's shape) is read as its default.

Every field has a default, so an event missing a field (an older run) still reads.  The
envelope's version is ``SCHEMA_VERSION`` (``Event.v``); bump it when a field changes meaning.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

#: Version of the event layout written by this code; lines without ``v`` are version 1 (untyped).
SCHEMA_VERSION = 2

PathName = str | int  # a parallel path: "p0", "ens", "" (older writers and tests: 0, 1)


class EventSchemaError(ValueError):
    """An event does not match its type's model (a bug in the writer, not in the user's input)."""


class EventData(BaseModel):
    """Base of every event model; ``TYPE`` is the event's ``type`` in ``events.jsonl``."""

    model_config = ConfigDict(extra="allow")
    TYPE: ClassVar[str] = ""


class _Row(BaseModel):
    model_config = ConfigDict(extra="allow")


class ModelCardRef(_Row):
    """A retrieved model as the ``models`` event lists it."""

    name: str = ""
    description: str = ""
    source: str | None = None
    url: str | None = None


class AblationRow(_Row):
    """One ablation variant's result."""

    name: str = ""
    block_id: str | None = None
    score: float | None = None
    delta: float | None = None


# -- the run ------------------------------------------------------------------------------------
class RunStartedEvent(EventData):
    """The run began (again, after a resume: the same key, so written once)."""

    TYPE = "run_started"
    task: dict[str, Any] = Field(default_factory=dict)  # Task.to_json()
    config: dict[str, Any] = Field(default_factory=dict)  # RunConfig.to_json()
    backend: str | None = None


class ResumedEvent(EventData):
    """A killed or stopped run was started again."""

    TYPE = "resumed"
    elapsed: float | None = None
    after_seq: int | None = None


class PhaseEvent(EventData):
    """The loop entered a phase (retrieve, init, merge, refine, ensemble, submission, done)."""

    TYPE = "phase"
    phase: str | None = None
    path: PathName = ""


class SandboxEvent(EventData):
    """Which sandbox ran the kernels (written each time the executor starts)."""

    TYPE = "sandbox"
    kind: str = ""  # bwrap | setpriv | popen-user | none | gateway
    user: str = ""
    network: bool = False
    note: str = ""


class BudgetEvent(EventData):
    """A budget ran out (``what``: run, refine, ...)."""

    TYPE = "budget"
    what: str = ""
    message: str = ""


class WarningEvent(EventData):
    """Something the user should know; ``what``: task (how task.json was read), score, ..."""

    TYPE = "warning"
    message: str = ""
    what: str | None = None


class ErrorEvent(EventData):
    """An error the run survived."""

    TYPE = "error"
    message: str = ""


class RunStoppedEvent(EventData):
    """This process stopped (Ctrl-C, pause/stop, server shutdown); the run can be resumed."""

    TYPE = "run_stopped"
    reason: str = ""
    elapsed: float | None = None
    best_score: float | None = None
    by: str | None = None


class RunFinishedEvent(EventData):
    """The run ended for good."""

    TYPE = "run_finished"
    status: str | None = (
        None  # done | stopped | failed | no_improvement | not_understood | all_failed
    )
    best_score: float | None = None
    elapsed: float | None = None
    reason: str = ""


# -- retrieval and the user's notebook ----------------------------------------------------------
class ModelsEvent(EventData):
    """The models retrieved for one path."""

    TYPE = "models"
    cards: list[ModelCardRef] = Field(default_factory=list)
    path: PathName = ""


class RetrievalFallbackEvent(EventData):
    """The retriever's answer was unusable or short; the local catalog filled in."""

    TYPE = "retrieval_fallback"
    reason: str = ""
    catalog_models: list[str] = Field(default_factory=list)
    path: PathName = ""


class UnderstandingEvent(EventData):
    """How the user's notebook was read (roles of its cells, the validation cell added)."""

    TYPE = "understanding"
    understood: bool | None = None
    reason: str = ""
    roles: dict[str, str] = Field(default_factory=dict)
    mixed: list[str] = Field(default_factory=list)
    target: str | None = None
    added_block: str | None = None
    note: str = ""


class ValidationSplitEvent(EventData):
    """The run's validation rows, once per run (``file`` None: no split)."""

    TYPE = "validation_split"
    file: str | None = None
    table: str | None = None
    rows: int = 0
    n_labelled: int | None = None
    seed: int | None = None
    digest: str | None = None
    columns: list[str] = Field(default_factory=list)


# -- candidates and their checks ----------------------------------------------------------------
class CandidateEvent(EventData):
    """One executed candidate (the fields of ``Node``)."""

    TYPE = "candidate"
    node_id: str | None = None
    id: str | None = None
    parent_id: str | None = None
    phase: str | None = None
    path: PathName = ""
    label: str = ""
    block_id: str | None = None
    digest: str | None = None
    score: float | None = None
    ok: bool | None = None
    error: str | None = None
    notebook: str | None = None
    submission: str | None = None
    duration: float = 0.0
    stdout_tail: str = ""
    printed_score: float | None = None
    score_status: str = ""  # measured | mismatch | printed | untrusted | none

    @property
    def name(self) -> str | None:
        """The node id (``node_id``, or ``id`` in older events)."""
        return self.node_id or self.id


class _ScoreCheck(EventData):
    node_id: str | None = None
    printed: float | None = None
    measured: float | None = None
    message: str = ""


class ScoreMismatchEvent(_ScoreCheck):
    """The printed score is not the measured one."""

    TYPE = "score_mismatch"


class ScoreUntrustedEvent(_ScoreCheck):
    """No score the harness can trust."""

    TYPE = "score_untrusted"


class DebugEvent(EventData):
    """One debugger round."""

    TYPE = "debug"
    node_id: str | None = None
    round: int | None = None
    error: str = ""
    fixed: bool = False
    reason: str = ""


class LeakageEvent(EventData):
    """The leakage checker's verdict on a candidate."""

    TYPE = "leakage"
    node_id: str | None = None
    block_id: str | None = None
    leaky: bool = False
    reason: str = ""
    fixed: bool = False


class DataUsageEvent(EventData):
    """Provided files the solution did not use, and whether a fix used them."""

    TYPE = "data_usage"
    path: PathName = ""
    unused_files: list[str] = Field(default_factory=list)
    fixed: bool = False
    score: float | None = None


class SubsamplingEvent(EventData):
    """A_test's check of a final notebook's code, or of its run's training rows."""

    TYPE = "subsampling"
    node_id: str | None = None
    found: list[str] = Field(default_factory=list)
    removed: bool | None = None
    remaining: list[str] = Field(default_factory=list)
    rows_reported: int | None = None
    rows_expected: int | None = None
    problem: str | None = None


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
    kind: str | None = None  # ensemble | single
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


EVENT_MODELS: dict[str, type[EventData]] = {
    m.TYPE: m
    for m in (
        RunStartedEvent,
        ResumedEvent,
        PhaseEvent,
        SandboxEvent,
        BudgetEvent,
        WarningEvent,
        ErrorEvent,
        RunStoppedEvent,
        RunFinishedEvent,
        ModelsEvent,
        RetrievalFallbackEvent,
        UnderstandingEvent,
        ValidationSplitEvent,
        CandidateEvent,
        ScoreMismatchEvent,
        ScoreUntrustedEvent,
        DebugEvent,
        LeakageEvent,
        DataUsageEvent,
        SubsamplingEvent,
        AblationEvent,
        TargetEvent,
        PlanEvent,
        ImprovementEvent,
        ProposalEvent,
        DecisionEvent,
        EnsemblePlanEvent,
        EnsemblePickEvent,
        FinalEvent,
        NoveltyEvent,
        LLMCallEvent,
    )
}


def check_data(type_: str, data: dict[str, Any]) -> EventData:
    """``data`` as the model of ``type_``; raises ``EventSchemaError`` for an unknown type, an
    unknown field or a value of the wrong type (what a writer must never produce)."""
    model = EVENT_MODELS.get(type_)
    if model is None:
        raise EventSchemaError(
            f"unknown event type {type_!r}: add its model to mlestar_jupyter/journal/kinds.py "
            f"(known: {', '.join(sorted(EVENT_MODELS))})"
        )
    try:
        parsed = model.model_validate(data)
    except ValidationError as e:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in e.errors()
        )
        raise EventSchemaError(
            f"event {type_!r} does not match {model.__name__}: {problems}"
        ) from None
    extra = sorted(parsed.model_extra or {})
    if extra:
        raise EventSchemaError(
            f"event {type_!r} has fields {model.__name__} does not name: {', '.join(extra)}; "
            "add them to the model in mlestar_jupyter/journal/kinds.py"
        )
    return parsed


def parse_data(type_: str, data: dict[str, Any]) -> EventData:
    """``data`` as the model of ``type_``, never failing: unknown types give ``OtherEvent``,
    extra fields are kept, and a field that does not parse is read as its default."""
    model = EVENT_MODELS.get(type_, OtherEvent)
    d = dict(data)
    while True:
        try:
            return model.model_validate(d)
        except ValidationError as e:
            bad = {str(err["loc"][0]) for err in e.errors() if err["loc"]} & set(d)
            if not bad:
                return model()
            for name in bad:
                del d[name]


__all__ = [
    "EVENT_MODELS",
    "SCHEMA_VERSION",
    "AblationEvent",
    "AblationRow",
    "BudgetEvent",
    "CandidateEvent",
    "DataUsageEvent",
    "DebugEvent",
    "DecisionEvent",
    "EnsemblePickEvent",
    "EnsemblePlanEvent",
    "ErrorEvent",
    "EventData",
    "EventSchemaError",
    "FinalEvent",
    "ImprovementEvent",
    "LLMCallEvent",
    "LeakageEvent",
    "ModelCardRef",
    "ModelsEvent",
    "NoveltyEvent",
    "OtherEvent",
    "PhaseEvent",
    "PlanEvent",
    "ProposalEvent",
    "ResumedEvent",
    "RetrievalFallbackEvent",
    "RunFinishedEvent",
    "RunStartedEvent",
    "RunStoppedEvent",
    "SandboxEvent",
    "ScoreMismatchEvent",
    "ScoreUntrustedEvent",
    "SubsamplingEvent",
    "TargetEvent",
    "UnderstandingEvent",
    "ValidationSplitEvent",
    "WarningEvent",
    "check_data",
    "parse_data",
]
