"""Reviews of products, several per product (``product_id``), the test rows reviews of new
products: a text task's rows come in groups as a table's do (session 24's patients).  Text
tasks were validated on shuffled rows, so every product's other reviews (its name, its
words) were in the training folds and the validation score promised more than the new products
give.  A text task's key of new groups now holds whole groups out, as a table's does."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from mlestar_jupyter.agent.config import RunConfig
from mlestar_jupyter.agent.scoring import make_split
from mlestar_jupyter.offline import OfflinePolicy
from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.layout import inspect_task


def _reviews(root: Path) -> Path:
    """Each product has a name word and a verdict most of its reviews share; the test
    products are new."""
    rng = np.random.default_rng(0)
    good, bad = "great lovely solid sturdy".split(), "broken flimsy awful cheap".split()
    filler = "the it this was and arrived box i my".split()
    rows = []
    for p in range(160):
        name, liked = f"gizmo{p}", bool(rng.random() < 0.5)
        for _ in range(int(rng.integers(3, 7))):
            label = liked if rng.random() < 0.8 else not liked
            words = rng.choice((good if label else bad) + filler, 8).tolist() + [name, name]
            rows.append((f"PR{p:04d}", " ".join(rng.permutation(words)), int(label)))
    frame = pd.DataFrame(rows, columns=["product_id", "review", "liked"])
    frame.insert(0, "id", range(len(frame)))
    test = frame["product_id"] >= "PR0130"
    inp = root / "input"
    inp.mkdir(parents=True)
    frame[~test].to_csv(inp / "train.csv", index=False)
    frame[test].drop(columns="liked").to_csv(inp / "test.csv", index=False)
    (root / "task.json").write_text(
        json.dumps(
            {
                "goal": "Predict whether the reviewer liked the product.",
                "metric": "accuracy",
                "target_col": "liked",
                "id_col": "id",
                "data_type": "text",
            }
        )
    )
    return root


def test_reviews_of_new_products_are_validated_on_whole_products(tmp_path: Path) -> None:
    task = load_task(_reviews(tmp_path / "r"))
    layout = inspect_task(task)
    assert layout.modality == "text" and layout.text_col == "review"
    assert layout.group_col == "product_id"
    split = make_split(task, layout, seed=0, max_rows=30_000, kfold_rows=2_000)
    assert split is not None and split.every_row is None  # never k-folded
    train = pd.read_csv(task.input_dir / "train.csv")
    held = set(train["product_id"].iloc[list(split.rows)])
    rest = set(train["product_id"].drop(index=list(split.rows)))
    assert held and not held & rest
    policy = OfflinePolicy(task, RunConfig())
    nb = policy.init_solution(policy.retrieve(1)[0])
    code = "\n".join(b.source for b in nb.code_blocks)
    assert "product_id" not in code or "KFold" not in code
