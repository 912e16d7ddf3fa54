"""The appendix's contamination (novelty) check: run when it can, a journaled skip when not."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from mlestar_jupyter.agent.config import RunConfig
from mlestar_jupyter.agent.run import _check_novelty
from mlestar_jupyter.agent.submission import FinalResult
from mlestar_jupyter.journal import RunJournal
from mlestar_jupyter.notebook import SolutionNotebook


class _Judge:
    def __init__(self, answer: str | Exception) -> None:
        self.answer = answer

    def check_novelty(self, solution: SolutionNotebook, reference: str) -> str:
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def _novelty(tmp_path: Path, policy: Any, reference: str | None, backend: str = "gemini") -> dict:  # type: ignore[type-arg]
    nb = tmp_path / "final.ipynb"
    SolutionNotebook.new([("model", "x = 1")]).write(nb)
    final = FinalResult(True, "best", 0.9, tmp_path / "submission.csv", nb)
    journal = RunJournal.create(tmp_path / "run", {})
    config = RunConfig(backend=backend, novelty_reference=reference)
    _check_novelty(SimpleNamespace(config=config, journal=journal), policy, final)  # type: ignore[arg-type]
    (event,) = journal.of_type("novelty")
    return event.data


def test_novelty_verdict_when_it_can_run(tmp_path: Path) -> None:
    assert _novelty(tmp_path, _Judge("Novel"), "a public kernel")["verdict"] == "Novel"


def test_offline_backend_or_no_reference_is_a_journaled_skip(tmp_path: Path) -> None:
    d = _novelty(tmp_path / "a", object(), "a public kernel", backend="offline")
    assert d["verdict"] == "skipped" and "offline backend" in d["reason"]
    d = _novelty(tmp_path / "b", _Judge("Same"), None)
    assert d["verdict"] == "skipped" and "no reference text" in d["reason"]
    d = _novelty(tmp_path / "c", _Judge(TimeoutError("slow model")), "ref")
    assert d["verdict"] == "skipped" and "slow model" in d["reason"]
