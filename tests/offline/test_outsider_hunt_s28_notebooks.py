"""Outsiders' notebooks that the run set aside or misread (hunt E, session 28).

Each test holds the shape of the notebook that showed the fault: Kaggle's GPU settings on a
machine without a GPU, LightGBM parameters written as ``dict(...)``, an accuracy written out
by hand with nested parentheses, an nbformat 4.0 file whose cells lack ``metadata`` and
``outputs``, and an R notebook refused with words meant for the Jupyter button.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from mlestar_jupyter.cli import main


def _write(path: Path, *cells: str, kernel: dict[str, str] | None = None) -> Path:
    """``cells`` saved as the notebook ``path`` (its kernelspec ``kernel`` when given)."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    if kernel is not None:
        nb.metadata["kernelspec"] = kernel
    nbformat.write(nb, path)
    return path


def test_an_r_notebook_refused_on_the_command_line_says_what_to_type(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """inputs/r_kernel: the refusal told a command-line user to "press the button there"."""
    nb = _write(
        tmp_path / "nb.ipynb",
        "library(randomForest)\nfit <- randomForest(y ~ ., d)",
        kernel={"name": "ir", "display_name": "R", "language": "R"},
    )
    assert main(["run", str(tmp_path), "--notebook", str(nb), "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert "written for the R kernel" in err
    assert "press the button there" not in err
    assert "mlestar run" in err
