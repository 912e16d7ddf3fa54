"""A dataset (one labelled table, no test rows) becomes a task with held-out rows.

The inputs are written the way outsiders keep their data: a teacher's ``wine.csv`` beside a
two-line description, a ``data/`` folder holding one European ``;`` export, a CSV given directly
with ``--target``.  Nothing here is built by the pack's builders.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from sklearn.datasets import load_diabetes, load_wine

from mlestar_jupyter.importer.dataset_task import (
    HOLDOUT_SHARE,
    DatasetTaskError,
    find_dataset,
    holdout_task,
)
from mlestar_jupyter.task import load_task


def _wine(folder: Path, name: str = "wine.csv") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    frame = load_wine(as_frame=True).frame
    frame["target"] = frame["target"].map({0: "barolo", 1: "grignolino", 2: "barbera"})
    frame.to_csv(folder / name, index=False)
    return folder / name


def _diabetes(path: Path, **to_csv: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    frame = load_diabetes(as_frame=True, scaled=False).frame.rename(
        columns={"target": "Progression"}
    )
    frame.to_csv(path, index=False, **to_csv)  # type: ignore[arg-type]
    return path


# --------------------------------------------------------------------------- finding one
def test_a_folder_of_one_table_is_a_dataset_wherever_the_table_lies(tmp_path: Path) -> None:
    top = tmp_path / "top"
    _wine(top)
    assert find_dataset(top).table.name == "wine.csv"  # type: ignore[union-attr]
    inp = tmp_path / "described"
    _wine(inp / "input")
    (inp / "description.md").write_text("Predict the cultivar.\n")
    found = find_dataset(inp)
    assert found is not None and found.description == inp / "description.md"
    assert found.name == "described"
    data = tmp_path / "d"
    _diabetes(data / "data" / "diabetes.csv")
    assert find_dataset(data).table == data / "data" / "diabetes.csv"  # type: ignore[union-attr]
    given = find_dataset(data / "data" / "diabetes.csv")
    assert given is not None and given.name == "diabetes"


def test_competitions_and_unclear_folders_are_not_datasets(tmp_path: Path) -> None:
    comp = tmp_path / "comp"
    _wine(comp, "train.csv")
    _wine(comp, "test.csv")
    assert find_dataset(comp) is None  # rows to predict: the competition path
    sample = tmp_path / "sample"
    _wine(sample, "train.csv")
    (sample / "sample_submission.csv").write_text("id,target\n")
    assert find_dataset(sample) is None
    spec = tmp_path / "spec"
    _wine(spec / "input")
    (spec / "task.json").write_text("{}")
    assert find_dataset(spec) is None
    two = tmp_path / "two"
    _wine(two, "a.csv")
    _wine(two, "b.csv")
    assert find_dataset(two) is None  # which one is the data is not guessed
    images = tmp_path / "images"
    _wine(images, "labels.csv")
    (images / "imgs").mkdir()
    (images / "imgs" / "0.png").write_bytes(b"\x89PNG")
    assert find_dataset(images) is None
    assert find_dataset(tmp_path / "missing") is None
    (tmp_path / "notes.txt").write_text("hello")
    assert find_dataset(tmp_path / "notes.txt") is None


# --------------------------------------------------------------------------- making the task
def test_a_described_dataset_becomes_a_stratified_task_with_answers_outside(tmp_path: Path) -> None:
    src = tmp_path / "wine"
    table = _wine(src / "input")
    (src / "description.md").write_text("# Wine\nWhich cultivar is it?\nTarget: target\n")
    before = table.read_bytes()
    held = holdout_task(find_dataset(src), tmp_path / "run" / "task")  # type: ignore[arg-type]
    assert table.read_bytes() == before  # the user's file is only read
    task = load_task(held.root)
    assert task.target_cols == ("target",) and task.id_col == "id"
    assert (task.metric_name, task.task_type) == ("accuracy", "classification")
    assert task.goal.startswith("Which cultivar is it?")  # the heading left out
    assert task.answers_path == held.answers and not held.answers.is_relative_to(held.root)
    train = pd.read_csv(held.root / "input" / "train.csv")
    test = pd.read_csv(held.root / "input" / "test.csv")
    answers = pd.read_csv(held.answers)
    sample = pd.read_csv(held.root / "input" / "sample_submission.csv")
    assert "target" not in test.columns and list(sample.columns) == ["id", "target"]
    assert sample["id"].tolist() == answers["id"].tolist() == test["id"].tolist()
    assert len(test) == round(HOLDOUT_SHARE * 178) and len(train) + len(test) == 178
    assert not set(train["id"]) & set(test["id"])
    # the id is the row's number in the user's file, so each held-out row can be found there
    original = pd.read_csv(table)
    assert (original.loc[answers["id"], "target"].to_numpy() == answers["target"].to_numpy()).all()
    share = answers["target"].value_counts(normalize=True)
    whole = original["target"].value_counts(normalize=True)
    assert (share - whole).abs().max() < 0.05  # stratified by class
    assert "stratified by class" in held.notices[0] and "36 of its 178" in held.notices[0]
    assert "named in description.md" in held.notices[0]
    spec = json.loads((held.root / "task.json").read_text())
    assert spec["holdout"]["rows"] == 36 and task.extra["holdout"]["share"] == HOLDOUT_SHARE
    again = holdout_task(find_dataset(src), tmp_path / "run2" / "task")  # type: ignore[arg-type]
    assert pd.read_csv(again.answers).equals(answers)  # the same rows for every run


def test_a_european_export_given_directly_with_its_target(tmp_path: Path) -> None:
    path = _diabetes(tmp_path / "exports" / "diabetes.csv", sep=";", decimal=",")
    held = holdout_task(find_dataset(path), tmp_path / "t", target="progression")  # type: ignore[arg-type]
    task = load_task(held.root)
    assert task.target_cols == ("Progression",)  # the case the user typed does not matter
    assert (task.metric_name, task.task_type) == ("rmse", "regression")
    train = pd.read_csv(held.root / "input" / "train.csv")
    assert train["bmi"].dtype.kind == "f"  # decimal commas read as numbers, written plainly
    assert any("read as a regression graded by rmse" in n for n in held.notices)
    mae = holdout_task(find_dataset(path), tmp_path / "m", target="Progression", metric="MAE")  # type: ignore[arg-type]
    assert load_task(mae.root).metric_name == "mae"


def test_the_table_s_own_id_is_kept_and_unlabelled_rows_left_out(tmp_path: Path) -> None:
    frame = load_diabetes(as_frame=True, scaled=False).frame
    frame.insert(0, "PatientID", [f"P{i:04d}" for i in range(len(frame))])
    frame.loc[[3, 7], "target"] = None
    path = tmp_path / "d" / "patients.csv"
    path.parent.mkdir()
    frame.to_csv(path, index=False)
    held = holdout_task(find_dataset(path.parent), tmp_path / "t", target="target")  # type: ignore[arg-type]
    assert load_task(held.root).id_col == "PatientID"
    train = pd.read_csv(held.root / "input" / "train.csv")
    answers = pd.read_csv(held.answers)
    assert len(train) + len(answers) == len(frame) - 2
    assert not {"P0003", "P0007"} & (set(train["PatientID"]) | set(answers["PatientID"]))
    assert any("2 rows have no 'target'" in n for n in held.notices)


def test_what_cannot_be_inferred_says_what_to_pass(tmp_path: Path) -> None:
    path = _diabetes(tmp_path / "d" / "diabetes.csv")
    ds = find_dataset(path)
    assert ds is not None
    with pytest.raises(DatasetTaskError, match=r"--target COLUMN .*columns: age, sex"):
        holdout_task(ds, tmp_path / "a")
    with pytest.raises(DatasetTaskError, match=r"no column 'price' \(--target\)"):
        holdout_task(ds, tmp_path / "b", target="price")
    with pytest.raises(DatasetTaskError, match="unknown metric"):
        holdout_task(ds, tmp_path / "c", target="Progression", metric="goodness")
    wine = find_dataset(_wine(tmp_path / "w"))
    with pytest.raises(DatasetTaskError, match="grades numbers but 'target' holds text"):
        holdout_task(wine, tmp_path / "e", metric="rmse")  # type: ignore[arg-type]
    small = tmp_path / "small.csv"
    pd.DataFrame({"x": range(12), "y": [0, 1] * 6}).to_csv(small, index=False)
    with pytest.raises(DatasetTaskError, match="too few"):
        holdout_task(find_dataset(small), tmp_path / "f", target="y")  # type: ignore[arg-type]
    (tmp_path / "g").mkdir()
    with pytest.raises(DatasetTaskError, match="already exists"):
        holdout_task(ds, tmp_path / "g", target="Progression")
    assert not any((tmp_path / n).exists() for n in "abcef")  # nothing half-written


def test_a_file_without_a_header_or_with_a_title_line_says_so(tmp_path: Path) -> None:
    """Hunt, session 24: a headerless CSV listed "its columns: 14.23, 1.71, ..." and a title
    line above the header "its columns: Diabetes study export 2024-03-01", without a word on
    why."""
    raw = tmp_path / "raw.csv"
    load_wine(as_frame=True).frame.to_csv(raw, index=False, header=False)
    with pytest.raises(DatasetTaskError, match=r"no header line: .* \(col_1 or col_14\)"):
        holdout_task(find_dataset(raw), tmp_path / "a")  # type: ignore[arg-type]
    held = holdout_task(find_dataset(raw), tmp_path / "a", target="col_14")  # type: ignore[arg-type]
    train = pd.read_csv(held.root / "input" / "train.csv")
    test = pd.read_csv(held.root / "input" / "test.csv")
    assert len(train) + len(test) == 178  # the first line is a row, not lost as a header
    assert any("no header line" in n and "col_14" in n for n in held.notices)
    titled = tmp_path / "titled.csv"
    table = _diabetes(tmp_path / "d.csv").read_text()
    titled.write_text("Diabetes study export 2024-03-01\n" + table)
    with pytest.raises(DatasetTaskError, match="a title above the column names"):
        holdout_task(find_dataset(titled), tmp_path / "b", target="Progression")  # type: ignore[arg-type]


def test_uci_data_files_and_text_tables_are_datasets(tmp_path: Path) -> None:
    """Hunt, session 24: UCI's ``wdbc.data`` (no header; an id, the label ``M``/``B``, then the
    numbers) beside ``wdbc.names`` was "expected a task folder, got a file", its folder "not a
    task folder"; scikit-learn's own ``diabetes.tab.txt`` layout (tab-separated ``.txt``) was
    refused with a message about --target."""
    from sklearn.datasets import load_breast_cancer

    bc = load_breast_cancer(as_frame=True)
    frame = bc.frame.drop(columns="target")
    frame.insert(0, "diagnosis", ["B" if t else "M" for t in bc.target])
    frame.insert(0, "id", range(842302, 842302 + len(frame)))
    uci = tmp_path / "uci"
    uci.mkdir()
    frame.to_csv(uci / "wdbc.data", index=False, header=False)
    (uci / "wdbc.names").write_text("1) ID number\n2) Diagnosis (M = malignant, B = benign)\n")
    for given in (uci / "wdbc.data", uci):
        ds = find_dataset(given)
        assert ds is not None and ds.table.name == "wdbc.data" and ds.name in ("wdbc", "uci")
    held = holdout_task(find_dataset(uci), tmp_path / "t", target="col_2")  # type: ignore[arg-type]
    train = pd.read_csv(held.root / "input" / "train.csv")
    assert set(train["col_2"]) == {"M", "B"} and len(train.columns) == 32  # no row id added
    task = load_task(held.root)
    assert task.task_type == "classification"
    # the patient's number is the rows' key, not a feature (it was learned from as one)
    assert task.id_col == "col_1" and train["col_1"].min() >= 842302
    assert any("'col_1' (a different value in every row" in n for n in held.notices)
    sample = pd.read_csv(held.root / "input" / "sample_submission.csv")
    assert list(sample.columns) == ["col_1", "col_2"]

    tab = tmp_path / "diabetes.tab.txt"
    _diabetes(tmp_path / "d.csv", sep="\t").rename(tab)
    held = holdout_task(find_dataset(tab), tmp_path / "u", target="Progression")  # type: ignore[arg-type]
    assert "Progression" in pd.read_csv(held.root / "input" / "train.csv")
    notes = tmp_path / "notes"
    notes.mkdir()
    _wine(notes)
    (notes / "README.txt").write_text("collected in 2024\n")
    assert find_dataset(notes).table.name == "wine.csv"  # type: ignore[union-attr]


def test_records_json_units_line_and_a_workbook_with_a_notes_sheet(tmp_path: Path) -> None:
    """Session 25, written as people export data: a JSON array of records (refused: "--target
    cannot apply here"), a second header line of units (every column read as text: a
    classification of 215 'classes', held-out accuracy 0.02), and a workbook whose first sheet is
    notes (read instead of the data: "has no column 'target'")."""
    wine = load_wine(as_frame=True).frame
    records = tmp_path / "wine.json"
    wine.to_json(records, orient="records")
    held = holdout_task(find_dataset(records), tmp_path / "a", target="target")  # type: ignore[arg-type]
    assert len(pd.read_csv(held.root / "input" / "train.csv").columns) == 1 + 14
    (tmp_path / "task.json").write_text('{"goal": "predict y"}')
    assert find_dataset(tmp_path / "task.json") is None  # an object is no table

    units = tmp_path / "units.csv"
    frame = pd.read_csv(_diabetes(tmp_path / "d.csv"))
    units.write_text(
        ",".join(frame.columns)
        + "\n"
        + ",".join(["years", "", "kg/m2"] + ["-"] * 8)
        + "\n"
        + frame.to_csv(index=False, header=False)
    )
    held = holdout_task(find_dataset(units), tmp_path / "b", target="Progression")  # type: ignore[arg-type]
    assert load_task(held.root).task_type == "regression"
    assert any("units" in n and "years" in n for n in held.notices)
    train = pd.read_csv(held.root / "input" / "train.csv")
    test = pd.read_csv(held.root / "input" / "test.csv")
    assert len(train) + len(test) == len(frame) and train["bmi"].dtype.kind == "f"

    book = tmp_path / "wine.xlsx"
    with pd.ExcelWriter(book) as xw:
        pd.DataFrame({"Notes": ["Wine study", "the data is on the next sheet"]}).to_excel(
            xw, sheet_name="README", index=False
        )
        wine.to_excel(xw, sheet_name="data", index=False)
    for target, out in (("target", "c"), (None, "e")):
        try:
            held = holdout_task(find_dataset(book), tmp_path / out, target=target)  # type: ignore[arg-type]
        except DatasetTaskError as e:  # no target named: the largest sheet's columns listed
            assert target is None and "alcohol" in str(e)
            continue
        assert any("read its sheet 'data'" in n for n in held.notices)


def test_a_header_of_years_is_a_header(tmp_path: Path) -> None:
    path = tmp_path / "gdp.csv"
    rows = [[f"country{i}", i, i * 2, i % 3] for i in range(60)]
    pd.DataFrame(rows, columns=["country", "1990", "1991", "y"]).to_csv(path, index=False)
    held = holdout_task(find_dataset(path), tmp_path / "t", target="y")  # type: ignore[arg-type]
    assert not any("no header line" in n for n in held.notices)


def test_a_total_row_at_the_end_is_left_out(tmp_path: Path) -> None:
    """Hunt, session 24: a spreadsheet export ending in ``Total,21445.0,...,67243.0`` (the
    column sums) and blank lines; the Total row was a labelled example (target 67243) and made
    the id column text (held-out RMSE 63.4; without it 54.2)."""
    path = _diabetes(tmp_path / "d" / "export.csv")
    frame = pd.read_csv(path)
    frame.insert(0, "id", range(len(frame)))
    sums = frame.sum().to_frame().T.astype(object)
    sums["id"] = "Total"
    pd.concat([frame, sums]).to_csv(path, index=False)
    path.write_text(path.read_text() + "\n\n")
    held = holdout_task(find_dataset(path), tmp_path / "t", target="Progression")  # type: ignore[arg-type]
    assert any("('Total') sum up the rows above" in n for n in held.notices)
    train = pd.read_csv(held.root / "input" / "train.csv")
    rows = len(train) + len(pd.read_csv(held.root / "input" / "test.csv"))
    assert rows == len(frame) and train["id"].dtype.kind == "i"
    assert train["Progression"].max() < 1000
    # "Average" as one of a column's values (a grade) is a category, not a summary row
    graded = tmp_path / "graded.csv"
    frame.drop(columns="id").assign(grade=["Low", "Average", "High"] * 147 + ["Average"]).to_csv(
        graded, index=False
    )
    held = holdout_task(find_dataset(graded), tmp_path / "u", target="Progression")  # type: ignore[arg-type]
    assert not any("sum up" in n for n in held.notices)


def test_classes_are_told_from_numbers_without_a_metric(tmp_path: Path) -> None:
    rows = 300
    frame = pd.DataFrame(
        {
            "x": range(rows),
            "grade": [i % 5 + 1 for i in range(rows)],  # five whole numbers: classes
            "price": [1.5 * i for i in range(rows)],  # many values: a regression
            "passed": [i % 3 == 0 for i in range(rows)],
        }
    )
    path = tmp_path / "scores.csv"
    frame.to_csv(path, index=False)
    ds = find_dataset(path)
    for target, kind in (
        ("grade", "classification"),
        ("price", "regression"),
        ("passed", "classification"),
    ):
        task = load_task(holdout_task(ds, tmp_path / target, target=target).root)  # type: ignore[arg-type]
        assert task.task_type == kind, target


def test_an_excel_workbook_is_read_from_its_first_sheet_with_rows(tmp_path: Path) -> None:
    folder = tmp_path / "course"
    folder.mkdir()
    wine = load_wine(as_frame=True).frame.rename(columns={"target": "Cultivar"})
    with pd.ExcelWriter(folder / "Wine data 2024.xlsx") as book:
        pd.DataFrame().to_excel(book, sheet_name="Cover", index=False)
        wine.to_excel(book, sheet_name="Measurements", index=False)
        pd.DataFrame({"note": ["from the UCI repository"]}).to_excel(book, sheet_name="Source")
    (folder / "~$Wine data 2024.xlsx").write_bytes(b"lock")  # Excel's lock file while open
    ds = find_dataset(folder)
    assert ds is not None and ds.table.name == "Wine data 2024.xlsx"
    held = holdout_task(ds, tmp_path / "t", target="cultivar")
    task = load_task(held.root)
    assert task.target_cols == ("Cultivar",) and task.task_type == "classification"
    train = pd.read_csv(held.root / "input" / "train.csv")
    assert len(train) == 178 - 36 and "alcohol" in train.columns
    assert any("read its sheet 'Measurements'" in n and "'Source'" in n for n in held.notices)


def test_a_parquet_dataset_is_read_with_its_types(tmp_path: Path) -> None:
    frame = load_diabetes(as_frame=True, scaled=False).frame
    frame["visit"] = pd.date_range("2020-01-01", periods=len(frame), freq="D")
    path = tmp_path / "visits.parquet"
    frame.to_parquet(path)
    held = holdout_task(find_dataset(path), tmp_path / "t", target="target")  # type: ignore[arg-type]
    train = pd.read_csv(held.root / "input" / "train.csv")
    assert len(train) == len(frame) - round(HOLDOUT_SHARE * len(frame))
    assert str(train["visit"].iloc[0]).startswith("20")  # dates written as dates
    assert load_task(held.root).task_type == "regression"


def test_a_json_lines_dataset_given_directly(tmp_path: Path) -> None:
    """``mlestar run wine.jsonl --target target`` (hunt, session 23): "--target cannot apply
    here", a JSON-lines file was no table."""
    frame = load_wine(as_frame=True).frame
    path = tmp_path / "wine.jsonl"
    frame.to_json(path, orient="records", lines=True)
    ds = find_dataset(path)
    assert ds is not None and ds.name == "wine"
    held = holdout_task(ds, tmp_path / "t", target="target")
    assert len(pd.read_csv(held.root / "input" / "train.csv")) == 142


