"""Hunt E: a Kaggle notebook that trains on the GPU (``XGBClassifier(tree_method='gpu_hist',
gpu_id=0)``, ``LGBMClassifier(device='gpu')``, ``params = {'tree_method': 'gpu_hist', ...}``) was
set aside where the run's kernels have no GPU: it stopped at XGBoost's error, and the status line
showed XGBoost's native ``[bt] (0) .../libxgboost.so(...)`` frames.  Without a GPU the run's copy
now has the CPU's settings (the note says which), with one the user's settings stay, and an
error's native frames are cut from what the run says."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from mlestar_jupyter.agent import user_notebook
from mlestar_jupyter.agent.changes import note_for, restore_paths
from mlestar_jupyter.agent.environment import Environment
from mlestar_jupyter.agent.gpu_settings import NO_GPU, cpu_settings
from mlestar_jupyter.agent.user_notebook import prepare_user_notebook
from mlestar_jupyter.execution.result import without_native_frames
from mlestar_jupyter.task import load_task

from .notebooks import BREAST_CANCER, code_notebook

KAGGLE_CELLS = (
    "import xgboost as xgb\nimport lightgbm as lgb\nimport torch",
    "model = xgb.XGBClassifier(n_estimators=300, tree_method='gpu_hist', gpu_id=0)",
    "params = {\n    'objective': 'binary:logistic',\n    'tree_method': 'gpu_hist',\n"
    "    'gpu_id': 0,\n    'predictor': 'gpu_predictor',\n    'max_depth': 6,\n}",
    "clf = lgb.LGBMClassifier(device='gpu', n_estimators=200)\n"
    "lgb_params = dict(objective='binary', device_type='gpu', verbose=-1)",
    "cat = CatBoostClassifier(iterations=500, task_type='GPU', devices='0:1', verbose=0)",
    "device = torch.device('cuda')\nnet = Net().cuda()\nx = x.to('cuda')\nreg = xgb.XGBRegressor(device='cuda')",
)


def test_gpu_settings_become_the_cpu_s_noted_and_given_back() -> None:
    nb = code_notebook(*KAGGLE_CELLS)
    out, changes = cpu_settings(nb)
    code = "\n".join(b.source for b in out.code_blocks)
    assert "tree_method='hist'" in code and "'tree_method': 'hist'" in code
    for line in code.split("\n"):
        live = line.split("#")[0]
        assert not any(s in live for s in ("gpu", "GPU", "cuda", "gpu_id", "devices=")), line
    assert "LGBMClassifier(device='cpu', n_estimators=200)" in code
    assert "dict(objective='binary', device_type='cpu', verbose=-1)" in code
    assert "CatBoostClassifier(iterations=500, task_type='CPU', verbose=0)" in code
    assert "torch.device('cpu')" in code and "Net().cpu()" in code and "x.to('cpu')" in code
    assert "XGBClassifier(n_estimators=300, tree_method='hist')" in code
    compile(code.replace("import torch", ""), "cells", "exec")  # still Python
    assert {c.kind for c in changes} == {"gpu"}
    note = note_for(changes)
    assert "asks for a GPU" in note and NO_GPU.strip() not in note
    assert "gpu_id=0)` → `model = xgb.XGBClassifier(n_estimators=300, tree_method='hist')`" in note
    for block, cell in zip(out.code_blocks, KAGGLE_CELLS, strict=True):
        assert restore_paths(block.source, block.id, changes) == cell


def test_a_notebook_choosing_its_device_itself_is_left_as_it_is() -> None:
    nb = code_notebook(
        "device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
        "dev = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
        "# model = XGBClassifier(tree_method='gpu_hist')\n"
        "print('training on gpu')"
    )
    out, changes = cpu_settings(nb)
    assert out is nb and changes == ()


def _prepared(monkeypatch: pytest.MonkeyPatch, gpu: bool) -> str:
    env = Environment("3.11", (), 2, gpu)
    monkeypatch.setattr(user_notebook, "detect_environment", lambda: env)
    nb = code_notebook(
        "import pandas as pd\nfrom xgboost import XGBClassifier\n"
        "from sklearn.model_selection import train_test_split",
        "df = pd.read_csv('/kaggle/input/breast-cancer/train.csv')",
        "model = XGBClassifier(n_estimators=300, tree_method='gpu_hist', gpu_id=0)",
    )
    prepared = prepare_user_notebook(nb, load_task(BREAST_CANCER))
    return "\n".join(b.source for b in prepared.notebook.code_blocks)


def test_a_machine_with_a_gpu_keeps_the_notebook_s_settings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With a GPU the settings stay in the form the installed XGBoost takes: XGBoost 3 refuses
    ``gpu_hist`` and ``gpu_id`` on a GPU too (before, they were kept as written, and the
    notebook failed there as well)."""
    assert "tree_method='hist', device='cuda:0')" in _prepared(monkeypatch, gpu=True)
    code = _prepared(monkeypatch, gpu=False)
    assert "tree_method='hist')" in code and "cuda" not in code.split("#")[0]


