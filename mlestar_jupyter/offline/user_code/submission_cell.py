"""A submission cell for a user's notebook that predicts no test rows itself.

A Kaggle player's notebook often reads ``test.csv`` (or sits beside one), fits and scores a
model, and stops there.  The run refined it and its validation score rose, but its final
notebook wrote no ``./final/submission.csv``, so the run had no submission at all.
:func:`with_submission_cell` appends one cell to such a notebook: it predicts the task's test
table with the notebook's model, as the notebook trained it (a model that only a
cross-validation fitted is fitted on the notebook's training rows first), and writes the
submission in the task's format: the sample submission's columns when there is one, else the id
column and the target (the probability of the second class for a two-class probability metric,
one column per class for several), separated and with the decimal mark of the sample submission
(``task.layout.tables.submission_args``: a European ``;`` sample gets a ``;`` file with decimal
commas).  The test rows are the notebook's own prepared table when a
table of the notebook holds every training column for as many rows as the test file (its
features made the way the training rows' were), else the test file's own columns.

A model fitted on the training part of the notebook's ``train_test_split`` is first fitted again,
as a fresh copy with the same settings, on the training and the validation rows together, as a
final solution is (the paper's last step trains on all the data); a model that cannot be copied
that way, or whose fit fails on the joined rows, predicts as the notebook trained it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ...metrics import positive_texts
from ...notebook import SolutionNotebook
from ...notebook.roles import Fit, analyze
from ...task import Task
from ...task.class_submission import class_header
from ...task.errors import LayoutError
from ...task.layout.tables import label_values, read_args, read_head, submission_args
from ...task.text_format import call_args
from .target_coding import target_decoding

ORIGIN = "offline:submission"
_WRITES = re.compile(r"\.to_csv\(|\bsavetxt\(")  # a notebook that writes its own file

_TEMPLATE = """# Added by MLE-STAR: your notebook predicts no test rows, so this cell predicts {test!r}
# with your model `{model}` and writes the submission the task asks for.
import os

import numpy as np
import pandas as pd

_model = {model}
_train_X = {train_x}
{refit}{refit_all}_raw = pd.read_csv({test_path!r}{test_args})
_cols = list(_train_X.columns) if hasattr(_train_X, "columns") else None
_own = [
    _v
    for _k, _v in list(globals().items())
    if not _k.startswith("_") and isinstance(_v, pd.DataFrame) and len(_v) == len(_raw)
    and _cols is not None and set(_cols) <= set(_v.columns)
]
if _cols is not None:
    _X_test = (_own[-1] if _own else _raw)[_cols]
else:  # arrays: the test file's columns but the id and the target, in their order
    _X_test = _raw.drop(columns=[c for c in ({id_col!r}, {target!r}) if c in _raw.columns])
    _X_test = _X_test.to_numpy()  # as the model was fitted: without column names
if type(_model).__name__ == "Booster":  # a native booster: xgboost reads a DMatrix
    import xgboost as _xgb

    _out = np.asarray(
        _model.predict(_xgb.DMatrix(_X_test)) if type(_model).__module__.startswith("xgboost")
        else _model.predict(_X_test)
    )
    _classes = np.arange(_out.shape[1]) if _out.ndim == 2 else np.array([0, 1])
    _proba = _out if _out.ndim == 2 else np.column_stack([1 - _out, _out])
    _labels = _classes[_proba.argmax(axis=1)] if {classification} else _out
else:
    _proba = _model.predict_proba(_X_test) if {proba} and hasattr(_model, "predict_proba") else None
    _classes = np.asarray(getattr(_model, "classes_", []))
    _labels = None if _proba is not None else _model.predict(_X_test)
_decode = {decode!r}  # your notebook's numbers for the classes: written back as the classes
if _decode and _labels is not None:

    def _class_of(_v):
        try:
            return _decode.get(int(_v), _v) if float(_v) == int(_v) else _v
        except (TypeError, ValueError):
            return _v

    _labels = np.asarray([_class_of(_v) for _v in np.asarray(_labels).ravel()], dtype=object)
_sample = {sample!r}
_columns = {header!r} or (list(pd.read_csv(_sample, nrows=1{sample_args}).columns) if _sample else None)
_sub = pd.DataFrame()
if {id_col!r} and {id_col!r} in _raw.columns:
    _sub[{id_col!r}] = _raw[{id_col!r}].to_numpy()
_wanted = [c for c in (_columns or [{target!r}]) if c != {id_col!r}]
if {proba} and _proba is not None and len(_wanted) == 1 and _proba.shape[1] == 2:
    # the positive class's probability: the one the task names, else the second
    _column = [_i for _i, _c in enumerate(_classes) if str(_c).strip() in {positive!r}]
    _sub[_wanted[0]] = _proba[:, (_column or [1])[0]]
elif {proba} and _proba is not None:
    for _i, _c in enumerate(_classes):
        _sub[str(_c)] = _proba[:, _i]
else:
    _sub[_wanted[0]] = np.asarray(_labels)
os.makedirs("final", exist_ok=True)
_sub[[c for c in (_columns or _sub.columns) if c in _sub.columns]].to_csv(
    "final/submission.csv", index=False{write_args}
)
print(f"submission: {{len(_sub)}} rows written to final/submission.csv")"""


_REFIT_ALL = """


