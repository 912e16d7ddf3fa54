"""A user's notebook that splits without a seed was scored on other rows at every execution: a
run's refinements were compared on different validation sets (a "three times the rounds" change
to a booster that stops early moved the score from 0.9966 to 0.9990).  The seed cell a run puts
first makes two executions of the same notebook give the same score."""

from __future__ import annotations

from pathlib import Path

from kernel import run_notebook
from user_runs import code_notebook as _nb

from mlestar_jupyter.agent.seeding import ORIGIN, seed_cell
from mlestar_jupyter.agent.user_notebook import prepare_user_notebook
from mlestar_jupyter.task import load_task

BREAST_CANCER = Path(__file__).parents[2] / "example_notebooks" / "tasks" / "breast-cancer"


UNSEEDED = _nb(
    "import pandas as pd\nfrom sklearn.model_selection import train_test_split\n"
    "from sklearn.tree import DecisionTreeClassifier",
    "df = pd.read_csv('input/train.csv')\nX, y = df.drop(columns=['id', 'target']), df['target']\n"
    "X_tr, X_va, y_tr, y_va = train_test_split(X, y, test_size=0.3)",  # no random_state
    "tree = DecisionTreeClassifier(max_depth=3)\ntree.fit(X_tr, y_tr)",
)


def test_two_executions_of_an_unseeded_notebook_score_the_same(tmp_path: Path) -> None:
    prepared = prepare_user_notebook(UNSEEDED, load_task(BREAST_CANCER))
    first = prepared.notebook.code_blocks[0]
    assert first.origin == ORIGIN and "_np.random.seed(0)" in first.source
    scores = {
        run_notebook(prepared.notebook, BREAST_CANCER, tmp_path / str(i)).score for i in range(3)
    }
    assert len(scores) == 1 and None not in scores
    # without it, three executions draw three splits (the chance two of them match is nil)
    bare = prepared.notebook.delete_block(first.id)
    drawn = [run_notebook(bare, BREAST_CANCER, tmp_path / f"bare{i}").score for i in range(3)]
    assert len(set(drawn)) > 1


def test_a_notebook_that_seeds_itself_or_imports_torch() -> None:
    own = _nb("import numpy as np\nnp.random.seed(42)", "x = 1")
    assert seed_cell(own) is own
    torch = seed_cell(_nb("import torch\nnet = torch.nn.Linear(2, 1)"))
    assert "_torch.manual_seed(0)" in torch.code_blocks[0].source
    assert seed_cell(torch) is torch  # prepared twice: one seed cell
