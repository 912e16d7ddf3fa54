"""A task read from a notebook in a folder that is no task folder, written the way people write
notebooks (Kaggle kernels, course labs, f-string paths, magics), not the way the catalog does."""

from __future__ import annotations

from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
import pytest

from mlestar_jupyter.importer.notebook_task import (
    NotebookTaskError,
    task_from_notebook,
    task_spec,
)
from mlestar_jupyter.notebook import SolutionNotebook
from mlestar_jupyter.task import Task, TaskFormatError, is_task_folder, load_task


def _nb(folder: Path, name: str, cells: list[str], title: str = "") -> SolutionNotebook:
    nb = nbformat.v4.new_notebook()
    if title:
        nb.cells.append(nbformat.v4.new_markdown_cell(title))
    nb.cells += [nbformat.v4.new_code_cell(c) for c in cells]
    path = folder / name
    nbformat.write(nb, path)
    return SolutionNotebook.read(path)


def _houses(folder: Path, rows: int = 60) -> None:
    rng = np.random.default_rng(0)
    df = pd.DataFrame(
        {
            "Id": range(rows),
            "LotArea": rng.integers(2000, 20000, rows),
            "Quality": rng.choice(["Fair", "Good", "Excellent"], rows),
            "SalePrice": rng.normal(180000, 40000, rows).round(0),
        }
    )
    folder.mkdir(parents=True, exist_ok=True)
    df.iloc[:40].to_csv(folder / "train.csv", index=False)
    df.iloc[40:].drop(columns=["SalePrice"]).to_csv(folder / "test.csv", index=False)


def test_a_kaggle_style_notebook_with_an_fstring_data_folder(tmp_path: Path) -> None:
    _houses(tmp_path / "data")
    nb = _nb(
        tmp_path,
        "House Prices.ipynb",
        [
            "%matplotlib inline\n!pip install -q seaborn\nimport numpy as np, pandas as pd",
            "DATA_DIR = 'data'\ntrain = pd.read_csv(f'{DATA_DIR}/train.csv')\n"
            "test = pd.read_csv(f'{DATA_DIR}/test.csv')",
            "y = train['SalePrice']\nX = train.drop(['SalePrice', 'Id'], axis=1)",
            "from sklearn.model_selection import train_test_split\n"
            "from sklearn.metrics import mean_squared_error\n"
            "X_tr, X_va, y_tr, y_va = train_test_split(X, y, random_state=0)\n"
            "model.fit(X_tr, y_tr)\n"
            "rmse = np.sqrt(mean_squared_error(y_va, model.predict(X_va)))",
            "pd.DataFrame({'Id': test.Id, 'SalePrice': model.predict(test)}).to_csv("
            "'submission.csv', index=False)",
        ],
        title="# House prices: my first kernel",
    )
    assert not is_task_folder(tmp_path)
    task = task_from_notebook(nb, tmp_path, "House Prices.ipynb")
    assert task.input_dir == (tmp_path / "data").resolve()
    assert [(f.path, f.role) for f in task.files] == [("train.csv", "train"), ("test.csv", "test")]
    assert task.target_cols == ("SalePrice",) and task.id_col == "Id"
    assert (task.metric_name, task.direction, task.task_type) == ("rmse", "minimize", "regression")
    assert task.id == "House-Prices" and task.source_format == "notebook"
    assert task.goal.startswith("House prices: my first kernel")
    said = " ".join(task.notices)
    assert "no task.json" in said and "'SalePrice'" in said and "mean_squared_error" in said
    spec = task_spec(task)
    assert spec["target_cols"] == ["SalePrice"] and spec["metric"] == "rmse"


