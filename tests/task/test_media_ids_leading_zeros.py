"""Pictures named ``0154.png`` listed by id without the extension (``id`` = ``0154`` in
train.csv and in the sample submission, one probability column per class; hunt K i_logloss).
The ids were read as numbers (154), so no file matched: "no column of the table names a file
under test"; and a notebook reading them as numbers would build ``154.png`` and submit ``154``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from PIL import Image

from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.layout import inspect_task

WORDS = ["zero", "one", "two"]


def _folder(root: Path) -> Path:
    (root / "train").mkdir(parents=True)
    (root / "test").mkdir()
    ids = [f"{i:04d}" for i in range(12)]
    for i, name in enumerate(ids):
        Image.new("L", (8, 8), color=20 * i).save(
            root / ("train" if i < 9 else "test") / f"{name}.png"
        )
    pd.DataFrame({"id": ids[:9], "digit": [WORDS[i % 3] for i in range(9)]}).to_csv(
        root / "train.csv", index=False
    )
    sample = pd.DataFrame({"id": ids[9:]})
    for w in WORDS:
        sample[w] = 1 / 3
    sample.to_csv(root / "sample_submission.csv", index=False)
    (root / "README.md").write_text(
        "# Digit probabilities\n\n`train/<id>.png`, labels in `train.csv`; predict the images "
        "in `test/`.\n\nMetric: log loss\n"
    )
    return root


def test_ids_with_leading_zeros_name_their_files(tmp_path: Path) -> None:
    layout = inspect_task(load_task(_folder(tmp_path / "digits")))
    assert layout.modality == "image" and layout.image_shape == (8, 8, 1)
    tr, te = layout.train_media, layout.test_media
    assert (tr.table, tr.column, tr.prefix, tr.suffix) == ("train.csv", "id", "train", ".png")
    assert (te.table, te.column, te.prefix) == ("sample_submission.csv", "id", "test")


def test_the_notebook_reads_them_as_text(tmp_path: Path) -> None:
    root = _folder(tmp_path / "digits")
    layout = inspect_task(load_task(root))
    scope = {"pd": pd, "np": np, "INPUT": root}
    for media in (layout.train_media, layout.test_media):
        assert media.table is not None
        frame = eval(layout.read_code(media.table, media.column), scope)  # noqa: S307
        names = frame[media.column]
        assert names.iloc[0].startswith("00")  # kept as written, so it is submitted as written
        assert all((root / media.prefix / f"{n}{media.suffix}").is_file() for n in names)
