"""Errors of the task layer.  Each message names the file and the fix."""

from __future__ import annotations


class TaskError(Exception):
    """Base of every task-layer error."""


class TaskFormatError(TaskError):
    """A task folder is missing something or holds something unreadable.

    ``path`` is the file (or folder) at fault; the message says what to do.
    """

    def __init__(self, path: object, problem: str) -> None:
        self.path = str(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}")

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (type(self), (self.path, self.problem))


class LayoutError(TaskError):
    """The task's input folder has a layout the data-loading templates cannot read."""
