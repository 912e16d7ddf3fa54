"""Tables saved by Excel on Windows, which the run could not read at all:

- "CSV (semicolon/comma delimited)" and "Text (Tab delimited)" save in the Windows code page
  (cp1252): a table with ``Müller``, ``Straße``, ``café`` or ``€`` in it "cannot be read as a
  table" (``'utf-8' codec can't decode byte 0xfc``), and the notebooks' ``pd.read_csv`` failed
  the same way;
- "Unicode Text" saves UTF-16 with a byte-order mark, tab-separated: not even its header read;
- "CSV UTF-8" begins with a byte-order mark, which must not become part of the first column's
  name (``\\ufeffid`` is no ``id``).

Each table is read in its encoding (``text_format.text_encoding``), the notebooks' read code names
it, and the submission is written in the sample submission's."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mlestar_jupyter.evaluator import grade_submission
from mlestar_jupyter.importer.data import read_table as survey_table
from mlestar_jupyter.task import Task, load_task
from mlestar_jupyter.task.layout import inspect_task
from mlestar_jupyter.task.layout.tables import (
    format_name,
    read_args,
    read_head,
    read_submission,
    submission_args,
    write_submission,
)
from mlestar_jupyter.task.text_format import text_encoding

from .excel_exports import NAMES, accented_frames

DESCRIPTION = "# Orders\n\nPredict y, the amount of an order.\n\nMetric: rmse\n"


def _frames() -> tuple[pd.DataFrame, pd.DataFrame]:
    return accented_frames(80, 60, "y")


def _excel(root: Path, encoding: str, sep: str, decimal: str, spec: str = "description") -> Path:
    """A task folder whose ``train.csv``, ``test.csv`` and ``sample_submission.csv`` Excel saved
    in ``encoding`` (``\\r\\n`` line ends), described by a ``description.md`` or a task.json."""
    inp = root / "input"
    inp.mkdir(parents=True)
    train, test = _frames()
    sample = pd.DataFrame({"id": test["id"], "y": 0.5})
    for name, frame in (("train", train), ("test", test), ("sample_submission", sample)):
        frame.to_csv(
            inp / f"{name}.csv",
            sep=sep,
            decimal=decimal,
            index=False,
            encoding=encoding,
            lineterminator="\r\n",
        )
    if spec == "description":
        (root / "description.md").write_text(DESCRIPTION)
    else:
        body = {"goal": "predict y", "metric": "rmse", "target_col": "y", "id_col": "id"}
        (root / "task.json").write_text(json.dumps(body))
    return root


def _run(code: str, root: Path) -> pd.DataFrame:
    """What a notebook's read code reads."""
    return eval(code, {"pd": pd, "INPUT": root / "input"})  # type: ignore[no-any-return]


def test_a_windows_code_page_export_reads_its_accented_values(tmp_path: Path) -> None:
    root = _excel(tmp_path / "orders", "cp1252", ";", ",")
    train_csv = root / "input" / "train.csv"
    assert b";M\xfcller;" in train_csv.read_bytes()  # cp1252, as Excel wrote it
    assert read_args(train_csv) == {"sep": ";", "decimal": ",", "encoding": "cp1252"}
    head = read_head(train_csv)
    assert list(head.columns) == ["id", "name", "x", "y"] and head["x"].dtype.kind == "f"
    assert set(head["name"]) == set(NAMES)
    layout = inspect_task(load_task(root))
    assert (layout.train_table, layout.test_table, layout.label_col) == (
        "train.csv",
        "test.csv",
        "y",
    )
    assert layout.n_categorical == 1
    code = layout.read_code("train.csv")
    assert code == 'pd.read_csv(INPUT / "train.csv", sep=";", decimal=",", encoding="cp1252")'
    read = _run(code, root)
    train, test = _frames()
    assert read["name"].tolist() == train["name"].tolist()
    assert np.allclose(read["x"], train["x"])
    assert _run(layout.read_code("test.csv"), root)["name"].tolist() == test["name"].tolist()
    # the notebooks write the submission as the sample is written
    assert layout.write_args() == ', sep=";", decimal=",", encoding="cp1252"'
    # the importer's survey of the folder reads it too
    surveyed = survey_table(root / "input", "train.csv")
    assert surveyed is not None and surveyed.columns == ("id", "name", "x", "y")
    assert surveyed.head["name"].iloc[0] == "Müller"


