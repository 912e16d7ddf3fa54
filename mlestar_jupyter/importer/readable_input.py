"""A task folder whose tables come zipped or as ARFF: the run reads a copy of its input folder
with them unpacked, or written as CSV.

Found by task folders written by other people (hunt D, session 27): ``input/`` held
``train.zip`` (of ``train.csv``), ``test.zip`` and the sample submission, as a competition's
page serves them.  ``mlestar task import`` unpacks such files, but ``mlestar run`` stopped at
"no training table (train.csv) found" and said which ``unzip`` to type.  :func:`readable_input`
does it for the run without touching the user's data: a folder in the run's own folder links
every entry of ``input/`` and holds what the archives unpack to (a download wrapped in one
top-level folder flattened, names ``input/`` already has left out).  A table zipped on its own
(``train.csv.zip``) is read as it is and not unpacked.  OpenML's and Weka's ARFF tables
(``train.arff``), which no reader here knows, are written there as CSV (``train.csv``) the same
way; an ARFF file of sparse rows or relational attributes (sktime's series) is left as it
is.  A resumed run keeps its copy.
"""

from __future__ import annotations

import io
import json
import re
import shutil
from dataclasses import replace
from pathlib import Path

import pandas as pd

from ..task import Task
from ..task.layout.links import link_entries
from ..task.other_tables import (
    DELIMITED_TEXT_EXT,
    holds_records,
    is_delimited_text_table,
    is_svmlight,
    npz_array_names,
    records_frame,
    svmlight_frames,
    text_table_frame,
)
from ..task.text_format import TEXT_TABLE_EXT
from .data import ARCHIVE_SUFFIXES, flatten_single_folder, unpack_archive
from .errors import Problem, TaskImportError

MAX_UNPACKED_BYTES = 4 * 1024**3  # more than this unpacked: the user unpacks it where it can stay


def readable_input(task: Task, folder: Path) -> Task | None:
    """``task`` reading its data from ``folder``, a copy of its input folder with the archives
    there unpacked and its ARFF tables written as CSV (a notice says which); ``task`` with a
    notice alone when they would unpack to more than :data:`MAX_UNPACKED_BYTES`; or ``None``:
    neither is there, nothing in them is what ``input/`` lacks, or one cannot be read (the
    layout's error then says what to do)."""
    archives = (
        archives_of(task.input_dir)
        + arff_tables(task.input_dir)
        + json_tables(task.input_dir)
        + text_tables(task.input_dir)
        + npz_arrays(task.input_dir)
        + svmlight_tables(task.input_dir)
    )
    if not archives:
        return None
    size = _unpacked_size(archives)
    if size > MAX_UNPACKED_BYTES:  # said, not done: the run's folder is no place for it
        note = _too_big(task.input_dir, archives, size)
        return task if note in task.notices else replace(task, notices=(*task.notices, note))
    stamp = folder.with_name(f"{folder.name}.json")
    signature = {a.name: [a.stat().st_size, a.stat().st_mtime_ns] for a in archives}
    unpacked = _kept(stamp, folder, signature)
    if unpacked is None:
        unpacked = _unpack_all(task.input_dir, archives, folder)
        if not unpacked:
            return None
        stamp.write_text(json.dumps({"archives": signature, "unpacked": unpacked}) + "\n")
    shown = ", ".join(unpacked[:6]) + (
        f" and {len(unpacked) - 6} more" if len(unpacked) > 6 else ""
    )
    done = (
        "written as CSV"
        if all(_as_csv(a) or is_svmlight(a) for a in archives)
        else "written as .npy arrays"
        if all(_is_npz(a) for a in archives)
        else "unpacked"
    )
    note = (
        f"input/ holds {', '.join(a.name for a in archives)}: the run reads a copy of input/ "
        f"with {'it' if len(archives) == 1 else 'them'} {done} ({shown}; in {folder}); your "
        "files are unchanged"
    )
    return replace(task, input_dir=folder, notices=(*task.notices, note))


