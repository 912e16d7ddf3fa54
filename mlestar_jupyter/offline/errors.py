"""Errors of the offline policy.  Each message says what to do about it."""

from __future__ import annotations

from ..agent.errors import NotEnsembled
from ..task.errors import LayoutError

__all__ = ["CatalogError", "LayoutError", "NoCardError", "OfflineError", "UserCodeEnsembleError"]


class OfflineError(Exception):
    """Base of every offline-policy error."""


class CatalogError(OfflineError):
    """A model card or its template is missing or malformed."""


class NoCardError(OfflineError):
    """No card in the catalog fits the task (modality, task type, installed packages)."""


class UserCodeEnsembleError(OfflineError, NotEnsembled):
    """The solutions to ensemble are a user's own code, which the offline ensembler cannot join."""