def test_a_readme_beside_the_data_folder_names_the_target(tmp_path: Path) -> None:
    _diabetes(tmp_path / "study" / "data" / "diabetes.csv")
    (tmp_path / "study" / "README.md").write_text(
        "# Diabetes study\n\nOne year on. The column to predict is `Progression`.\n"
    )
    ds = find_dataset(tmp_path / "study")
    assert ds is not None and ds.description == tmp_path / "study" / "README.md"
    held = holdout_task(ds, tmp_path / "t")
    assert load_task(held.root).target_cols == ("Progression",)
    assert "named in README.md" in held.notices[0]


@pytest.mark.parametrize(
    ("sentence", "target"),
    [
        ("The column to predict is `Progression`.", "Progression"),
        ("Predict the column target (the cultivar) from the chemistry.", "target"),
        ("Progression is what we want to predict.", "Progression"),
        ("We predict whether a patient gets worse from bmi and age.", None),  # inputs only
        ("Predict progression from bmi.", "Progression"),
    ],
)
def test_a_sentence_about_predicting_names_the_target(sentence: str, target: str | None) -> None:
    from mlestar_jupyter.importer.dataset_task import _predicted_in_sentences

    cols = ["age", "bmi", "target", "Progression"]
    assert _predicted_in_sentences(f"# Study\n\n{sentence}\n", cols) == ([target] if target else [])