def _joined(_a, _b):
    \"\"\"The rows of _a, then those of _b (tables, series, arrays or sparse matrices).\"\"\"
    if isinstance(_a, (pd.DataFrame, pd.Series)):
        return pd.concat([_a, _b])
    if hasattr(_a, "tocsr"):
        from scipy import sparse as _sparse

        return _sparse.vstack([_a, _b]).tocsr()
    return np.concatenate([np.asarray(_a), np.asarray(_b)])


if hasattr(_model, "get_params"):  # fitted again on the training and the validation rows
    try:
        from sklearn.base import clone as _clone

        _all_X = _joined({x_tr}, {x_val})
        _model = _clone(_model).fit(_all_X, _joined({y_tr}, {y_val}))
        _train_X = _all_X
        print(f"refitted on {{len({y_tr}) + len({y_val})}} rows (training and validation)")
    except Exception as _e:  # noqa: BLE001
        _model = {model}
        print(f"predicting with the model as trained (its refit failed: {{type(_e).__name__}})")
"""


def with_submission_cell(nb: SolutionNotebook, task: Task) -> SolutionNotebook:
    """``nb`` with a cell that writes the submission appended, when the task has a test table,
    ``nb`` writes no file of its own and its model can be found; else ``nb`` itself."""
    if not task.test_files or not task.target:
        return nb
    if any(_WRITES.search(b.source) for b in nb.code_blocks):
        return nb
    fit = _model_fit(nb)
    if fit is None:
        return nb
    refit = (
        "from sklearn.base import clone\n\n"
        f"_model = clone(_model).fit(_train_X, {fit.args[1]})  # only a cross-validation fitted it\n"
        if fit.cross_validated
        else ""
    )
    metric = task.metric
    split = analyze(nb).split
    names = split[1] if split is not None else ()
    refit_all = (
        _REFIT_ALL.format(
            model=fit.var, x_tr=names[0], x_val=names[1], y_tr=names[2], y_val=names[3]
        )
        if len(names) == 4 and not fit.cross_validated and fit.args[:2] == (names[0], names[2])
        else ""
    )
    code = _TEMPLATE.format(
        test=task.test_files[0].path,
        test_path=f"input/{task.test_files[0].path}",
        model=fit.var,
        train_x=fit.args[0] if fit.args else "None",
        refit=refit,
        refit_all=refit_all,
        id_col=task.id_col or "",
        target=task.target,
        classification=task.task_type == "classification",
        proba=metric.kind == "probability",
        sample=f"input/{task.sample_submission.path}" if task.sample_submission else "",
        header=_class_header(task),
        decode=_decoding(nb, task) if metric.kind != "probability" else None,
        positive=positive_texts(task.positive_label) if task.positive_label is not None else (),
        **_formats(task),
    )
    return nb.append_block("submission", code, origin=ORIGIN)


def _class_header(task: Task) -> list[str]:
    """The submission's header where the sample's one prediction column is replaced by one
    probability column per class (``Task.class_columns``: ``id,0,1,2`` for ``id,cultivar``);
    empty otherwise (the cell reads the sample's own)."""
    path = task.sample_submission_path
    if not task.class_columns or path is None or not path.is_file():
        return []
    return class_header(task, read_head(path, n=1).columns)


def _decoding(nb: SolutionNotebook, task: Task) -> dict[int, str] | None:
    """The numbers ``nb`` coded the task's text classes by (``target_coding``), read from the
    training table's target column; ``None`` for numbers, or a table that cannot be read."""
    train = task.train_files
    if task.task_type != "classification" or len(train) != 1 or not task.target:
        return None
    try:
        classes = label_values(task.input_dir / train[0].path, task.target)
    except (OSError, ValueError, KeyError, LayoutError):
        return None
    if not classes or all(re.fullmatch(r"-?\d+(?:\.0+)?", c) for c in classes):
        return None  # classes that are numbers already
    return target_decoding(nb, task.target, classes)


def _formats(task: Task) -> dict[str, str]:
    """The cell's ``read_csv`` keywords for the test table and the sample submission (their
    separator and decimal mark: ``read_args``) and its ``to_csv`` keywords for the submission
    (the sample's: ``submission_args``); empty strings for plain CSVs."""
    sample, test = task.sample_submission_path, task.input_dir / task.test_files[0].path

    def keywords(args: Mapping[str, str | bool]) -> str:
        return call_args(args)

    return {
        "test_args": keywords(read_args(test) if test.suffix.lower() != ".parquet" else {}),
        "sample_args": keywords(read_args(sample) if sample and sample.is_file() else {}),
        "write_args": keywords(submission_args(task)),
    }


def _model_fit(nb: SolutionNotebook) -> Fit | None:
    """The notebook's last top-level fit of a named model with its training rows (a native
    booster's, which reads no rows, only when no other is found)."""
    fits = [f for f in analyze(nb).fits if f.var and not f.scope]
    with_rows = [f for f in fits if len(f.args) >= 2 and f.var.isidentifier()]
    if with_rows:
        return with_rows[-1]
    native = [f for f in fits if not f.args]
    return native[-1] if native else None


__all__ = ["ORIGIN", "with_submission_cell"]
