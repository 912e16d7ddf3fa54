"""The competition's files: unpacked into ``input/`` and surveyed (roles, columns, modality).

``unpack_data`` copies a folder's files, or unpacks ``.zip`` / ``.7z`` (with ``py7zr``) /
``.tar(.gz)`` archives, into the task's ``input/``.  A download that wraps everything in one
top-level folder is flattened, and an archive inside it holding one file (Kaggle's
``train.csv.zip``) is unpacked in place.  Members that would land outside ``input/`` are refused.
"""

from __future__ import annotations

import shutil
import tarfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import pandas as pd

from ..task.infer import is_sample_name, reads_as_text
from ..task.layout.tables import read_args
from .errors import Problem, TaskImportError

ARCHIVE_SUFFIXES = (".zip", ".7z", ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz")
TABLE_SUFFIXES = {".csv", ".tsv", ".parquet"}
IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".gif", ".tif", ".tiff", ".webp"}
AUDIO_SUFFIXES = {".wav", ".mp3", ".flac", ".ogg", ".aiff", ".au"}
SERIES_SUFFIXES = {".ts", ".arff"}


# --------------------------------------------------------------------------- unpacking
def is_archive(path: Path) -> bool:
    """Whether ``path`` is an archive this module unpacks (told by its name)."""
    return path.name.lower().endswith(ARCHIVE_SUFFIXES)


def unpack_data(
    sources: list[Path], input_dir: Path, *, skip: frozenset[str] = frozenset()
) -> list[str]:
    """Put every file of ``sources`` (folders or archives) into ``input_dir``, leaving out the
    top-level names in ``skip``; the names now in ``input_dir``."""
    input_dir.mkdir(parents=True, exist_ok=True)
    for src in sources:
        if not src.exists():
            raise TaskImportError(
                [Problem("data", f"{src} does not exist", "pass the folder of downloaded files")]
            )
        items = sorted(src.iterdir()) if src.is_dir() else [src]
        for item in items:
            if item.name.startswith(".") or item.name in skip:
                continue
            if item.is_file() and is_archive(item):
                unpack_archive(item, input_dir)
            elif item.is_dir():
                shutil.copytree(item, input_dir / item.name, dirs_exist_ok=True)
            else:
                shutil.copy2(item, input_dir / item.name)
    flatten_single_folder(input_dir)
    for inner in sorted(input_dir.iterdir()):
        if inner.is_file() and is_archive(inner) and _single_member(inner):
            unpack_archive(inner, input_dir)
            inner.unlink()
    names = sorted(p.name for p in input_dir.iterdir() if not p.name.startswith("."))
    if not names:
        raise TaskImportError(
            [Problem("data", "no files found", "pass the folder or archive you downloaded")]
        )
    return names


def _safe_target(root: Path, member: str) -> Path:
    parts = PurePosixPath(member.replace("\\", "/")).parts
    if not parts or member.startswith(("/", "\\")) or ".." in parts or ":" in parts[0]:
        raise TaskImportError(
            [
                Problem(
                    "data",
                    f"archive member {member!r} would be written outside input/",
                    "unpack the archive by hand and pass the folder",
                )
            ]
        )
    return root.joinpath(*parts)


def unpack_archive(archive: Path, dest: Path) -> None:
    """Unpack ``archive`` (zip, 7z, tar) into ``dest``; a member that would land outside it, or
    an archive that cannot be read, is a ``TaskImportError``."""
    name = archive.name.lower()
    try:
        if name.endswith(".zip"):
            with zipfile.ZipFile(archive) as zf:
                for info in zf.infolist():
                    target = _safe_target(dest, info.filename)
                    if info.is_dir():
                        target.mkdir(parents=True, exist_ok=True)
                        continue
                    target.parent.mkdir(parents=True, exist_ok=True)
                    with zf.open(info) as fin, target.open("wb") as fout:
                        shutil.copyfileobj(fin, fout)
        elif name.endswith(".7z"):
            _unpack_7z(archive, dest)
        else:
            with tarfile.open(archive) as tf:
                for m in tf.getmembers():
                    _safe_target(dest, m.name)
                tf.extractall(dest, filter="data")
    except (zipfile.BadZipFile, tarfile.TarError, OSError) as e:
        raise TaskImportError(
            [Problem("data", f"{archive.name} cannot be unpacked ({e})", "download it again")]
        ) from None


