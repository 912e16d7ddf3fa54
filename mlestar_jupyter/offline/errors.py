"""Errors of the offline policy.  Each message says what to do about it."""

from __future__ import annotations


class OfflineError(Exception):
    """Base of every offline-policy error."""


class CatalogError(OfflineError):
    """A model card or its template is missing or malformed."""


class LayoutError(OfflineError):
    """The task's input folder has a layout the offline templates cannot read."""


class NoCardError(OfflineError):
    """No card in the catalog fits the task (modality, task type, installed packages)."""
