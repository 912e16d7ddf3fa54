"""``import_task`` with the offline extractor on the six saved pages, and on bad pages and data."""

from __future__ import annotations

import json
import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

from mlestar_jupyter.importer import TaskImportError, import_task
from mlestar_jupyter.importer.data import unpack_data
from mlestar_jupyter.task import load_task

from .competitions import COMPETITIONS, PAGES, Competition

Download = Callable[[str], tuple[Competition, Path]]


@pytest.mark.parametrize("name", [c.name for c in COMPETITIONS])
def test_each_page_imports_into_a_folder_that_loads(
    name: str, download: Download, tmp_path: Path
) -> None:
    comp, data = download(name)
    result = import_task(comp.page_paths(), [data], tmp_path / "task")
    task = load_task(tmp_path / "task")
    assert task.train_files and task.test_files and task.sample_submission is not None
    spec = json.loads((tmp_path / "task" / "task.json").read_text())
    assert spec["import"]["backend"] == "offline"
    assert spec["import"]["sources"] == list(comp.pages)
    assert "metric.direction" in spec["import"]["guessed"]  # the direction is never stated
    assert spec["output_format"].splitlines()[0] == ",".join(
        pd.read_csv(task.sample_submission_path, nrows=0).columns
    )
    assert "[guessed:" in result.report()


def test_offline_extractor_gets_metric_direction_target_and_id_on_five_of_six(
    download: Download, tmp_path: Path
) -> None:
    right = []
    for comp in COMPETITIONS:
        _, data = download(comp.name)
        task = import_task(comp.page_paths(), [data], tmp_path / comp.name).task
        got = (task.metric_name, task.direction, task.target, task.id_col)
        if got == (comp.metric, comp.direction, comp.target, comp.id_col):
            right.append(comp.name)
    print(f"offline extractor: {len(right)}/{len(COMPETITIONS)} right ({', '.join(right)})")
    assert len(right) >= 5, right


def test_rules_and_target_named_otherwise_in_the_sample(download: Download, tmp_path: Path) -> None:
    comp, data = download("telco")  # sample header: customerID,churn_probability; train: Churn
    task = import_task(comp.page_paths(), [data], tmp_path / "t").task
    assert task.target == "Churn" and task.output_format.startswith("customerID,churn_probability")
    assert any("External data is not allowed" in s for s in task.special_instructions)
    spec = json.loads((tmp_path / "t" / "task.json").read_text())
    assert "churn_probability" in spec["import"]["guessed"]["target_col"]
    comp, data = download("bikes")  # DrivenData's submission_format.csv is renamed
    task = import_task(comp.page_paths(), [data], tmp_path / "b").task
    assert (
        task.sample_submission is not None
        and task.sample_submission.path == "sample_submission.csv"
    )
    assert any("Pre-trained models" in s for s in task.special_instructions)


def test_no_metric_stated_names_the_field(download: Download, tmp_path: Path) -> None:
    _, data = download("house-prices")
    with pytest.raises(TaskImportError) as e:
        import_task([PAGES / "bad_no_metric.md"], [data], tmp_path / "t")
    assert [p.field for p in e.value.problems] == ["metric"]
    assert "Metric: <name>" in str(e.value) and not (tmp_path / "t" / "task.json").exists()


def test_no_sample_submission_says_what_to_add(download: Download, tmp_path: Path) -> None:
    comp, data = download("house-prices")
    (data / "sample_submission.csv").unlink()
    with pytest.raises(TaskImportError) as e:
        import_task(comp.page_paths(), [data], tmp_path / "t")
    assert "sample_submission" in [p.field for p in e.value.problems]
    assert "add the competition's sample_submission.csv" in str(e.value)


def test_contradictory_target_names_the_column(download: Download, tmp_path: Path) -> None:
    _, data = download("house-prices")  # the page says `price`; train.csv has SalePrice
    with pytest.raises(TaskImportError) as e:
        import_task([PAGES / "bad_contradictory_target.md"], [data], tmp_path / "t")
    (problem,) = e.value.problems
    assert problem.field == "target_col" and "'price'" in problem.message
    assert "SalePrice" in problem.message and "--target" in problem.fix
    task = import_task(
        [PAGES / "bad_contradictory_target.md"], [data], tmp_path / "t", target="SalePrice"
    ).task
    assert task.target == "SalePrice" and task.metric_name == "mae"


def test_metric_that_cannot_grade_the_target_is_reported(
    download: Download, tmp_path: Path
) -> None:
    comp, data = download("house-prices")
    page = tmp_path / "page.md"
    page.write_text(
        (PAGES / "house_prices.md")
        .read_text()
        .replace(
            "Root-Mean-Squared-Error (RMSE) between the logarithm of the predicted\nvalue and the logarithm of the observed sales price",
            "classification accuracy",
        )
    )
    with pytest.raises(TaskImportError) as e:
        import_task([page], [data], tmp_path / "t")
    (problem,) = e.value.problems
    assert problem.field == "metric" and "regression target" in problem.message