def test_f1_of_several_classes_is_said_to_be_their_macro_average(tmp_path: Path) -> None:
    ds = find_dataset(_wine(tmp_path / "w"))
    assert ds is not None
    held = holdout_task(ds, tmp_path / "t3", target="target", metric="f1")
    assert any("f1 of 3 classes is graded as their macro average" in n for n in held.notices)
    two = tmp_path / "two.csv"
    frame = load_wine(as_frame=True).frame
    frame[frame["target"] < 2].to_csv(two, index=False)
    held = holdout_task(find_dataset(two), tmp_path / "t2", target="target", metric="f1")  # type: ignore[arg-type]
    assert not any("macro average" in n for n in held.notices)


def _churn_with_regions(root: Path) -> Path:
    """An outsider's export (hunt, session 22): customers with a region code, the regions'
    names in a table of their own, a README naming the column to predict."""
    from sklearn.datasets import load_breast_cancer

    bc = load_breast_cancer(as_frame=True).frame.iloc[:, :5]
    bc.columns = ["f1", "f2", "f3", "f4", "f5"]
    churned = load_breast_cancer().target
    data = root / "data"
    data.mkdir(parents=True)
    customers = bc.assign(churned=churned, region_code=[i % 5 for i in range(len(bc))])
    customers.insert(0, "customerId", range(5000, 5000 + len(bc)))
    customers.to_csv(data / "customers.csv", index=False)
    regions = pd.DataFrame({"region_code": range(5), "region": list("NSEWC")})
    regions.to_csv(data / "regions.csv", index=False)
    (root / "README.md").write_text("Customer churn export. The column to predict is `churned`.\n")
    return root