def archives_of(input_dir: Path) -> list[Path]:
    """The archives directly in ``input_dir`` (``train.zip``, ``data.tar.gz``), but tables
    zipped on their own (``train.csv.zip``), which are read as they are."""
    if not input_dir.is_dir():
        return []
    return [
        p
        for p in sorted(input_dir.iterdir())
        if p.is_file()
        and p.name.lower().endswith(ARCHIVE_SUFFIXES)
        and not p.name.lower().endswith(TEXT_TABLE_EXT)
        and not p.name.startswith(".")
    ]


def arff_tables(input_dir: Path) -> list[Path]:
    """The ARFF tables directly in ``input_dir`` that have no CSV of their name beside them."""
    if not input_dir.is_dir():
        return []
    return [
        p
        for p in sorted(input_dir.iterdir())
        if p.is_file() and _is_arff(p) and not p.with_suffix(".csv").exists()
    ]


def json_tables(input_dir: Path) -> list[Path]:
    """The JSON tables directly in ``input_dir`` (``train.json``: a list of records, as pandas'
    ``to_json(orient="records")`` writes them) that have no CSV of their name beside them; other
    JSON files (``task.json``, metadata) are left alone."""
    if not input_dir.is_dir():
        return []
    return [
        p
        for p in sorted(input_dir.iterdir())
        if p.is_file()
        and p.suffix.lower() == ".json"
        and not p.with_suffix(".csv").exists()
        and _holds_records(p)
    ]


def _holds_records(path: Path) -> bool:
    """Whether the JSON file ``path`` holds records: a list of objects (``[{...``), or an
    object whose one key holds them (``{"data": [{...``: hunt O)."""
    return holds_records(path)


def text_tables(input_dir: Path) -> list[Path]:
    """The training and test tables directly in ``input_dir`` kept as delimited ``.txt`` (or
    ``.dat``) files (``train.txt`` separated by tabs: hunt O) that have no CSV of their name
    beside them; other ``.txt`` files (notes, documents) are left alone."""
    if not input_dir.is_dir():
        return []
    return [
        p
        for p in sorted(input_dir.iterdir())
        if p.name.lower().startswith(("train", "test"))
        and is_delimited_text_table(p)
        and not p.with_suffix(".csv").exists()
    ]


def npz_arrays(input_dir: Path) -> list[Path]:
    """The NumPy ``.npz`` files directly in ``input_dir`` holding training and test arrays
    (``X_train``, ``y_train``, ``X_test``: hunt O), whose arrays the run reads as ``.npy``
    files of their names (``layout.arrays``)."""
    if not input_dir.is_dir():
        return []
    return [p for p in sorted(input_dir.glob("*.npz")) if npz_array_names(p)]


def svmlight_tables(input_dir: Path) -> list[Path]:
    """The training and the test file directly in ``input_dir`` kept as LIBSVM rows
    (``train.svm``, ``test.svm``: hunt O), which the run reads as ``train.csv`` / ``test.csv``
    (the features ``f0`` ..., the training ``label``); none unless both are there."""
    if not input_dir.is_dir():
        return []
    found = [p for p in sorted(input_dir.iterdir()) if is_svmlight(p)]
    train = [p for p in found if p.name.lower().startswith("train")]
    test = [p for p in found if p.name.lower().startswith("test")]
    if len(train) != 1 or len(test) != 1 or (input_dir / "train.csv").exists():
        return []
    return [train[0], test[0]]


def _svmlight_as_csv(pair: list[Path], staged: Path) -> list[str]:
    """Write the LIBSVM training and test files ``pair`` as ``train.csv`` / ``test.csv``."""
    try:
        train, test = svmlight_frames(pair[0], pair[1])
    except (ValueError, OSError) as e:
        raise TaskImportError(
            [
                Problem(
                    "data", f"{pair[0].name} cannot be read as LIBSVM rows ({e})", "save it as CSV"
                )
            ]
        ) from e
    staged.mkdir(parents=True, exist_ok=True)
    train.to_csv(staged / "train.csv", index=False)
    test.to_csv(staged / "test.csv", index=False)
    return ["train.csv", "test.csv"]


def _is_npz(path: Path) -> bool:
    return path.name.lower().endswith(".npz")


