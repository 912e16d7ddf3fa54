"""What the generated code can count on: Python, installed ML packages, CPU/GPU, the data files.

Told to the model in every prompt, so it does not spend an execution on an import that cannot work.
"""

from __future__ import annotations

import importlib.metadata as md
import os
import platform
import shutil
from dataclasses import dataclass
from functools import lru_cache

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


@dataclass(frozen=True)
class Environment:
    """What a solution may use: the Python version, the installed ML packages with their
    versions, the CPU cores and whether there is a GPU."""

    python: str
    packages: tuple[tuple[str, str], ...]
    cpus: int
    gpu: bool

    def render(self) -> str:
        """The environment as the bullet list the prompts show."""
        pk = ", ".join(f"{n}=={v}" for n, v in self.packages)
        return f"- Python {self.python}\n- Packages: {pk}\n- CPU cores: {self.cpus}; GPU: {'yes (CUDA)' if self.gpu else 'none'}"


@lru_cache(maxsize=1)
def detect_environment() -> Environment:
    """The installed packages among the common ML ones, and the hardware."""
    found = []
    # which distribution provides which top-level module: read once, only when a package is not
    # installed under its own name (one scan of every installed distribution's files, about half
    # a second of CPU each time, used to be repeated for each of the missing packages)
    provided: dict[str, list[str]] | None = None
    for name in PACKAGES:
        try:
            found.append((name, md.version(name)))
        except md.PackageNotFoundError:  # another distribution may provide it: xgboost-cpu
            if provided is None:
                provided = dict(md.packages_distributions())
            providers = provided.get(name.replace("-", "_"), [])
            found += [(name, md.version(d)) for d in providers[:1]]
    hidden = os.environ.get("CUDA_VISIBLE_DEVICES", None) in ("", "-1")
    gpu = (not hidden) and _has_cuda()
    return Environment(platform.python_version(), tuple(found), os.cpu_count() or 1, gpu)


# Where a GPU driver shows itself without importing torch: NVIDIA's driver (also in containers
# given the GPU), ROCm's kernel driver, WSL 2's GPU paravirtualisation.
GPU_DEVICE_FILES = ("/proc/driver/nvidia/version", "/dev/nvidia0", "/dev/kfd", "/dev/dxg")


def _gpu_driver_present() -> bool:
    """Whether any GPU driver is visible: without one torch cannot see a GPU either, and its
    import (seconds, and the first thing a run does with a notebook) is spared."""
    return (
        any(os.path.exists(f) for f in GPU_DEVICE_FILES) or shutil.which("nvidia-smi") is not None
    )


def _has_cuda() -> bool:
    if not _gpu_driver_present():
        return False
    try:
        import torch

        return bool(torch.cuda.is_available())
    except Exception:  # noqa: BLE001
        return False


def truncate_middle(
    text: str, max_chars: int, marker: str = "\n... [{n} characters cut] ...\n"
) -> str:
    """Keep the head and the tail of ``text`` within ``max_chars`` (tracebacks end with what matters)."""
    if len(text) <= max_chars:
        return text
    keep = max(0, max_chars - 40)
    head, tail = keep // 3, keep - keep // 3
    return text[:head] + marker.format(n=len(text) - head - tail) + text[-tail:]