def test_a_lookup_table_beside_the_data_is_joined_to_its_rows(tmp_path: Path) -> None:
    """ "No training data found" before: the two tables were several tables of their own."""
    root = _churn_with_regions(tmp_path / "churn")
    ds = find_dataset(root)
    assert ds is not None and ds.table.name == "customers.csv"
    assert [p.name for p in ds.lookups] == ["regions.csv"]
    held = holdout_task(ds, tmp_path / "task")
    train = pd.read_csv(held.root / "input" / "train.csv")
    assert "region" in train.columns and train["region"].notna().all()
    assert set(train["region"]) == set("NSEWC")
    assert any(
        "regions.csv is a lookup table of customers.csv by 'region_code'" in n for n in held.notices
    )
    assert load_task(held.root).target == "churned"


def test_tables_that_only_share_a_column_are_no_lookups(tmp_path: Path) -> None:
    """A second table whose key repeats (orders of each customer), or with as many columns:
    which table is the data is not guessed."""
    root = _churn_with_regions(tmp_path / "churn")
    regions = root / "data" / "regions.csv"
    pd.DataFrame({"region_code": [0, 0, 1], "region": list("NSE")}).to_csv(regions, index=False)
    assert find_dataset(root) is None
    root2 = _churn_with_regions(tmp_path / "churn2")
    pd.read_csv(root2 / "data" / "customers.csv").to_csv(root2 / "data" / "more.csv", index=False)
    assert find_dataset(root2) is None


