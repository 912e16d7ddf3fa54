"""Outsiders' notebooks that write into a folder of their project (hunt, sessions 26-27).

A notebook kept in ``notebooks/`` beside ``data/`` and ``outputs/`` writes its submission with
``to_csv('../outputs/submission.csv')`` or ``DATA.parent / 'outputs' / 'submission.csv'``; the
run's work folder has no such folder, the write failed ("Cannot save file into a non-existent
directory"), the offline debugger did not know that failure and the run ended
``not_understood``, its solutions taken from the catalog instead of the user's notebook.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pandas as pd
import pytest
from sklearn.datasets import load_diabetes

from mlestar_jupyter import api
from mlestar_jupyter.agent.run import RunOutcome
from mlestar_jupyter.notebook import SolutionNotebook
from mlestar_jupyter.offline.debug_fixes import missing_folder


def _run_notebook(notebook: Path, cells: tuple[str, ...], out: Path) -> RunOutcome:
    """``cells`` written as ``notebook`` and a short offline run from it (one path, no ensemble)."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    nbformat.write(nb, notebook)
    return api.run(
        notebook.parent.parent if notebook.parent.name == "notebooks" else notebook.parent,
        notebook=notebook,
        out=out,
        time_limit=120,  # it ends when nothing is left to refine (about 45 s on a quiet machine)
        parallel=1,
        ensemble_rounds=0,
    )


PANDAS = (
    "OSError                                   Traceback (most recent call last)\n"
    "----> 2 sub.to_csv({path!r}, index=False)\n"
    "OSError: Cannot save file into a non-existent directory: {folder!r}"
)


def _nb(*cells: str) -> SolutionNotebook:
    return SolutionNotebook.new([("code", c) for c in cells])


def test_the_folder_a_write_found_missing_is_made_in_the_failed_cell() -> None:
    nb = _nb("import pandas as pd", "sub = pd.DataFrame()\nsub.to_csv('outputs/sub.csv')")
    bid = nb.block_ids[1]
    error = PANDAS.format(path="outputs/sub.csv", folder="outputs")
    fixed = missing_folder(nb, error, bid)
    assert fixed is not None
    src = fixed.block(bid).source
    assert src.startswith("import os\nos.makedirs('outputs', exist_ok=True)")
    assert src.endswith("sub.to_csv('outputs/sub.csv')")
    assert missing_folder(fixed, error, bid) is None  # made already: the debugger is stuck


def test_a_folder_above_the_notebook_s_is_written_inside_the_work_folder() -> None:
    nb = _nb("sub.to_csv('../outputs/submission.csv', index=False)")
    bid = nb.block_ids[0]
    error = PANDAS.format(path="../outputs/submission.csv", folder="../outputs")
    fixed = missing_folder(nb, error, bid)
    assert fixed is not None
    assert fixed.block(bid).source.endswith("sub.to_csv('outputs/submission.csv', index=False)")
    assert "os.makedirs('outputs', exist_ok=True)" in fixed.block(bid).source
    # the same folder made by code: no literal to move, no fix
    computed = _nb("sub.to_csv(ROOT / '..' / 'outputs' / 'submission.csv')")
    assert missing_folder(computed, error, computed.block_ids[0]) is None


@pytest.mark.parametrize(
    ("error", "made"),
    [
        (  # matplotlib's savefig, numpy's save: open() of a missing folder
            "----> 3 plt.savefig('figures/roc.png')\n"
            "FileNotFoundError: [Errno 2] No such file or directory: 'figures/roc.png'",
            "figures",
        ),
        (
            "----> 1 torch.save(model.state_dict(), 'models/net.pt')\n"
            "RuntimeError: Parent directory models does not exist.",
            "models",
        ),
        (  # a read of a missing file is no write: nothing to make
            "----> 1 df = pd.read_csv('data/train.csv')\n"
            "FileNotFoundError: [Errno 2] No such file or directory: 'data/train.csv'",
            None,
        ),
        (  # the task's data stays as it is
            PANDAS.format(path="input/x/sub.csv", folder="input/x"),
            None,
        ),
        (PANDAS.format(path="/home/me/out/sub.csv", folder="/home/me/out"), None),
    ],
)
def test_which_failures_are_a_missing_folder(error: str, made: str | None) -> None:
    nb = _nb("x = 1")
    fixed = missing_folder(nb, error, nb.block_ids[0])
    if made is None:
        assert fixed is None
    else:
        assert fixed is not None
        assert f"os.makedirs({made!r}, exist_ok=True)" in fixed.block(nb.block_ids[0]).source


