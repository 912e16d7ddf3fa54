"""The MLE-STAR agent: roles (policies), Algorithms 1–3, the final submission ladder."""

from .config import Budget, RunConfig
from .errors import AgentError, NoSolutionError, RunStopped
from .policy import (
    AblationResult,
    AblationStudy,
    AblationSummary,
    AblationVariant,
    DataUsageReport,
    LeakageReport,
    ModelCard,
    Plan,
    Policy,
    RefineTarget,
)

__all__ = [
    "AblationResult",
    "AblationStudy",
    "AblationSummary",
    "AblationVariant",
    "AgentError",
    "Budget",
    "DataUsageReport",
    "LeakageReport",
    "ModelCard",
    "NoSolutionError",
    "Plan",
    "Policy",
    "RefineTarget",
    "RunConfig",
    "RunStopped",
]