@pytest.mark.parametrize(
    ("metric", "said"),
    [
        ("accuracy", "accuracy grades classes, but 'target' holds"),
        ("qwk", "qwk grades classes, but 'target' holds"),
        ("mape", "mape divides each error by the target, and 3 of the first"),
    ],
)
def test_a_given_metric_that_cannot_grade_the_target_is_refused(
    tmp_path: Path, metric: str, said: str
) -> None:
    """Accuracy or kappa of a whole-number regression target (diabetes: 214 values), MAPE of a
    target with zeros (hunt, session 23: a 214-class classification at 0.0185; scores of
    4.9e12): refused before the run, saying what to pass."""
    frame = load_diabetes(as_frame=True, scaled=False).frame
    frame.loc[:2, "target"] = 0.0
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False)
    with pytest.raises(DatasetTaskError, match=said):
        holdout_task(find_dataset(path), tmp_path / "t", target="target", metric=metric)  # type: ignore[arg-type]


def test_many_classes_of_whole_numbers_are_still_classes(tmp_path: Path) -> None:
    """52 classes in 234 rows (a time-series task of the issue): accuracy grades them."""
    import numpy as np

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.normal(size=234), "target": np.arange(234) % 52})
    path = tmp_path / "many.csv"
    frame.to_csv(path, index=False)
    held = holdout_task(find_dataset(path), tmp_path / "t", target="target", metric="accuracy")  # type: ignore[arg-type]
    assert load_task(held.root).metric_name == "accuracy"