def test_a_unicode_text_export_is_read_as_utf16(tmp_path: Path) -> None:
    root = _excel(tmp_path / "orders", "utf-16", "\t", ",", spec="task.json")
    (root / "input" / "sample_submission.csv").unlink()  # (the task.json folder without one)
    train_csv = root / "input" / "train.csv"
    assert train_csv.read_bytes().startswith(b"\xff\xfei\x00d\x00\t\x00")
    assert read_args(train_csv) == {"sep": "\t", "decimal": ",", "encoding": "utf-16"}
    assert list(read_head(train_csv).columns) == ["id", "name", "x", "y"]
    layout = inspect_task(load_task(root))
    assert (layout.id_col, layout.label_col) == ("id", "y")
    code = layout.read_code("train.csv")
    assert code == 'pd.read_csv(INPUT / "train.csv", sep="\\t", decimal=",", encoding="utf-16")'
    read = _run(code, root)
    assert read["name"].tolist()[:4] == list(NAMES) and read["x"].dtype.kind == "f"


def test_a_utf8_export_with_a_byte_order_mark_keeps_its_first_column_name(
    tmp_path: Path,
) -> None:
    root = _excel(tmp_path / "orders", "utf-8-sig", ",", ".", spec="task.json")
    train_csv = root / "input" / "train.csv"
    assert train_csv.read_bytes().startswith(b"\xef\xbb\xbfid,")
    assert read_args(train_csv) == {"encoding": "utf-8-sig"}
    assert list(read_head(train_csv).columns) == ["id", "name", "x", "y"]
    task = load_task(root)
    layout = inspect_task(task)
    assert (task.id_col, layout.id_col, layout.label_col) == ("id", "id", "y")
    assert layout.target_cols == ("y",)
    read = _run(layout.read_code("train.csv"), root)
    assert list(read.columns)[0] == "id" and read["name"].iloc[0] == "Müller"
    surveyed = survey_table(root / "input", "sample_submission.csv")
    assert surveyed is not None and surveyed.columns == ("id", "y")


def test_plain_utf8_tables_keep_their_read_code(tmp_path: Path) -> None:
    root = _excel(tmp_path / "orders", "utf-8", ",", ".", spec="task.json")
    assert read_args(root / "input" / "train.csv") == {}
    layout = inspect_task(load_task(root))
    assert layout.read_code("train.csv") == 'pd.read_csv(INPUT / "train.csv")'
    assert layout.write_args() == "" and layout.input_formats == ()


@pytest.mark.parametrize(
    ("encoding", "sep", "decimal"),
    [("utf-16", "\t", "."), ("utf-8-sig", ",", "."), ("cp1252", ";", ",")],
)
def test_a_described_folder_reads_its_sample_header_in_its_encoding(
    tmp_path: Path, encoding: str, sep: str, decimal: str
) -> None:
    root = _excel(tmp_path / "orders", encoding, sep, decimal)
    sample = root / "input" / "sample_submission.csv"  # with a label: "Müller" (cp1252: 0xfc)
    frame = pd.read_csv(sample, sep=sep, encoding=encoding).assign(name="Müller")
    frame.to_csv(sample, sep=sep, index=False, encoding=encoding)
    task = load_task(root)
    assert (task.id_col, task.target_cols) == ("id", ("y", "name"))


# --------------------------------------------------------------------------- the encoding
@pytest.mark.parametrize(
    ("data", "encoding"),
    [
        (b"id,name\n1,plain\n", "utf-8"),
        ("id,name\n1,Müller\n".encode(), "utf-8"),
        ("id,name\n1,Müller €\n".encode("cp1252"), "cp1252"),
        (b"id,name\n1,\x81\xfc\n", "latin-1"),  # 0x81: no cp1252 character
        ("id,name\n1,Müller\n".encode("utf-8-sig"), "utf-8-sig"),
        ("id,name\n1,Müller\n".encode("utf-16"), "utf-16"),
        ("id,name\n1,Müller\n".encode("utf-32"), "utf-32"),
        (b"id,name\n1,caf\xe9", "cp1252"),  # ends inside what UTF-8 would read as a character
    ],
    ids=["ascii", "utf8", "cp1252", "latin1", "bom", "utf16", "utf32", "cut"],
)
def test_the_encoding_is_told_by_the_bytes(tmp_path: Path, data: bytes, encoding: str) -> None:
    path = tmp_path / "t.csv"
    path.write_bytes(data)
    assert text_encoding(path) == encoding