CELLS = (
    "import numpy as np\nimport pandas as pd\nfrom pathlib import Path\n"
    "from sklearn.linear_model import Ridge\nfrom sklearn.model_selection import train_test_split\n"
    "from sklearn.metrics import mean_squared_error\nDATA = Path('..') / 'data'",
    "train = pd.read_csv(DATA / 'train.csv')\ntest = pd.read_csv(DATA / 'test.csv')",
    "X = train.drop(columns=['id', 'target']); y = train['target']\n"
    "Xtr, Xva, ytr, yva = train_test_split(X, y, random_state=0)\n"
    "model = Ridge(alpha=0.1).fit(Xtr, ytr)\n"
    "print(f'RMSE {np.sqrt(mean_squared_error(yva, model.predict(Xva))):.2f}')",
    "model.fit(X, y)\n"
    "pd.DataFrame({'id': test.id, 'target': model.predict(test.drop(columns=['id']))})"
    ".to_csv(DATA.parent / 'outputs' / 'submission.csv', index=False)",
)


@pytest.mark.slow
def test_a_repository_notebook_writing_into_its_outputs_folder_is_refined(tmp_path: Path) -> None:
    """Hunt A7 (session 26): ``DATA = Path('..') / 'data'`` and the submission written to
    ``DATA.parent / 'outputs'``: the user's notebook is now the run's starting point."""
    frame = load_diabetes(as_frame=True, scaled=False).frame
    frame.insert(0, "id", range(len(frame)))
    root = tmp_path / "project"
    for d in ("notebooks", "data", "outputs"):
        (root / d).mkdir(parents=True)
    frame.iloc[:350].to_csv(root / "data" / "train.csv", index=False)
    frame.iloc[350:].drop(columns="target").to_csv(root / "data" / "test.csv", index=False)
    out = _run_notebook(root / "notebooks" / "model.ipynb", CELLS, tmp_path / "run")
    assert out.status == "done", out.stop_reason
    assert out.final.ok and out.final.rung == "best", out.final
    sub = pd.read_csv(out.final.submission)
    assert list(sub.columns) == ["id", "target"] and len(sub) == len(frame) - 350
    assert sub["target"].nunique() > 50


# --------------------------------------------------------------------------- coded targets
@pytest.mark.parametrize(
    ("line", "want"),
    [
        ("y = df['diagnosis'].map({'malignant': 1, 'benign': 0})", {1: "malignant", 0: "benign"}),
        (
            'y = df["diagnosis"].replace({"benign": 1, "malignant": 0})',
            {1: "benign", 0: "malignant"},
        ),
        ("y = (df['diagnosis'] == 'malignant').astype(int)", {1: "malignant", 0: "benign"}),
        ("y = np.where(df.diagnosis == 'benign', 1, 0)", {1: "benign", 0: "malignant"}),
        ("y = LabelEncoder().fit_transform(df['diagnosis'])", {0: "benign", 1: "malignant"}),
        ("y = df['diagnosis'].astype('category').cat.codes", {0: "benign", 1: "malignant"}),
        ("y = df['diagnosis']", None),  # no coding
        ("y = df['diagnosis'].map({'malignant': 1})", None),  # does not cover the classes
        ("y = df['other'].map({'malignant': 1, 'benign': 0})", None),  # another column
    ],
)
def test_the_numbers_a_notebook_codes_its_classes_by_are_read(
    line: str, want: dict[int, str] | None
) -> None:
    from mlestar_jupyter.offline.user_code.target_coding import target_decoding

    nb = _nb("import pandas as pd\ndf = pd.read_csv('input/train.csv')", line)
    assert target_decoding(nb, "diagnosis", ["benign", "malignant"]) == want


CODED = (
    "import pandas as pd\nfrom sklearn.linear_model import LogisticRegression\n"
    "from sklearn.model_selection import train_test_split\nfrom sklearn.metrics import f1_score",
    "df = pd.read_csv('tumours.csv')\nX = df.drop(columns=['diagnosis'])\n"
    "y = df['diagnosis'].map({'malignant': 1, 'benign': 0})",
    "X_tr, X_va, y_tr, y_va = train_test_split(X, y, test_size=0.25, random_state=1)\n"
    "clf = LogisticRegression(max_iter=5000).fit(X_tr, y_tr)\n"
    "print('F1:', round(f1_score(y_va, clf.predict(X_va)), 4))",
)


