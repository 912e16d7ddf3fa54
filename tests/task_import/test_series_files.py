"""A series task kept as one CSV file per series (``importer.series_files``): the run reads a
copy of its input folder with the series gathered into two tables held long.  Shaped like hunt
I's ``s1_csv_per_series`` (session 30): ``series/<series_id>.csv`` of ``t,value`` rows beside
``train_labels.csv`` (``series_id,label``) and ``test_ids.csv``, with a README; the run trained
on the ids alone (a constant submission, accuracy at chance)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from mlestar_jupyter.agent.run import prepared_task
from mlestar_jupyter.journal import RunJournal
from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.layout import inspect_task


def _waves(root: Path, n_train: int = 40, n_test: int = 16) -> dict[str, str]:
    """The task folder; the test series' labels by id (sine or square waves)."""
    rs = np.random.RandomState(0)
    t = np.linspace(0, 6, 40)
    (root / "series").mkdir(parents=True)
    labels = {}
    for k in range(n_train + n_test):
        label = "sine" if k % 2 else "square"
        wave = np.sin(t) if label == "sine" else np.sign(np.sin(t))
        sid = f"s{k:03d}"
        pd.DataFrame({"t": range(len(t)), "value": wave + 0.1 * rs.randn(len(t))}).to_csv(
            root / "series" / f"{sid}.csv", index=False
        )
        labels[sid] = label
    ids = list(labels)
    pd.DataFrame({"series_id": ids[:n_train], "label": [labels[i] for i in ids[:n_train]]}).to_csv(
        root / "train_labels.csv", index=False
    )
    pd.DataFrame({"series_id": ids[n_train:]}).to_csv(root / "test_ids.csv", index=False)
    (root / "README.md").write_text(
        "# Waves\n\nEach `series/<series_id>.csv` is one trace (`t,value`). `train_labels.csv` "
        "labels some; predict `label` for the ids in `test_ids.csv`.\n\n## Evaluation\n\nAccuracy.\n"
    )
    return {i: labels[i] for i in ids[n_train:]}


def test_one_csv_per_series_is_read_as_series_held_long(tmp_path: Path) -> None:
    root = tmp_path / "waves"
    test = _waves(root)
    before = sorted(p.name for p in root.iterdir())
    journal = RunJournal.create(tmp_path / "run", {})

    ready = prepared_task(load_task(root), journal)
    copy = journal.path("series-tables")
    assert ready.input_dir == copy and ready.modality == "time_series"
    layout = inspect_task(ready)
    assert layout.long_series == ("train_series.csv", "test_series.csv")
    assert (layout.label_col, layout.id_col, layout.series_values) == (
        "label",
        "series_id",
        ("value",),
    )
    long_test = pd.read_csv(copy / "test_series.csv", dtype={"series_id": str})
    assert list(long_test["series_id"].drop_duplicates()) == list(test)
    assert any("one CSV file per series" in n for n in ready.notices), ready.notices
    assert sorted(p.name for p in root.iterdir()) == before  # the user's folder is unchanged


def test_a_run_on_one_csv_per_series_beats_the_majority_class(tmp_path: Path, short_run) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "waves"
    test = _waves(root)
    out = short_run(root)
    assert out.final.ok and out.final.submission is not None, out.stop_reason
    sub = pd.read_csv(out.final.submission, dtype=str).set_index("series_id")
    got = sub.loc[list(test), "label"].to_numpy()
    assert (got == np.array(list(test.values()))).mean() > 0.8
