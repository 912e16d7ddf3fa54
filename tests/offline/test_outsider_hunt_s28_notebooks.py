"""Outsiders' notebooks that the run set aside or misread (hunt E, session 28).

Each test holds the shape of the notebook that showed the fault: Kaggle's GPU settings on a
machine without a GPU, LightGBM parameters written as ``dict(...)``, an accuracy written out
by hand with nested parentheses, an nbformat 4.0 file whose cells lack ``metadata`` and
``outputs``, and an R notebook refused with words meant for the Jupyter button.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from mlestar_jupyter.cli import main
from mlestar_jupyter.notebook import NotebookFormatError, SolutionNotebook


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


def _bare_v40(path: Path, *cells: str) -> Path:
    """An nbformat 4.0 file as a script writes it: code cells with only a type and a source."""
    nb = {
        "nbformat": 4,
        "nbformat_minor": 0,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
        "cells": [{"cell_type": "code", "source": c} for c in cells]
        + [{"cell_type": "markdown", "source": "notes"}],
    }
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path


def test_an_nbformat_4_0_notebook_whose_cells_lack_metadata_is_read(tmp_path: Path) -> None:
    """inputs/nb40_bare_cells: "The notebook is invalid and is missing an expected key:
    metadata" came out as a jsonschema traceback; Jupyter itself opens such a file."""
    path = _bare_v40(tmp_path / "nb.ipynb", "import pandas as pd", "x = 1\nprint(x)")
    nb = SolutionNotebook.read(path)
    assert [b.source for b in nb.code_blocks] == ["import pandas as pd", "x = 1\nprint(x)"]
    assert len(nb.nb.cells) == 3
    nbformat.validate(nb.nb)  # what is written back is a valid notebook


def test_a_notebook_nbformat_cannot_read_is_refused_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file past mending (its cells are not a list) is a clear refusal, not a traceback."""
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 0, "cells": 7}), "utf-8")
    with pytest.raises(NotebookFormatError, match="nb.ipynb"):
        SolutionNotebook.read(path)
    assert main(["run", str(tmp_path), "--notebook", str(path), "--out", str(tmp_path / "r")]) == 2
    assert "nb.ipynb" in capsys.readouterr().err


@pytest.mark.parametrize(
    "text",
    ['{"cells": [], "nbformat": 4,', "<html>Notebook not found</html>", '["a", "list"]'],
)
def test_a_file_that_is_no_notebook_json_is_a_notebook_format_error(
    tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A cut-off download, an HTML error page saved as ``.ipynb``, a JSON list: before, a library
    caller got a bare ``JSONDecodeError`` (or nbformat's ``AttributeError``); now the layer's
    error, naming the file and what to do.  The command line still says it in one line."""
    path = tmp_path / "nb.ipynb"
    path.write_text(text, "utf-8")
    with pytest.raises(NotebookFormatError, match=r"nb\.ipynb.*save it again"):
        SolutionNotebook.read(path)
    assert main(["run", str(tmp_path), "--notebook", str(path), "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert "nb.ipynb" in err and "save it again" in err and "Traceback" not in err


LGB_DICT = (
    "import lightgbm as lgb\n"
    "params = dict(objective='regression_l1', learning_rate=0.05, num_leaves=31,\n"
    "              min_child_samples=20, verbose=-1)\n"
    "model = lgb.train(params, dtr, num_boost_round=2000, valid_sets=[dva],\n"
    "                  callbacks=[lgb.early_stopping(50)])"
)


def test_booster_parameters_written_as_a_dict_call_are_refined() -> None:
    """Hunt E (session 28): ``params = dict(objective=..., ...)`` for ``lgb.train`` got one
    refinement, three times the rounds (a no-op under early stopping); the ``{...}`` literal got
    four.  Each booster strategy now edits the call, written back as a ``dict(...)`` call."""
    import ast

    from mlestar_jupyter.offline.user_code.booster_edits import BOOSTER_STRATEGIES

    made = {s.id: s.edit(LGB_DICT) for s in BOOSTER_STRATEGIES}
    assert all(v is not None for v in made.values()), made
    for src in made.values():
        ast.parse(str(src))
    assert "learning_rate=0.01667" in str(made["booster_slower_learning"])
    assert "num_boost_round=6000" in str(made["booster_slower_learning"])
    assert "params = dict(max_depth=3, objective='regression_l1'" in str(made["booster_shallower"])
    assert "subsample=0.8" in str(made["booster_subsample"])
    # a dict call of no booster's settings is left alone
    other = "cfg = dict(path='x', seed=1)\nmodel = lgb.train(cfg, dtr, 100)"
    assert next(s for s in BOOSTER_STRATEGIES if s.id == "booster_shallower").edit(other) is None
