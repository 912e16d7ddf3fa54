"""What the machine that runs the kernels offers: Python, the common ML packages, CPU cores, GPU.

``describe_machine`` answers for the machine it runs on.  This module imports only the standard
library at its top, so that its source can be sent as it is to a kernel on another machine (a
Kernel Gateway's): ``PROBE_CODE`` defines it there and prints its answer on one line that
``read_probe`` finds in the kernel's output.  A run whose kernels are remote asks them, not the
machine the agent runs on (a laptop without a GPU driving a GPU server's kernels).
"""

from __future__ import annotations

import importlib.metadata as md
import json
import os
import platform
import shutil
from pathlib import Path
from typing import Any

PACKAGES = (
    "numpy",
    "pandas",
    "scipy",
    "scikit-learn",
    "lightgbm",
    "xgboost",
    "catboost",
    "torch",
    "torchvision",
    "torchaudio",
    "statsmodels",
    "aeon",
    "sktime",
    "librosa",
    "soundfile",
    "pillow",
    "opencv-python",
    "scikit-image",
    "transformers",
    "timm",
    "nltk",
    "joblib",
)

# Where a GPU driver shows itself without importing torch: NVIDIA's driver (also in containers
# given the GPU), ROCm's kernel driver, WSL 2's GPU paravirtualisation.
GPU_DEVICE_FILES = ("/proc/driver/nvidia/version", "/dev/nvidia0", "/dev/kfd", "/dev/dxg")

PROBE_MARK = "MLESTAR_MACHINE "  # the line of a probe's output that holds its answer
_FUTURE = "from __future__ import annotations\n"


def describe_machine() -> dict[str, Any]:
    """This machine: ``python`` (version), ``packages`` ([name, version] of the installed ones
    among ``PACKAGES``), ``cpus`` (the cores this process may use) and ``gpu`` (CUDA usable)."""
    found: list[list[str]] = []
    # which distribution provides which top-level module: read once, only when a package is not
    # installed under its own name (one scan of every installed distribution's files, about half
    # a second of CPU each time)
    provided: dict[str, list[str]] | None = None
    for name in PACKAGES:
        try:
            found.append([name, md.version(name)])
        except md.PackageNotFoundError:  # another distribution may provide it: xgboost-cpu
            if provided is None:
                provided = dict(md.packages_distributions())
            providers = provided.get(name.replace("-", "_"), [])
            found += [[name, md.version(d)] for d in providers[:1]]
    hidden = os.environ.get("CUDA_VISIBLE_DEVICES", None) in ("", "-1")
    return {
        "python": platform.python_version(),
        "packages": found,
        "cpus": usable_cpus(),
        "gpu": (not hidden) and _has_cuda(),
    }


def usable_cpus() -> int:
    """The cores this process may run on (a container's or ``taskset``'s share, not the host's)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 1


def gpu_driver_present() -> bool:
    """Whether any GPU driver is visible: without one torch cannot see a GPU either, and its
    import (seconds) is spared."""
    return any(Path(f).exists() for f in GPU_DEVICE_FILES) or shutil.which("nvidia-smi") is not None


def _has_cuda() -> bool:
    if not gpu_driver_present():
        return False
    try:
        import torch

        return bool(torch.cuda.is_available())
    except Exception:  # noqa: BLE001 - a broken torch install means no usable GPU
        return False


def read_probe(stdout: str) -> dict[str, Any] | None:
    """The answer a kernel printed for ``PROBE_CODE`` (the last marked line), or ``None`` when
    its output holds none that reads as one."""
    for line in reversed(stdout.splitlines()):
        if line.startswith(PROBE_MARK):
            try:
                answer = json.loads(line[len(PROBE_MARK) :])
            except ValueError:
                return None
            ok = isinstance(answer, dict) and {"python", "packages", "cpus", "gpu"} <= set(answer)
            return answer if ok else None
    return None


def probe_code() -> str:
    """The code a kernel runs to describe its machine: this module, then one marked line."""
    # (a future import may only open a module; the kernel's Python reads these annotations anyway)
    source = Path(__file__).read_text(encoding="utf-8").replace(_FUTURE, "", 1)
    return f"{source}\n\nprint({PROBE_MARK!r} + json.dumps(describe_machine()))\n"
