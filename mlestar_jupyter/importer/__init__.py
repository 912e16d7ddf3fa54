"""``mlestar task import``: competition pages and downloaded files → a task folder.

TAM-Bench's task acquisition for saved pages: ``import_task`` reads the pages (HTML, Markdown or
text), unpacks the data into ``input/``, extracts the unified task.json (offline heuristics or an
LLM with structured output), cross-checks it against the data and writes it only when it loads.
"""

from .errors import Problem, TaskImportError
from .schema import MetricSpec, TaskDraft, TaskSpec
from .service import ImportResult, import_mlebench, import_task

__all__ = [
    "ImportResult",
    "MetricSpec",
    "Problem",
    "TaskDraft",
    "TaskImportError",
    "TaskSpec",
    "import_mlebench",
    "import_task",
]
