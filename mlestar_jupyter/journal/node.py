"""``Node``: one executed candidate of the solution tree, as a ``candidate`` event records it.

A node holds its parent's id, not the parent, so a tree is rebuilt from ``events.jsonl`` alone
(``Node.from_event``) and a resumed run finds its earlier work by name.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from .kinds import CandidateEvent, parse_data


@dataclass(frozen=True)
class Node:
    """One executed candidate, as the journal records it."""

    id: str
    parent_id: str | None
    phase: str
    path: str
    label: str
    block_id: str | None
    digest: str
    score: float | None
    ok: bool
    error: str | None = None
    notebook: str | None = None
    submission: str | None = None
    duration: float = 0.0
    stdout_tail: str = ""
    printed_score: float | None = None  # what the code printed (``score`` is the harness's)
    score_status: str = ""  # measured | mismatch | printed | untrusted | none (see ``scoring``)

    @property
    def has_score(self) -> bool:
        """Whether the candidate ran and has a score."""
        return self.ok and self.score is not None

    def to_json(self) -> dict[str, Any]:
        """The fields as a dict (the candidate event data)."""
        return asdict(self)

    @classmethod
    def from_event(cls, data: CandidateEvent | dict[str, Any]) -> Node:
        """The node a ``candidate`` event describes (missing fields: empty / ``None``)."""
        c = data if isinstance(data, CandidateEvent) else parse_data("candidate", data)
        assert isinstance(c, CandidateEvent)
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in c.model_dump().items() if k in known}
        return cls(
            **{
                **values,
                "id": c.name or "",
                "phase": c.phase or "",
                "path": str(c.path),
                "digest": c.digest or "",
                "ok": bool(c.ok),
                "duration": c.duration or 0.0,
            }
        )
