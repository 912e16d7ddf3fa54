"""Run a solution notebook in a fresh kernel, the way the search loop does, and read its score."""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from mlestar_jupyter.notebook import SolutionNotebook

SCORE = re.compile(r"Final Validation Performance:\s*([-+0-9.eE]+|nan)")


@dataclass
class Ran:
    """What one execution printed, its last validation score, and its folder."""

    output: str
    score: float | None
    workdir: Path

    @property
    def submission(self) -> Path:
        return self.workdir / "final" / "submission.csv"


def run_notebook(nb: SolutionNotebook, task_root: Path, workdir: Path, timeout: int = 120) -> Ran:
    """Execute ``nb`` in ``workdir`` (which gets ./input linked to the task's input) and collect its output."""
    workdir.mkdir(parents=True, exist_ok=True)
    inp = workdir / "input"
    if not inp.exists():
        src = task_root / "input" if (task_root / "input").is_dir() else task_root
        inp.symlink_to(src.resolve(), target_is_directory=True)
    shutil.rmtree(workdir / "final", ignore_errors=True)
    node = nbformat.from_dict(nb.nb)
    NotebookClient(
        node, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(workdir)}}
    ).execute()
    text = []
    for cell in node.cells:
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream":
                text.append(out["text"])
    output = "".join(text)
    found = SCORE.findall(output)
    return Ran(output, float(found[-1]) if found else None, workdir)
