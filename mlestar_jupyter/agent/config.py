"""Per-run settings.  Built per run and passed down; nothing here is global."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from .limits import check_budget, check_config


@dataclass(frozen=True)
class Budget:
    """Limits for one run.  ``None`` means no limit.  When one runs out the run ends with its best."""

    wall_seconds: float | None = 3600.0
    phase_shares: dict[str, float] = field(
        default_factory=lambda: {"initial": 0.3, "refine": 0.45, "ensemble": 0.1, "final": 0.15}
    )
    exec_timeout: float = 600.0
    max_llm_calls: int | None = None
    max_tokens: int | None = None
    max_cost_usd: float | None = None

    def __post_init__(self) -> None:
        check_budget(self)


@dataclass(frozen=True)
class RunConfig:
    """MLE-STAR's knobs (paper defaults) and the run's budget."""

    num_models: int = 4  # M
    inner_steps: int = 4  # K
    outer_steps: int = 4  # T
    parallel_solutions: int = 2  # L
    ensemble_rounds: int = 5  # R
    debug_rounds: int = 3
    max_train_rows: int = 30_000
    # a time-limited run lowers max_train_rows to what fits its budget, measured (agent/rows.py)
    adapt_train_rows: bool = True
    # with at most this many labelled rows one hold-out is too noisy: a candidate may validate by
    # k-fold on every row (its out-of-fold predictions are scored; 0: always the hold-out)
    kfold_rows: int = 2_000
    leakage_check: bool = True
    data_usage_check: bool = True
    mode: Literal["autopilot", "step"] = "autopilot"
    target_block: str | None = None  # refine only this block (a user's choice)
    seed: int = 0
    budget: Budget = field(default_factory=Budget)
    backend: str = "offline"
    model: str | None = None
    max_parallel: int | None = None  # kernels at once (default: L)
    # pin one candidate per GPU (None: CUDA_VISIBLE_DEVICES as is)
    gpu_ids: tuple[str, ...] | None = None
    # address-space cap per kernel in MB (None: no cap)
    memory_limit_mb: int | None = None
    # let candidate code reach the network (a bwrap jail cuts it off by default; docs/security.md)
    allow_network: bool = False
    # a reference text (e.g. a winning write-up) the final solution must not copy
    novelty_reference: str | None = None

    def __post_init__(self) -> None:
        check_config(self)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> RunConfig:
        d = dict(d)
        b = d.pop("budget", None) or {}
        if d.get("gpu_ids") is not None:
            d["gpu_ids"] = tuple(d["gpu_ids"])
        return cls(**d, budget=Budget(**b))
