"""Press the button on a notebook whose folder holds only the notebook and its data (no task.json):
the task is read from the notebook, and the run refines it in real kernels."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pandas as pd
import pytest
from sklearn.datasets import load_diabetes, load_wine

from mlestar_jupyter import api
from mlestar_jupyter.journal import read_events

pytestmark = pytest.mark.slow

SMALL = dict(time_limit=150, models=1, inner=2, outer=1, parallel=1, ensemble_rounds=0)


def _write(folder: Path, name: str, cells: list[str]) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    nbformat.write(nb, folder / name)
    return folder / name


def test_a_lab_notebook_without_test_rows_is_refined_and_its_notebook_is_the_result(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "lab"
    folder.mkdir()
    wine = load_wine(as_frame=True).frame
    wine["target"] = wine["target"].map({0: "barolo", 1: "grignolino", 2: "barbera"})
    wine.to_csv(folder / "wine.csv", index=False)
    nb = _write(
        folder,
        "Wine lab.ipynb",
        [
            "%matplotlib inline\nimport pandas as pd\n"
            "from sklearn.model_selection import train_test_split\n"
            "from sklearn.tree import DecisionTreeClassifier\n"
            "from sklearn.metrics import accuracy_score",
            "df = pd.read_csv('wine.csv')\nX = df.drop(columns=['target'])\ny = df['target']\n"
            "X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=3)",
            "tree = DecisionTreeClassifier(max_depth=2, random_state=0)\ntree.fit(X_train, y_train)\n"
            "print('accuracy', accuracy_score(y_test, tree.predict(X_test)))",
        ],
    )
    out = api.run(folder, out=tmp_path / "run", notebook=nb, **SMALL)
    assert out.status == "done", out.stop_reason
    assert out.final.ok and out.final.submission is None and out.final.notebook is not None
    meta = json.loads((tmp_path / "run" / "run.json").read_text())
    assert meta["task_source"] == "notebook"
    spec = json.loads((tmp_path / "run" / "task.json").read_text())
    assert spec["target_cols"] == ["target"] and spec["metric"] == "accuracy"
    evs = read_events(tmp_path / "run" / "events.jsonl")
    final = next(e.data for e in evs if e.type == "final")
    assert final["submission"] is None and "no test table" in final["reason"]
    user = next(e.data for e in evs if e.type == "candidate" and e.data["id"] == "user")
    assert 0.5 < user["score"] < 1.0  # the notebook's own split, scored in accuracy
    assert out.best_score is not None and out.best_score >= user["score"]
    assert not (folder / "runs").exists() and sorted(p.name for p in folder.iterdir()) == [
        "Wine lab.ipynb",
        "wine.csv",
    ]  # nothing written beside the user's files
    # a resumed run reads its task from the notebook again
    again = api.resume(tmp_path / "run")
    assert again.final.ok and again.final.submission is None


@pytest.mark.parametrize("written", ["submission.csv", "/kaggle/working/submission.csv"])
def test_a_kaggle_notebook_beside_data_writes_its_submission(tmp_path: Path, written: str) -> None:
    """Also one writing to Kaggle's working folder (it failed "Cannot save file into a
    non-existent directory: '/kaggle/working'"): that folder is the work folder."""
    folder = tmp_path / "kernel"
    (folder / "data").mkdir(parents=True)
    df = load_diabetes(as_frame=True).frame.rename(columns={"target": "progression"})
    df.insert(0, "PatientId", range(1000, 1000 + len(df)))
    df.iloc[:360].to_csv(folder / "data" / "train.csv", index=False)
    df.iloc[360:].drop(columns=["progression"]).to_csv(folder / "data" / "test.csv", index=False)
    nb = _write(
        folder,
        "kernel.ipynb",
        [
            "import numpy as np\nimport pandas as pd\n"
            "from sklearn.ensemble import RandomForestRegressor\n"
            "from sklearn.metrics import mean_squared_error\n"
            "from sklearn.model_selection import train_test_split",
            "DATA = 'data'\ntrain = pd.read_csv(f'{DATA}/train.csv')\n"
            "test = pd.read_csv(f'{DATA}/test.csv')",
            "feats = [c for c in train.columns if c not in ('PatientId', 'progression')]\n"
            "X_tr, X_va, y_tr, y_va = train_test_split(train[feats], train['progression'], "
            "random_state=0)\n"
            "rf = RandomForestRegressor(n_estimators=50, random_state=0).fit(X_tr, y_tr)\n"
            "print('RMSE', np.sqrt(mean_squared_error(y_va, rf.predict(X_va))))",
            "pd.DataFrame({'PatientId': test['PatientId'], 'progression': rf.predict(test[feats])})"
            f".to_csv({written!r}, index=False)",
        ],
    )
    out = api.run(folder, out=tmp_path / "run", notebook=nb, **SMALL)
    assert out.status == "done", out.stop_reason
    assert out.final.ok and out.final.submission is not None, out.final
    sub = pd.read_csv(out.final.submission)
    assert list(sub.columns) == ["PatientId", "progression"] and len(sub) == len(df) - 360
    evs = read_events(tmp_path / "run" / "events.jsonl")
    started = next(e.data for e in evs if e.type == "run_started")
    assert started["task"]["metric_name"] == "rmse" and started["task"]["id_col"] == "PatientId"
    user = next(e.data for e in evs if e.type == "candidate" and e.data["id"] == "user")
    assert user["ok"], user["error"]  # its submission cell ran too
    warned = [e.data["message"] for e in evs if e.type == "warning"]
    assert not any("not final/submission.csv" in w for w in warned), warned


