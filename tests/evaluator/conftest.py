"""Fixtures for the evaluator tests: the tiny pack, built once per session (quick ladder)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mlestar_jupyter.evaluator.pack.build import TINY, prepare
from mlestar_jupyter.task.loaders import answers_folder


@pytest.fixture(scope="session")
def tiny_pack(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The four tiny tasks, prepared once (read-only for tests: copy before changing)."""
    out = tmp_path_factory.mktemp("pack")
    results = prepare(out, TINY, quick=True, log=lambda _: None)
    assert [r.name for r in results if r.path] == list(TINY)
    return out


@pytest.fixture
def task_copy(tiny_pack: Path, tmp_path: Path):
    """Factory: a private copy of one tiny task folder (and of its answers, beside it)."""

    def copy(name: str) -> Path:
        dst = tmp_path / name
        shutil.copytree(tiny_pack / name, dst)
        shutil.copytree(answers_folder(tiny_pack / name), answers_folder(dst))
        return dst

    return copy
