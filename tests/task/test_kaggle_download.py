"""A Kaggle download handed to ``mlestar run`` as it comes: the three CSVs and the competition's
``data_description.txt``, no task.json and no description.md; the same zipped; the tables one
folder down in ``data/``.  Real data (scikit-learn's wine table)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from mlestar_jupyter.task import TaskFormatError, load_task

WINE_TEXT = """Wine cultivars

The data is the results of a chemical analysis of wines grown in the same region in Italy but
derived from three different cultivars. Predict the cultivar (0, 1 or 2) for each wine in
test.csv. Submissions are evaluated on classification accuracy.

File descriptions
train.csv - the training set
test.csv - the test set
sample_submission.csv - a sample submission file in the correct format
"""


def _download(folder: Path) -> Path:
    """train.csv, test.csv, sample_submission.csv (Id, cultivar) of the wine table in ``folder``."""
    from sklearn.datasets import load_wine

    data = load_wine(as_frame=True).frame.rename(columns={"target": "cultivar"})
    data.columns = [c.replace("/", "_") for c in data.columns]
    data = data.sample(frac=1.0, random_state=0)
    data.insert(0, "Id", range(1, len(data) + 1))
    folder.mkdir(parents=True, exist_ok=True)
    data.iloc[40:].to_csv(folder / "train.csv", index=False)
    data.iloc[:40].drop(columns="cultivar").to_csv(folder / "test.csv", index=False)
    data.iloc[:40][["Id"]].assign(cultivar=0).to_csv(folder / "sample_submission.csv", index=False)
    return folder


def test_data_description_txt_describes_the_download(tmp_path: Path) -> None:
    """Refused before ("MLE-bench folders need the competition's description.md") though the
    download says what to predict and how it is scored."""
    root = _download(tmp_path / "Mes données" / "vin rouge (Kaggle)")
    (root / "data_description.txt").write_text(WINE_TEXT)
    task = load_task(root)
    assert task.target_cols == ("cultivar",) and task.id_col == "Id"
    assert task.metric.name == "accuracy"
    assert {f.path for f in task.test_files} == {"test.csv"}


def test_a_data_description_naming_no_metric_says_what_to_add(tmp_path: Path) -> None:
    """House Prices' data_description.txt lists the columns only: the error names that file and
    the line to add."""
    root = _download(tmp_path / "wine")
    (root / "data_description.txt").write_text("alcohol: alcohol content\nhue: colour hue\n")
    with pytest.raises(TaskFormatError, match=r"data_description\.txt.*Metric: <name>"):
        load_task(root)


def test_without_any_description_the_error_says_how_to_go_on(tmp_path: Path) -> None:
    root = _download(tmp_path / "wine")
    with pytest.raises(TaskFormatError) as e:
        load_task(root)
    assert "description.md" in str(e.value) and "Metric: <name>" in str(e.value)
    assert "--notebook" in str(e.value)


def test_a_zipped_download_points_to_unpacking_or_import(tmp_path: Path) -> None:
    files = _download(tmp_path / "files")
    root = tmp_path / "wine-cultivars"
    root.mkdir()
    with zipfile.ZipFile(root / "wine-cultivars.zip", "w") as zf:
        for name in ("train.csv", "test.csv", "sample_submission.csv"):
            zf.write(files / name, name)
    with pytest.raises(TaskFormatError) as e:
        load_task(root)
    said = str(e.value)
    assert "wine-cultivars.zip" in said and "mlestar task import" in said
    assert f"--data {root / 'wine-cultivars.zip'}" in said


def test_tables_one_folder_down_are_pointed_at(tmp_path: Path) -> None:
    root = tmp_path / "wine"
    _download(root / "data")
    (root / "data_description.txt").write_text(WINE_TEXT)
    with pytest.raises(TaskFormatError, match=r"tables are in data/"):
        load_task(root)