def test_a_course_lab_with_one_table_and_no_test_rows(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    pd.DataFrame(
        {
            "displ": rng.uniform(1, 6, 50),
            "cyl": rng.choice([4, 6, 8], 50),
            "drv": rng.choice(["f", "r", "4"], 50),
        }
    ).to_csv(tmp_path / "mpg.csv", index=False)
    nb = _nb(
        tmp_path,
        "lab3.ipynb",
        [
            "import pandas as pd\nfrom sklearn.metrics import accuracy_score, classification_report",
            "df = pd.read_csv('mpg.csv')",
            "X = df.drop(columns=['drv'])\ny = df['drv']",
            "clf.fit(X_train, y_train)\nprint(accuracy_score(y_test, clf.predict(X_test)))",
        ],
    )
    task = task_from_notebook(nb, tmp_path, "lab3.ipynb")
    assert task.input_dir == tmp_path.resolve()
    assert [(f.path, f.role) for f in task.files] == [("mpg.csv", "train")]
    assert not task.test_files and task.sample_submission is None
    assert (task.target, task.metric_name, task.task_type) == ("drv", "accuracy", "classification")
    assert "no test table (nothing to submit)" in task.notices[0]


def test_kaggle_input_paths_are_found_by_name_and_the_target_by_the_missing_column(
    tmp_path: Path,
) -> None:
    _houses(tmp_path / "house-prices")
    nb = _nb(
        tmp_path,
        "kernel.ipynb",
        [
            "import pandas as pd\n"
            "train = pd.read_csv('/kaggle/input/house-prices/train.csv')\n"
            "test = pd.read_csv('../input/test.csv')",
            # the target only by position: no y = ...['col'] to read it from
            "model.fit(train[['LotArea']], train[train.columns[-1]])",
        ],
    )
    task = task_from_notebook(nb, tmp_path, "kernel.ipynb")
    assert task.input_dir == (tmp_path / "house-prices").resolve()
    assert task.target == "SalePrice"
    assert "the training table's one column the test table lacks" in task.notices[0]
    # no metric call, a numeric target: RMSE, and the notice says it was a default
    assert task.metric_name == "rmse" and "computes no metric" in task.notices[0]


@pytest.mark.parametrize(
    ("call", "metric"),
    [
        ("f1_score(y_va, pred, average='macro')", "f1_macro"),
        ("cross_val_score(clf, X, y, cv=5, scoring='neg_mean_absolute_error')", "mae"),
        ("mean_squared_error(y_va, pred, squared=False)", "rmse"),
        ("mean_squared_error(y_va, pred)", "mse"),
        ("mean_squared_error(y_va, pred) ** 0.5", "rmse"),
        ("roc_auc_score(y_va, proba)", "roc_auc"),
        ("r2_score(y_va, pred)", "r2"),
        ("cohen_kappa_score(y_va, pred)", "cohen_kappa"),
        ("cohen_kappa_score(y_va, pred, weights='quadratic')", "qwk"),
        ("explained_variance_score(y_va, pred)", "explained_variance"),
        ("mean_poisson_deviance(y_va, pred)", "poisson_deviance"),
        ("median_absolute_error(y_va, pred)", "medae"),
        ("cross_val_score(m, X, y, scoring='neg_mean_poisson_deviance')", "poisson_deviance"),
        ("clf.score(X_va, y_va)", "r2"),  # hunt, session 24: a regressor's own score
    ],
)
def test_the_metric_is_the_one_the_notebook_computes(
    tmp_path: Path, call: str, metric: str
) -> None:
    _houses(tmp_path)
    nb = _nb(
        tmp_path,
        "n.ipynb",
        [
            "import pandas as pd\ndf = pd.read_csv('train.csv')\ny = df['SalePrice']",
            f"clf.fit(X, y)\nscore = {call}\nprint(score)",
        ],
    )
    assert task_from_notebook(nb, tmp_path).metric_name == metric


def test_the_root_of_the_whole_oof_mse_after_each_folds_is_rmse(tmp_path: Path) -> None:
    """Hunt, session 24 (the classic Kaggle fold loop): each fold prints
    ``mean_squared_error(y_va, oof[va_idx]) ** 0.5`` and the last line the whole out-of-fold
    RMSE the same way; the fold line was taken for the last call's line, so the metric read as
    MSE."""
    _houses(tmp_path)
    nb = _nb(
        tmp_path,
        "oof.ipynb",
        [
            "import pandas as pd\ntrain = pd.read_csv('train.csv')",
            "for fold, (tr_idx, va_idx) in enumerate(kf.split(train)):\n"
            "    oof[va_idx] = model.predict(X_va)\n"
            "    print(f'Fold {fold}: RMSE = {mean_squared_error(y_va, oof[va_idx]) ** 0.5:.3f}')\n"
            "print(f'OOF RMSE: {mean_squared_error(train.SalePrice, oof) ** 0.5:.4f}')",
        ],
    )
    assert task_from_notebook(nb, tmp_path).metric_name == "rmse"


def test_run_folders_below_the_notebook_are_not_its_data(tmp_path: Path) -> None:
    _houses(tmp_path / "data")
    stale = tmp_path / "runs" / "old-run" / "work" / "init-m1" / "input"
    _houses(stale)  # a copy of the data inside an earlier run's folder
    nb = _nb(
        tmp_path,
        "n.ipynb",
        ["import pandas as pd\ndf = pd.read_csv('train.csv')\ny = df['SalePrice']"],
    )
    assert task_from_notebook(nb, tmp_path).input_dir == (tmp_path / "data").resolve()


def test_no_data_found_says_what_the_notebook_names(tmp_path: Path) -> None:
    nb = _nb(tmp_path, "n.ipynb", ["import pandas as pd\ndf = pd.read_csv('sales_2024.csv')"])
    with pytest.raises(NotebookTaskError) as e:
        task_from_notebook(nb, tmp_path, "n.ipynb")
    msg = str(e.value)
    assert "'sales_2024.csv'" in msg and "task.json" in msg
    assert isinstance(e.value, TaskFormatError)  # the surfaces print it as a task error


def test_an_unclear_target_says_how_to_name_it(tmp_path: Path) -> None:
    _houses(tmp_path)
    (tmp_path / "test.csv").unlink()
    nb = _nb(
        tmp_path, "n.ipynb", ["import pandas as pd\ndf = pd.read_csv('train.csv')\ndf.describe()"]
    )
    with pytest.raises(NotebookTaskError, match=r"assign it to y"):
        task_from_notebook(nb, tmp_path)


def test_a_task_folder_is_read_as_one_even_with_a_notebook_in_it(tmp_path: Path) -> None:
    _houses(tmp_path / "input")
    (tmp_path / "description.md").write_text(
        "# Prices\n\nPredict SalePrice. Metric: RMSE.\n\nTarget: SalePrice\n"
    )
    assert is_task_folder(tmp_path)
    assert load_task(tmp_path).source_format == "description"


def test_a_teachers_notebook_that_makes_its_own_data_is_a_task_without_files(
    tmp_path: Path,
) -> None:
    nb = _nb(
        tmp_path,
        "week2_knn.ipynb",
        [
            "from sklearn.datasets import load_iris\nfrom sklearn import metrics",
            "iris = load_iris()\nX, y = iris.data, iris.target",
            "knn.fit(X_train, y_train)\nprint(metrics.accuracy_score(y_test, knn.predict(X_test)))",
        ],
    )
    task = task_from_notebook(nb, tmp_path, "week2_knn.ipynb")
    assert task.files == () and task.input_dir == tmp_path.resolve()
    assert (task.metric_name, task.task_type) == ("accuracy", "classification")
    assert "makes its own data (load_iris)" in task.notices[0]
    assert "not read by the notebook" not in task.notices[0]
    made = _nb(tmp_path, "reg.ipynb", ["X, y = make_regression(n_samples=200, noise=5)"])
    assert task_from_notebook(made, tmp_path).metric_name == "rmse"
    # beside a competition's tables it does not read (hunt C, session 27: no word on them)
    pd.DataFrame({"id": [1, 2], "y": [0, 1]}).to_csv(tmp_path / "train.csv", index=False)
    pd.DataFrame({"id": [3]}).to_csv(tmp_path / "test.csv", index=False)
    pd.DataFrame({"id": [3], "y": [0]}).to_csv(tmp_path / "sample_submission.csv", index=False)
    told = task_from_notebook(nb, tmp_path, "week2_knn.ipynb").notices[0]
    assert "(sample_submission.csv, test.csv, train.csv) are not read by the notebook" in told
    assert f"run the folder without it (mlestar run {tmp_path.resolve()})" in told


@pytest.mark.parametrize(
    "load",
    [
        "df = fetch_openml('titanic', version=1, as_frame=True).frame",
        "df = sns.load_dataset('penguins')",
        "df = pd.read_csv('https://example.org/data/penguins.csv')",
    ],
)
def test_a_notebook_that_downloads_its_data_is_told_to_save_it_beside_it(
    tmp_path: Path, load: str
) -> None:
    nb = _nb(tmp_path, "n.ipynb", [f"import pandas as pd\n{load}\ny = df['species']"])
    with pytest.raises(NotebookTaskError, match=r"downloads its data .*save the data as a CSV"):
        task_from_notebook(nb, tmp_path, "n.ipynb")


def test_a_project_layout_with_notebooks_beside_the_data_folder(tmp_path: Path) -> None:
    """cookiecutter-style: project/notebooks/eda.ipynb reads ../data/raw/train.csv."""
    _houses(tmp_path / "data" / "raw")
    (tmp_path / "notebooks").mkdir()
    nb = _nb(
        tmp_path / "notebooks",
        "1.0-model.ipynb",
        [
            "import pandas as pd\ntrain = pd.read_csv('../data/raw/train.csv')\n"
            "test = pd.read_csv('../data/raw/test.csv')\ny = train['SalePrice']"
        ],
    )
    task = task_from_notebook(nb, tmp_path / "notebooks", "1.0-model.ipynb")
    assert task.input_dir == (tmp_path / "data" / "raw").resolve()
    assert task.root == (tmp_path / "notebooks").resolve()
    assert [f.role for f in task.files] == ["train", "test"]


def test_the_shipped_example_without_a_task_folder_reads_as_a_task() -> None:
    folder = Path(__file__).parents[2] / "example_notebooks" / "no_task_folder"
    assert not is_task_folder(folder)
    task = task_from_notebook(SolutionNotebook.read(folder / "wine_lab.ipynb"), folder)
    assert (task.metric_name, task.task_type, task.files) == ("accuracy", "classification", ())


def test_the_written_task_json_read_back_beside_the_notebook_is_the_same_task(
    tmp_path: Path,
) -> None:
    import json

    _houses(tmp_path / "data")
    nb = _nb(
        tmp_path,
        "k.ipynb",
        [
            "import pandas as pd\ntrain = pd.read_csv('data/train.csv')\n"
            "test = pd.read_csv('data/test.csv')\ny = train['SalePrice']"
        ],
    )
    task = task_from_notebook(nb, tmp_path, "k.ipynb")
    assert f"copy the run's task.json into {tmp_path.resolve()} (the folder" in task.notices[1]
    (tmp_path / "task.json").write_text(json.dumps(task_spec(task)))
    again = load_task(tmp_path)  # now a task folder: read by the TAM-Bench reader
    assert again.source_format == "tam_bench" and again.input_dir == task.input_dir
    for field in ("metric_name", "direction", "task_type", "target_cols", "id_col"):
        assert getattr(again, field) == getattr(task, field), field
    assert sorted(again.files, key=lambda f: f.path) == sorted(task.files, key=lambda f: f.path)


def test_a_data_folder_above_the_notebook_or_the_home_folder_is_not_mounted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run mounts the data folder into its kernels: never the notebook's parent (its whole
    project), nor the home folder (``~/.ssh``, ``~/.aws``, ...)."""
    from mlestar_jupyter.importer.notebook_task import EMPTY_INPUT

    _houses(tmp_path)
    (tmp_path / "notebooks").mkdir()
    above = _nb(
        tmp_path / "notebooks",
        "n.ipynb",
        ["import pandas as pd\ndf = pd.read_csv('../train.csv')\ny = df['SalePrice']"],
    )
    with pytest.raises(NotebookTaskError, match=r"move the data files into a folder of their own"):
        task_from_notebook(above, tmp_path / "notebooks", "n.ipynb")
    monkeypatch.setattr(Path, "home", lambda: tmp_path)  # the notebook sits in the home folder
    at_home = _nb(
        tmp_path,
        "h.ipynb",
        ["import pandas as pd\ndf = pd.read_csv('train.csv')\ny = df['SalePrice']"],
    )
    with pytest.raises(NotebookTaskError, match=r"home folder"):
        task_from_notebook(at_home, tmp_path, "h.ipynb")
    own = _nb(
        tmp_path,
        "o.ipynb",
        ["from sklearn.datasets import load_iris\nX, y = load_iris(return_X_y=True)"],
    )
    task = task_from_notebook(own, tmp_path, "o.ipynb")
    assert task.input_dir == EMPTY_INPUT and EMPTY_INPUT.is_dir()
    assert sorted(p.name for p in EMPTY_INPUT.iterdir()) == ["README.md"]


def _printing_three_metrics(folder: Path) -> SolutionNotebook:
    """A course notebook that prints MAE, RMSE and R² (the last one is what it reads as)."""
    _houses(folder)
    return _nb(
        folder,
        "prices.ipynb",
        [
            "import pandas as pd\ndf = pd.read_csv('train.csv')\ny = df['SalePrice']",
            "from sklearn.metrics import mean_absolute_error, mean_squared_error, r2_score\n"
            "print(mean_absolute_error(y_va, p), mean_squared_error(y_va, p) ** 0.5,"
            " r2_score(y_va, p))",
        ],
    )


def test_the_user_names_the_metric_and_the_target_instead(tmp_path: Path) -> None:
    nb = _printing_three_metrics(tmp_path)
    assert task_from_notebook(nb, tmp_path).metric_name == "r2"
    task = task_from_notebook(nb, tmp_path, "prices.ipynb", metric="Mean Absolute Error")
    assert (task.metric_name, task.direction) == ("mae", "minimize")
    assert "metric mae (given with --metric)" in task.notices[0]
    other = task_from_notebook(nb, tmp_path, target="LotArea", metric="rmse")
    assert other.target_cols == ("LotArea",) and "given with --target" in other.notices[0]
    # kept by the task.json a run writes: it reads back the same
    assert task_spec(other)["target_cols"] == ["LotArea"] and task_spec(other)["metric"] == "rmse"


@pytest.mark.parametrize(
    ("kw", "says"),
    [
        ({"target": "saleprice"}, "did you mean 'SalePrice'?"),
        ({"target": "Price"}, "its columns: Id, LotArea, Quality, SalePrice"),
        ({"metric": "accuracy"}, "--metric accuracy: accuracy grades classes"),
        (
            {"metric": "top-k accuracy"},
            "--metric: metric 'top-k accuracy': top-k accuracy needs its k",
        ),
        ({"metric": "vibes"}, "--metric: unknown metric"),
    ],
)
def test_a_given_target_or_metric_that_cannot_work_says_why(
    tmp_path: Path, kw: dict[str, str], says: str
) -> None:
    nb = _printing_three_metrics(tmp_path)
    with pytest.raises(NotebookTaskError) as e:
        task_from_notebook(nb, tmp_path, **kw)
    assert says in str(e.value)


def test_overrides_apply_only_to_a_task_read_from_a_notebook(tmp_path: Path) -> None:
    from mlestar_jupyter.api import _task_of

    nb = _printing_three_metrics(tmp_path / "nb")
    task, source = _task_of(tmp_path / "nb", nb, "prices.ipynb", {"metric": "mae"})
    assert (source, task.metric_name) == ("notebook", "mae")
    folder = Path(__file__).parents[2] / "example_notebooks" / "tasks" / "diabetes"
    with pytest.raises(TaskFormatError, match="set them in its task.json"):
        _task_of(folder, nb, "prices.ipynb", {"metric": "mae"})
    with pytest.raises(TaskFormatError, match="pass --notebook too"):
        _task_of(folder, None, "", {"target": "bmi"})


def test_a_parquet_table_is_read_by_its_schema_and_first_row_group(tmp_path: Path) -> None:
    """Only the schema (columns) and the first row group (the target's values) are read, not
    the whole file."""
    pytest.importorskip("pyarrow")
    (tmp_path / "data").mkdir()
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"x": rng.normal(size=3000), "label": rng.choice(["a", "b"], 3000)})
    df.to_parquet(tmp_path / "data" / "train.parquet", row_group_size=500)
    nb = _nb(
        tmp_path,
        "n.ipynb",
        ["import pandas as pd\ndf = pd.read_parquet('data/train.parquet')\ny = df['label']"],
    )
    task = task_from_notebook(nb, tmp_path)
    assert task.target_cols == ("label",) and task.metric_name == "accuracy"  # a label target


def test_resume_reads_the_task_with_the_target_and_metric_the_run_was_given(
    tmp_path: Path, started_tasks: list[Task]
) -> None:
    """``--target``/``--metric`` are kept in run.json: a resumed run grades what the user chose,
    not what the notebook alone reads as (R², SalePrice)."""
    from mlestar_jupyter import api

    _printing_three_metrics(tmp_path / "nb")
    seen = started_tasks
    run_dir = tmp_path / "run"
    api.run(
        tmp_path / "nb",
        out=run_dir,
        notebook=tmp_path / "nb" / "prices.ipynb",
        target="LotArea",
        metric="Mean Absolute Error",
        time_limit=60,
    )
    api.resume(run_dir)
    assert [(t.target_cols, t.metric_name) for t in seen] == [(("LotArea",), "mae")] * 2
    assert "given with --target" in seen[1].notices[0]


@pytest.mark.parametrize(
    "cells",
    [
        # a Kaggle notebook's constant
        ["TARGET = 'SalePrice'", "df = pd.read_csv('train.csv')\ny = df[TARGET]"],
        # the labels only as the fit's argument, rows sliced by hand (no split, no y =)
        [
            "df = pd.read_csv('train.csv')\ntrain, valid = df.iloc[:40], df.iloc[40:]",
            "lr = LinearRegression()\nlr.fit(train[['LotArea']], train['SalePrice'])",
        ],
        # as an attribute, given to cross_val_score by keyword
        [
            "df = pd.read_csv('train.csv')",
            "s = cross_val_score(estimator=Ridge(), X=df[['LotArea']], y=df.SalePrice, cv=5)",
        ],
    ],
)
def test_the_target_is_read_where_outsiders_name_it(tmp_path: Path, cells: list[str]) -> None:
    """No test table here, so the rule "the column the test table lacks" cannot help: the target
    is read from the code (it was "not clear" for each of these)."""
    _houses(tmp_path)
    (tmp_path / "test.csv").unlink()
    nb = _nb(tmp_path, "n.ipynb", ["import pandas as pd", *cells])
    task = task_from_notebook(nb, tmp_path, "n.ipynb")
    assert task.target_cols == ("SalePrice",)
    assert "the column the notebook's code takes as its target" in task.notices[0]


def test_an_attribute_that_is_no_column_is_not_taken_for_the_target(tmp_path: Path) -> None:
    _houses(tmp_path)
    (tmp_path / "test.csv").unlink()
    nb = _nb(
        tmp_path,
        "n.ipynb",
        ["import pandas as pd\ndf = pd.read_csv('train.csv')", "m.fit(df[['LotArea']], y.values)"],
    )
    with pytest.raises(NotebookTaskError, match="which of its columns it predicts is not clear"):
        task_from_notebook(nb, tmp_path, "n.ipynb")


@pytest.mark.parametrize(
    ("code", "metric"),
    [
        ("params = {'objective': 'binary', 'metric': 'auc'}", "roc_auc"),
        ("m = xgb.XGBClassifier(eval_metric='mlogloss')", "log_loss"),
        ("params = {'objective': 'regression', 'metric': ['rmse', 'mae']}", None),  # a price
        ("m = lgb.LGBMClassifier(n_estimators=50)", None),
    ],
)
def test_the_metric_a_booster_monitors_is_the_notebooks_metric_when_it_computes_none(
    tmp_path: Path, code: str, metric: str | None
) -> None:
    """A label target here: a monitored metric that grades classes is taken; one that grades
    numbers (RMSE of a label) is not, and the default (accuracy) stays."""
    df = pd.DataFrame({"Id": range(30), "x": range(30), "label": ["a", "b", "c"] * 10})
    df.to_csv(tmp_path / "train.csv", index=False)
    nb = _nb(
        tmp_path,
        "n.ipynb",
        ["import pandas as pd\ndf = pd.read_csv('train.csv')\ny = df['label']", code],
    )
    task = task_from_notebook(nb, tmp_path, "n.ipynb")
    assert task.metric_name == (metric or "accuracy")
    assert ("its model monitors" in task.notices[0]) == (metric is not None)


def test_a_regression_boosters_monitored_error_is_read_too(tmp_path: Path) -> None:
    _houses(tmp_path)
    nb = _nb(
        tmp_path,
        "n.ipynb",
        [
            "import pandas as pd\ntrain = pd.read_csv('train.csv')\ny = train['SalePrice']",
            "params = dict(objective='regression', metric='mae')\n"
            "params2 = {'metric': 'auc'}  # grades classes: not for prices",
        ],
    )
    assert task_from_notebook(nb, tmp_path, "n.ipynb").metric_name == "mae"


@pytest.mark.parametrize(
    "cells",
    [
        # a course notebook: the target by position
        ["df = pd.read_csv('train.csv')\nX = df.iloc[:, :-1]\ny = df.iloc[:, -1]"],
        [
            "import numpy as np\narr = np.loadtxt('train.csv', delimiter=',', skiprows=1)\n"
            "X, y = arr[:, :-1], arr[:, -1]"
        ],
        # statsmodels' formula API
        [
            "import statsmodels.formula.api as smf\ndf = pd.read_csv('train.csv')\n"
            "fit = smf.ols('SalePrice ~ LotArea', data=df).fit()"
        ],
    ],
)
def test_a_target_by_position_or_in_a_formula(tmp_path: Path, cells: list[str]) -> None:
    _houses(tmp_path)  # columns Id, LotArea, Quality, SalePrice: the last is the target
    (tmp_path / "test.csv").unlink()
    nb = _nb(tmp_path, "n.ipynb", ["import pandas as pd", *cells])
    task = task_from_notebook(nb, tmp_path, "n.ipynb")
    assert task.target_cols == ("SalePrice",)


def test_the_sample_submission_beside_the_test_table_is_part_of_the_task(tmp_path: Path) -> None:
    """A Kaggle folder: the notebook reads train.csv and test.csv, never the sample submission
    (Titanic's is gender_submission.csv); it still says what a submission's columns are."""
    _houses(tmp_path)
    test = pd.read_csv(tmp_path / "test.csv")
    pd.DataFrame({"Id": test.Id, "SalePrice": 1.0}).to_csv(
        tmp_path / "gender_submission.csv", index=False
    )
    pd.DataFrame({"x": [1]}).to_csv(tmp_path / "my_submission_notes.csv", index=False)  # no ids
    nb = _nb(
        tmp_path,
        "n.ipynb",
        [
            "import pandas as pd\ntrain = pd.read_csv('train.csv')\ntest = pd.read_csv('test.csv')\n"
            "y = train['SalePrice']"
        ],
    )
    task = task_from_notebook(nb, tmp_path, "n.ipynb")
    assert task.sample_submission is not None
    assert task.sample_submission.path == "gender_submission.csv"
    assert "sample submission gender_submission.csv" in task.notices[0]


def test_a_kaggle_download_beside_the_notebook_is_read_from_the_notebook(tmp_path: Path) -> None:
    """train.csv, test.csv and sample_submission.csv with no description: the layout of an
    MLE-bench folder, which needs description.md, so a run with the notebook beside it was
    refused ("MLE-bench folders need the competition's description.md")."""
    from mlestar_jupyter.api import _task_of

    _houses(tmp_path)
    test = pd.read_csv(tmp_path / "test.csv")
    pd.DataFrame({"Id": test.Id, "SalePrice": 0}).to_csv(
        tmp_path / "sample_submission.csv", index=False
    )
    nb = _nb(
        tmp_path,
        "kernel.ipynb",
        [
            "import pandas as pd\ntrain = pd.read_csv('train.csv')\n"
            "test = pd.read_csv('test.csv')\ny = train['SalePrice']"
        ],
    )
    assert is_task_folder(tmp_path)  # it looks like a competition's folder ...
    task, source = _task_of(tmp_path, nb, "kernel.ipynb")  # ... the notebook says the rest
    assert source == "notebook" and task.target_cols == ("SalePrice",)
    assert task.sample_submission is not None and task.test_files
    with pytest.raises(TaskFormatError, match="description.md"):
        _task_of(tmp_path, None, "")  # without the notebook: still a folder missing its text


def _churn(folder: Path, sample_value: float | None = None) -> None:
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"customer_id": range(200), "tenure": rng.integers(1, 72, 200)})
    df["churn"] = (rng.random(200) < 0.3).astype(int)
    folder.mkdir(parents=True, exist_ok=True)
    df.iloc[:150].to_csv(folder / "train.csv", index=False)
    df.iloc[150:].drop(columns="churn").to_csv(folder / "test.csv", index=False)
    if sample_value is not None:
        ids = df.customer_id.iloc[150:]
        pd.DataFrame({"customer_id": ids, "churn": sample_value}).to_csv(
            folder / "sample_submission.csv", index=False
        )


READ_CHURN = (
    "import pandas as pd\ntrain = pd.read_csv('train.csv')\ntest = pd.read_csv('test.csv')\n"
    "X = train[['tenure']]; y = train['churn']"
)
WRITES_PROBA = (
    "sub = pd.DataFrame({'customer_id': test.customer_id,"
    " 'churn': model.predict_proba(test[['tenure']])[:, 1]})\n"
    "sub.to_csv('submission.csv', index=False)"
)


@pytest.mark.parametrize(
    ("cells", "sample", "metric"),
    [
        # cross_validate with a list of scorers, probabilities submitted: the AUC of the list
        (
            [
                "res = cross_validate(model, X, y, cv=5, scoring=['accuracy', 'roc_auc'])",
                WRITES_PROBA,
            ],
            None,
            "roc_auc",
        ),
        # the AUC printed, then accuracy of thresholded probabilities last
        (
            [
                "p = model.predict_proba(X_va)[:, 1]\nprint(roc_auc_score(y_va, p))\n"
                "print(accuracy_score(y_va, p > 0.5))",
                WRITES_PROBA,
            ],
            None,
            "roc_auc",
        ),
        # accuracy only, but the sample submission holds 0.5 for every row
        (["print(accuracy_score(y_va, model.predict(X_va)))"], 0.5, "roc_auc"),
        # accuracy only, labels written, the sample holds labels: accuracy, as before
        (
            [
                "print(accuracy_score(y_va, model.predict(X_va)))",
                "pd.DataFrame({'customer_id': test.customer_id, 'churn': model.predict("
                "test[['tenure']])}).to_csv('submission.csv', index=False)",
            ],
            0,
            "accuracy",
        ),
        # a list of scorers and nothing submitted: the first of the list
        (["cross_validate(model, X, y, scoring=('f1', 'roc_auc'))"], None, "f1"),
    ],
)
def test_a_notebook_that_submits_probabilities_is_scored_on_probabilities(
    tmp_path: Path, cells: list[str], sample: float | None, metric: str
) -> None:
    """Outsider notebooks whose metric was read as accuracy while they hand in probabilities:
    the run's value check rejected every file they wrote ("these look like probabilities") and
    handed in the prior-only constant."""
    _churn(tmp_path, sample)
    nb = _nb(tmp_path, "churn.ipynb", [READ_CHURN, *cells])
    task = task_from_notebook(nb, tmp_path, "churn.ipynb")
    assert task.metric_name == metric, task.notices[0]


@pytest.mark.parametrize(
    "log", ["y = np.log1p(train['SalePrice'])", "y = np.log(train.SalePrice + 1)"]
)
def test_the_rmse_of_a_logged_target_is_rmsle(tmp_path: Path, log: str) -> None:
    """A house-price notebook fits log prices and prints the RMSE of the logs (0.12): that is the
    RMSLE of the prices, and it hands in prices (``np.expm1``); read as RMSE of the prices, the
    run's scores and the task's metric were on different scales."""
    _houses(tmp_path)
    nb = _nb(
        tmp_path,
        "houses.ipynb",
        [
            "import numpy as np, pandas as pd\ntrain = pd.read_csv('train.csv')\n"
            f"X = train[['LotArea']]\n{log}",
            "rmse = np.sqrt(mean_squared_error(y_va, model.predict(X_va)))",
        ],
    )
    task = task_from_notebook(nb, tmp_path, "houses.ipynb")
    assert task.metric_name == "rmsle" and "on the log of 'SalePrice'" in task.notices[0]


def test_a_notebook_reading_zipped_kaggle_tables_reads_them(tmp_path: Path) -> None:
    """``pd.read_csv("../input/comp/train.csv.zip")``, as Kaggle kernels read a competition's
    zipped tables: refused before as reading "no data file", then told to unzip them; pandas reads
    a zip of one CSV as it is, and so does a run."""
    import zipfile

    _houses(tmp_path / "tables")
    for name in ("train.csv", "test.csv"):
        with zipfile.ZipFile(tmp_path / f"{name}.zip", "w") as zf:
            zf.write(tmp_path / "tables" / name, name)
    for name in ("train.csv", "test.csv"):
        (tmp_path / "tables" / name).unlink()
    nb = _nb(
        tmp_path,
        "kernel.ipynb",
        [
            "import pandas as pd\ntrain = pd.read_csv('../input/houses/train.csv.zip')\n"
            "test = pd.read_csv('../input/houses/test.csv.zip')\ny = train['SalePrice']",
            "pd.DataFrame({'Id': test.Id, 'SalePrice': 0}).to_csv('submission.csv', index=False)",
        ],
    )
    task = task_from_notebook(nb, tmp_path, "kernel.ipynb")
    assert task.target == "SalePrice"
    assert {(f.path, f.role) for f in task.files} >= {
        ("train.csv.zip", "train"),
        ("test.csv.zip", "test"),
    }


def test_a_notebook_named_in_french_gives_a_readable_task_id(tmp_path: Path) -> None:
    folder = tmp_path / "Mes données"
    _houses(folder)
    nb = _nb(
        folder,
        "analyse données.ipynb",
        ["import pandas as pd\ntrain = pd.read_csv('train.csv')\ny = train['SalePrice']"],
    )
    assert task_from_notebook(nb, folder, "analyse données.ipynb").id == "analyse-donnees"


def _titanic(folder: Path, rows: int = 60) -> None:
    rng = np.random.default_rng(0)
    df = pd.DataFrame(
        {
            "PassengerId": range(1, rows + 1),
            "Survived": rng.integers(0, 2, rows),
            "Pclass": rng.integers(1, 4, rows),
            "Name": [f"Passenger, Mr. No{i}" for i in range(rows)],
            "Sex": rng.choice(["male", "female"], rows),
        }
    )
    folder.mkdir(parents=True, exist_ok=True)
    df.iloc[:40].to_csv(folder / "train.csv", index=False)
    df.iloc[40:].drop(columns=["Survived"]).to_csv(folder / "test.csv", index=False)
    df.iloc[40:][["PassengerId", "Survived"]].to_csv(folder / "gender_submission.csv", index=False)


def test_a_column_dropped_early_does_not_win_over_the_labels_named_later(tmp_path: Path) -> None:
    """Kaggle's Titanic tutorial drops ``Name`` in an early cell and sets ``y`` later: the task
    was read with target 'Name', every candidate predicted names and no submission was left."""
    _titanic(tmp_path)
    nb = _nb(
        tmp_path,
        "titanic-tutorial.ipynb",
        [
            "import pandas as pd\ntrain_data = pd.read_csv('train.csv')\n"
            "test_data = pd.read_csv('test.csv')",
            "train_data = train_data.drop(['Name'], axis=1)\ntest_data = test_data.drop(['Name'], axis=1)",
            "from sklearn.ensemble import RandomForestClassifier\ny = train_data['Survived']\n"
            "X = pd.get_dummies(train_data[['Pclass', 'Sex']])\n"
            "model = RandomForestClassifier().fit(X, y)",
        ],
    )
    task = task_from_notebook(nb, tmp_path, "titanic-tutorial.ipynb")
    assert task.target_cols == ("Survived",) and task.id_col == "PassengerId"


def test_a_dropped_column_the_test_table_has_is_no_target(tmp_path: Path) -> None:
    """A notebook of functions whose only sign of its target is a drop of the id (``ID``) and of a
    feature: the task was read with target 'ID' and the submission overwrote the ids."""
    _houses(tmp_path / "input")
    for name in ("train.csv", "test.csv"):
        path = tmp_path / "input" / name
        pd.read_csv(path).rename(columns={"Id": "ID"}).to_csv(path, index=False)
    nb = _nb(
        tmp_path,
        "functions.ipynb",
        [
            "import pandas as pd\n\ndef load():\n    return pd.read_csv('input/train.csv'), "
            "pd.read_csv('input/test.csv')",
            "def build_features(df):\n    return df.drop(columns=['ID', 'Quality'])",
            "def main():\n    train, test = load()\n    X = build_features(train)\n    return X\n\nmain()",
        ],
    )
    task = task_from_notebook(nb, tmp_path, "functions.ipynb")
    assert task.target_cols == ("SalePrice",)
    assert any("also takes 'Quality' out of its features" in n for n in task.notices)


def test_a_test_table_beside_the_training_table_is_read_though_the_notebook_does_not(
    tmp_path: Path,
) -> None:
    """A Kaggle download's notebook that only validates (hunt, session 22): ``test.csv`` lay
    beside ``train.csv``, but the run said "no test table (nothing to submit)" and wrote no
    submission.  A ``test*`` table holding the training columns but the target is the test
    table; the run's cell then predicts its rows."""
    _houses(tmp_path)
    (tmp_path / "extra.csv").write_text("a,b\n1,2\n")  # no test table by its name
    nb = _nb(
        tmp_path,
        "houses.ipynb",
        [
            "import pandas as pd\nfrom sklearn.model_selection import train_test_split\n"
            "from sklearn.metrics import mean_absolute_error",
            "df = pd.read_csv('train.csv')\nX = df.drop(columns=['SalePrice'])\ny = df['SalePrice']\n"
            "X_tr, X_va, y_tr, y_va = train_test_split(X, y, random_state=0)",
            "m.fit(X_tr, y_tr)\nprint(mean_absolute_error(y_va, m.predict(X_va)))",
        ],
    )
    task = task_from_notebook(nb, tmp_path, "houses.ipynb")
    assert [f.path for f in task.test_files] == ["test.csv"]
    assert (
        "test table test.csv (beside the training table; the notebook does not read it)"
        in (task.notices[0])
    )
    assert task.id_col == "Id" and task.target == "SalePrice"


@pytest.mark.parametrize(
    ("lines", "metric", "said"),
    [
        # numpy least squares and an RMSE written out (hunt, session 22: "computes no metric")
        (
            "w, *_ = np.linalg.lstsq(A[tr], b[tr], rcond=None)\n"
            "rmse = np.sqrt(np.mean((A[va] @ w - b[va])**2))\nprint('val rmse', rmse)",
            "rmse",
            "written out by hand: rmse = np.sqrt(np.mean((A[va] @ w - b[va])**2))",
        ),
        ("err = (valid['SalePrice'] - pred).abs().mean()  # MAE", "mae", "by hand"),
        (
            "grid = GridSearchCV(pipe, params, cv=5, scoring='neg_mean_absolute_error')\n"
            "grid.fit(X, y)\nprint(-grid.best_score_)",
            "mae",
            "from scoring='neg_mean_absolute_error'",
        ),
        # a mean of a column minus a number is no metric
        ("centre = np.mean(train['LotArea']) - 1\nmodel.fit(X, y)", "rmse", "computes no metric"),
    ],
)
def test_a_metric_written_out_by_hand_or_given_to_a_search(
    tmp_path: Path, lines: str, metric: str, said: str
) -> None:
    _houses(tmp_path)
    nb = _nb(
        tmp_path,
        "mine.ipynb",
        [
            "import numpy as np, pandas as pd\ntrain = pd.read_csv('train.csv')\n"
            "test = pd.read_csv('test.csv')\ny = train['SalePrice']\nX = train[['LotArea']]",
            lines,
        ],
    )
    task = task_from_notebook(nb, tmp_path, "mine.ipynb")
    assert task.metric_name == metric and said in task.notices[0], task.notices[0]


@pytest.mark.parametrize(
    "made",
    [
        "train['expensive'] = (train.SalePrice > train.SalePrice.median()).astype(int)",
        "train = train.assign(expensive=lambda d: (d.SalePrice > 180000).astype(int))",
        'train.loc[:, "expensive"] = train["SalePrice"] > 180000',
    ],
)
def test_a_target_the_notebook_makes_itself_is_what_it_predicts(tmp_path: Path, made: str) -> None:
    """``df['high_risk'] = (df.progression > median)`` then ``y = df['high_risk']`` (hunt,
    session 23): the task's target was ``progression``, every file the notebook wrote lacked
    it, and the run ended ``failed`` with no submission."""
    _houses(tmp_path)
    nb = _nb(
        tmp_path,
        "risk.ipynb",
        [
            "import pandas as pd\ntrain = pd.read_csv('train.csv'); test = pd.read_csv('test.csv')",
            made,
            "X = train[['LotArea']]; y = train['expensive']\nmodel.fit(X, y)\n"
            "print(accuracy_score(y_va, model.predict(X_va)))",
        ],
    )
    task = task_from_notebook(nb, tmp_path, "risk.ipynb")
    assert task.target_cols == ("expensive",) and task.metric_name == "accuracy"
    assert "a column the notebook's code makes from the training table" in task.notices[0]


@pytest.mark.parametrize(
    "recode",
    [
        "train['y'] = (train['default'] == 'Yes').astype(int)",
        "train['y'] = train['default'].map({'Yes': 1, 'No': 0})",
    ],
)
def test_a_target_recoded_from_the_column_the_test_table_lacks_is_that_column(
    tmp_path: Path, recode: str
) -> None:
    """``train['y'] = (train['default'] == 'Yes').astype(int)`` (hunt, session 26): the task's
    target was ``y``, which no table holds; the run ended ``failed`` (exit 1) with "missing
    column(s) ['y']" although a valid file of ``default`` had been written."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "customer_id": range(100),
            "student": rng.choice(["Yes", "No"], 100),
            "balance": rng.normal(800, 200, 100).round(2),
            "default": rng.choice(["Yes", "No"], 100, p=[0.2, 0.8]),
        }
    )
    frame.iloc[:80].to_csv(tmp_path / "train.csv", index=False)
    frame.iloc[80:].drop(columns="default").to_csv(tmp_path / "test.csv", index=False)
    nb = _nb(
        tmp_path,
        "churn.ipynb",
        [
            "import pandas as pd\ntrain = pd.read_csv('train.csv'); test = pd.read_csv('test.csv')",
            recode,
            "X_tr, X_va, y_tr, y_va = train_test_split(train[['balance']], train['y'])\n"
            "gbm = GradientBoostingClassifier().fit(X_tr, y_tr)\n"
            "print('AUC', roc_auc_score(y_va, gbm.predict_proba(X_va)[:, 1]))",
        ],
    )
    task = task_from_notebook(nb, tmp_path, "churn.ipynb")
    assert task.target_cols == ("default",) and task.metric_name == "roc_auc"
    assert "recodes as its target 'y'" in task.notices[0]


@pytest.mark.parametrize(
    ("choice", "metric"),
    [
        ("best = min(results, key=lambda k: results[k]['mae'])", "mae"),
        ("best = max(results, key=lambda k: results[k]['r2'])", "r2"),
        ("ranked = pd.DataFrame(results).T.sort_values(['mae'])", "mae"),
        ("best = list(results)[0]", "r2"),  # no pick by a metric: the last one computed
    ],
)
def test_the_metric_the_notebook_picks_its_model_by_is_its_metric(
    tmp_path: Path, choice: str, metric: str
) -> None:
    """Models in a dict scored by MAE and R², the best picked by MAE (hunt, session 23): the run
    took R² (the last call) and refined for it; held-out MAE 48.2 against 45.4."""
    _houses(tmp_path)
    nb = _nb(
        tmp_path,
        "dict.ipynb",
        [
            "import pandas as pd\nfrom sklearn import metrics\n"
            "train = pd.read_csv('train.csv'); test = pd.read_csv('test.csv')\n"
            "X = train[['LotArea']]; y = train['SalePrice']",
            "results = {}\nfor name, mdl in models.items():\n    mdl.fit(X_tr, y_tr)\n"
            "    p = mdl.predict(X_va)\n    results[name] = {'mae': "
            "metrics.mean_absolute_error(y_va, p), 'r2': metrics.r2_score(y_va, p)}",
            choice,
        ],
    )
    task = task_from_notebook(nb, tmp_path, "dict.ipynb")
    assert task.metric_name == metric


def test_gzipped_tables_beside_the_notebook_are_its_data(tmp_path: Path) -> None:
    """Hunt, session 24: ``pd.read_csv('train.csv.gz')`` beside the notebook was refused with
    "reads no data file found under it"."""
    _houses(tmp_path)
    for name in ("train", "test"):
        pd.read_csv(tmp_path / f"{name}.csv").to_csv(tmp_path / f"{name}.csv.gz", index=False)
        (tmp_path / f"{name}.csv").unlink()
    nb = _nb(
        tmp_path,
        "gz.ipynb",
        [
            "import pandas as pd\ntrain = pd.read_csv('train.csv.gz')\n"
            "test = pd.read_csv('test.csv.gz')\ny = train['SalePrice']",
            "model.fit(X, y)\nprint(mean_absolute_error(y_va, model.predict(X_va)))",
        ],
    )
    task = task_from_notebook(nb, tmp_path)
    assert task.target == "SalePrice" and task.metric_name == "mae"
    assert [(f.path, f.role) for f in task.files] == [
        ("train.csv.gz", "train"),
        ("test.csv.gz", "test"),
    ]


def test_a_zip_of_several_tables_is_told_which_file_to_read(tmp_path: Path) -> None:
    """Hunt, session 24: ``data.zip`` holding train.csv and test.csv, read with ZipFile; the
    advice said ``pd.read_csv('data')``, a file that does not exist."""
    import zipfile

    _houses(tmp_path / "tables")
    with zipfile.ZipFile(tmp_path / "data.zip", "w") as zf:
        for name in ("train.csv", "test.csv"):
            zf.write(tmp_path / "tables" / name, name)
    import shutil

    shutil.rmtree(tmp_path / "tables")
    nb = _nb(
        tmp_path,
        "z.ipynb",
        [
            "import zipfile, pandas as pd\nz = zipfile.ZipFile('data.zip')\n"
            "train = pd.read_csv(z.open('train.csv'))",
        ],
    )
    with pytest.raises(NotebookTaskError) as e:
        task_from_notebook(nb, tmp_path, "z.ipynb")
    assert "unzip data.zip" in str(e.value) and "pd.read_csv('train.csv')" in str(e.value)
