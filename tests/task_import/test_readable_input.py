"""A task folder whose tables come zipped (``importer.readable_input``): the run reads a copy of
its input folder with them unpacked.  Shaped like hunt D's input (session 27): a competition's
page served ``train.zip`` and ``test.zip`` beside ``sample_submission.csv``, and ``mlestar run``
stopped at "no training table (train.csv) found"."""

from __future__ import annotations

import io
import os
import zipfile
from pathlib import Path

import pandas as pd
import pytest
from sklearn.datasets import load_iris

from mlestar_jupyter import api
from mlestar_jupyter.agent.run import prepared_task
from mlestar_jupyter.importer import readable_input as readable_input_module
from mlestar_jupyter.importer.readable_input import archives_of, arff_tables, readable_input
from mlestar_jupyter.journal import RunJournal
from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.layout import inspect_task


def _zip(path: Path, members: dict[str, bytes]) -> None:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)


def _csv(frame: pd.DataFrame) -> bytes:
    buf = io.StringIO()
    frame.to_csv(buf, index=False)
    return buf.getvalue().encode()


def _iris_folder(root: Path, *, wrapped: bool = False) -> tuple[Path, pd.DataFrame]:
    """A task folder as a competition's page serves it: description.md, input/ with the
    tables zipped, each on its own (``wrapped``: in a folder of its own inside the zip)."""
    iris = load_iris(as_frame=True)
    df = iris.frame.rename(columns=lambda c: c.replace(" (cm)", "").replace(" ", "_"))
    df["species"] = [str(iris.target_names[t]) for t in df.pop("target")]
    df.insert(0, "id", range(1, len(df) + 1))
    df = df.sample(frac=1.0, random_state=0).reset_index(drop=True)
    train, test = df.iloc[:110], df.iloc[110:]
    inp = root / "input"
    inp.mkdir(parents=True)
    sample = test[["id"]].assign(species="setosa")
    tables = {"train.csv": _csv(train), "test.csv": _csv(test.drop(columns="species"))}
    for name, data in tables.items():
        inner = f"download/{name}" if wrapped else name
        _zip(inp / name.replace(".csv", ".zip"), {inner: data})
    sample.to_csv(inp / "sample_submission.csv", index=False)
    (root / "description.md").write_text(
        "# Iris species\n\nPredict the species of each flower.\n\n## Evaluation\n\nAccuracy.\n"
    )
    return root, test


def test_a_run_reads_a_copy_of_input_with_its_archives_unpacked(tmp_path: Path) -> None:
    root, _ = _iris_folder(tmp_path / "iris")
    before = sorted(p.name for p in (root / "input").iterdir())
    task = load_task(root)
    journal = RunJournal.create(tmp_path / "run", {})

    ready = prepared_task(task, journal)
    copy = journal.path("readable-input")
    assert ready.input_dir == copy
    assert (copy / "train.csv").is_file() and (copy / "test.csv").is_file()
    assert (copy / "sample_submission.csv").is_symlink()  # linked, not copied
    layout = inspect_task(ready)
    assert layout.train_table == "train.csv" and layout.label_col == "species"
    assert any("train.zip" in n and "unchanged" in n for n in ready.notices), ready.notices
    assert sorted(p.name for p in (root / "input").iterdir()) == before  # the user's folder

    # resumed: the copy is kept as it is; a task reading it already is not prepared again
    stamp = os.stat(copy / "train.csv").st_mtime_ns
    again = prepared_task(load_task(root), RunJournal.open(journal.dir))
    assert again.input_dir == copy and os.stat(copy / "train.csv").st_mtime_ns == stamp
    assert prepared_task(again, journal) is again


def test_a_task_prepared_for_the_run_is_not_prepared_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``api.execute`` prepares the task (for the policies), then ``run_mlestar`` does (for
    direct callers): before, an ordinary task's training table was read a second time."""
    from mlestar_jupyter.task.layout import labelled

    calls: list[Path] = []
    real = labelled.labelled_only
    monkeypatch.setattr(
        labelled, "labelled_only", lambda task, *a: calls.append(task.input_dir) or real(task, *a)
    )
    root, _ = _iris_folder(tmp_path / "iris")
    for archive in (root / "input").glob("*.zip"):  # an ordinary folder: tables as they are
        with zipfile.ZipFile(archive) as z:
            z.extractall(root / "input")
        archive.unlink()
    journal = RunJournal.create(tmp_path / "run", {})
    ready = prepared_task(load_task(root), journal)
    assert prepared_task(ready, journal) is ready and len(calls) == 1
    other = RunJournal.create(tmp_path / "run2", {})  # another run prepares it for itself
    assert prepared_task(ready, other) is not ready and len(calls) == 2


def test_a_download_wrapped_in_one_folder_is_flattened(tmp_path: Path) -> None:
    root, _ = _iris_folder(tmp_path / "iris", wrapped=True)
    task = load_task(root)
    ready = readable_input(task, tmp_path / "copy")
    assert ready is not None
    copy = tmp_path / "copy"
    assert (copy / "train.csv").is_file() and (copy / "test.csv").is_file()
    assert not (copy / "download").exists()


