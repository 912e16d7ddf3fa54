"""Hunt H (``cfg_class_kfold``): with two solutions refined in parallel, a role failed with
"coder failed: SystemError: AST constructor recursion depth mismatch (before=54, after=47)",
CPython 3.11's spurious error when ``ast.parse`` runs in two threads at once
(python/cpython#106905).  The role's work was lost for code that parses; the guard now calls
it once more for that error, and still journals any other failure."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from mlestar_jupyter.agent.search import guard


def _ctx(warnings: list[dict[str, Any]]) -> Any:
    return SimpleNamespace(
        runner=SimpleNamespace(stop_if_requested=lambda: None),
        journal=SimpleNamespace(emit=lambda kind, **data: warnings.append(data)),
    )


def _flaky(error: Exception) -> Any:
    calls: list[int] = []

    def role() -> str:
        calls.append(1)
        if len(calls) == 1:
            raise error
        return "the coder's notebook"

    return role, calls


def test_the_ast_race_is_tried_once_more() -> None:
    warnings: list[dict[str, Any]] = []
    role, calls = _flaky(
        SystemError("AST constructor recursion depth mismatch (before=54, after=47)")
    )
    assert guard(_ctx(warnings), "coder", "p1-t0k1-code", role) == "the coder's notebook"
    assert len(calls) == 2 and warnings == []


def test_other_failures_are_journaled_as_before() -> None:
    warnings: list[dict[str, Any]] = []
    role, calls = _flaky(SystemError("something else"))
    assert guard(_ctx(warnings), "coder", "p1-t0k1-code", role) is None
    assert len(calls) == 1
    assert warnings[0]["message"] == "coder failed: SystemError: something else"
