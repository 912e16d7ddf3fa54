"""Discover how a task's ./input is laid out, by reading its first rows and listing its folders.

Templates never hard-code a dataset: they read a ``DataLayout`` built here at render time (which
CSV holds the labels, which column names the image file, where the test files are, ...).

Modules: ``model`` (``DataLayout``, ``MediaSource``), ``discovery`` (``inspect_task``: which kind of
layout, and the layout of tables, arrays and long series), ``media`` (image and audio files),
``tables`` (reading tables), ``labels`` (the label column and the submission's shape),
``columns`` (what feature columns hold), ``arrays`` (``.npy``, ``.ts`` and long-form series files),
``ts_format`` (reading ``.ts`` files, numpy alone).
"""

from .columns import ORDERED_SCALES
from .discovery import (
    count_test_rows,
    count_train_rows,
    files_to_read,
    has_tables,
    inspect_task,
)
from .labels import class_columns
from .model import AUDIO_EXT, IMAGE_EXT, TABLE_EXT, DataLayout, MediaSource, SubmissionKind

__all__ = [
    "AUDIO_EXT",
    "IMAGE_EXT",
    "ORDERED_SCALES",
    "TABLE_EXT",
    "DataLayout",
    "MediaSource",
    "SubmissionKind",
    "class_columns",
    "count_test_rows",
    "count_train_rows",
    "files_to_read",
    "has_tables",
    "inspect_task",
]