def test_a_notebook_that_makes_its_own_data_is_refined_and_one_that_fails_says_so(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "week2"
    folder.mkdir()
    cells = [
        "from sklearn.datasets import load_iris\n"
        "from sklearn.model_selection import train_test_split\n"
        "from sklearn.neighbors import KNeighborsClassifier\nfrom sklearn import metrics",
        "X, y = load_iris(return_X_y=True)\n"
        "X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.4, random_state=4)",
        "knn = KNeighborsClassifier(n_neighbors=1)\nknn.fit(X_train, y_train)\n"
        "print(metrics.accuracy_score(y_test, knn.predict(X_test)))",
    ]
    nb = _write(folder, "knn.ipynb", cells)
    out = api.run(folder, out=tmp_path / "run", notebook=nb, **SMALL)
    assert out.status in ("done", "no_improvement"), out.stop_reason
    assert out.final.ok and out.final.submission is None
    evs = read_events(tmp_path / "run" / "events.jsonl")
    user = next(e.data for e in evs if e.type == "candidate" and e.data["id"] == "user")
    assert user["score"] is not None and out.best_score >= user["score"]

    broken = _write(
        folder, "broken.ipynb", [*cells[:2], cells[2].replace("print(", "1 / 0\nprint(")]
    )
    out = api.run(folder, out=tmp_path / "run2", notebook=broken, **SMALL)
    assert out.status == "not_understood"
    assert "makes its own data" in out.stop_reason and "ZeroDivisionError" in out.stop_reason


def test_a_notebook_reading_json_records_is_refined_on_its_own_code(tmp_path: Path) -> None:
    """Data in a format the catalog's templates do not read (JSON records): the layout has no
    tables, the user's code reads it, and the run refines that code."""
    folder = tmp_path / "json"
    (folder / "data").mkdir(parents=True)
    wine = load_wine(as_frame=True).frame
    wine.to_json(folder / "data" / "wine_records.json", orient="records")
    nb = _write(
        folder,
        "wine_json.ipynb",
        [
            "import pandas as pd\nfrom sklearn.linear_model import LogisticRegression\n"
            "from sklearn.model_selection import train_test_split\n"
            "from sklearn.metrics import f1_score",
            "df = pd.read_json('data/wine_records.json')\n"
            "X, y = df.drop(columns=['target']), df['target']\n"
            "X_tr, X_va, y_tr, y_va = train_test_split(X, y, random_state=0, stratify=y)",
            "lr = LogisticRegression(C=0.01, max_iter=300).fit(X_tr, y_tr)\n"
            "print(f1_score(y_va, lr.predict(X_va), average='macro'))",
        ],
    )
    out = api.run(folder, out=tmp_path / "run", notebook=nb, **SMALL)
    assert out.status in ("done", "no_improvement"), out.stop_reason
    evs = read_events(tmp_path / "run" / "events.jsonl")
    started = next(e.data for e in evs if e.type == "run_started")
    assert started["task"]["metric_name"] == "f1_macro"
    assert started["task"]["files"] == [
        {"path": "wine_records.json", "role": "train", "description": ""}
    ]
    user = next(e.data for e in evs if e.type == "candidate" and e.data["id"] == "user")
    assert user["score"] is not None and out.best_score >= user["score"]


def test_a_notebook_with_nothing_to_refine_says_so_not_that_nothing_beat_it(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "factory"
    folder.mkdir()
    nb = _write(
        folder,
        "factory.ipynb",
        [
            "from sklearn.datasets import load_breast_cancer\n"
            "from sklearn.model_selection import train_test_split\n"
            "from sklearn.metrics import accuracy_score",
            "X, y = load_breast_cancer(return_X_y=True)\n"
            "X_tr, X_va, y_tr, y_va = train_test_split(X, y, random_state=0)",
            # a model kept from an earlier session: nothing in the code builds it
            "import pickle\n\nwith open('model.pkl', 'rb') as f:\n    model = pickle.load(f)\n"
            "model.fit(X_tr, y_tr)\nprint(accuracy_score(y_va, model.predict(X_va)))",
        ],
    )
    import pickle

    from sklearn.linear_model import LogisticRegression

    (folder / "model.pkl").write_bytes(pickle.dumps(LogisticRegression(max_iter=3000)))
    out = api.run(folder, out=tmp_path / "run", notebook=nb, **SMALL)
    assert out.status == "no_improvement", out.stop_reason
    assert out.stop_reason.startswith("nothing in your notebook could be refined")
