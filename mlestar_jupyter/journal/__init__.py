"""The run journal: a run folder written as it goes, resumable after a kill."""

from .events import EVENT_TYPES, Event, read_events
from .journal import JournalError, RunJournal, atomic_write_text

__all__ = ["EVENT_TYPES", "Event", "JournalError", "RunJournal", "atomic_write_text", "read_events"]
