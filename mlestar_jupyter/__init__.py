"""MLE-STAR as a Jupyter extension: the solution is a notebook, every code cell a code block.

Layers (each readable alone): ``task`` and ``notebook`` (the model) → ``execution``
(nbclient kernels) → ``llm`` (backends) → ``agent`` (roles, policies, the search loop)
with ``journal`` (the persistent run record) → surfaces (``cli``, ``server``, ``widgets``)
and ``evaluator``.  The core never imports Jupyter UI code.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
