"""Errors of the server layer, each carrying the HTTP status it maps to.

    ServiceError (500)
    ├── InvalidRequest (400)   a body or query that fails validation; ``fields`` names each bad field
    ├── PathOutsideRoot (403)  a path that leaves the server root (``..``, elsewhere, a symlink out)
    ├── UnknownRun (404)       no run with that id under the runs folder
    ├── UnknownProposal (404)  no proposal with that id in the run
    └── AlreadyDecided (409)   a proposal that already has a decision

Messages say what to do; handlers turn them into ``{"message": ..., "fields": [...]}``.
"""

from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    """Base of the server layer's errors."""

    status = 500

    def __init__(self, message: str, fields: list[dict[str, Any]] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.fields = fields or []

    def to_json(self) -> dict[str, Any]:
        """The response body: ``{"message", "fields"}``."""
        return {"message": self.message, "fields": self.fields}


class InvalidRequest(ServiceError):
    """The request is malformed; ``fields`` lists ``{"field", "message"}`` per problem."""

    status = 400


class PathOutsideRoot(ServiceError):
    """A path resolves outside the Jupyter server's root directory."""

    status = 403


class UnknownRun(ServiceError):
    """No run with that id."""

    status = 404


class UnknownProposal(ServiceError):
    """No proposal with that id in the run."""

    status = 404


class AlreadyDecided(ServiceError):
    """The proposal already has a decision; decisions are final."""

    status = 409