def test_a_dataset_of_several_classes_is_graded_as_its_metric_says(tmp_path: Path) -> None:
    """Hunt, session 26, iris as one CSV: ``--metric AUC`` (or log loss) made a sample
    submission of one label column, so every model handed in one probability and the held-out
    ROC AUC was 0.5; ``--metric f1`` was graded as the F1 of the last class alone (a rare last
    class: 0 for every candidate), though the run said "macro average"."""
    from sklearn.datasets import load_iris
    from sklearn.metrics import f1_score, roc_auc_score

    from mlestar_jupyter.evaluator import grade_submission

    iris = load_iris(as_frame=True)
    frame = iris.frame.assign(species=[iris.target_names[t] for t in iris.target])
    raw = tmp_path / "iris.csv"
    frame.drop(columns="target").to_csv(raw, index=False)

    held = holdout_task(find_dataset(raw), tmp_path / "auc", target="species", metric="AUC")  # type: ignore[arg-type]
    sample = pd.read_csv(held.root / "input" / "sample_submission.csv")
    assert list(sample.columns) == ["id", "setosa", "versicolor", "virginica"]
    assert sample.iloc[0, 1:].tolist() == pytest.approx([1 / 3] * 3)
    answers = pd.read_csv(held.answers)
    proba = pd.get_dummies(answers["species"]).astype(float) * 0.8 + 0.1 / 1.5
    proba.loc[:4, :] = 1 / 3  # a few rows the model cannot tell
    sub = pd.concat([answers[["id"]], proba], axis=1)
    sub.to_csv(tmp_path / "auc.csv", index=False)
    r = grade_submission(held.root, tmp_path / "auc.csv")
    want = roc_auc_score(
        answers["species"], proba[["setosa", "versicolor", "virginica"]], multi_class="ovr"
    )
    assert r.valid_submission and r.score == pytest.approx(want) and r.score > 0.9

    held = holdout_task(find_dataset(raw), tmp_path / "f1", target="species", metric="f1-score")  # type: ignore[arg-type]
    answers = pd.read_csv(held.answers)
    guess = answers["species"].where(answers.index % 4 != 0, "virginica")
    answers.assign(species=guess).to_csv(tmp_path / "f1.csv", index=False)
    r = grade_submission(held.root, tmp_path / "f1.csv")
    want = f1_score(answers["species"], guess, average="macro")
    assert r.score == pytest.approx(want)
    assert r.score != pytest.approx(
        f1_score(answers["species"], guess, labels=["virginica"], average="macro")
    )