def _unpack_7z(archive: Path, dest: Path) -> None:
    try:
        import py7zr
    except ImportError:
        raise TaskImportError(
            [
                Problem(
                    "data",
                    f"{archive.name} is a 7z archive and py7zr is not installed",
                    "pip install py7zr (or unpack it by hand and pass the folder)",
                )
            ]
        ) from None
    with py7zr.SevenZipFile(archive, mode="r") as zf:
        for member in zf.getnames():
            _safe_target(dest, member)
        zf.extractall(path=dest)


def _members(archive: Path) -> list[str]:
    name = archive.name.lower()
    try:
        if name.endswith(".zip"):
            with zipfile.ZipFile(archive) as zf:
                return [i.filename for i in zf.infolist() if not i.is_dir()]
        if name.endswith(".7z"):
            import py7zr

            with py7zr.SevenZipFile(archive, mode="r") as sz:
                return [f.filename for f in sz.list() if not f.is_directory]
        with tarfile.open(archive) as tf:
            return [m.name for m in tf.getmembers() if m.isfile()]
    except Exception:  # noqa: BLE001 - an unreadable inner archive is kept as it is
        return []


def _single_member(archive: Path) -> bool:
    """An archive holding one file (``train.csv.zip`` → ``train.csv``)."""
    return len(_members(archive)) == 1


def flatten_single_folder(input_dir: Path) -> None:
    """Move the files of a download wrapped in one top-level folder (``titanic/train.csv``) up
    into ``input_dir``, and drop macOS's ``__MACOSX`` folder."""
    entries = [p for p in input_dir.iterdir() if not p.name.startswith((".", "__MACOSX"))]
    if len(entries) == 1 and entries[0].is_dir() and not _role_name(entries[0].name):
        inner = entries[0]
        for child in list(inner.iterdir()):
            shutil.move(str(child), str(input_dir / child.name))
        inner.rmdir()
    macosx = input_dir / "__MACOSX"
    if macosx.is_dir():
        shutil.rmtree(macosx)


def canonical_sample_name(input_dir: Path, name: str) -> str:
    """Rename a sample submission called otherwise (``submission_format.csv``) to
    ``sample_submission<suffix>``, the name every task loader recognises; the name now."""
    if "sample_submission" in name.lower():
        return name
    new = "sample_submission" + "".join(Path(name).suffixes)
    if (input_dir / new).exists():
        return name
    (input_dir / name).rename(input_dir / new)
    return new


# --------------------------------------------------------------------------- survey
@dataclass(frozen=True)
class Table:
    """A table's name (relative to ``input/``), its columns and its first rows."""

    path: str
    columns: tuple[str, ...]
    head: pd.DataFrame = field(compare=False, repr=False)


@dataclass(frozen=True)
class DataSurvey:
    """What ``input/`` holds: entries per role, the train / test / sample tables, the modality."""

    input_dir: Path
    train: tuple[str, ...]
    test: tuple[str, ...]
    sample: str | None
    extra: tuple[str, ...]
    train_table: Table | None
    test_table: Table | None
    sample_table: Table | None
    modality: str

    @property
    def entries(self) -> tuple[str, ...]:
        """Every name in ``input/``: train, test, the sample submission, then the others."""
        return (*self.train, *self.test, *((self.sample,) if self.sample else ()), *self.extra)

    def listing(self) -> str:
        """The files with their roles and columns, for a prompt or a report."""
        lines = []
        for role, names in (
            ("train", self.train),
            ("test", self.test),
            ("sample_submission", (self.sample,) if self.sample else ()),
            ("other", self.extra),
        ):
            for n in names:
                t = next(
                    (
                        x
                        for x in (self.train_table, self.test_table, self.sample_table)
                        if x and x.path == n
                    ),
                    None,
                )
                kind = "folder" if (self.input_dir / n).is_dir() else "file"
                cols = f"; columns: {', '.join(t.columns)}" if t else ""
                row = ""
                if t is not None and len(t.head):
                    row = "; first row: " + ", ".join(
                        f"{c}={str(v)[:40]}" for c, v in t.head.iloc[0].items()
                    )
                lines.append(f"- {n} ({kind}, looks like {role}{cols}{row})")
        return "\n".join(lines)


