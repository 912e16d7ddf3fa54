"""Fixtures of the task-import tests: a competition's download built in a temp folder."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from .competitions import Competition, by_name


@pytest.fixture
def download(tmp_path: Path) -> Callable[[str], tuple[Competition, Path]]:
    """``download("telco")`` → (the competition, the archive or folder a user downloaded)."""

    def make(name: str) -> tuple[Competition, Path]:
        comp = by_name(name)
        return comp, comp.build(tmp_path / f"dl-{name}")

    return make


@pytest.fixture
def started_tasks(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The task each ``api.run``/``api.resume`` would search, in order (no search runs)."""
    from mlestar_jupyter import api

    seen: list[object] = []

    def execute(journal, task, config, start_nb, **kw):  # type: ignore[no-untyped-def]
        seen.append(task)
        return None

    monkeypatch.setattr(api, "execute", execute)
    return seen