@pytest.mark.slow
def test_a_target_coded_as_numbers_is_handed_in_as_its_classes(tmp_path: Path) -> None:
    """Hunt A2 (session 26): a notebook that maps yes/no (here malignant/benign) to 1/0 and never
    predicts the test table got an added submission cell writing 0 and 1, which the task's check
    refuses (its classes are words): the catalog's file was handed in, not the notebook's."""
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer(as_frame=True)
    frame = data.frame.rename(columns=lambda c: c.replace(" ", "_"))
    frame["diagnosis"] = frame.pop("target").map({0: "malignant", 1: "benign"})
    root = tmp_path / "tumours"
    root.mkdir()
    frame.iloc[:450].to_csv(root / "tumours.csv", index=False)
    frame.iloc[450:].drop(columns="diagnosis").to_csv(root / "test.csv", index=False)
    out = _run_notebook(root / "model.ipynb", CODED, tmp_path / "run")
    assert out.final.ok and out.final.rung == "best", out.final
    sub = pd.read_csv(out.final.submission)
    assert set(sub["diagnosis"]) == {"malignant", "benign"}
    truth = frame.iloc[450:]["diagnosis"].to_numpy()
    assert (sub["diagnosis"].to_numpy() == truth).mean() > 0.9


# --------------------------------------------------------------------------- cell magics
def test_lines_put_at_a_cell_s_top_keep_its_cell_magic_first() -> None:
    """Hunt C (session 27): ``import os`` was put above ``%%time`` in a submission cell; IPython
    then read ``%%time`` as an unknown line magic, the cell did not run, no submission was
    written and the catalog's file was handed in instead of the refined notebook's."""
    from mlestar_jupyter.notebook.cell_head import with_head
    from mlestar_jupyter.offline.user_code.submission_files import final_outputs

    cell = "%%time\nrf.fit(X, y)\nsub.to_csv('submission.csv', index=False)"
    out = final_outputs(_nb("x = 1", cell))
    src = out.block(out.block_ids[1]).source
    assert src.startswith("%%time\nimport os\n")
    assert "sub.to_csv('final/submission.csv', index=False)" in src
    assert with_head("%%capture\nfrom __future__ import annotations\nx = 1", "import os") == (
        "%%capture\nfrom __future__ import annotations\nimport os\nx = 1"
    )
    error = PANDAS.format(path="outputs/sub.csv", folder="outputs")
    nb = _nb("%%time\nsub.to_csv('outputs/sub.csv')")
    fixed = missing_folder(nb, error, nb.block_ids[0])
    assert fixed is not None and fixed.block(nb.block_ids[0]).source.startswith("%%time\nimport os")


# --------------------------------------------------------------------------- to_csv's index
INDEXED = (
    "import pandas as pd\nfrom sklearn.neighbors import KNeighborsClassifier\n"
    "from sklearn.model_selection import train_test_split",
    "train = pd.read_csv('train.csv')\ntest = pd.read_csv('test.csv')\n"
    "X = train.drop(columns=['id', 'cultivar']); y = train['cultivar']\n"
    "X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)\n"
    "knn = KNeighborsClassifier().fit(X_train, y_train)\n"
    "print('accuracy', knn.score(X_test, y_test))",
    "knn.fit(X, y)\n"
    "sub = pd.DataFrame({'id': test['id'], 'cultivar': knn.predict(test.drop(columns='id'))})\n"
    "sub.to_csv('submission.csv')",
)


@pytest.mark.slow
def test_a_submission_written_with_its_row_numbers_is_handed_in_without_them(
    tmp_path: Path,
) -> None:
    """Hunt C (session 27): ``sub.to_csv('submission.csv')`` without ``index=False`` writes an
    unnamed first column of row numbers; every candidate's file failed the check ("columns are
    ['Unnamed: 0', 'id', 'cultivar']") and the catalog's file was handed in."""
    from sklearn.datasets import load_wine

    frame = load_wine(as_frame=True).frame.rename(columns={"target": "cultivar"})
    frame["cultivar"] = frame["cultivar"].map({0: "barolo", 1: "grignolino", 2: "barbera"})
    frame = frame.sample(frac=1.0, random_state=0)
    frame.insert(0, "id", range(500, 500 + len(frame)))
    root = tmp_path / "wine"
    root.mkdir()
    frame.iloc[:130].to_csv(root / "train.csv", index=False)
    frame.iloc[130:].drop(columns="cultivar").to_csv(root / "test.csv", index=False)
    frame.iloc[130:][["id"]].assign(cultivar="barolo").to_csv(
        root / "sample_submission.csv", index=False
    )
    out = _run_notebook(root / "knn.ipynb", INDEXED, tmp_path / "run")
    assert out.final.ok and out.final.rung == "best", out.final
    sub = pd.read_csv(out.final.submission)
    assert list(sub.columns) == ["id", "cultivar"] and len(sub) == len(frame) - 130
    from mlestar_jupyter.journal import read_events

    told = [
        e.data.get("message", "")
        for e in read_events(tmp_path / "run" / "events.jsonl")
        if e.type == "warning"
    ]
    assert any("row numbers to_csv writes without index=False" in m for m in told)


