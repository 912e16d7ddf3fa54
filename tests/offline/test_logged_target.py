"""A house-price notebook that fits the log of the price and prints the RMSE of the logs: that
number is the RMSLE of the prices.  The task is read as RMSLE, and the added validation cell
scores the notebook's own log values by their RMSE (the RMSLE of logs would take a second log)."""

from __future__ import annotations

from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
import pytest
from kernel import run_notebook

from mlestar_jupyter.agent.user_notebook import prepare_user_notebook
from mlestar_jupyter.importer.notebook_task import task_from_notebook
from mlestar_jupyter.notebook import SolutionNotebook
from mlestar_jupyter.task import Task

CELLS = (
    "import numpy as np, pandas as pd\nfrom sklearn.linear_model import Ridge\n"
    "from sklearn.model_selection import train_test_split\n"
    "from sklearn.metrics import mean_squared_error",
    "train = pd.read_csv('train.csv')\nX = train[['area', 'rooms']]\ny = np.log1p(train['price'])\n"
    "X_tr, X_va, y_tr, y_va = train_test_split(X, y, test_size=0.25, random_state=0)",
    "model = Ridge(alpha=1.0)\nmodel.fit(X_tr, y_tr)\npred = model.predict(X_va)\n"
    "rmse = np.sqrt(mean_squared_error(y_va, pred))\nprint(f'RMSE of logs {rmse:.6f}')",
)


def _houses(tmp_path: Path, cells: tuple[str, ...]) -> tuple[SolutionNotebook, Task]:
    """300 houses' area, rooms and price in ``train.csv``, the notebook of ``cells`` beside it,
    and the task read from it."""
    rng = np.random.default_rng(0)
    area = rng.uniform(40, 250, 300)
    rooms = rng.integers(1, 7, 300)
    price = np.exp(10 + 0.006 * area + 0.05 * rooms + rng.normal(0, 0.2, 300))
    pd.DataFrame({"area": area, "rooms": rooms, "price": price.round()}).to_csv(
        tmp_path / "train.csv", index=False
    )
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    nbformat.write(nb, tmp_path / "houses.ipynb")
    read = SolutionNotebook.read(tmp_path / "houses.ipynb")
    task = task_from_notebook(read, tmp_path, "houses.ipynb")
    return read, task


def test_the_logged_target_is_scored_by_the_rmse_of_its_logs(tmp_path: Path) -> None:
    read, task = _houses(tmp_path, CELLS)
    assert task.metric_name == "rmsle" and task.target == "price"
    prepared = prepare_user_notebook(read, task)
    ran = run_notebook(prepared.notebook, task.root, tmp_path / "work")
    printed = float(ran.output.split("RMSE of logs ")[1].split()[0])
    assert 0.1 < printed < 0.4 and ran.score == pytest.approx(printed, abs=1e-5)


def test_a_logged_target_gets_no_second_log() -> None:
    """ "Model log1p of the target" wrapped a model that already fits log prices."""
    from mlestar_jupyter.offline.user_code import applicable, parts

    nb = SolutionNotebook.new([("other", c) for c in CELLS])
    (model,) = [p for p in parts(nb) if p.role == "model"]
    assert model.logged_target
    assert "target_transform" not in {s.id for s, _ in applicable(model)}
    plain = SolutionNotebook.new(
        [("other", c.replace("np.log1p(train['price'])", "train['price']")) for c in CELLS]
    )
    (model,) = [p for p in parts(plain) if p.role == "model"]
    assert "target_transform" in {s.id for s, _ in applicable(model)}


TURNED_BACK = (
    CELLS[0],
    "train = pd.read_csv('train.csv')\ny = np.log1p(train.pop('price'))\n"
    "X = train[['area', 'rooms']]\n"
    "X_tr, X_va, y_tr, y_va = train_test_split(X, y, test_size=0.25, random_state=0)",
    "model = Ridge(alpha=1.0)\nmodel.fit(X_tr, y_tr)\npred = np.expm1(model.predict(X_va))\n"
    "rmse = np.sqrt(mean_squared_error(np.expm1(y_va), pred))\nprint(f'Validation RMSE: {rmse:.3f}')",
)


