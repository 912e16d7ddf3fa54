"""Errors of ``mlestar task import``: one ``Problem`` per field that does not check out."""

from __future__ import annotations

from dataclasses import dataclass

from ..task.errors import TaskError


@dataclass(frozen=True)
class Problem:
    """One field of the task that is missing or does not match the data; ``fix`` says what to do."""

    field: str
    message: str
    fix: str = ""

    def __str__(self) -> str:
        return f"{self.field}: {self.message}" + (f"; {self.fix}" if self.fix else "")


class TaskImportError(TaskError):
    """The pages and data cannot make a task; ``problems`` lists each field at fault."""

    def __init__(self, problems: list[Problem] | tuple[Problem, ...], headline: str = "") -> None:
        self.problems = tuple(problems)
        self.headline = headline or "cannot import the task"
        lines = [f"{self.headline}:"] + [f"  - {p}" for p in self.problems]
        super().__init__("\n".join(lines))

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (type(self), (list(self.problems), self.headline))