def test_existing_task_json_needs_force(download: Download, tmp_path: Path) -> None:
    comp, data = download("house-prices")
    import_task(comp.page_paths(), [data], tmp_path / "t")
    with pytest.raises(TaskImportError, match="--force"):
        import_task(comp.page_paths(), [data], tmp_path / "t")
    assert import_task(comp.page_paths(), [data], tmp_path / "t", force=True).task.id == "t"


def test_archives_flatten_nested_zip_and_refuse_escapes(tmp_path: Path) -> None:
    inner = tmp_path / "train.csv.zip"
    with zipfile.ZipFile(inner, "w") as zf:
        zf.writestr("train.csv", "id,y\n1,2\n")
    outer = tmp_path / "comp.zip"
    with zipfile.ZipFile(outer, "w") as zf:
        zf.write(inner, "comp/train.csv.zip")
        zf.writestr("comp/test.csv", "id\n3\n")
    assert unpack_data([outer], tmp_path / "in") == ["test.csv", "train.csv"]
    evil = tmp_path / "evil.zip"
    with zipfile.ZipFile(evil, "w") as zf:
        zf.writestr("../escaped.csv", "x\n")
    with pytest.raises(TaskImportError, match="outside input/"):
        unpack_data([evil], tmp_path / "in2")
    assert not (tmp_path / "escaped.csv").exists()
    shutil.rmtree(tmp_path / "in")


def test_image_folders_and_a_label_table(tmp_path: Path) -> None:
    dl = tmp_path / "dl"
    for part, n in (("train", 8), ("test", 5)):
        (dl / part).mkdir(parents=True)
        for i in range(n):
            (dl / part / f"{part}_{i}.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    pd.DataFrame(
        {"image_id": [f"train_{i}" for i in range(8)], "label": ["cat", "dog"] * 4}
    ).to_csv(dl / "train.csv", index=False)
    pd.DataFrame({"image_id": [f"test_{i}" for i in range(5)], "label": "cat"}).to_csv(
        dl / "sample_submission.csv", index=False
    )
    page = tmp_path / "page.md"
    page.write_text(
        "# Cats and dogs\n\nClassify each image as a cat or a dog.\n\n"
        "## Evaluation\n\nSubmissions are scored by categorization accuracy.\n"
    )
    result = import_task([page], [dl], tmp_path / "t")
    spec = json.loads((tmp_path / "t" / "task.json").read_text())
    assert spec["data_information"]["data_type"] == "Image"
    assert spec["data_information"]["train"]["data_location"] == "train, train.csv"
    assert spec["data_information"]["test"]["data_location"] == "test"
    assert result.task is not None and result.task.modality == "image"
    assert (result.task.target, result.task.id_col, result.task.metric_name) == (
        "label",
        "image_id",
        "accuracy",
    )


def _wine_zip(path: Path, description: str | None) -> Path:
    """A Kaggle download of the wine table as one zip (train, test, sample submission and, if
    given, the competition's data_description.txt)."""
    from sklearn.datasets import load_wine

    data = load_wine(as_frame=True).frame.rename(columns={"target": "cultivar"})
    data.columns = [c.replace("/", "_") for c in data.columns]
    data.insert(0, "Id", range(1, len(data) + 1))
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("train.csv", data.iloc[40:].to_csv(index=False))
        zf.writestr("test.csv", data.iloc[:40].drop(columns="cultivar").to_csv(index=False))
        zf.writestr(
            "sample_submission.csv", data.iloc[:40][["Id"]].assign(cultivar=0).to_csv(index=False)
        )
        if description is not None:
            zf.writestr("data_description.txt", description)
    return path


def test_a_download_that_describes_itself_needs_no_page(tmp_path: Path) -> None:
    """``mlestar task import --data comp.zip`` with the description inside the zip: refused
    before ("no page given") though the page was there."""
    text = (
        "Predict the cultivar (0, 1 or 2) of each wine in test.csv.\n"
        "Submissions are evaluated on classification accuracy.\n"
    )
    data = _wine_zip(tmp_path / "wine-cultivars.zip", text)
    result = import_task([], [data], tmp_path / "wine")
    assert result.task is not None
    assert result.task.target_cols == ("cultivar",) and result.task.metric.name == "accuracy"
    bare = _wine_zip(tmp_path / "bare.zip", None)
    with pytest.raises(TaskImportError, match="no page given") as e:
        import_task([], [bare], tmp_path / "bare")
    assert "data_description.txt" in str(e.value)
    assert not (tmp_path / "bare").exists()  # nothing left behind
