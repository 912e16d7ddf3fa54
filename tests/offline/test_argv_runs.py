"""A script turned notebook that calls ``parser.parse_args()`` (no ``args=[]``) parses an empty
command line, each setting keeping its default, and is run, scored and refined (offline
backend, real kernels for the slow test).

Hunt J (session 31): in any Jupyter kernel ``sys.argv`` is the kernel's own (``-f
kernel.json``), so ``args = parser.parse_args()`` stopped the notebook with ``SystemExit: 2``
("unrecognized arguments"), and the run set it aside."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pandas as pd
import pytest
from sklearn.datasets import load_diabetes
from user_runs import run_user_notebook, user_notebook

from mlestar_jupyter.agent.argv_calls import empty_argv
from mlestar_jupyter.agent.changes import restore_paths
from mlestar_jupyter.agent.user_notebook import prepare_user_notebook
from mlestar_jupyter.notebook import SolutionNotebook
from mlestar_jupyter.task import load_task

CELLS = (
    "import argparse\nimport os\nimport pandas as pd\n"
    "from sklearn.ensemble import RandomForestRegressor\n"
    "from sklearn.model_selection import train_test_split\n"
    "from sklearn.metrics import mean_absolute_error",
    "def get_args():\n    parser = argparse.ArgumentParser(description='Diabetes baseline')\n"
    "    parser.add_argument('--data-dir', type=str, default='data',\n"
    "                        help='folder with train.csv and test.csv')\n"
    "    parser.add_argument('--seed', type=int, default=42)\n"
    "    parser.add_argument('--n-trees', type=int, default=60)\n"
    "    return parser.parse_args()\n\nargs = get_args()\nprint(args)",
    "train = pd.read_csv(os.path.join(args.data_dir, 'train.csv'))\n"
    "test = pd.read_csv(os.path.join(args.data_dir, 'test.csv'))",
    "features = [c for c in train.columns if c not in ('id', 'y')]\n"
    "X_tr, X_val, y_tr, y_val = train_test_split(train[features], train['y'], test_size=0.2,"
    " random_state=args.seed)\n"
    "rf = RandomForestRegressor(n_estimators=args.n_trees, min_samples_leaf=3,"
    " random_state=args.seed, n_jobs=1)\nrf.fit(X_tr, y_tr)\n"
    "print('Validation MAE:', mean_absolute_error(y_val, rf.predict(X_val)))",
    "rf.fit(train[features], train['y'])\n"
    "pd.DataFrame({'id': test['id'], 'y': rf.predict(test[features])})"
    ".to_csv('submission.csv', index=False)",
)


def diabetes_folder(folder: Path) -> Path:
    """sklearn's diabetes table as ``data/train.csv`` and ``data/test.csv`` (the notebook's
    ``--data-dir`` default) beside a description naming MAE."""
    df = load_diabetes(as_frame=True).frame.rename(columns={"target": "y"})
    df.insert(0, "id", range(len(df)))
    (folder / "data").mkdir(parents=True)
    df.iloc[:330].to_csv(folder / "data" / "train.csv", index=False)
    df.iloc[330:].drop(columns=["y"]).to_csv(folder / "data" / "test.csv", index=False)
    (folder / "description.md").write_text(
        "# Diabetes progression\n\nPredict `y`, disease progression one year after baseline.\n\n"
        "## Evaluation\n\nMean absolute error (MAE).\n",
        encoding="utf-8",
    )
    return folder


def cells_of(*sources: str) -> SolutionNotebook:
    """A notebook of ``sources`` with a first cell importing argparse."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("import argparse"),
        *map(nbformat.v4.new_code_cell, sources),
    ]
    return SolutionNotebook(nb)


@pytest.mark.parametrize(
    ("written", "run"),
    [
        ("args = parser.parse_args()", "args = parser.parse_args(args=[])"),
        ("args, _ = p.parse_known_args()", "args, _ = p.parse_known_args(args=[])"),
        (
            "def main():\n    args = parser.parse_args(namespace=ns)\n    return args",
            "def main():\n    args = parser.parse_args(args=[], namespace=ns)\n    return args",
        ),
        ("cfg = vars(ap.parse_args( ))", "cfg = vars(ap.parse_args(args=[] ))"),
    ],
)
def test_a_parse_call_without_arguments_parses_an_empty_command_line(
    written: str, run: str
) -> None:
    nb, changes = empty_argv(cells_of(written))
    assert nb.code_blocks[1].source == run
    assert changes and {c.kind for c in changes} == {"argv"}
    block = nb.code_blocks[1].id
    assert restore_paths(run, block, changes) == written  # a proposal gives the user's line back


@pytest.mark.parametrize(
    "written",
    [
        "args = parser.parse_args([])",
        "args = parser.parse_args(args=sys.argv[2:])",
        "args = parser.parse_args(['--lr', '0.1'])",
        "opts = parse_args()",
        "%time x = p.parse_args(",
    ],
)
def test_a_parse_call_given_its_arguments_is_left_alone(written: str) -> None:
    nb = cells_of(written)
    assert empty_argv(nb) == (nb, ())


def test_a_notebook_without_argparse_is_left_alone() -> None:
    nb = user_notebook(["args = settings.parse_args()"])
    assert empty_argv(nb) == (nb, ())


def test_the_change_is_noted_above_the_cell(tmp_path: Path) -> None:
    task = load_task(diabetes_folder(tmp_path))
    prepared = prepare_user_notebook(user_notebook(CELLS), task, gpu=False)
    assert prepared.understood, prepared.reason
    code = "\n".join(b.source for b in prepared.notebook.code_blocks)
    assert "return parser.parse_args(args=[])" in code and "default='input'" in code
    script = prepared.notebook.to_script(markdown=True)
    assert "argparse refuses" in script and "`return parser.parse_args()`" in script


@pytest.mark.slow
def test_a_bare_parse_args_notebook_is_run_scored_and_refined(tmp_path: Path) -> None:
    task = diabetes_folder(tmp_path / "task")
    out, evs = run_user_notebook(CELLS, tmp_path, task)
    understanding = next(d for t, d in evs if t == "understanding")
    assert understanding["understood"], understanding
    assert any(c[3] == "argv" for c in understanding["data_paths"])
    user = next(d for t, d in evs if t == "candidate" and d["id"] == "user")
    assert user["error"] is None and user["score"] is not None and 30 < user["score"] < 70
    assert any(t == "candidate" and d.get("phase") == "refine" for t, d in evs)
    assert out.final.ok  # type: ignore[attr-defined]
    sub = pd.read_csv(out.final.submission)  # type: ignore[attr-defined]
    assert list(sub.columns) == ["id", "y"] and len(sub) == 112