XGB_ERROR = (
    "[17:41:36] /workspace/src/context.cc:242: `gpu_id` has been removed since 3.1. Use `device` "
    "instead.\nStack trace:\n"
    "  [bt] (0) /work/venv/lib/python3.11/site-packages/xgboost/lib/libxgboost.so(+0x11031e) "
    "[0x7fe11451031e]\n"
    "  [bt] (1) /lib/x86_64-linux-gnu/libffi.so.8(ffi_call+0xcd) [0x7fe15a697b0d]\n\n"
)


def test_native_frames_are_cut_from_an_error_and_its_line_kept() -> None:
    assert without_native_frames(XGB_ERROR) == (
        "[17:41:36] /workspace/src/context.cc:242: `gpu_id` has been removed since 3.1. Use "
        "`device` instead."
    )
    assert without_native_frames("ValueError: bad [bt] input\n") == "ValueError: bad [bt] input\n"


GPU_NOTEBOOK = (
    "import pandas as pd\nimport xgboost as xgb\nfrom sklearn.metrics import roc_auc_score\n"
    "from sklearn.model_selection import train_test_split",
    "df = pd.read_csv('/kaggle/input/breast-cancer/train.csv')\n"
    "X, y = df.drop(columns=['id', 'target']), df['target']\n"
    "X_tr, X_va, y_tr, y_va = train_test_split(X, y, test_size=0.25, random_state=0)",
    "model = xgb.XGBClassifier(n_estimators=20, max_depth=3, tree_method='gpu_hist', gpu_id=0,\n"
    "                          predictor='gpu_predictor')\n"
    "model.fit(X_tr, y_tr)\n"
    "print('Final Validation Performance:', roc_auc_score(y_va, model.predict_proba(X_va)[:, 1]))",
)


@pytest.mark.skipif(importlib.util.find_spec("xgboost") is None, reason="needs xgboost")
def test_a_gpu_notebook_runs_in_a_kernel_without_a_gpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mlestar_jupyter.execution import Executor

    task = load_task(BREAST_CANCER)
    nb = code_notebook(*GPU_NOTEBOOK)
    cpu = prepare_user_notebook(nb, task, gpu=False).notebook
    gpu = prepare_user_notebook(nb, task, gpu=True).notebook  # device='cuda:0'
    # the user's cells as written (only the data path pointed at the run's input)
    cell = next(b for b in gpu.code_blocks if "XGBClassifier" in b.source)
    as_is = gpu.replace_block(cell.id, GPU_NOTEBOOK[2])
    with Executor(timeout=60, max_parallel=1, pool_size=1) as ex:
        failed = ex.run(as_is, input_dir=task.input_dir, workdir=tmp_path / "as_is")
        ran = ex.run(cpu, input_dir=task.input_dir, workdir=tmp_path / "cpu")
        # a GPU machine's form: XGBoost trains device='cuda' on the CPU here, with a warning
        ran_gpu = ex.run(gpu, input_dir=task.input_dir, workdir=tmp_path / "gpu")
    assert not failed.ok and "[bt]" not in failed.error and "Stack trace" not in failed.error
    assert "XGBoostError" in failed.error and "gpu" in failed.error.lower()
    assert "tree_method='hist', device='cuda:0'" in cell.source
    for done in (ran, ran_gpu):
        assert done.ok, done.error
        assert done.score is not None and done.score > 0.9


