"""Hunt, session 24: a torch MLP notebook scales its split with ``StandardScaler().fit(X_tr)``
and prints its validation AUC every 10 epochs inside the training loop.  The run took the
scaler's fit for the model's (``_mlestar_score(sc, X_va, y_va)``: "'StandardScaler' object has
no attribute 'predict'") and the notebook was never refined.  A fit without labels is no
model's; a metric in an epoch loop scores its last pass (the model the notebook ends with), not
the mean of the passes as a loop over folds does."""

from __future__ import annotations

from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
import pytest
from kernel import run_notebook

from mlestar_jupyter.agent.fold_scores import in_epoch_loop
from mlestar_jupyter.agent.user_notebook import prepare_user_notebook
from mlestar_jupyter.importer.notebook_task import task_from_notebook
from mlestar_jupyter.notebook import SolutionNotebook
from mlestar_jupyter.notebook.roles import analyze

CELLS = (
    "import numpy as np, pandas as pd, torch\nimport torch.nn as nn\n"
    "from torch.utils.data import TensorDataset, DataLoader\n"
    "from sklearn.preprocessing import StandardScaler\n"
    "from sklearn.model_selection import train_test_split\n"
    "from sklearn.metrics import roc_auc_score\ntorch.manual_seed(0)\n"
    "train = pd.read_csv('train.csv'); test = pd.read_csv('test.csv')",
    "feats = [c for c in train.columns if c not in ('id', 'target')]\n"
    "X = train[feats].values.astype(np.float32); y = train['target'].values.astype(np.float32)\n"
    "X_tr, X_va, y_tr, y_va = train_test_split(X, y, test_size=0.2, random_state=0, stratify=y)\n"
    "sc = StandardScaler().fit(X_tr)\nX_tr, X_va = sc.transform(X_tr), sc.transform(X_va)\n"
    "dl = DataLoader(TensorDataset(torch.tensor(X_tr, dtype=torch.float32), torch.tensor(y_tr)),"
    " batch_size=32, shuffle=True)",
    "model = nn.Sequential(nn.Linear(X_tr.shape[1], 16), nn.ReLU(), nn.Linear(16, 1))\n"
    "opt = torch.optim.Adam(model.parameters(), lr=1e-2)\nloss_fn = nn.BCEWithLogitsLoss()\n"
    "for epoch in range(20):\n"
    "    for xb, yb in dl:\n"
    "        opt.zero_grad(); loss = loss_fn(model(xb).squeeze(-1), yb); loss.backward(); opt.step()\n"
    "    if epoch % 10 == 9:\n"
    "        with torch.no_grad():\n"
    "            pv = torch.sigmoid(model(torch.tensor(X_va)).squeeze(-1)).numpy()\n"
    "        print(f'epoch {epoch+1} val auc {roc_auc_score(y_va, pv):.6f}')",
)


def test_a_torch_loop_is_scored_on_its_last_epoch_not_on_the_scaler(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    x = rng.normal(size=(400, 5))
    target = (x[:, 0] - x[:, 2] + rng.normal(0, 1.0, 400) > 0).astype(int)
    frame = pd.DataFrame(x, columns=list("abcde")).assign(target=target)
    frame.insert(0, "id", range(400))
    frame.iloc[:320].to_csv(tmp_path / "train.csv", index=False)
    frame.iloc[320:].drop(columns="target").to_csv(tmp_path / "test.csv", index=False)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in CELLS]
    nbformat.write(nb, tmp_path / "mlp.ipynb")
    read = SolutionNotebook.read(tmp_path / "mlp.ipynb")
    task = task_from_notebook(read, tmp_path, "mlp.ipynb")
    assert task.metric_name == "roc_auc"
    prepared = prepare_user_notebook(read, task)
    added = prepared.notebook.block(prepared.added_block or "").source
    assert "_mlestar_score(sc" not in added and "Folds scored" not in added
    ran = run_notebook(prepared.notebook, task.root, tmp_path / "work", timeout=300)
    last = float(ran.output.split("epoch 20 val auc ")[1].split()[0])
    assert ran.score == pytest.approx(last, abs=1e-5), ran.output[-1500:]


@pytest.mark.parametrize(
    ("loop", "epochs"),
    [
        ("for epoch in range(5):\n    s = roc_auc_score(y_va, p)", True),
        ("for it in range(5):\n    loss.backward()\n    s = roc_auc_score(y_va, p)", True),
        ("for tr, va in kf.split(X, y):\n    s = roc_auc_score(y[va], p)", False),
        ("for fold in range(5):\n    s = roc_auc_score(y_va, p)", False),
        (
            "for fold, (tr, va) in enumerate(kf.split(X)):\n"
            "    for epoch in range(3):\n        s = roc_auc_score(y[va], p)",
            False,
        ),
    ],
)
def test_which_loops_are_epochs(loop: str, epochs: bool) -> None:
    nb = SolutionNotebook.new([("other", loop)])
    (metric,) = [m for m in analyze(nb).metrics if m.func == "roc_auc_score"]
    assert in_epoch_loop(nb.code_blocks[0].source, metric) is epochs
