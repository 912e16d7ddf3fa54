"""MLE-STAR as a Jupyter extension: the solution is a notebook, every code cell a code block.

Layers (each readable alone, each importing only those before it; ``lint-imports`` checks it):
``task`` and ``notebook`` (the model) → ``execution`` (nbclient kernels) and ``journal`` (the
run record) → ``llm`` (backends) → ``codecheck`` → ``evaluator``, ``importer`` → ``agent``
(roles, the search loop) → ``offline`` (the key-free policy) → ``policies`` (the run factory) →
surfaces (``api``, ``cli``, ``server``, ``widgets``).  The core never imports Jupyter UI code.
See docs/architecture.md.
"""

from .server import _jupyter_server_extension_points, _load_jupyter_server_extension  # noqa: F401

__version__ = "0.1.0"


def _jupyter_labextension_paths() -> list[dict[str, str]]:
    """Where the prebuilt labextension lives (for ``jupyter labextension develop``)."""
    return [{"src": "labextension", "dest": "mlestar-jupyter"}]


__all__ = [
    "__version__",
    "_jupyter_labextension_paths",
    "_jupyter_server_extension_points",
    "_load_jupyter_server_extension",
]