def test_a_log_turned_back_is_scored_in_the_target_s_units(tmp_path: Path) -> None:
    """Hunt C (session 27): ``y = np.log1p(train.pop('price'))`` was not seen as a logged target,
    so "Model log1p of the target" logged it twice; and the added cell scored the model on the
    split's logs (RMSE 0.44) while the notebook grades prices after ``np.expm1`` (RMSE 58): the
    run is graded in the notebook's own units, RMSE of prices, not RMSLE."""
    from mlestar_jupyter.offline.user_code import parts

    read, task = _houses(tmp_path, TURNED_BACK)
    assert task.metric_name == "rmse" and task.target == "price"
    (model,) = [p for p in parts(read) if p.role == "model"]
    assert model.logged_target
    prepared = prepare_user_notebook(read, task)
    ran = run_notebook(prepared.notebook, task.root, tmp_path / "work")
    printed = float(ran.output.split("Validation RMSE: ")[1].split()[0])
    assert printed > 1000 and ran.score == pytest.approx(printed, abs=1e-3)


BIKE_CELLS = (
    "import numpy as np, pandas as pd\nfrom sklearn.linear_model import Ridge\n"
    "from sklearn.metrics import mean_squared_log_error",
    "train = pd.read_csv('train.csv')\ntest = pd.read_csv('test.csv')\nfeatures = ['hour', 'temp']\n"
    "val_mask = train['day'] >= 16\nmodel = Ridge(alpha=1.0)\n"
    "model.fit(train.loc[~val_mask, features], np.log1p(train.loc[~val_mask, 'count']))\n"
    "pred = np.expm1(model.predict(train.loc[val_mask, features]))\n"
    "print('RMSLE', np.sqrt(mean_squared_log_error(train.loc[val_mask, 'count'], pred)))",
    "model.fit(train[features], np.log1p(train['count']))\n"
    "sub = pd.DataFrame({'count': np.expm1(model.predict(test[features]))})\n"
    "sub.to_csv('submission.csv', index=False)",
)


def test_a_log_error_on_counts_is_scored_as_rmsle_not_as_rmse(tmp_path: Path) -> None:
    """Kaggle's bike-sharing notebook: it fits log1p(count) and prints the RMSLE of the counts
    turned back (``mean_squared_log_error(y, np.expm1(...))``, no split).  The validation cell
    took the RMSE of those counts (12.9 where the notebook printed 0.16), so every refinement was
    compared on another metric than the task's."""
    rng = np.random.default_rng(1)
    n = 400
    hour, temp, day = rng.integers(0, 24, n), rng.uniform(0, 35, n), rng.integers(1, 20, n)
    count = np.maximum(1, rng.poisson(20 + 8 * np.abs(hour - 12) + 2 * temp))
    rows = pd.DataFrame({"day": day, "hour": hour, "temp": temp, "count": count})
    rows.to_csv(tmp_path / "train.csv", index=False)
    rows.drop(columns="count").to_csv(tmp_path / "test.csv", index=False)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in BIKE_CELLS]
    nbformat.write(nb, tmp_path / "bike.ipynb")
    read = SolutionNotebook.read(tmp_path / "bike.ipynb")
    task = task_from_notebook(read, tmp_path, "bike.ipynb")
    assert task.metric_name == "rmsle" and task.target == "count"
    prepared = prepare_user_notebook(read, task)
    ran = run_notebook(prepared.notebook, task.root, tmp_path / "work")
    printed = float(ran.output.split("RMSLE ")[1].split()[0])
    assert 0.05 < printed < 2 and ran.score == pytest.approx(printed, abs=1e-5)
