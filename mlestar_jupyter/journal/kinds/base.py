"""The base of every event model, the schema version and the schema error."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict

#: Version of the event layout written by this code; lines without ``v`` are version 1 (untyped).
SCHEMA_VERSION = 2

PathName = str | int  # a parallel path: "p0", "ens", "" (older writers and tests: 0, 1)


class EventSchemaError(ValueError):
    """An event does not match its type's model (a bug in the writer, not in the user's input)."""


class EventData(BaseModel):
    """Base of every event model; ``TYPE`` is the event's ``type`` in ``events.jsonl``."""

    model_config = ConfigDict(extra="allow")
    TYPE: ClassVar[str] = ""


class Row(BaseModel):
    """Base of a nested row of an event (extra fields kept, as in ``EventData``)."""

    model_config = ConfigDict(extra="allow")