TORCH_CONFIG = (
    "import torch\n\n\nclass CFG:\n    seed = 42\n    device: str = 'cuda'\n    epochs = 2",
    "DEVICE = 'cuda'\nTRAIN_DEVICE = \"cuda:0\"\n"
    "x = torch.ones(3, 2).to(DEVICE)\nw = torch.zeros(2, 1, device=CFG.device)\n"
    "b = torch.zeros(1).to(TRAIN_DEVICE)\nprint('Final Validation Performance:', float((x @ w + b).sum()))",
)


def test_a_device_named_by_a_variable_or_a_config_class_is_the_cpu(tmp_path: Path) -> None:
    """Hunt E's follow-up: ``DEVICE = 'cuda'`` (upper case), ``TRAIN_DEVICE = "cuda:0"`` and a
    config class's ``device: str = 'cuda'`` were left as written (only ``device =`` and
    ``device=`` were read), and ``.to(DEVICE)`` failed on a machine without a GPU."""
    from mlestar_jupyter.execution import Executor

    nb = code_notebook(*TORCH_CONFIG)
    out, changes = cpu_settings(nb)
    code = "\n".join(b.source for b in out.code_blocks)
    assert "    device: str = 'cpu'" in code and "DEVICE = 'cpu'" in code
    assert 'TRAIN_DEVICE = "cpu"' in code and len(changes) == 3
    for block, cell in zip(out.code_blocks, TORCH_CONFIG, strict=True):
        assert restore_paths(block.source, block.id, changes) == cell
    with Executor(timeout=60, max_parallel=1, pool_size=1) as ex:
        data = load_task(BREAST_CANCER).input_dir  # (read by neither)
        failed = ex.run(nb, input_dir=data, workdir=tmp_path / "as_is")
        ran = ex.run(out, input_dir=data, workdir=tmp_path / "cpu")
    assert not failed.ok and ("CUDA" in failed.error or "NVIDIA" in failed.error), failed.error
    assert ran.ok and ran.score == 0.0, ran.error


TORCH_OWN_NAMES = (
    "import torch\n\ndev = 'cuda'\nDEV = \"cuda:0\"\ngpu = torch.device('cuda:0')\n"
    "backend = 'cuda'\nkinds = {'cuda': 'a GPU'}\nprint('cuda', kinds[backend])",
    "x = torch.ones(3, 2).to(dev)\nw = torch.zeros(2, 1, device=DEV)\nb = torch.zeros(1).to(gpu)\n"
    "print('Final Validation Performance:', float((x @ w + b).sum()))",
)


def test_a_device_held_by_a_name_of_another_kind_is_the_cpu(tmp_path: Path) -> None:
    """An outsider's ``dev = 'cuda'`` (or ``DEV = "cuda:0"``) used as ``.to(dev)`` and
    ``device=DEV`` was left as written (only names ending in ``device`` were read), and the
    notebook failed without a GPU; a ``'cuda'`` that is no device (a name printed, a dict key)
    stays."""
    from mlestar_jupyter.execution import Executor

    nb = code_notebook(*TORCH_OWN_NAMES)
    out, changes = cpu_settings(nb)
    code = out.code_blocks[0].source
    assert "dev = 'cpu'" in code and 'DEV = "cpu"' in code and "torch.device('cpu')" in code
    assert "backend = 'cuda'\nkinds = {'cuda': 'a GPU'}\nprint('cuda', kinds[backend])" in code
    assert len(changes) == 3
    assert restore_paths(code, out.code_blocks[0].id, changes) == TORCH_OWN_NAMES[0]
    with Executor(timeout=60, max_parallel=1, pool_size=1) as ex:
        data = load_task(BREAST_CANCER).input_dir  # (read by neither)
        failed = ex.run(nb, input_dir=data, workdir=tmp_path / "as_is")
        ran = ex.run(out, input_dir=data, workdir=tmp_path / "cpu")
    assert not failed.ok and ("CUDA" in failed.error or "NVIDIA" in failed.error), failed.error
    assert ran.ok and ran.score == 0.0, ran.error
