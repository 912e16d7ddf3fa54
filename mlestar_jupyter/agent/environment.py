"""What the generated code can count on: Python, installed ML packages, CPU/GPU, the data files.

Told to the model in every prompt, so it does not spend an execution on an import that cannot work.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..execution.machine import describe_machine


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

    @classmethod
    def from_machine(cls, machine: Mapping[str, Any]) -> Environment:
        """The environment of a ``describe_machine`` answer (this machine's or a kernel's)."""
        packages = tuple((str(n), str(v)) for n, v in machine["packages"])
        return cls(str(machine["python"]), packages, int(machine["cpus"]), bool(machine["gpu"]))


@lru_cache(maxsize=1)
def detect_environment() -> Environment:
    """This machine's installed ML packages and hardware (kernels that run here see the same)."""
    return Environment.from_machine(describe_machine())


def truncate_middle(
    text: str, max_chars: int, marker: str = "\n... [{n} characters cut] ...\n"
) -> str:
    """Keep the head and the tail of ``text`` within ``max_chars`` (tracebacks end with what matters)."""
    if len(text) <= max_chars:
        return text
    keep = max(0, max_chars - 40)
    head, tail = keep // 3, keep - keep // 3
    return text[:head] + marker.format(n=len(text) - head - tail) + text[-tail:]
