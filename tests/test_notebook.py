"""SolutionNotebook: blocks, ids, edits, jupytext round trip."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from mlestar_jupyter.notebook import (
    BlockMatchError,
    NoCodeCellsError,
    NotPythonError,
    SolutionNotebook,
    UnknownBlockError,
)


def _nb() -> SolutionNotebook:
    return SolutionNotebook.new(
        [
            ("load", "import pandas as pd\ndf = pd.read_csv('input/train.csv')"),
            ("markdown", "## Model"),
            ("model", "model = make_model(  alpha=1.0 )\nmodel.fit(X, y)"),
        ]
    )


def test_blocks_have_stable_ids_and_roles() -> None:
    nb = _nb()
    assert nb.block_ids == ["b1", "b2"]
    assert [b.role for b in nb.code_blocks] == ["load", "model"]
    nb2 = nb.append_block("evaluate", "print(1)")
    assert nb2.block_ids == ["b1", "b2", "b3"] and nb.block_ids == ["b1", "b2"]


def test_replace_block_returns_new_notebook() -> None:
    nb = _nb()
    new = nb.replace_block("b2", "model = None")
    assert new.block("b2").source == "model = None"
    assert nb.block("b2").source.startswith("model = make_model")
    assert new.cell("b2").id == nb.cell("b2").id  # the cell keeps its nbformat id


def test_replace_in_block_exact_and_normalised() -> None:
    nb = _nb()
    assert "alpha=2.0" in nb.replace_in_block("b2", "alpha=1.0", "alpha=2.0").block("b2").source
    # whitespace differs from the cell: still found
    out = nb.replace_in_block(
        "b2", "model = make_model(alpha=1.0)", "model = make_model(alpha=3.0)"
    )
    assert out.block("b2").source.splitlines()[0] == "model = make_model(alpha=3.0)"


def test_replace_in_block_errors_clearly() -> None:
    nb = _nb()
    with pytest.raises(BlockMatchError, match="not in the cell"):
        nb.replace_in_block("b2", "model.predict(X)", "x")
    with pytest.raises(BlockMatchError):
        nb.replace_in_block("b2", "   ", "x")  # never str.replace("", ...)
    with pytest.raises(UnknownBlockError, match="b9"):
        nb.block("b9")


def test_jupytext_round_trip_keeps_metadata(tmp_path: Path) -> None:
    nb = _nb()
    back = SolutionNotebook.from_script(nb.to_jupytext())
    assert back.block_ids == nb.block_ids
    assert [b.role for b in back.code_blocks] == ["load", "model"]
    assert [b.source for b in back.code_blocks] == [b.source for b in nb.code_blocks]
    p = tmp_path / "s.py"
    p.write_text(nb.to_jupytext())
    assert SolutionNotebook.read(p).block_ids == ["b1", "b2"]


def test_compact_script_maps_back_to_blocks() -> None:
    nb = _nb()
    text = nb.to_script().replace("alpha=1.0", "alpha=5.0")
    back = SolutionNotebook.from_script(text, base=nb)
    assert back.block("b2").role == "model" and "alpha=5.0" in back.block("b2").source
    assert back.cell("b2").id == nb.cell("b2").id


def test_ids_assigned_to_plain_notebook_and_duplicates_fixed(tmp_path: Path) -> None:
    raw = nbformat.v4.new_notebook()
    raw.cells = [
        nbformat.v4.new_code_cell("a=1"),
        nbformat.v4.new_code_cell("b=2", metadata={"mlestar": {"block_id": "b1"}}),
        nbformat.v4.new_code_cell("c=3", metadata={"mlestar": {"block_id": "b1"}}),
    ]
    nb = SolutionNotebook(raw)
    assert len(set(nb.block_ids)) == 3 and "b1" in nb.block_ids
    nb.write(tmp_path / "x.ipynb")
    assert SolutionNotebook.read(tmp_path / "x.ipynb").block_ids == nb.block_ids


COLAB_CELL_META = {
    "colab": {"base_uri": "https://localhost:8080/"},
    "executionInfo": {"status": "ok", "timestamp": 1700000000000, "elapsed": 1234},
    "outputId": "e1f2",
}


def _raw_cell(source: object, **extra: object) -> dict[str, object]:
    return {
        "cell_type": "code",
        "execution_count": None,
        "metadata": {},
        "outputs": [],
        "source": source,
        **extra,
    }


@pytest.mark.parametrize(
    "saved",
    [
        {  # VS Code / JupyterLab 3: nbformat 4.2, no cell ids, sources as lists of lines
            "cells": [_raw_cell(["import pandas as pd\n", "x = 1"]), _raw_cell("y = 2")],
            "metadata": {"vscode": {"interpreter": {"hash": "abc"}}, "orig_nbformat": 4},
            "nbformat": 4,
            "nbformat_minor": 2,
        },
        {  # Colab: nbformat 4.0 with ids (4.0 has none), not all of them valid ones
            "cells": [
                _raw_cell("from google.colab import drive", id="xYz", metadata=COLAB_CELL_META),
                _raw_cell("x = 1", id="cell 3!", metadata=COLAB_CELL_META),
                _raw_cell("y = 2", id="xYz"),
            ],
            "metadata": {"colab": {"provenance": []}, "accelerator": "GPU"},
            "nbformat": 4,
            "nbformat_minor": 0,
        },
    ],
    ids=["vscode-4.2", "colab-4.0"],
)
def test_notebooks_saved_elsewhere_stay_valid_when_cells_are_added(
    saved: dict[str, object],
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
) -> None:
    """The cells a run adds carry nbformat ids: added to a 4.0-4.4 notebook, every notebook the
    run wrote was invalid and each write logged "Notebook JSON is invalid"."""
    path = tmp_path / "saved.ipynb"
    path.write_text(json.dumps(saved))
    nb = SolutionNotebook.read(path)
    grown = nb.insert_block_after(None, "import random").append_block("evaluate", "print(1)")
    grown = grown.insert_markdown_before(grown.block_ids[0], "a note")
    nbformat.validate(grown.nb)
    grown.write(tmp_path / "out.ipynb")
    nbformat.validate(nbformat.read(tmp_path / "out.ipynb", as_version=4))
    ids = [c.id for c in nb.nb.cells]
    assert len(set(ids)) == len(ids)
    assert ids == [c.id for c in SolutionNotebook.read(path).nb.cells]  # same file, same ids
    if saved["nbformat_minor"] == 0:
        assert ids[0] == "xYz" and ids[1] != "cell 3!"  # a valid id is kept
    assert nb.code_blocks[0].source.startswith(("import pandas", "from google"))
    said = caplog.text + "".join(capfd.readouterr())
    assert "is invalid" not in said  # nbformat's report of the file as saved is not logged


def test_a_notebook_saved_with_a_byte_order_mark_and_crlf_is_read(tmp_path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("x = 1\ny = 2")]
    path = tmp_path / "windows.ipynb"
    path.write_bytes(b"\xef\xbb\xbf" + nbformat.writes(nb).replace("\n", "\r\n").encode())
    assert SolutionNotebook.read(path).code_blocks[0].source == "x = 1\ny = 2"


def test_no_code_cells_error() -> None:
    nb = SolutionNotebook.new([("markdown", "just text")])
    with pytest.raises(NoCodeCellsError, match="add at least one code cell"):
        nb.require_code()


def test_a_notebook_for_another_language_is_not_run() -> None:
    nb = SolutionNotebook.new([("other", "x <- 1")])
    assert nb.language in ("", "python")
    nb.require_code()  # no language, or Python: fine
    nb.nb.metadata.pop("kernelspec", None)
    nb.nb.metadata["language_info"] = {"name": "julia"}
    with pytest.raises(NotPythonError, match="written for the julia kernel"):
        nb.require_code()
    nb.nb.metadata["kernelspec"] = {"name": "python3", "language": "Python"}
    assert nb.language == "python" and nb.require_code() is nb


def test_digest_depends_on_code_only() -> None:
    nb = _nb()
    assert nb.insert_markdown_before("b2", "a plan").digest == nb.digest
    assert nb.replace_block("b1", "x=1").digest != nb.digest


def test_insert_block_after_keeps_a_free_block_id_and_delete_removes_it() -> None:
    nb = _nb()
    top = nb.insert_block_after(None, "import numpy as np", block_id="b9")
    assert top.block_ids == ["b9", "b1", "b2"] and top.block("b9").source == "import numpy as np"
    mid = nb.insert_block_after("b1", "X = df.drop(columns='y')", block_id="b1")  # b1 is taken
    assert mid.block_ids[0] == "b1" and len(mid.block_ids) == 3
    added = [b for b in mid.code_blocks if b.source.startswith("X =")][0]
    assert added.index == nb.block("b1").index + 1 and added.id not in nb.block_ids
    gone = top.delete_block("b9")
    assert gone.block_ids == nb.block_ids and nb.block_ids == ["b1", "b2"]
    with pytest.raises(UnknownBlockError):
        nb.delete_block("b7")
