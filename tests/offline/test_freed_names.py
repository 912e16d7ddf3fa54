"""Hunt, session 24: a Kaggle starter notebook frees its split after the fit
(``del X_train, X_valid; gc.collect()``) and prints its AUC as "Validation AUC: ...".  The
validation cell a run adds after that cell scores on ``X_valid``: it failed with NameError and
the notebook was never refined (``not_understood``).  The run's copy now keeps the names the
added cell reads, and a proposal gives the user's line back."""

from __future__ import annotations

from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
import pytest
from kernel import run_notebook

from mlestar_jupyter.agent.changes import restore_paths
from mlestar_jupyter.agent.kept_names import keep_for_validation
from mlestar_jupyter.agent.user_notebook import prepare_user_notebook
from mlestar_jupyter.importer.notebook_task import task_from_notebook
from mlestar_jupyter.notebook import SolutionNotebook

CELLS = (
    "import numpy as np, pandas as pd, gc\n"
    "from sklearn.linear_model import LogisticRegression\n"
    "from sklearn.model_selection import train_test_split\n"
    "from sklearn.metrics import roc_auc_score\n"
    "train = pd.read_csv('train.csv'); test = pd.read_csv('test.csv')",
    "features = [c for c in train.columns if c not in ['id', 'target']]\n"
    "X_train, X_valid, y_train, y_valid = train_test_split(train[features], train['target'], "
    "test_size=0.2, random_state=42)\n"
    "model = LogisticRegression(max_iter=500)\n"
    "model.fit(X_train, y_train)\n"
    "print('Validation AUC:', roc_auc_score(y_valid, model.predict_proba(X_valid)[:, 1]))\n"
    "del X_train, X_valid; gc.collect()",
    "sub = pd.DataFrame({'id': test['id'], 'target': model.predict_proba(test[features])[:, 1]})\n"
    "sub.to_csv('submission.csv', index=False)",
)


def _folder(root: Path) -> Path:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(300, 4))
    target = (x[:, 0] + 0.5 * x[:, 1] + rng.normal(0, 0.7, 300) > 0).astype(int)
    frame = pd.DataFrame(x, columns=["a", "b", "c", "d"]).assign(target=target)
    frame.insert(0, "id", range(300))
    root.mkdir(parents=True)
    frame.iloc[:240].to_csv(root / "train.csv", index=False)
    frame.iloc[240:].drop(columns="target").to_csv(root / "test.csv", index=False)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in CELLS]
    nbformat.write(nb, root / "starter.ipynb")
    return root


def test_a_freed_validation_split_is_kept_for_the_added_validation_cell(tmp_path: Path) -> None:
    root = _folder(tmp_path / "t")
    read = SolutionNotebook.read(root / "starter.ipynb")
    task = task_from_notebook(read, root, "starter.ipynb")
    assert task.metric_name == "roc_auc"
    prepared = prepare_user_notebook(read, task)
    assert prepared.added_block and prepared.understood
    kept = [c for c in prepared.data_paths if c.kind == "keep"]
    assert len(kept) == 1 and kept[0].old == "del X_train, X_valid; gc.collect()"
    assert kept[0].new.startswith("del X_train; gc.collect()  # MLE-STAR: X_valid kept")
    assert "deletes `X_valid`" in prepared.note
    ran = run_notebook(prepared.notebook, task.root, tmp_path / "work")
    printed = float(ran.output.split("Validation AUC: ")[1].split()[0])
    assert ran.score == pytest.approx(printed, abs=1e-9), ran.output[-1500:]
    # a proposal gives the user's cell its own line back
    cell = prepared.notebook.block(kept[0].block_id).source
    assert (
        restore_paths(cell, kept[0].block_id, prepared.data_paths)
        == read.block(kept[0].block_id).source
    )


@pytest.mark.parametrize(
    ("line", "after"),
    [
        ("del X_valid", "pass  # MLE-STAR: X_valid kept"),
        ("del X_valid, y_valid  # free", "pass  # free  # MLE-STAR: X_valid, y_valid kept"),
        ("del model, X_train", "del X_train  # MLE-STAR: model kept"),
        ("del df['x']", None),  # a column, not a name
        ("if big:\n    del X_valid", None),  # under a condition: the notebook's own choice
    ],
)
def test_which_dels_keep_names(line: str, after: str | None) -> None:
    nb = SolutionNotebook.new([("other", "model.fit(X_train, y_train)\n" + line)])
    (block,) = nb.code_blocks
    code = "print(f'Final Validation Performance: {_mlestar_score(model, X_valid, y_valid)}')"
    out, changes, names = keep_for_validation(nb, block.id, code)
    if after is None:
        assert changes == () and names == () and out is nb
    else:
        (change,) = changes
        assert change.new.startswith(after)
        assert list(names) == after.split(": ")[1].removesuffix(" kept").split(", ")
