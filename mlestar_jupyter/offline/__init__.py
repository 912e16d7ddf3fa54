"""The offline policy: MLE-STAR without an LLM, over a local catalog of model templates.

``OfflinePolicy(task, config)`` plays every role of ``agent.policy.Policy`` deterministically.
``load_catalog(extra_dirs=[...])`` reads the shipped model cards plus a user's own.
The static leakage / data-usage / import checks it uses live in ``codecheck`` (any policy
uses them); the data-layout discovery its templates read lives in ``task.layout``.
``inspect_task(task)`` says what a run reads of a task folder: the layout of the copy a run
converts it into when its data needs that (``importer.run_input``: a course's ``X_train.csv``
/ ``y_train.csv``, ``.npz`` arrays, LIBSVM rows, one table with a ``split`` column, archives).
"""

from ..importer.run_input import inspect_as_run as inspect_task
from ..task.layout import DataLayout, MediaSource
from .catalog import Ablation, Card, Catalog, load_catalog
from .errors import CatalogError, LayoutError, NoCardError, OfflineError
from .policy import OfflinePolicy
from .render import RenderContext, render_block, render_notebook

__all__ = [
    "Ablation",
    "Card",
    "Catalog",
    "CatalogError",
    "DataLayout",
    "LayoutError",
    "MediaSource",
    "NoCardError",
    "OfflineError",
    "OfflinePolicy",
    "RenderContext",
    "inspect_task",
    "load_catalog",
    "render_block",
    "render_notebook",
]