def _role_name(name: str) -> str | None:
    n = name.lower()
    if is_sample_name(name) or "sample" in n and "sub" in n:
        return "sample_submission"
    if n.startswith("train") or n.endswith("train.csv"):
        return "train"
    if n.startswith("test") or n.endswith("test.csv"):
        return "test"
    return None


def read_table(input_dir: Path, name: str, nrows: int = 200) -> Table | None:
    """The first rows of a table file, or ``None`` when ``name`` is not a readable table."""
    p = input_dir / name
    if not p.is_file() or p.suffix.lower() not in TABLE_SUFFIXES:
        return None
    try:
        if p.suffix.lower() == ".parquet":
            head = pd.read_parquet(p).head(nrows)
        else:
            head = pd.read_csv(p, nrows=nrows, **read_args(p))  # its separator and encoding
    except Exception:  # noqa: BLE001 - reported by the checks as an unreadable table
        return None
    return Table(name, tuple(str(c) for c in head.columns), head)


def survey(input_dir: Path) -> DataSurvey:
    """Roles of the top-level entries of ``input_dir`` (told by their names) and their tables."""
    roles: dict[str, list[str]] = {"train": [], "test": [], "sample_submission": [], "extra": []}
    for p in sorted(input_dir.iterdir()):
        if p.name.startswith("."):
            continue
        roles[_role_name(p.name) or "extra"].append(p.name)

    def first_table(names: list[str]) -> Table | None:
        for n in sorted(names, key=lambda n: (Path(n).suffix.lower() not in TABLE_SUFFIXES, n)):
            t = read_table(input_dir, n)
            if t is not None:
                return t
        return None

    sample = roles["sample_submission"][0] if roles["sample_submission"] else None
    extra = roles["extra"] + roles["sample_submission"][1:]
    train_table = first_table(roles["train"])
    sample_table = read_table(input_dir, sample) if sample else None
    sample_columns = set(sample_table.columns) if sample_table is not None else set()
    return DataSurvey(
        input_dir=input_dir,
        train=tuple(roles["train"]),
        test=tuple(roles["test"]),
        sample=sample,
        extra=tuple(extra),
        train_table=train_table,
        test_table=first_table(roles["test"]),
        sample_table=sample_table,
        modality=infer_modality(input_dir, train_table, sample_columns),
    )


def infer_modality(
    input_dir: Path, train_table: Table | None, submitted: set[str] | None = None
) -> str:
    """``Image`` / ``Audio`` / ``Time series`` from file types, ``Text`` from sentences (the task
    reader's rule, ``reads_as_text``; ``submitted``: the sample submission's columns), else
    ``Tabular`` (the words TAM-Bench's ``data_information.data_type`` uses)."""
    counts = {"image": 0, "audio": 0, "series": 0}
    for i, p in enumerate(input_dir.rglob("*")):
        if i > 5000:
            break
        s = p.suffix.lower()
        counts["image"] += s in IMAGE_SUFFIXES
        counts["audio"] += s in AUDIO_SUFFIXES
        counts["series"] += s in SERIES_SUFFIXES
    if counts["image"] >= 5:
        return "Image"
    if counts["audio"] >= 5:
        return "Audio"
    if counts["series"]:
        return "Time series"
    if train_table is not None and reads_as_text(train_table.head, submitted or set()):
        return "Text"
    return "Tabular"
