"""What a small model is shown before it writes code: the data at a glance, and cells that load it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mlestar_jupyter.offline import OfflinePolicy
from mlestar_jupyter.offline.catalog import load_catalog
from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.preview import preview_data

MODALITIES = ["tabular", "wine", "text", "image", "image_folders", "audio", "time_series_long"]

CHECK = """
import json
out = {"n": len(X), "ny": len(y), "nt": len(X_test), "nid": len(test_ids)}
out["split"] = [len(X_train), len(X_val), len(y_train), len(y_val)]
if "load_images" in globals():
    out["pixels"] = list(load_images(X[:2]).shape)
if "audio_features" in globals():
    out["audio"] = list(audio_features(X[:2]).shape)
print("RESULT", json.dumps(out))
"""


@pytest.mark.parametrize("name", MODALITIES)
def test_starter_cells_load_train_and_test_data(
    name: str, task_dirs: dict[str, Path], policies: dict[str, OfflinePolicy]
) -> None:
    root = task_dirs[name]
    starter = policies[name].starter_code()
    assert starter.startswith("# %% load\n")
    proc = subprocess.run(
        [sys.executable, "-c", starter + CHECK],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = json.loads(proc.stdout.split("RESULT", 1)[1])
    assert got["n"] == got["ny"] > 0 and got["nt"] == got["nid"] > 0
    n_train, n_val, ny_train, ny_val = got["split"]
    assert n_train == ny_train and n_val == ny_val and n_train + n_val == got["n"] and n_val > 0
    if name.startswith("image"):
        assert got["pixels"][0] == 2 and len(got["pixels"]) == 4
    if name == "audio":
        assert got["audio"][0] == 2
    if name in ("tabular", "wine", "text"):  # loaded in a line or two: no helper cell to copy
        assert "# %% features" not in starter


def test_preview_names_columns_types_and_rows(task_dirs: dict[str, Path]) -> None:
    task = load_task(task_dirs["tabular"])
    text = preview_data(task)
    train = next(ln for ln in text.splitlines() if ln.startswith("- `train.csv`"))
    assert "rows × 32 columns" in train
    n_train = len((task.input_dir / "train.csv").read_text().splitlines()) - 1
    assert train.startswith(f"- `train.csv`: {n_train} rows")
    assert "mean_radius (float64)" in text and "target (int64)" in text
    test_cols = text.split("- `test.csv`")[1].split("\n")[1]
    assert "mean_radius" in test_cols and "target" not in test_cols
    assert "row: " in text


def test_preview_of_folders_and_missing_files(task_dirs: dict[str, Path], tmp_path: Path) -> None:
    image = load_task(task_dirs["image_folders"])
    text = preview_data(image)
    assert "folder of" in text and ".png" in text
    broken = load_task(task_dirs["tabular"])
    from dataclasses import replace

    from mlestar_jupyter.task.model import DataFile

    gone = replace(broken, files=(*broken.files, DataFile("extra.csv", "extra")))
    assert "- `extra.csv`: missing" in preview_data(gone)


def test_preview_cuts_wide_tables(tmp_path: Path) -> None:
    import pandas as pd

    from mlestar_jupyter.task.preview import PreviewLimits, _preview_table

    pd.DataFrame({f"c{i}": [i, i + 1] for i in range(100)}).to_csv(tmp_path / "w.csv", index=False)
    text = _preview_table(tmp_path / "w.csv", "w.csv", PreviewLimits(columns=20))
    assert "2 rows × 100 columns" in text and "... 80 more ..." in text and "c99 (int64)" in text
    assert text.count("row: ") == 1


@pytest.mark.parametrize(
    ("name", "modality", "expected"),
    [
        ("Random Forest Classifier", "tabular", "random_forest"),
        ("Gradient Boosting Classifier", "tabular", "hist_gradient_boosting"),
        ("XGBClassifier", "tabular", "xgboost"),
        ("LGBMClassifier", "tabular", "lightgbm"),
        ("Logistic Regression", "tabular", "linear"),
        ("TF-IDF + Logistic Regression", "text", "tfidf_linear"),
        ("Convolutional Neural Network", "image", "small_cnn"),
        ("Quantum Annealer", "tabular", None),
    ],
)
def test_closest_catalog_card_to_a_model_name(
    name: str, modality: str, expected: str | None
) -> None:
    card = load_catalog().closest(name, modality, "classification")
    assert (card.name if card else None) == expected
