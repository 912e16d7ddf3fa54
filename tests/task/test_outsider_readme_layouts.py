"""Task folders of other modalities as people publish them (hunt I), with a ``README.md`` and
no ``input/``, ``description.md`` or sample submission, which the run could not read:

- a README beside ``train/<class>/*.png`` and ``test/*.png`` (an ImageFolder), beside class
  folders of ``.wav`` clips, or beside ``X_train.npy`` / ``y_train.npy`` / ``X_test.npy``:
  "not a task folder", though a README beside tables was read;
- ``train.xlsx`` / ``test.xlsx`` (also parquet, JSON lines) whose README says the target only
  in prose: "sample_submission.csv missing and the description names no 'Target: <column>'
  line", though the same tables as CSV were read (the column the test table lacks)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.layout import inspect_task

README = "# {title}\n\n{goal}\n\n## Evaluation\n\nAccuracy.\n"


def _readme(root: Path, goal: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "README.md").write_text(README.format(title=root.name, goal=goal))
    return root


def _digit(path: Path, k: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray((np.arange(64).reshape(8, 8) * (k % 4 + 1)).astype(np.uint8), "L").save(path)


def test_readme_beside_an_image_folder_is_the_task(tmp_path: Path) -> None:
    root = _readme(tmp_path / "digits", "`train/<digit>/*.png`; classify `test/*.png`.")
    for k in range(12):
        _digit(root / "train" / str(k % 3) / f"{k:04d}.png", k)
    for k in range(6):
        _digit(root / "test" / f"{100 + k:04d}.png", k)
    task = load_task(root)
    assert task.input_dir == root and task.modality == "image"
    assert task.metric_name == "accuracy" and task.target == "label"
    layout = inspect_task(task)
    assert layout.train_media is not None and layout.train_media.class_folders


def test_readme_beside_npy_arrays_is_the_task(tmp_path: Path) -> None:
    root = _readme(tmp_path / "arrays", "Classify the rows of `X_test.npy`.")
    rs = np.random.RandomState(0)
    np.save(root / "X_train.npy", rs.rand(30, 5))
    np.save(root / "y_train.npy", rs.randint(0, 2, 30))
    np.save(root / "X_test.npy", rs.rand(10, 5))
    task = load_task(root)
    assert task.input_dir == root and task.metric_name == "accuracy"


def _wine(n: int = 40) -> pd.DataFrame:
    rs = np.random.RandomState(1)
    return pd.DataFrame(
        {
            "wine_id": range(1000, 1000 + n),
            "alcohol": rs.rand(n).round(3),
            "hue": rs.rand(n).round(3),
            "cultivar": rs.randint(0, 3, n),
        }
    )


def _write(frame: pd.DataFrame, path: Path) -> None:
    if path.suffix == ".xlsx":
        frame.to_excel(path, index=False)
    elif path.suffix == ".parquet":
        frame.to_parquet(path, index=False)
    else:
        path.write_text("".join(json.dumps(r) + "\n" for r in frame.to_dict("records")))


@pytest.mark.parametrize("ext", [".xlsx", ".parquet", ".jsonl"])
def test_target_is_the_column_the_test_table_lacks_whatever_the_format(
    tmp_path: Path, ext: str
) -> None:
    if ext == ".xlsx":
        pytest.importorskip("openpyxl")
    root = _readme(tmp_path / "wine", "Predict `cultivar`; submit `wine_id,cultivar`.")
    frame = _wine()
    _write(frame.iloc[:30], root / f"train{ext}")
    _write(frame.iloc[30:].drop(columns="cultivar"), root / f"test{ext}")
    task = load_task(root)
    assert task.target_cols == ("cultivar",) and task.id_col == "wine_id"
    assert inspect_task(task).label_col == "cultivar"


def _ts(path: Path, rows: list[str], labels: bool, classes: str = "gun point", n: int = 4) -> None:
    head = ["@problemName Gun", "@timeStamps false", "@missing false", "@univariate true"]
    head += ["@equalLength true", f"@seriesLength {n}"]
    head += [f"@classLabel true {classes}" if labels else "@classLabel false", "@data"]
    path.write_text("\n".join(head + rows) + "\n")


def test_readme_beside_ts_files_is_the_task(tmp_path: Path) -> None:
    root = _readme(tmp_path / "gunpoint", "Classify each series; submit `id,label` in row order.")
    rows = [f"{k},{k + 1},{k % 3},{k * 2}" for k in range(12)]
    _ts(root / "Gun_TRAIN.ts", [f"{r}:{['gun', 'point'][k % 2]}" for k, r in enumerate(rows)], True)
    _ts(root / "Gun_TEST.ts", rows[:5], False)
    task = load_task(root)
    assert task.input_dir == root and task.modality == "time_series"
    assert task.target == "label" and task.id_col == "id"
    assert inspect_task(task).ts_files == ("Gun_TRAIN.ts", "Gun_TEST.ts")


def test_json_records_tables_are_read_as_csv_copies(tmp_path: Path) -> None:
    from mlestar_jupyter.importer.readable_input import readable_input

    root = _readme(tmp_path / "wine", "Predict `cultivar`; submit `wine_id,cultivar`.")
    frame = _wine()
    frame.iloc[:30].to_json(root / "train.json", orient="records", indent=1)
    frame.iloc[30:].drop(columns="cultivar").to_json(root / "test.json", orient="records")
    (root / "meta.json").write_text(json.dumps({"source": "sklearn"}))
    task = load_task(root)
    assert task.target_cols == ("cultivar",) and task.id_col == "wine_id"
    copied = readable_input(task, tmp_path / "run" / "input")
    assert copied is not None and "train.csv" in copied.notices[-1]
    assert not (copied.input_dir / "meta.csv").exists()
    layout = inspect_task(copied)
    assert layout.train_table == "train.csv" and layout.test_table == "test.csv"
    assert layout.label_col == "cultivar"


def _long(ids: list[str], rs: np.random.RandomState) -> pd.DataFrame:
    return pd.DataFrame(
        [(s, t, float(rs.randn())) for s in ids for t in range(16)],
        columns=["series_id", "t", "value"],
    )


def test_labels_table_beside_long_train_and_test_series(tmp_path: Path) -> None:
    root = _readme(
        tmp_path / "gunpoint",
        "`train_series.csv` / `test_series.csv` hold `series_id,t,value`; `train_labels.csv` "
        "gives `series_id,label`. Predict the label of each test series.",
    )
    rs = np.random.RandomState(0)
    train, test = [f"s{k:03d}" for k in range(10)], [f"s{k:03d}" for k in range(10, 14)]
    _long(train, rs).to_csv(root / "train_series.csv", index=False)
    _long(test, rs).to_csv(root / "test_series.csv", index=False)
    pd.DataFrame({"series_id": train, "label": ["gun", "point"] * 5}).to_csv(
        root / "train_labels.csv", index=False
    )
    task = load_task(root)
    layout = inspect_task(task)
    assert layout.modality == "time_series" and layout.label_col == "label"
    assert layout.long_series == ("train_series.csv", "test_series.csv")
    assert layout.train_table == "train_labels.csv" and layout.series_values == ("value",)


def test_reviews_in_json_lines_are_a_text_task(tmp_path: Path) -> None:
    root = _readme(tmp_path / "reviews", "Each line is `{id, text, label}`; predict `label`.")
    words = {"pos": "a great and lovely film", "neg": "an awful and dull film"}
    rows = [
        {
            "id": f"r{k}",
            "text": f"I watched it last night with friends and it was {words[['pos', 'neg'][k % 2]]}.",
            "label": ["pos", "neg"][k % 2],
        }
        for k in range(20)
    ]
    _write(pd.DataFrame(rows[:15]), root / "train.jsonl")
    _write(pd.DataFrame(rows[15:]).drop(columns="label"), root / "test.jsonl")
    task = load_task(root)
    assert task.modality == "text" and task.target == "label" and task.id_col == "id"


def test_a_run_on_npy_arrays_beside_a_readme_hands_in_a_submission(
    tmp_path: Path,
    short_run,  # type: ignore[no-untyped-def]
) -> None:
    """X_test.npy has no role among the task's files (no sample, no test table): the run ended
    with "the task has no test table, so there is no submission" (hunt I, ``i3_npy``)."""
    from sklearn.datasets import load_digits

    digits = load_digits()
    root = _readme(tmp_path / "digits", "`X_train.npy` (n, 8, 8) images; classify `X_test.npy`.")
    np.save(root / "X_train.npy", digits.images[:300])
    np.save(root / "y_train.npy", digits.target[:300])
    np.save(root / "X_test.npy", digits.images[300:360])
    out = short_run(root)
    assert out.final.ok and out.final.submission is not None, out.stop_reason
    sub = pd.read_csv(out.final.submission)
    assert list(sub.columns) == ["id", "label"] and len(sub) == 60
    assert (sub["label"].to_numpy() == digits.target[300:360]).mean() > 0.5


def test_a_run_on_ts_files_whose_test_file_has_no_labels_hands_in_a_submission(
    tmp_path: Path,
    short_run,  # type: ignore[no-untyped-def]
) -> None:
    """``@classLabel false`` in the test file: sktime's ``load_from_tsfile`` fails on it ("not
    enough values to unpack"), so every candidate failed (hunt I, ``s3_ts``).  The series
    notebooks read ``.ts`` files with a reader of their own now, numpy alone: sktime (the
    ``bench`` extra) is not needed (with it, every candidate of a plain install failed on
    ``ModuleNotFoundError: sktime``)."""
    root = _readme(tmp_path / "waves", "Classify each series; submit `id,label` in row order.")
    rs = np.random.RandomState(0)
    t = np.linspace(0, 6, 30)

    def series(k: int) -> str:
        wave = np.sin(t) if k % 2 else np.sign(np.sin(t))
        return ",".join(f"{v:.3f}" for v in wave + 0.1 * rs.randn(len(t)))

    labels = ["sine", "square"]
    train = [f"{series(k)}:{labels[k % 2 == 0]}" for k in range(40)]
    _ts(root / "Waves_TRAIN.ts", train, True, "sine square", len(t))
    _ts(root / "Waves_TEST.ts", [series(k) for k in range(12)], False, n=len(t))
    out = short_run(root)
    assert out.final.ok and out.final.submission is not None, out.stop_reason
    sub = pd.read_csv(out.final.submission)
    assert list(sub.columns) == ["id", "label"] and len(sub) == 12
    want = [labels[k % 2 == 0] for k in range(12)]
    assert (sub["label"].to_numpy() == np.array(want)).mean() > 0.7


def test_a_sqlite_database_beside_a_readme_is_refused_with_the_export_to_type(
    tmp_path: Path,
) -> None:
    """``wine.db`` with tables ``train`` and ``test`` (hunt I, ``x3_sqlite``): the refusal said
    only "not a task folder"; it now names the database, its tables and how to export them."""
    import sqlite3

    from mlestar_jupyter.task.errors import TaskFormatError

    root = _readme(
        tmp_path / "wine", "`wine.db` has tables `train` and `test`; predict `cultivar`."
    )
    frame = _wine()
    with sqlite3.connect(root / "wine.db") as con:
        frame.iloc[:30].to_sql("train", con, index=False)
        frame.iloc[30:].drop(columns="cultivar").to_sql("test", con, index=False)
    (root / "broken.db").write_bytes(b"not a database")  # skipped, not a crash
    with pytest.raises(TaskFormatError) as err:
        load_task(root)
    said = str(err.value)
    assert "SQLite database wine.db (tables test, train)" in said
    assert "sqlite3 -header -csv" in said and "train.csv" in said