def test_an_accent_far_down_a_table_or_in_a_gzipped_one_is_found(tmp_path: Path) -> None:
    ascii_rows = "".join(f"{i},plain name {i}\n" for i in range(120_000))  # over 1 MiB
    assert len(ascii_rows) > 2**20
    late = tmp_path / "late.csv"
    late.write_bytes(f"id,name\n{ascii_rows}999999,Müller\n".encode("cp1252"))
    assert text_encoding(late) == "cp1252"
    assert read_head(late, n=200_000)["name"].iloc[-1] == "Müller"
    # a UTF-8 character cut by the end of the first chunk is still UTF-8
    cut = tmp_path / "cut.csv"
    cut.write_bytes(b"x" * (2**20 - 1) + "ü\n".encode() * 3)
    assert text_encoding(cut) == "utf-8"
    zipped = tmp_path / "train.csv.gz"
    with gzip.open(zipped, "wb") as f:
        f.write("id;name;x\n1;Müller;0,5\n2;café;1,5\n".encode("cp1252"))
    assert read_args(zipped) == {"sep": ";", "decimal": ",", "encoding": "cp1252"}
    assert read_head(zipped)["name"].tolist() == ["Müller", "café"]


def test_a_rewritten_file_is_told_anew(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_bytes("id,name\n1,Müller\n".encode())
    assert text_encoding(path) == "utf-8"
    path.write_bytes("id,name\n1,Müller, Straße\n".encode("cp1252"))
    assert text_encoding(path) == "cp1252"


# --------------------------------------------------------------------------- the submission
def _named_task(root: Path, encoding: str) -> Task:
    """A task whose rows are named (``Müller``...): its tables and answers ``;``-separated with
    decimal commas in ``encoding``, and a task.json naming ``name`` the id.

    The task is loaded while its files are UTF-8, then they are saved in ``encoding``: loading
    reads the sample's header as UTF-8 (as ``task.infer.submission_columns`` does now);
    what is tested here reads the files when it runs."""
    inp, private = root / "input", root / "private"
    inp.mkdir(parents=True)
    private.mkdir()
    train = pd.DataFrame({"name": ["Ærø", "Zoë"] * 10, "x": np.arange(20) + 0.5, "y": 1.25})
    test = pd.DataFrame({"name": list(NAMES), "x": [1.5, 2.5, 3.5, 4.5]})
    answers = pd.DataFrame({"name": list(NAMES), "y": [1.5, 2.25, 3.0, 4.75]})
    files = (
        (train, inp / "train.csv"),
        (test, inp / "test.csv"),
        (answers.assign(y=0.5), inp / "sample_submission.csv"),
        (answers, private / "answers.csv"),
    )
    for frame, path in files:
        frame.to_csv(path, sep=";", decimal=",", index=False)
    body = {"goal": "predict y", "metric": "rmse", "target_col": "y", "id_col": "name"}
    (root / "task.json").write_text(json.dumps(body))
    task = load_task(root)
    assert (task.id_col, task.target_cols) == ("name", ("y",))
    for frame, path in files:
        frame.to_csv(path, sep=";", decimal=",", index=False, encoding=encoding)
    return task


def _predictions(path: Path, shift: float = 0.0) -> Path:
    """What a notebook's plain ``to_csv`` writes: UTF-8, commas, decimal points."""
    ys = [1.5 + shift, 2.25 + shift, 3.0 + shift, 4.75 + shift]
    pd.DataFrame({"name": list(NAMES), "y": ys}).to_csv(path, index=False)
    return path


def test_the_submission_is_handed_in_in_the_sample_submissions_encoding(tmp_path: Path) -> None:
    task = _named_task(tmp_path / "t", "cp1252")
    want = {"sep": ";", "decimal": ",", "encoding": "cp1252"}
    assert submission_args(task) == want
    own = _predictions(tmp_path / "own.csv")
    # read as written (a UTF-8 file read as cp1252 would give ``MÃ¼ller``)
    assert read_submission(task, own)["name"].tolist() == list(NAMES)
    handed = tmp_path / "final.csv"
    was = write_submission(task, own, handed)
    assert was == {"sep": ",", "encoding": "utf-8"}
    assert format_name(was) == "separated by ',', in utf-8"
    assert format_name(want) == "separated by ';' with decimal commas, in cp1252"
    assert handed.read_bytes().startswith(b"name;y\nM\xfcller;1,5\n")
    back = pd.read_csv(handed, **want)  # as the author's grader reads the sample
    assert back["name"].tolist() == list(NAMES) and back["y"].tolist()[1] == 2.25
    assert read_submission(task, handed, as_text=True)["y"].tolist()[:2] == ["1.5", "2.25"]
    # a file already written so is copied byte for byte
    again = tmp_path / "again.csv"
    assert write_submission(task, handed, again) is None
    assert again.read_bytes() == handed.read_bytes()
    # the right separator and marks in ASCII, which cp1252 reads alike: copied
    plain = tmp_path / "ascii.csv"
    plain.write_text("name;y\nA;1,5\n")
    assert write_submission(task, plain, tmp_path / "ascii-out.csv") is None
    # ... but in UTF-8 with its accents: rewritten in cp1252
    accents = tmp_path / "accents.csv"
    accents.write_text("name;y\nMüller;1,5\n", encoding="utf-8")
    was = write_submission(task, accents, tmp_path / "out.csv")
    assert was == {"sep": ";", "decimal": ",", "encoding": "utf-8"}
    assert (tmp_path / "out.csv").read_bytes() == b"name;y\nM\xfcller;1,5\n"


def test_an_ascii_sample_beside_code_page_tables_takes_their_encoding(tmp_path: Path) -> None:
    root = _excel(tmp_path / "orders", "cp1252", ";", ",")
    sample = root / "input" / "sample_submission.csv"
    assert sample.read_bytes().isascii() and read_args(sample) == {"sep": ";", "decimal": ","}
    assert submission_args(load_task(root)) == {"sep": ";", "decimal": ",", "encoding": "cp1252"}
    # UTF-16 tables: an ASCII sample is no UTF-16 file, so the grader reads no UTF-16
    root = _excel(tmp_path / "unicode", "utf-16", "\t", ",", spec="task.json")
    sample = root / "input" / "sample_submission.csv"
    pd.read_csv(sample, sep="\t", encoding="utf-16").to_csv(sample, sep="\t", index=False)
    assert submission_args(load_task(root)) == {"sep": "\t", "decimal": ","}


def test_a_unicode_text_sample_gets_a_utf16_submission(tmp_path: Path) -> None:
    task = _named_task(tmp_path / "t", "cp1252")
    sample = task.input_dir / "sample_submission.csv"  # the sample, saved again as Unicode Text
    pd.read_csv(sample, sep=";", decimal=",", encoding="cp1252").to_csv(
        sample, sep="\t", index=False, encoding="utf-16"
    )
    assert submission_args(task) == {"sep": "\t", "decimal": ",", "encoding": "utf-16"}
    handed = tmp_path / "final.csv"
    assert write_submission(task, _predictions(tmp_path / "own.csv"), handed) == {
        "sep": ",",
        "encoding": "utf-8",
    }
    assert handed.read_bytes().startswith(b"\xff\xfe")
    assert handed.read_text(encoding="utf-16").splitlines()[1] == "Müller\t1,5"
    assert read_submission(task, handed)["name"].tolist() == list(NAMES)


def test_a_windows_code_page_task_is_graded(tmp_path: Path) -> None:
    task = _named_task(tmp_path / "t", "cp1252")
    assert b"M\xfcller;1,5" in (task.root / "private" / "answers.csv").read_bytes()
    handed = tmp_path / "final.csv"
    write_submission(task, _predictions(tmp_path / "own.csv"), handed)
    report = grade_submission(task, handed)
    assert report.valid_submission, report.invalid_reason
    assert report.score == pytest.approx(0.0)
    write_submission(task, _predictions(tmp_path / "own.csv", shift=1.0), handed)
    assert grade_submission(task, handed).score == pytest.approx(1.0)
    # handed in not rewritten, in UTF-8 for a cp1252 sample: its ids read as other ids
    utf8 = tmp_path / "utf8.csv"
    pd.read_csv(_predictions(utf8)).to_csv(utf8, sep=";", decimal=",", index=False)
    report = grade_submission(task, utf8)
    assert not report.valid_submission and "MÃ¼ller" in str(report.invalid_reason)
