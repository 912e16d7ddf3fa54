"""The run journal: a run folder written as it goes, resumable after a kill; its typed events
(``kinds``), the solution-tree ``Node``, the incremental reader ``EventTail`` and the one run
summary (``summarise_run``)."""

from .events import EVENT_TYPES, Event, read_events
from .journal import JournalError, RunJournal, atomic_write_text
from .kinds import EVENT_MODELS, SCHEMA_VERSION, EventData, EventSchemaError
from .node import Node
from .summary import RunSummary, heldout_line, summarise_events, summarise_run
from .tail import EventTail

__all__ = [
    "EVENT_MODELS",
    "EVENT_TYPES",
    "SCHEMA_VERSION",
    "Event",
    "EventData",
    "EventSchemaError",
    "EventTail",
    "JournalError",
    "Node",
    "RunJournal",
    "RunSummary",
    "heldout_line",
    "atomic_write_text",
    "read_events",
    "summarise_events",
    "summarise_run",
]