def _npz_as_npy(source: Path, staged: Path, input_dir: Path) -> list[str]:
    """Write each array of the ``.npz`` file ``source`` as ``<name>.npy`` in ``staged`` (but
    names ``input_dir`` already has); the names written."""
    import numpy as np

    written = []
    try:
        with np.load(source, allow_pickle=False) as arrays:
            for name in npz_array_names(source):
                target = f"{name}.npy"
                if (input_dir / target).exists() or (staged / target).exists():
                    continue
                np.save(staged / target, arrays[name], allow_pickle=False)
                written.append(target)
    except (ValueError, OSError) as e:
        raise TaskImportError(
            [
                Problem(
                    "data",
                    f"{source.name} cannot be read as NumPy arrays ({e})",
                    "save each array with np.save (X_train.npy, y_train.npy, X_test.npy)",
                )
            ]
        ) from e
    return written


def _is_text_table(path: Path) -> bool:
    return path.name.lower().endswith(DELIMITED_TEXT_EXT)


def _text_as_csv(source: Path, csv: Path) -> None:
    """Write the delimited text table ``source`` as the CSV ``csv``."""
    try:
        frame = text_table_frame(source)
    except (ValueError, OSError, UnicodeDecodeError) as e:
        raise TaskImportError(
            [Problem("data", f"{source.name} cannot be read as a table ({e})", "save it as CSV")]
        ) from e
    frame.to_csv(csv, index=False)


def _is_arff(path: Path) -> bool:
    return path.name.lower().endswith(".arff")


def _is_json(path: Path) -> bool:
    return path.name.lower().endswith(".json")


def _as_csv(path: Path) -> bool:
    """Whether ``path`` is a table written as CSV for the run (ARFF, a JSON list of records),
    not an archive unpacked."""
    return _is_arff(path) or _is_json(path) or _is_text_table(path)


def _json_as_csv(source: Path, csv: Path) -> None:
    """Write the JSON list of records ``source`` as the CSV ``csv``; a ``TaskImportError`` for
    what is no such list."""
    try:
        frame = records_frame(source)
    except (ValueError, OSError, UnicodeDecodeError) as e:
        raise TaskImportError(
            [
                Problem(
                    "data",
                    f"{source.name} cannot be read as a list of records ({e})",
                    "save it as CSV",
                )
            ]
        ) from e
    frame.to_csv(csv, index=False)


_ATTRIBUTE = re.compile(r"""@attribute\s+('(?:[^'\\]|\\.)*'|"[^"]*"|\S+)\s+(.+)""", re.IGNORECASE)


def _arff_as_csv(arff: Path, csv: Path) -> None:
    """Write the dense ARFF table ``arff`` as the CSV ``csv`` (nominal values as their text,
    ``?`` as an empty cell); a ``TaskImportError`` for what is no such table (sparse rows,
    relational attributes, a broken header)."""
    try:
        frame = _read_arff(arff)
    except (ValueError, OSError, UnicodeDecodeError) as e:
        raise TaskImportError(
            [
                Problem(
                    "data", f"{arff.name} cannot be read as an ARFF table ({e})", "save it as CSV"
                )
            ]
        ) from e
    frame.to_csv(csv, index=False)


def _read_arff(path: Path) -> pd.DataFrame:
    """The rows of a dense ARFF file: its ``@attribute`` names as the columns, the ``@data``
    rows read as CSV quoted with ``'`` (Weka's), ``%`` lines skipped."""
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    names: list[str] = []
    for i, line in enumerate(lines):
        text = line.strip()
        if text.lower().startswith("@attribute"):
            m = _ATTRIBUTE.match(text)
            if m is None or m.group(2).strip().lower().startswith("relational"):
                raise ValueError(f"attribute line {i + 1} is not one this reader knows: {text}")
            names.append(m.group(1).strip("'\""))
        elif text.lower().startswith("@data"):
            rows = [ln for ln in lines[i + 1 :] if ln.strip() and not ln.lstrip().startswith("%")]
            if any(r.lstrip().startswith("{") for r in rows[:50]):
                raise ValueError("sparse rows ({index value, ...}) are not read")
            return pd.read_csv(
                io.StringIO("\n".join(rows)),
                header=None,
                names=names,
                quotechar="'",
                escapechar="\\",
                na_values=["?"],
                keep_default_na=False,
                skipinitialspace=True,
            )
    raise ValueError("no @data section")


