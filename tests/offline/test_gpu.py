"""On a machine with a CUDA GPU (skipped elsewhere, as in CI): the executor hands a kernel its
GPU, two runs on one GPU take turns, and the offline catalog's network trains on the GPU inside
the kernel the search loop starts.  Run on a lent H200 (see the closing note of the session that
added it); on the 2-core development machines every test here is skipped."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")

MATMUL = """import os, time, torch
print("visible", os.environ.get("CUDA_VISIBLE_DEVICES"))
x = torch.randn(4096, 4096, device="cuda")
torch.cuda.synchronize()
t0 = time.perf_counter()
y = x @ x
torch.cuda.synchronize()
print("matmul ok", bool(torch.isfinite(y).all()), torch.cuda.get_device_name(0), f"{time.perf_counter() - t0:.4f}s")"""


def _notebook(code: str):  # type: ignore[no-untyped-def]
    from mlestar_jupyter.notebook import SolutionNotebook

    return SolutionNotebook.new([("other", code)])


def test_a_kernel_gets_its_gpu(tmp_path: Path) -> None:
    from mlestar_jupyter.execution import Executor

    (tmp_path / "data").mkdir()
    with Executor(timeout=120, gpu_ids=["0"], max_parallel=2) as ex:
        runs = [
            ex.run(_notebook(MATMUL), input_dir=tmp_path / "data", workdir=tmp_path / f"w{i}")
            for i in range(2)
        ]
    for r in runs:
        assert r.ok, r.error
        assert r.gpu == "0" and "visible 0" in r.stdout and "matmul ok True" in r.stdout
    print(runs[0].stdout)


def test_the_small_cnn_trains_on_the_gpu(policies, task_dirs, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from kernel import run_notebook

    p = policies["image"]
    card = next(c for c in p.retrieve(10) if c.name == "small_cnn")
    nb = p.init_solution(card).append_block(
        "other",
        "import torch\n"
        "print('cuda memory used', torch.cuda.max_memory_allocated() > 0, torch.cuda.get_device_name(0))",
        origin="test",
    )
    ran = run_notebook(nb, task_dirs["image"], tmp_path / "cnn", timeout=600)
    assert ran.score is not None
    assert "cuda memory used True" in ran.output, ran.output[-2000:]
    print(ran.output[-600:])
