"""A torch notebook on a table that trains an MLP with a DataLoader, writes its accuracy out by
hand inside the epoch loop (``acc = ((model(X_va) > 0) == y_va).mean()``, under
``torch.no_grad()``) and keeps the best checkpoint (hunt H ``torch_ckpt_dataloader``).  It was
not understood ("found a model fit (`scaler`) but no validation rows ..."); the hand-written
score of the loop's last pass is now its validation score."""

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

pytest.importorskip("torch")

CELLS = (
    "import numpy as np, pandas as pd, torch, torch.nn as nn\n"
    "from torch.utils.data import TensorDataset, DataLoader\n"
    "from sklearn.model_selection import train_test_split\n"
    "from sklearn.preprocessing import StandardScaler\ntorch.manual_seed(0)",
    "train = pd.read_csv('train.csv')\ntest = pd.read_csv('test.csv')\n"
    "feats = ['a', 'b']\nscaler = StandardScaler().fit(train[feats])\n"
    "X = scaler.transform(train[feats]).astype('float32')\n"
    "Xt = scaler.transform(test[feats]).astype('float32')\n"
    "y = train['target'].values.astype('float32')\n"
    "X_tr, X_va, y_tr, y_va = train_test_split(X, y, test_size=0.25, random_state=0)\n"
    "dl = DataLoader(TensorDataset(torch.from_numpy(X_tr), torch.from_numpy(y_tr)), "
    "batch_size=32, shuffle=True)",
    "model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 1))\n"
    "opt = torch.optim.Adam(model.parameters(), lr=1e-2)\nloss_fn = nn.BCEWithLogitsLoss()\n"
    "best = 0\nfor epoch in range(8):\n    model.train()\n    for xb, yb in dl:\n"
    "        opt.zero_grad()\n        loss = loss_fn(model(xb).squeeze(1), yb)\n"
    "        loss.backward()\n        opt.step()\n    model.eval()\n"
    "    with torch.no_grad():\n"
    "        acc = ((model(torch.from_numpy(X_va)).squeeze(1) > 0).float().numpy() == y_va).mean()\n"
    "    print(f'epoch {epoch} acc {acc:.6f}')\n"
    "    if acc > best:\n        best = acc\n        torch.save(model.state_dict(), 'best.pt')",
    "model.load_state_dict(torch.load('best.pt'))\nwith torch.no_grad():\n"
    "    p = torch.sigmoid(model(torch.from_numpy(Xt)).squeeze(1)).numpy()\n"
    "pd.DataFrame({'id': test['id'], 'target': (p > 0.5).astype(int)})"
    ".to_csv('submission.csv', index=False)",
)


def test_the_last_epochs_hand_written_accuracy_is_the_score(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=240), rng.normal(size=240)
    rows = pd.DataFrame({"id": range(240), "a": a, "b": b, "target": (a + b > 0).astype(int)})
    rows.iloc[:200].to_csv(tmp_path / "train.csv", index=False)
    rows.iloc[200:].drop(columns="target").to_csv(tmp_path / "test.csv", index=False)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in CELLS]
    nbformat.write(nb, tmp_path / "mlp.ipynb")
    read = SolutionNotebook.read(tmp_path / "mlp.ipynb")
    task = task_from_notebook(read, tmp_path, "mlp.ipynb")
    assert task.metric_name == "accuracy" and task.target == "target"
    prepared = prepare_user_notebook(read, task)
    assert prepared.understood, prepared.reason
    ran = run_notebook(prepared.notebook, task.root, tmp_path / "work")
    last = float(ran.output.split("epoch 7 acc ")[1].split()[0])
    assert ran.score == pytest.approx(last, abs=1e-5)
