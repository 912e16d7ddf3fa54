"""Ablations and refinement strategies for code a person wrote (no catalog template behind it).

The catalog's blocks are rendered from templates with parameters; a user's notebook is not, so
here every change is an edit of the code's syntax tree, found from what the code does
(``notebook.roles``): the estimator's constructor call (any scikit-learn, LightGBM, XGBoost or
CatBoost class, a torch module's sizes and epochs), the preprocessing statements, the engineered
columns, the vectorizer.  A *part* is one refinable segment of a cell (the whole cell, or a part of
a mixed cell).

- Ablations (:func:`ablations`): switch a preprocessing step off, replace the model by a simpler
  default, drop a feature group, drop an ensemble member.
- Strategies (:func:`strategies`): per role, a list of ``Strategy(id, text, edit)``; an ``edit``
  returns the part's new source, or ``None`` where it does not apply.  The policy walks them in
  order (rotated per path, so that parallel paths diverge) and never applies one twice to a block.

Modules: ``parts`` (what is refinable), ``syntax`` (edits through the syntax tree),
``model_edits`` / ``model_swaps`` / ``number_edits`` / ``feature_edits`` (the strategies per
kind of code), ``ablations`` (ablations and the strategies adopting them), ``library`` (the
strategies per role), ``submission_files`` (the submission written under ``./final/``),
``compared`` (in a notebook comparing models in a loop, the entry a model edit changes: the one
its last run kept).
"""

from .ablations import ADOPT, ADOPT_ABLATION, ablations
from .library import applicable, strategies
from .parts import Part, apply, parts
from .strategy import Edit, Strategy
from .submission_files import final_outputs

__all__ = [
    "ADOPT",
    "ADOPT_ABLATION",
    "Edit",
    "Part",
    "Strategy",
    "ablations",
    "applicable",
    "apply",
    "final_outputs",
    "parts",
    "strategies",
]
