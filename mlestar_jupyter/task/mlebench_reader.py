"""The reader of an MLE-bench competition folder (``description.md`` and the competition's
tables, or ``prepared/public/``): the task's ``TaskFields``.
"""

from __future__ import annotations

from pathlib import Path

from ..metrics import metric_names
from .description_metric import described_metric
from .description_reader import described_task, read_description
from .errors import TaskFormatError
from .fields import TaskFields
from .infer import complete_files, find_description, find_kaggle_description, submission_columns
from .page_text import description_text
from .sample_fit import set_aside_unfit_sample
from .target_line import TARGET_LINE, targets_named
from .task_folder import has_training_data


def read_mlebench(root: Path) -> TaskFields:
    """An MLE-bench competition folder (``description.md`` and the CSVs, or ``prepared/public/``)."""
    public = root / "prepared" / "public"
    input_dir = public if public.is_dir() else root
    desc_path = (
        find_description(input_dir)
        or find_description(root)
        or find_kaggle_description(input_dir)
        or find_kaggle_description(root)
    )
    if desc_path is None:
        raise TaskFormatError(
            root,
            "no description.md: write one beside train.csv saying what to predict, with a line "
            f"'Metric: <name>' (one of: {', '.join(metric_names())}); or start from a notebook "
            "of yours in this folder (--notebook NB, or the toolbar button): the task is then "
            "read from it",
        )
    text = description_text(desc_path)
    files = complete_files(input_dir, [])
    line = TARGET_LINE.search(text)
    if (
        input_dir == root
        and set_aside_unfit_sample(input_dir, files, targets_named(line) if line else [])[1]
    ):  # an old submission.csv beside the tables: a description's folder, no competition
        return read_description(root, desc_path)
    if not has_training_data(input_dir, files):
        raise TaskFormatError(
            input_dir,
            "no training data (train.csv or a train/ folder); prepare the competition's data first",
        )
    sample = next((f for f in files if f.role == "sample_submission"), None)
    if sample is None:
        raise TaskFormatError(
            input_dir,
            "sample_submission.csv missing: MLE-bench tasks need it to know the id and target columns",
        )
    id_col, target_cols = submission_columns(input_dir / sample.path)
    metric_name, direction, said = described_metric(root, desc_path, text)
    fields = described_task(
        root,
        input_dir,
        text,
        files,
        sample,
        (metric_name, direction),
        (id_col, target_cols),
        source_format="mlebench",
    )
    if said:
        fields["notices"] = (said,)
    return fields


__all__ = ["read_mlebench"]
