"""MLE-STAR as a Jupyter extension: the solution is a notebook, every code cell a code block.

Layers (each readable alone): ``task`` and ``notebook`` (the model) → ``execution``
(nbclient kernels) → ``llm`` (backends) → ``agent`` (roles, policies, the search loop)
with ``journal`` (the persistent run record) → surfaces (``cli``, ``server``, ``widgets``)
and ``evaluator``.  The core never imports Jupyter UI code.
"""

from .server import _jupyter_server_extension_points, _load_jupyter_server_extension  # noqa: F401

__version__ = "0.1.0"

__all__ = ["__version__", "_jupyter_server_extension_points", "_load_jupyter_server_extension"]