def test_archives_that_add_nothing_or_cannot_be_read_are_left_alone(tmp_path: Path) -> None:
    root, _ = _iris_folder(tmp_path / "iris")
    inp = root / "input"
    task = load_task(root)
    for name in ("train", "test"):  # unpacked by the user beside the archives already
        with zipfile.ZipFile(inp / f"{name}.zip") as z:
            z.extractall(inp)
    assert readable_input(task, tmp_path / "copy") is None
    assert not (tmp_path / "copy").exists()

    (inp / "broken.zip").write_bytes(b"PK\x03\x04 not really a zip")
    (inp / "train.csv").unlink()
    assert readable_input(task, tmp_path / "copy2") is None  # the layout's error says what to do
    assert not (tmp_path / "copy2").exists()


def test_archives_too_big_to_unpack_are_said_not_silently_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Past the size cap the run used to leave the archives without a word: the layout's error
    then said "unzip" but not why the run had not.  Now a notice says it (once, however many
    times the task is prepared), with the command."""
    from mlestar_jupyter.cli import main

    monkeypatch.setattr(readable_input_module, "MAX_UNPACKED_BYTES", 100)
    root, _ = _iris_folder(tmp_path / "iris")
    journal = RunJournal.create(tmp_path / "run", {})
    ready = prepared_task(prepared_task(load_task(root), journal), journal)
    assert ready.input_dir == root / "input" and not journal.path("readable-input").exists()
    said = [n for n in ready.notices if "unpacks into its own folder" in n]
    assert len(said) == 1 and "unzip train.zip" in said[0], ready.notices

    assert main(["run", str(root), "--out", str(tmp_path / "r2"), "--time-limit", "20"]) == 2
    err = capsys.readouterr().err
    assert "unpacks into its own folder" in err and "no training table" in err


def test_a_table_zipped_on_its_own_is_read_as_it_is(tmp_path: Path) -> None:
    inp = tmp_path / "input"
    inp.mkdir()
    _zip(inp / "train.csv.zip", {"train.csv": b"id,y\n1,2\n"})
    _zip(inp / "images.zip", {"a.png": b"x"})
    assert [p.name for p in archives_of(inp)] == ["images.zip"]


def test_mlestar_run_on_zipped_tables_hands_in_a_graded_submission(tmp_path: Path) -> None:
    """End to end: the policies read the unpacked copy's layout, so the search runs (before,
    the run stopped at "no training table (train.csv) found")."""
    root, test = _iris_folder(tmp_path / "iris")
    out = api.run(root, out=tmp_path / "run", time_limit=40, parallel=1, ensemble_rounds=0)
    assert out.final.ok and out.final.submission is not None, out.stop_reason
    sub = pd.read_csv(out.final.submission)
    got = sub.set_index("id").loc[test["id"], "species"].to_numpy()
    assert (got == test["species"].to_numpy()).mean() > 0.85


ARFF = """% Weka's export of a small table
@RELATION flowers

@ATTRIBUTE id NUMERIC
@ATTRIBUTE 'petal length' NUMERIC
@ATTRIBUTE colour {red,'pale blue',white}
@ATTRIBUTE species {setosa,versicolor}

@DATA
1,1.4,red,setosa
2,4.7,'pale blue',versicolor
3,?,white,setosa
4,4.5,?,versicolor
"""


def test_arff_tables_are_read_as_csv_in_the_copy(tmp_path: Path) -> None:
    """Hunt D (session 27): ``train.arff`` / ``test.arff`` from OpenML stopped the run at "no
    training table (train.csv) found"; the run reads them as CSV now, its own copy."""
    root = tmp_path / "flowers"
    inp = root / "input"
    inp.mkdir(parents=True)
    (inp / "train.arff").write_text(ARFF)
    (inp / "test.arff").write_text(
        ARFF.replace(",setosa\n", ",?\n").replace(",versicolor\n", ",?\n")
    )
    pd.DataFrame({"id": [1, 2], "species": ["setosa", "setosa"]}).to_csv(
        inp / "sample_submission.csv", index=False
    )
    (root / "description.md").write_text(
        "# Flowers\n\nPredict the species.\n\n## Evaluation\nAccuracy\n"
    )
    task = load_task(root)
    ready = readable_input(task, tmp_path / "copy")
    assert ready is not None and any("written as CSV" in n for n in ready.notices)
    train = pd.read_csv(tmp_path / "copy" / "train.csv")
    assert list(train.columns) == ["id", "petal length", "colour", "species"]
    assert train["colour"].tolist()[:2] == ["red", "pale blue"]  # text, not b'red'
    assert train["petal length"].isna().sum() == 1 and train["colour"].isna().sum() == 1
    assert inspect_task(ready).label_col == "species"
    assert not (inp / "train.csv").exists()


def test_an_arff_file_scipy_cannot_read_is_left_alone(tmp_path: Path) -> None:
    inp = tmp_path / "input"
    inp.mkdir()
    (inp / "train.arff").write_text("@RELATION x\n@ATTRIBUTE s RELATIONAL\n@END s\n@DATA\n")
    assert [p.name for p in arff_tables(inp)] == ["train.arff"]
    assert _make(tmp_path, inp) is None and not (tmp_path / "copy").exists()


def _make(tmp_path: Path, inp: Path) -> object:
    from mlestar_jupyter.importer.readable_input import _unpack_all

    return _unpack_all(inp, arff_tables(inp), tmp_path / "copy") or None
