"""A user's notebook that predicts several target columns (``MultiOutputRegressor``, a forest
fitted on ``train[["y1", "y2"]]``), graded by a metric of several columns.

The validation cell MLE-STAR adds scores the model's predictions of the validation rows,
``_p``, against their targets, ``_y``: here both are tables of one column per target.
``MCRMSE_EXPR`` is the mean column-wise RMSE of them (Kaggle's MCRMSE, TAM-Bench's "mean of the
per-column RMSE"); the errors scikit-learn averages over columns itself (MAE, MSE, R²) need no
other expression.
"""

from __future__ import annotations

# the mean over the target columns of each column's RMSE; one column: the RMSE
MCRMSE_EXPR = (
    "float(np.mean(np.sqrt(np.mean((np.asarray(_y, dtype=float).reshape(len(_y), -1)"
    " - np.asarray(_p, dtype=float).reshape(len(_y), -1)) ** 2, axis=0))))"
)

__all__ = ["MCRMSE_EXPR"]