def test_a_notebook_set_aside_says_first_which_package_the_kernels_lack() -> None:
    """Hunt C (session 27): a statsmodels notebook on a machine without statsmodels was told
    "found a model fit (`final`, `ols`) but no validation rows ..."; the missing package, what
    the user has to act on first, showed only as a later warning."""
    from mlestar_jupyter.agent.missing_modules import lacking_imports
    from mlestar_jupyter.agent.user_notebook import prepare_user_notebook
    from mlestar_jupyter.task import load_task

    nb = _nb(
        "import pandas as pd\nimport os, json\nimport mlestar_no_such_module.formula.api as smf",
        "df = pd.read_csv('input/train.csv')\nfinal = smf.ols('y ~ x', data=df).fit()",
    )
    assert lacking_imports(nb, lambda m: m != "mlestar_no_such_module") == [
        "mlestar_no_such_module"
    ]
    task = load_task(Path(__file__).parents[2] / "example_notebooks" / "tasks" / "breast-cancer")
    prepared = prepare_user_notebook(nb, task, installed=lambda m: m != "mlestar_no_such_module")
    assert not prepared.understood
    assert prepared.reason.startswith(
        "it imports mlestar_no_such_module, which the run's kernels lack (install it where "
        "Jupyter runs: pip install mlestar_no_such_module); and "
    )


# --------------------------------------------------------------------------- a torch score
TORCH = (
    "import numpy as np, pandas as pd\nimport torch\nimport torch.nn as nn\ntorch.manual_seed(0)",
    "df = pd.read_csv('input/train.csv')\nfeat = [c for c in df.columns if c not in ('id', 'y')]\n"
    "X = torch.tensor(df[feat].values, dtype=torch.float32)\n"
    "y = torch.tensor(df['y'].values)\nXtr, ytr, Xva, yva = X[:300], y[:300], X[300:], y[300:]",
    "model = nn.Sequential(nn.Linear(X.shape[1], 16), nn.ReLU(), nn.Linear(16, 2))\n"
    "opt = torch.optim.Adam(model.parameters(), lr=1e-2)\nloss_fn = nn.CrossEntropyLoss()\n"
    "for epoch in range(30):\n    opt.zero_grad()\n    loss = loss_fn(model(Xtr), ytr)\n"
    "    loss.backward()\n    opt.step()",
    "model.eval()\nwith torch.no_grad():\n"
    "    acc = (model(Xva).argmax(1) == yva).float().mean().item()\nprint(f'val acc {acc:.4f}')",
)


def test_a_torch_accuracy_written_out_by_hand_is_the_validation_score(tmp_path: Path) -> None:
    """Hunt A10 (session 26): ``acc = (model(Xva).argmax(1) == yva).float().mean().item()``
    was not read: "found a model fit (a torch model) but no validation rows ...", and the
    notebook was set aside."""
    from kernel import run_notebook
    from sklearn.datasets import load_breast_cancer

    from mlestar_jupyter.agent.user_notebook import prepare_user_notebook
    from mlestar_jupyter.importer.notebook_task import hand_written_metric
    from mlestar_jupyter.task import load_task

    assert hand_written_metric(TORCH[3].splitlines()[2]) == "accuracy"
    frame = load_breast_cancer(as_frame=True).frame.rename(columns={"target": "y"})
    frame = frame.rename(columns=lambda c: c.replace(" ", "_")).sample(frac=1, random_state=0)
    frame.insert(0, "id", range(len(frame)))
    inp = tmp_path / "input"
    inp.mkdir()
    frame.iloc[:400].to_csv(inp / "train.csv", index=False)
    frame.iloc[400:].drop(columns="y").to_csv(inp / "test.csv", index=False)
    (tmp_path / "task.json").write_text(
        '{"goal": "malignant?", "metric": "accuracy", "target_col": "y", "id_col": "id"}'
    )
    task = load_task(tmp_path)
    prepared = prepare_user_notebook(_nb(*TORCH), task)
    assert prepared.understood, prepared.reason
    ran = run_notebook(prepared.notebook, task.root, tmp_path / "work")
    printed = float(ran.output.split("val acc ")[1].split()[0])
    assert ran.score == pytest.approx(printed, abs=1e-4) and printed > 0.8
