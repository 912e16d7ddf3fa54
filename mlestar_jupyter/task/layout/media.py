"""The layout of an image or audio task: where the train and test files are, how a table names
them (or which folders hold one class each), and the first image's shape."""

from __future__ import annotations

from itertools import islice
from pathlib import Path

import pandas as pd

from ..errors import LayoutError
from ..model import Task
from ..prose_header import ids_with_extension
from .labels import proba_kind
from .model import AUDIO_EXT, IMAGE_EXT, Basics, DataLayout, MediaSource
from .tables import label_values, read_head, read_table


def media_layout(
    task: Task, base: Basics, train_table: str | None, test_table: str | None
) -> DataLayout:
    """The layout of an image or audio task (media files named by tables, or listed by folder)."""
    inp = task.input_dir
    ext = IMAGE_EXT if task.modality == "image" else AUDIO_EXT
    train_dir, test_dir = _split_folders(inp, ext)
    train_media, label_col, labels = _train_media(task, train_table, train_dir, ext)
    test_media = _test_media(task, test_table, test_dir, ext)
    return DataLayout(
        image_shape=_first_image_shape(inp, train_media, ext) if task.modality == "image" else None,
        ids_keep_extension=_ids_keep_extension(task, test_media, ext),
        train_table=train_table,
        test_table=test_media.table,
        id_col=task.id_col,
        label_col=label_col,
        train_media=train_media,
        test_media=test_media,
        **proba_kind(base["task_type"], base["target_cols"], labels),
        **base,
    )


def _ids_keep_extension(task: Task, test: MediaSource, ext: tuple[str, ...]) -> bool:
    """Whether the submission's ids are the test files' names with their extension: with no
    sample submission to show them, where the README does (``id: the image file name, e.g.
    img1003.jpg``, or an example row ``img1003.jpg,cat``: ``prose_header.ids_with_extension``)
    and the ids are the files' names (a test folder, or a test table naming its files without
    the extension); their stems otherwise."""
    if task.sample_submission is not None:
        return False
    from_names = test.folder is not None or (
        bool(test.suffix) and test.column is not None and task.id_col in (None, test.column)
    )
    return from_names and ids_with_extension(task.description, ext, task.id_col) is True


def _split_folders(inp: Path, ext: tuple[str, ...]) -> tuple[str | None, str | None]:
    """The folders of training and test media (``train``/``test`` in their names), if any."""
    folders = [p for p in sorted(inp.iterdir()) if p.is_dir() and _has_media(p, ext)]
    names = [p.name for p in folders]
    train_dir = _inner_folder(inp, next((n for n in names if "train" in n.lower()), None), ext)
    test_dir = _inner_folder(inp, next((n for n in names if "test" in n.lower()), None), ext)
    return train_dir, test_dir


def _train_media(
    task: Task, train_table: str | None, train_dir: str | None, ext: tuple[str, ...]
) -> tuple[MediaSource, str | None, list[str]]:
    """(where the training files are, the label column, the labels): a table naming the files
    beside their labels, or one folder per class."""
    inp = task.input_dir
    if train_table:
        head = read_head(inp / train_table)
        label_col = (
            task.target
            if task.target in head.columns
            else next(
                (
                    c
                    for c in head.columns
                    if c != task.id_col and not _looks_like_files(head[c], ext)
                ),
                None,
            )
        )
        media = _media_from_table(inp, train_table, head, train_dir, ext, exclude={label_col})
        return media, label_col, label_values(inp / train_table, label_col) if label_col else []
    if train_dir and any(d.is_dir() and _has_media(d, ext) for d in (inp / train_dir).iterdir()):
        media = MediaSource(table=None, column=None, folder=train_dir, class_folders=True)
        labels = [d.name for d in sorted((inp / train_dir).iterdir()) if _is_class_folder(d)]
        return media, None, labels
    raise LayoutError(
        f"{inp}: no training labels: add train.csv mapping file names to labels, or put images in train/<label>/"
    )


