"""A copy of a task's input folder for a run: tables written for it, every other entry linked.

``text_documents`` (one ``.txt`` per document) and ``series_files`` (one CSV per series) both
give the run a folder of its own holding the tables they gather beside links to the user's
entries; the user's files are unchanged."""

from __future__ import annotations

import shutil
from collections.abc import Collection, Mapping
from pathlib import Path

import pandas as pd

from ..task.layout.links import link_entries


def linked_copy(
    source: Path,
    folder: Path,
    tables: Mapping[str, pd.DataFrame],
    *,
    leave_out: Collection[str] = (),
) -> None:
    """Make ``folder`` (replacing what was there) hold ``tables`` as CSV files by name and a
    link to each other entry of ``source`` but ``leave_out``'s (what the tables replace);
    written beside it first and renamed into place, so a killed run leaves no half-made copy
    under that name."""
    staged = folder.with_name(f".{folder.name}.partial")
    shutil.rmtree(staged, ignore_errors=True)
    shutil.rmtree(folder, ignore_errors=True)
    staged.mkdir(parents=True)
    for name, table in tables.items():
        table.to_csv(staged / name, index=False)
    link_entries(source, staged, leave_out=leave_out)
    staged.rename(folder)


__all__ = ["linked_copy"]
