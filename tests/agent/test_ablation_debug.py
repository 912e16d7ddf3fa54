"""The ablation script gets the debugger when it fails (paper §3.4), instead of one try."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from mlestar_jupyter.agent.algorithms import Context, Solution, run_ablation
from mlestar_jupyter.agent.candidates import Node
from mlestar_jupyter.agent.config import RunConfig
from mlestar_jupyter.agent.policy import AblationStudy, AblationSummary
from mlestar_jupyter.journal import RunJournal
from mlestar_jupyter.notebook import SolutionNotebook
from mlestar_jupyter.task import load_task

BROKEN = SolutionNotebook.new([("other", "print(undefined_name)")])
FIXED = SolutionNotebook.new([("other", "print('without scaler: 0.91')")])


class _Policy:
    def __init__(self) -> None:
        self.debugged: list[str] = []
        self.output = ""

    def ablation(self, solution: SolutionNotebook, previous: list[Any]) -> AblationStudy:
        return AblationStudy(notebook=BROKEN)

    def debug(self, nb: SolutionNotebook, error: str, block: str | None) -> SolutionNotebook:
        self.debugged.append(error)
        return FIXED

    def summarize_ablation(
        self, study: Any, baseline: Any, output: str, scores: Any
    ) -> AblationSummary:
        self.output = output
        return AblationSummary(output.strip(), baseline)


def test_a_failing_ablation_script_is_debugged_and_rerun(
    tabular_task: Path, tmp_path: Path
) -> None:
    runs: list[str] = []

    def execute(nb: SolutionNotebook, node_id: str, phase: str, **kw: Any) -> dict[str, Any]:
        runs.append(node_id)
        if nb.digest == BROKEN.digest:
            return {
                "ok": False,
                "error": "NameError: name 'undefined_name' is not defined",
                "stdout": "",
            }
        return {"ok": True, "stdout": "without scaler: 0.91\n"}

    journal = RunJournal.create(tmp_path / "run", {})
    runner = SimpleNamespace(execute=execute, stop_if_requested=lambda: None)
    ctx = Context(load_task(tabular_task), RunConfig(debug_rounds=2), journal, runner)  # type: ignore[arg-type]
    policy = _Policy()
    base = Node("p0", None, "refine", "p0", "base", None, "d", 0.9, True)
    summary = run_ablation(ctx, policy, Solution(FIXED, base), [], "p0", 0)  # type: ignore[arg-type]
    assert runs == ["p0-t0-abl", "p0-t0-abl-d1"]
    assert len(policy.debugged) == 1 and "NameError" in policy.debugged[0]
    assert "without scaler: 0.91" in policy.output and "NameError" not in policy.output
    assert summary.text == "without scaler: 0.91"
    (debug,) = journal.of_type("debug")
    assert debug.data["node_id"] == "p0-t0-abl-d1" and debug.data["fixed"] is True
