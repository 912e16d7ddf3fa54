"""The offline policy: MLE-STAR without an LLM, over a local catalog of model templates.

``OfflinePolicy(task, config)`` plays every role of ``agent.policy.Policy`` deterministically.
``load_catalog(extra_dirs=[...])`` reads the shipped model cards plus a user's own.
The static leakage / data-usage / import checks it uses live in ``codecheck`` (any policy
uses them); the data-layout discovery its templates read lives in ``task.layout``.
"""

from ..task.layout import DataLayout, MediaSource, inspect_task
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