def _kept(stamp: Path, folder: Path, signature: dict[str, list[int]]) -> list[str] | None:
    """What an earlier start of this run unpacked into ``folder``, when it was made from
    these very archives (``None``: make it anew)."""
    try:
        kept = json.loads(stamp.read_text())
    except (OSError, ValueError):
        return None
    if kept.get("archives") != signature or not folder.is_dir():
        return None
    return [str(n) for n in kept.get("unpacked", [])]


def _unpack_all(input_dir: Path, archives: list[Path], folder: Path) -> list[str]:
    """Make ``folder``: what each archive holds that ``input_dir`` lacks, and a link to every
    entry of ``input_dir``; the names unpacked (none: ``folder`` is not made)."""
    staged = folder.with_name(f".{folder.name}.partial")
    shutil.rmtree(staged, ignore_errors=True)
    shutil.rmtree(folder, ignore_errors=True)
    names: list[str] = []
    try:
        libsvm = [a for a in archives if is_svmlight(a)]
        if libsvm:
            names += _svmlight_as_csv(libsvm, staged)
        for archive in archives:
            if archive in libsvm:
                continue
            if _is_npz(archive):
                staged.mkdir(parents=True, exist_ok=True)
                names += _npz_as_npy(archive, staged, input_dir)
                continue
            if _as_csv(archive):
                staged.mkdir(parents=True, exist_ok=True)
                write = (
                    _arff_as_csv
                    if _is_arff(archive)
                    else _text_as_csv
                    if _is_text_table(archive)
                    else _json_as_csv
                )
                write(archive, staged / f"{archive.stem}.csv")
                names.append(f"{archive.stem}.csv")
                continue
            tmp = staged / f".unpack-{archive.name}"
            unpack_archive(archive, tmp)
            flatten_single_folder(tmp)
            for child in sorted(tmp.iterdir()):
                if child.name.startswith(".") or (input_dir / child.name).exists():
                    continue
                if not (staged / child.name).exists():
                    shutil.move(str(child), str(staged / child.name))
                    names.append(child.name)
            shutil.rmtree(tmp)
    except (TaskImportError, OSError):
        shutil.rmtree(staged, ignore_errors=True)
        return []
    if not names:
        shutil.rmtree(staged, ignore_errors=True)
        return []
    link_entries(input_dir, staged)
    staged.rename(folder)
    return names


def _too_big(input_dir: Path, archives: list[Path], size: int) -> str:
    """The notice for archives too big to unpack into the run's folder: what to type."""
    zips = [a.name for a in archives if not _as_csv(a)]
    return (
        f"input/ holds {', '.join(a.name for a in archives)}, {size / 1024**3:.1f} GiB unpacked: "
        f"more than the {MAX_UNPACKED_BYTES / 1024**3:.0f} GiB a run unpacks into its own "
        "folder, so the run reads input/ as it is; unpack them where they can stay (cd "
        f"{input_dir} && " + " && ".join(f"unzip {z}" for z in zips or ["ARCHIVE"]) + ")"
    )


def _unpacked_size(archives: list[Path]) -> int:
    """The bytes the zip archives among ``archives`` hold unpacked (others count as their own
    size: tar and 7z say it only when read through)."""
    import zipfile

    total = 0
    for a in archives:
        if _as_csv(a) or _is_npz(a) or is_svmlight(a):
            total += a.stat().st_size * (4 if is_svmlight(a) else 1)  # (dense when written)
            continue
        try:
            with zipfile.ZipFile(a) as z:
                total += sum(i.file_size for i in z.infolist())
        except (OSError, zipfile.BadZipFile):
            total += a.stat().st_size
    return total


__all__ = [
    "MAX_UNPACKED_BYTES",
    "archives_of",
    "arff_tables",
    "json_tables",
    "npz_arrays",
    "readable_input",
    "svmlight_tables",
    "text_tables",
]