def _test_media(
    task: Task, test_table: str | None, test_dir: str | None, ext: tuple[str, ...]
) -> MediaSource:
    """Where the test files are: named by the test table, by the sample submission's ids, or
    listed from the test folder."""
    inp = task.input_dir
    if test_table:
        head = read_head(inp / test_table)
        return _media_from_table(
            inp, test_table, head, test_dir, ext, exclude=set(task.target_cols)
        )
    if task.sample_submission is not None and task.id_col:
        sample = task.sample_submission.path
        head = read_head(inp / sample)[[task.id_col]]
        return _media_from_table(inp, sample, head, test_dir, ext, exclude=set())
    if test_dir:
        return MediaSource(table=None, column=None, folder=test_dir)
    raise LayoutError(
        f"{inp}: no test files: add a test/ folder or test.csv listing the test files"
    )


def _first_image_shape(
    inp: Path, media: MediaSource, ext: tuple[str, ...]
) -> tuple[int, int, int] | None:
    from PIL import Image

    first: Path | None
    if media.table and media.column:
        value = str(read_table(inp / media.table, nrows=1, as_text=True)[media.column].iloc[0])
        first = inp / media.prefix / f"{value}{media.suffix}"
    else:
        first = next(
            (p for p in sorted((inp / (media.folder or "")).rglob("*")) if p.suffix.lower() in ext),
            None,
        )
    if first is None:
        return None
    with Image.open(first) as img:
        channels = 1 if img.mode in ("L", "1", "I", "F", "I;16") else 3
        return img.height, img.width, channels


def _has_media(folder: Path, ext: tuple[str, ...]) -> bool:
    for i, p in enumerate(folder.rglob("*")):
        if p.suffix.lower() in ext:
            return True
        if i > 2000:
            break
    return False


def _is_class_folder(d: Path) -> bool:
    """A folder of one class's files; ``_background_noise_``-style folders are not classes."""
    return d.is_dir() and not d.name.startswith(("_", "."))


def _inner_folder(inp: Path, name: str | None, ext: tuple[str, ...]) -> str | None:
    """``name``, or the one media folder it wraps (an archive unpacked as ``train/audio/...``)."""
    while name:
        entries = list(islice((inp / name).iterdir(), 5000))
        subs = [d for d in entries if _is_class_folder(d)]
        if any(p.suffix.lower() in ext for p in entries if p.is_file()) or len(subs) != 1:
            return name
        if not _has_media(subs[0], ext):
            return name
        name = f"{name}/{subs[0].name}"
    return name


def _looks_like_files(col: pd.Series, ext: tuple[str, ...]) -> bool:
    return bool(col.astype(str).str.lower().str.endswith(ext).mean() > 0.5)


def _media_from_table(
    inp: Path,
    table: str,
    head: pd.DataFrame,
    folder: str | None,
    ext: tuple[str, ...],
    exclude: set[str | None],
) -> MediaSource:
    """Find the column whose values, with some folder prefix and extension, name existing files:
    under the input folder itself, the train/test folder, or a folder of media whatever its name
    (``images/img_001.png`` listed as ``img_001.png``, as people keep them)."""
    media = [d.name for d in sorted(inp.iterdir()) if d.is_dir() and _has_media(d, ext)]
    prefixes = ["", *([folder] if folder else []), *(d for d in media if d != folder)]
    text = read_table(inp / table, nrows=1, as_text=True)  # ``0154`` names 0154.png, not 154
    for col in [c for c in head.columns if c not in exclude]:
        value = str(text[col].iloc[0] if col in text.columns else head[col].iloc[0])
        for prefix in prefixes:
            for suffix in ("", *ext):
                if (inp / prefix / f"{value}{suffix}").is_file():
                    return MediaSource(table=table, column=col, prefix=prefix, suffix=suffix)
    raise LayoutError(
        f"no column of the table names a file under {inp}/{folder or ''}: its first row is {head.iloc[0].to_dict()}; "
        "list file names (or ids matching the file names) in a column"
    )
