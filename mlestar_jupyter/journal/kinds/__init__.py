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

from typing import Any

from pydantic import ValidationError

from .base import SCHEMA_VERSION, EventData, EventSchemaError, PathName, Row
from .run import (
    BudgetEvent,
    CandidateEvent,
    DataUsageEvent,
    DebugEvent,
    ErrorEvent,
    LeakageEvent,
    ModelCardRef,
    ModelsEvent,
    PhaseEvent,
    ResumedEvent,
    RetrievalFallbackEvent,
    RunFinishedEvent,
    RunStartedEvent,
    RunStoppedEvent,
    SandboxEvent,
    ScoreMismatchEvent,
    ScoreUntrustedEvent,
    SubsamplingEvent,
    UnderstandingEvent,
    ValidationSplitEvent,
    WarningEvent,
)
from .search import (
    AblationEvent,
    AblationRow,
    DecisionEvent,
    EnsemblePickEvent,
    EnsemblePlanEvent,
    FinalEvent,
    HeldoutEvent,
    ImprovementEvent,
    LLMCallEvent,
    NoveltyEvent,
    OtherEvent,
    PlanEvent,
    ProposalEvent,
    SkippedEvent,
    TargetEvent,
)

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
        HeldoutEvent,
        NoveltyEvent,
        LLMCallEvent,
        SkippedEvent,
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
    "AblationRow",
    "ModelCardRef",
    "EVENT_MODELS",
    "SCHEMA_VERSION",
    "AblationEvent",
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
    "HeldoutEvent",
    "ImprovementEvent",
    "LLMCallEvent",
    "LeakageEvent",
    "ModelsEvent",
    "NoveltyEvent",
    "OtherEvent",
    "PathName",
    "PhaseEvent",
    "PlanEvent",
    "ProposalEvent",
    "ResumedEvent",
    "RetrievalFallbackEvent",
    "Row",
    "RunFinishedEvent",
    "RunStartedEvent",
    "RunStoppedEvent",
    "SandboxEvent",
    "ScoreMismatchEvent",
    "ScoreUntrustedEvent",
    "SkippedEvent",
    "SubsamplingEvent",
    "TargetEvent",
    "UnderstandingEvent",
    "ValidationSplitEvent",
    "WarningEvent",
    "check_data",
    "parse_data",
]
