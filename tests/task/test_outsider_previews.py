"""What the run tells about tables Excel saved on Windows, read the way the tables themselves
are (``tables.read_args``): the data preview the models are shown, the training table's header
a task.json's column names are matched to, and the tables a notebook outside a task folder
reads (its target's columns and values).

Excel's "CSV" saves ``;``-separated with decimal commas in the Windows code page (cp1252),
"Unicode Text" tab-separated in UTF-16, "CSV UTF-8" with a byte-order mark."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
import pytest

from mlestar_jupyter.importer.notebook_task import task_from_notebook
from mlestar_jupyter.notebook import SolutionNotebook
from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.fields import DataFile
from mlestar_jupyter.task.locations import train_header
from mlestar_jupyter.task.preview import preview_data

from .excel_exports import accented_frames

DESCRIPTION = "# Orders\n\nPredict the size.\n\nTarget: Größe\n\nMetric: rmse\n"
# (encoding, separator, decimal mark) of Excel's exports
EXPORTS = {
    "cp1252": ("cp1252", ";", ","),
    "utf16": ("utf-16", "\t", ","),
    "bom": ("utf-8-sig", ",", "."),
    "utf8-semicolon": ("utf-8", ";", ","),  # (a European export saved again as UTF-8)
}


def _frames() -> tuple[pd.DataFrame, pd.DataFrame]:
    return accented_frames(40, 30, "Größe")


def _save(frame: pd.DataFrame, path: Path, export: str) -> None:
    encoding, sep, decimal = EXPORTS[export]
    path.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(
        path, sep=sep, decimal=decimal, index=False, encoding=encoding, lineterminator="\r\n"
    )


# --------------------------------------------------------------------------- the preview
@pytest.mark.parametrize("export", list(EXPORTS))
def test_the_preview_shows_an_excel_exports_columns_and_rows(tmp_path: Path, export: str) -> None:
    root = tmp_path / "orders"
    train, test = _frames()
    _save(train, root / "input" / "train.csv", export)
    _save(test, root / "input" / "test.csv", export)
    (root / "description.md").write_text(DESCRIPTION)
    text = preview_data(load_task(root))
    assert "not readable" not in text
    assert "- `train.csv`: 30 rows × 4 columns" in text
    assert "columns: id (int64), name (" in text and "x (float64), Größe (float64)\n" in text
    assert "row: 0, 'Müller', " in text
    assert "- `test.csv`: 10 rows × 3 columns" in text


def test_the_preview_reads_a_semicolon_text_file_and_a_tab_one_by_their_separator(
    tmp_path: Path,
) -> None:
    root = tmp_path / "orders"
    train, test = _frames()
    _save(train, root / "input" / "train.txt", "utf16")  # "Unicode Text" is saved as .txt
    test.to_csv(root / "input" / "test.csv", sep=";", decimal=",", index=False)  # UTF-8
    (root / "description.md").write_text(DESCRIPTION)
    text = preview_data(load_task(root))
    assert "- `train.txt`: 30 rows × 4 columns" in text
    assert "- `test.csv`: 10 rows × 3 columns" in text
    assert "columns: id (int64), name (" in text and "), x (float64)\n" in text


def test_a_utf16_tables_rows_are_counted_by_its_characters(tmp_path: Path) -> None:
    """``Ċ`` (U+010A) is the bytes ``0a 01`` in UTF-16: no line end."""
    root = tmp_path / "t"
    (root / "input").mkdir(parents=True)
    frame = pd.DataFrame({"id": [1, 2], "name": ["Ċ", "ĊĊ"], "Größe": [1.5, 2.5]})
    frame.to_csv(root / "input" / "train.csv", sep="\t", index=False, encoding="utf-16")
    assert (root / "input" / "train.csv").read_bytes().count(b"\n") > 3
    (root / "description.md").write_text(DESCRIPTION)
    assert "- `train.csv`: 2 rows × 3 columns" in preview_data(load_task(root))


# --------------------------------------------------------------------------- the header
@pytest.mark.parametrize("export", list(EXPORTS))
def test_the_training_header_is_read_in_the_tables_encoding(tmp_path: Path, export: str) -> None:
    train, _ = _frames()
    _save(train, tmp_path / "train.csv", export)
    assert train_header(tmp_path, [DataFile("train.csv", "train")]) == ["id", "name", "x", "Größe"]


@pytest.mark.parametrize("export", list(EXPORTS))
def test_a_task_json_names_columns_as_the_tables_spell_them(tmp_path: Path, export: str) -> None:
    """No sample submission: the id and target named in task.json are matched (ignoring case)
    to the test and training tables' headers, which a byte-order mark or another encoding
    must not change."""
    root = tmp_path / "orders"
    train, test = _frames()
    _save(train, root / "input" / "train.csv", export)
    _save(test, root / "input" / "test.csv", export)
    body = {"goal": "predict the size", "metric": "rmse", "target_col": "größe", "id_col": "ID"}
    (root / "task.json").write_text(json.dumps(body))
    task = load_task(root)
    assert (task.id_col, task.target_cols) == ("id", ("Größe",))
    said = " ".join(task.notices)
    assert "'ID' is spelled 'id'" in said and "'größe' is spelled 'Größe'" in said


# --------------------------------------------------------------------------- a notebook's task
def _nb(folder: Path, cells: list[str]) -> SolutionNotebook:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    path = folder / "orders.ipynb"
    nbformat.write(nb, path)
    return SolutionNotebook.read(path)


@pytest.mark.parametrize("export", list(EXPORTS))
def test_a_notebooks_excel_tables_give_its_target_and_metric(tmp_path: Path, export: str) -> None:
    """A notebook reading Excel exports beside it: its target is a column of the training
    table (read in its encoding) and, its values read with their decimal mark, a number to
    regress, not a label to classify."""
    encoding, sep, decimal = EXPORTS[export]
    train, test = _frames()
    _save(train, tmp_path / "data" / "train.csv", export)
    _save(test, tmp_path / "data" / "test.csv", export)
    read = f"sep={sep!r}, decimal={decimal!r}, encoding={encoding!r}"
    nb = _nb(
        tmp_path,
        [
            "import pandas as pd",
            f"train = pd.read_csv('data/train.csv', {read})\n"
            f"test = pd.read_csv('data/test.csv', {read})",
            "y = train['Größe']\nX = train.drop(columns=['Größe', 'id', 'name'])",
            "model.fit(X, y)\n"
            "pd.DataFrame({'id': test.id, 'Größe': model.predict(test[['x']])}).to_csv("
            "'submission.csv', index=False)",
        ],
    )
    task = task_from_notebook(nb, tmp_path, "orders.ipynb")
    assert (task.target_cols, task.id_col) == (("Größe",), "id")
    assert (task.task_type, task.metric_name) == ("regression", "rmse")


def test_a_pipe_separated_table_of_numbers_stays_a_table(tmp_path: Path) -> None:
    """Modality inference read the training table as a comma CSV: twelve numeric columns joined
    by ``|`` were one long string per row, a "text" task."""
    root = tmp_path / "pipes"
    inp = root / "input"
    inp.mkdir(parents=True)
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(30, 12)).round(3), columns=[f"x{i}" for i in range(12)])
    frame.insert(0, "id", range(30))
    frame.assign(y=rng.normal(size=30).round(2)).to_csv(inp / "train.csv", sep="|", index=False)
    frame.assign(id=range(30, 60)).to_csv(inp / "test.csv", sep="|", index=False)
    pd.DataFrame({"id": range(30, 60), "y": 0.0}).to_csv(
        inp / "sample_submission.csv", sep="|", index=False
    )
    (root / "description.md").write_text("# Pipes\n\nPredict y.\n\nMetric: rmse\n")
    assert load_task(root).modality == "tabular"
