"""The JSON schema of what the server and the journal hand to the frontend, in one document.

``labextension/api-schema.json`` is this document, committed (``python scripts/api_schema.py
write`` rewrites it); ``tests/test_api_schema.py`` fails when the file is stale or when
``labextension/src/models.ts`` lacks an interface ``I<Name>`` for a REST model, or a field of it.

- ``rest``: the pydantic models of the REST API (``server.models``), by name.
- ``events``: the model of each journal event type's ``data`` (``journal.kinds``), by type.
- ``summary``: ``journal.RunSummary``, the run summary ``DescribeRun`` is built from.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, TypeAdapter

from ..journal import EVENT_MODELS, SCHEMA_VERSION, RunSummary
from .models import DecisionBody, DescribeRun, EventPage, PauseBody, Proposal, RunEvent, StartRun

#: The REST models the TypeScript interfaces mirror (``I`` + the name, in ``models.ts``).
REST_MODELS: tuple[type[BaseModel], ...] = (
    StartRun,
    DescribeRun,
    Proposal,
    DecisionBody,
    PauseBody,
    RunEvent,
    EventPage,
)


def api_schema() -> dict[str, Any]:
    """The schema document (see the module docstring)."""
    return {
        "journal_schema_version": SCHEMA_VERSION,
        "rest": {m.__name__: m.model_json_schema() for m in REST_MODELS},
        "events": {t: m.model_json_schema() for t, m in sorted(EVENT_MODELS.items())},
        "summary": TypeAdapter(RunSummary).json_schema(),
    }


def api_schema_text() -> str:
    """``api_schema()`` as the committed file's text."""
    return json.dumps(api_schema(), indent=1, sort_keys=True, ensure_ascii=False) + "\n"
