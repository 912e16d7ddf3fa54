"""ipywidgets views of a run, fed by its journal events; they never call an LLM or a kernel.

``show_run(run_dir)`` displays a live ``RunPanel``; each picture is its own view
(``PhaseView``, ``PlanView``, ``ScoreTrajectory``, ``AblationBars``, ``EnsemblePanel``,
``SolutionTree``, ``ProposalView``, ``RunControls``, ``ActivityLog``).
"""

from .charts import AblationBars, ScoreTrajectory
from .controls import RunControls
from .panel import RunPanel, show_run
from .progress import ActivityLog, PhaseView, PlanView
from .proposals import ProposalView, apply_to_notebook, diff_html
from .search import EnsemblePanel, SolutionTree

__all__ = [
    "AblationBars",
    "ActivityLog",
    "EnsemblePanel",
    "PhaseView",
    "PlanView",
    "ProposalView",
    "RunControls",
    "RunPanel",
    "ScoreTrajectory",
    "SolutionTree",
    "apply_to_notebook",
    "diff_html",
    "show_run",
]
