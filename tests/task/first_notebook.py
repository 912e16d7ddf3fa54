"""The first offline notebook of a task, its reading and feature cells run in this process."""

from __future__ import annotations

from typing import Any

import pytest

from mlestar_jupyter.agent.config import RunConfig
from mlestar_jupyter.offline import OfflinePolicy
from mlestar_jupyter.task import Task


def features_scope(task: Task, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The names the first card's ``setup``, ``load`` and ``features`` cells define for ``task``
    (``X``, ``test_ids``, ``add_features`` ...), run from the task's folder."""
    policy = OfflinePolicy(task, RunConfig())
    nb = policy.init_solution(policy.retrieve(1)[0])
    code = "\n".join(
        b.source for role in ("setup", "load", "features") for b in nb.blocks_by_role(role)
    )
    monkeypatch.chdir(task.root)
    scope: dict[str, Any] = {}
    exec(compile(code, "notebook", "exec"), scope)  # noqa: S102 - our own rendered template
    return scope
