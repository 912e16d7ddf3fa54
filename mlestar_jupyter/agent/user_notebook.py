"""A user's plain notebook made ready for MLE-STAR: roles inferred, a validation score added.

A notebook written by a person carries no role tags and rarely prints ``Final Validation
Performance: <score>``.  :func:`prepare_user_notebook` infers every cell's role from its code
(``notebook.roles``), finds the model fit, the validation split and the metric, and — when the
notebook prints no score in the task's metric — adds one cell that measures it (on the notebook's
own split, with the notebook's own metric call, or by 3-fold cross-validation when there is no
split), with a markdown cell above it saying so.  A notebook without any model fit is
*not understood*: the verdict says why, and the run ends with that status instead of a silent
``done``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import NamedTuple

from ..importer.notebook_task import SCORING_METRICS, call_metric, hand_written_metric
from ..metrics import AUC_AVERAGES, POSITIVE_LABELS, Metric, UnknownMetricError, get_metric
from ..notebook import META, SolutionNotebook
from ..notebook.roles import (
    Analysis,
    Fit,
    MetricCall,
    analyze,
    models_log_of,
    strip_magics,
    tag_roles,
)
from ..task import Task
from .argv_calls import empty_argv
from .booster_cv import booster_cv_cell
from .call_folders import point_call_folders
from .colab_lines import mute_colab
from .compared_models import COMPARES
from .cv_loop import best_model_code, keep_each_model, pick_best_code
from .cv_models import name_cv_models
from .cv_models import note_for as cv_note_for
from .data_paths import PathChange, note_for, point_to_input
from .debug_switch import debug_off
from .environment import detect_environment
from .error_cells import skip_failed_cells
from .exit_lines import stop_at_exit
from .fold_scores import (
    collect_folds,
    fold_mean_code,
    in_epoch_loop,
    in_function,
    in_loop,
    steps_a_model,
)
from .gpu_settings import cpu_settings
from .input_lines import answer_inputs, asks_for_input
from .kept_names import keep_for_validation
from .local_modules import copy_local_modules
from .missing_modules import guard_imports, importable, lacking_imports
from .multi_target import MCRMSE_EXPR
from .old_calls import repair_old_calls
from .path_modules import copy_path_modules, module_folders
from .positive_scoring import HELPER as SCORER_HELPER
from .positive_scoring import positive_scorings, scoring_constants
from .search_cv import search_score_cell
from .seeding import seed_cell
from .text_dtype import text_as_object

# y_true is ``_y``, the predictions ``_p`` (probabilities where the metric needs them).
_EXPR = {
    "roc_auc": '_skm.roc_auc_score(*_mlestar_binary(_y, _p), multi_class="ovr")',
    "log_loss": "_skm.log_loss(*_mlestar_binary(_y, _p))",
    "accuracy": "_skm.accuracy_score(_y, _p)",
    "balanced_accuracy": "_skm.balanced_accuracy_score(_y, _p)",
    "f1_macro": '_skm.f1_score(_y, _p, average="macro")',
    "f1": "_skm.f1_score(_y, _p, **_mlestar_positive(_y, _p))",
    "mcc": "_skm.matthews_corrcoef(_y, _p)",
    "cohen_kappa": "_skm.cohen_kappa_score(_y, _p)",
    "qwk": '_skm.cohen_kappa_score(_y, _p, weights="quadratic")',
    "explained_variance": "_skm.explained_variance_score(_y, _p)",
    "poisson_deviance": "_skm.mean_poisson_deviance(_y, np.clip(_p, 1e-9, None))",
    "rmse": "float(np.sqrt(_skm.mean_squared_error(_y, _p)))",
    "mse": "_skm.mean_squared_error(_y, _p)",
    "mae": "_skm.mean_absolute_error(_y, _p)",
    "r2": "_skm.r2_score(_y, _p)",
    "rmsle": "float(np.sqrt(_skm.mean_squared_log_error(_y, np.clip(_p, 0, None))))",
    "f1_weighted": '_skm.f1_score(_y, _p, average="weighted")',
    "f1_micro": '_skm.f1_score(_y, _p, average="micro")',
    "precision": "_skm.precision_score(_y, _p, zero_division=0, **_mlestar_positive(_y, _p))",
    "recall": "_skm.recall_score(_y, _p, zero_division=0, **_mlestar_positive(_y, _p))",
    "average_precision": "_skm.average_precision_score(*_mlestar_binary(_y, _p))",
    "gini": "2 * _skm.roc_auc_score(*_mlestar_binary(_y, _p)) - 1",
    "brier": (
        "_skm.brier_score_loss(*_mlestar_binary(_y, _p)) if _mlestar_binary(_y, _p)[1].ndim == 1 "
        "else float(np.mean(np.sum((_p - (np.asarray(_y)[:, None] == np.unique(_y)[None, :])) ** 2, axis=1)))"
    ),
    "medae": "_skm.median_absolute_error(_y, _p)",
    "mape": "float(np.mean(np.abs(_y - _p) / np.maximum(np.abs(_y), 1e-12)))",
    "smape": "float(100 * np.mean(2 * np.abs(_y - _p) / np.maximum(np.abs(_y) + np.abs(_p), 1e-12)))",
    "pearson": "float(np.corrcoef(_y, _p)[0, 1])",
    "spearman": "float(_sps.spearmanr(_y, _p)[0])",
    "jaccard": "_skm.jaccard_score(_y, _p, zero_division=0, **_mlestar_positive(_y, _p))",
    "jaccard_macro": '_skm.jaccard_score(_y, _p, average="macro", zero_division=0)',
    "hamming_loss": "_skm.hamming_loss(_y, _p)",
    "max_error": "float(np.max(np.abs(np.asarray(_y, dtype=float) - np.asarray(_p, dtype=float))))",
    "mcrmse": MCRMSE_EXPR,  # several target columns: the mean of their RMSEs
    # scikit-learn's scorers roc_auc_ovo, roc_auc_ovr_weighted, ..., precision_macro, ...
    **{
        name: f'_skm.roc_auc_score(*_mlestar_binary(_y, _p), multi_class="{how}", average="{avg}")'
        for name, (how, avg) in AUC_AVERAGES.items()
        if name != "roc_auc"
    },
    "precision_macro": '_skm.precision_score(_y, _p, average="macro", zero_division=0)',
    "precision_weighted": '_skm.precision_score(_y, _p, average="weighted", zero_division=0)',
    "d2_absolute_error": "_skm.d2_absolute_error_score(_y, _p)",
    "zero_one_loss": "_skm.zero_one_loss(_y, _p)",
}
# metric functions whose arguments are in the target's own units, the log taken inside
_LOG_ERRORS = ("mean_squared_log_error", "root_mean_squared_log_error")
_PROBA = (*AUC_AVERAGES, "log_loss", "average_precision", "gini", "brier")
# MAP@k: ``_p`` holds each row's k most likely classes, most likely first (``_score_fn``); a row
# scores 1/rank of its true class among them, 0 when it is not listed.
_RANKED_EXPR = (
    "float(np.mean(((_p == np.asarray(_y)[:, None]) / np.arange(1, _p.shape[1] + 1)).sum(axis=1)))"
)
# top-k accuracy: the share of rows whose true class is among their k most likely
_TOP_K_EXPR = "float(np.mean((_p == np.asarray(_y)[:, None]).any(axis=1)))"


def _expr_of(metric: Metric) -> str | None:
    """The validation cell's expression of ``metric``: ``_EXPR``'s, or one with its parameter
    (F-beta's beta, the pinball loss's alpha, top-k accuracy's k)."""
    if metric.kind == "ranked":
        return _TOP_K_EXPR if metric.name.startswith("top") else _RANKED_EXPR
    if metric.beta is not None:
        how = "**_mlestar_positive(_y, _p)" if metric.positive_class else 'average="macro"'
        return f"_skm.fbeta_score(_y, _p, beta={metric.beta!r}, zero_division=0, {how})"
    if metric.alpha is not None:
        return f"_skm.mean_pinball_loss(_y, _p, alpha={metric.alpha!r})"
    return _EXPR.get(metric.name)


_IMPORTS = (
    "import numpy as np\nfrom scipy import stats as _sps\nfrom sklearn import metrics as _skm\n"
)
# a two-class metric of labels that are not 0/1 ("Yes"/"No"): scikit-learn's pos_label=1 fails
_POSITIVE = (
    "\n\ndef _mlestar_positive(_y, _p, _named=None):\n"
    '    """The positive class of two labels (the task\'s named one; 1, True, yes, positive; else the last in order)."""\n'
    "    _v = sorted(set(np.asarray(_y, dtype=object).tolist()) | set(np.asarray(_p, dtype=object).tolist()), key=str)\n"
    "    if len(_v) > 2:\n"
    '        return {"average": "macro"}\n'
    "    _given = [_c for _c in _v if _named is not None and str(_c).strip() == _named]\n"
    "    if _given:  # the task's positive_label\n"
    '        return {"pos_label": _given[0]}\n'
    f"    _yes = [_c for _c in _v if str(_c).strip().lower() in {POSITIVE_LABELS!r}]\n"
    '    return {"pos_label": (_yes or _v)[-1]} if _v else {}\n'
)

# a metric of two classes' probabilities (AP, ROC AUC, log loss, Brier): the positive class's
# column, and the labels as 1 for it (scikit-learn's pos_label=1 fails on "yes"/"no", and reads
# the wrong column when the positive class sorts first: "churned"/"stayed", 0 named positive)
_BINARY = (
    "\n\ndef _mlestar_binary(_y, _p, _named=None):\n"
    '    """Two classes: (_y as 1 for the positive class, else 0; the positive class\'s probability).\n'
    "    The positive class is the task's named one; else 1, True, yes, positive; else the later in order.\n"
    '    _p is the later class\'s probability (predict_proba(X)[:, 1]) or a column per class, in order."""\n'
    "    _y, _p = np.asarray(_y), np.asarray(_p, dtype=float)\n"
    "    _c = np.unique(_y)\n"
    "    if _y.ndim != 1 or len(_c) != 2 or (_p.ndim == 2 and _p.shape[1] != 2):\n"
    "        return _y, _p  # several classes: as they are\n"
    "    _given = [_i for _i, _v in enumerate(_c) if _named is not None and str(_v).strip() in (_named, _named + '.0')]\n"
    f"    _yes = [_i for _i, _v in enumerate(_c) if str(_v).strip().lower() in {POSITIVE_LABELS!r}]\n"
    "    _i = (_given or _yes or [1])[-1]\n"
    "    _q = _p[:, _i] if _p.ndim == 2 else (_p if _i == 1 else 1 - _p)\n"
    "    return (_y == _c[_i]).astype(int), _q\n"
)


def _imports(expr: str) -> str:
    """What a validation cell scoring ``expr`` imports and the helpers it calls."""
    return (
        _IMPORTS
        + (_POSITIVE if "_mlestar_positive(" in expr else "")
        + (_BINARY if "_mlestar_binary(" in expr else "")
    )


NOT_UNDERSTOOD = "not_understood"
# the run's end status when the user's notebook ran past its execution's time limit as written:
# it was understood, it was too slow to give a score (not ``not_understood``)
TIMED_OUT = "timed_out"


@dataclass(frozen=True)
class PreparedNotebook:
    """The notebook to start from, what was found in it, and whether it can be refined."""

    notebook: SolutionNotebook
    analysis: Analysis
    understood: bool
    reason: str = ""  # why not understood, for the run's status message
    added_block: str | None = None  # the validation cell MLE-STAR added, if any
    note: str = ""  # what was added and why (also the markdown cell's text)
    # data paths pointed at ./input, installs and downloads muted, imports guarded, the user's
    # modules copied (``data_paths``, ``missing_modules``, ``local_modules``): what a proposal
    # gives back to the user's own cells (``changes``)
    data_paths: tuple[PathChange, ...] = ()


def prepare_user_notebook(
    nb: SolutionNotebook,
    task: Task,
    *,
    network: bool = False,
    installed: Callable[[str], bool] = importable,
    gpu: bool | None = None,
    notebook_dir: Path | None = None,
) -> PreparedNotebook:
    """Each ``input()`` given the answer saved with its cell (``input_lines``), cells that
    failed before their author ran the cells below commented out (``error_cells``), its debug
    switch turned off (``debug_switch``), data paths
    pointed at ``./input``, package installs and downloads muted without
    ``network``, lines only Colab runs muted (``colab_lines``), imports of drawing packages that
    ``installed`` says are missing guarded, the user's own modules it imports from the task's
    data copied with their paths pointed there (``local_modules``; a markdown cell says all of
    it: ``changes``), and those it imports from folders it adds to ``sys.path`` beside
    ``notebook_dir`` (its own folder) copied whole (``path_modules``), a first cell seeding the global random generators (``seeding``), a
    cell reading text as dtype ``object`` for code that tests for it (``text_dtype``), roles
    inferred (tags win), and a validation cell in the task's metric when none prints one.  The
    outputs the notebook was saved with are cleared (each run writes its own).  Without a
    ``gpu`` (``None``: whether this machine has one, ``detect_environment``), its GPU-only
    settings are made the CPU's (``gpu_settings``); with one, XGBoost's old GPU settings are
    the installed version's (``codecheck.api_drift``: ``gpu_hist`` → ``device='cuda'``)."""
    # the outputs the user saved are no candidate's (a 14 MB notebook of plots made every
    # candidate, and final/solution.ipynb, show them): each run writes its own
    nb, answered = answer_inputs(nb)  # from the answers saved in its outputs
    nb, skipped = skip_failed_cells(nb)  # cells that failed before later ones ran
    nb, debug = debug_off(nb)  # DEBUG = True: a run trains on every row, writes the file
    own_dirs = module_folders(nb, notebook_dir)  # where Jupyter imports its modules from
    moved_nb, moved = point_to_input(
        nb.clear_outputs(), task.input_dir, network=network, module_dirs=own_dirs
    )
    moved_nb, handed = point_call_folders(moved_nb, task.input_dir, own_dirs)  # load_data(".")
    moved += handed
    moved_nb, colab = mute_colab(moved_nb)
    moved_nb, stopped = stop_at_exit(moved_nb)
    has_gpu = detect_environment().gpu if gpu is None else gpu
    # before the old calls: XGBoost's gpu_hist/gpu_id become the CPU's here, not first the
    # device='cuda' a GPU machine's XGBoost takes (``api_drift``) and then the CPU's
    moved_nb, cpu = (moved_nb, ()) if has_gpu else cpu_settings(moved_nb)
    moved_nb, old_calls = repair_old_calls(moved_nb)
    moved_nb, argv = empty_argv(moved_nb)  # parser.parse_args(): the kernel's -f kernel.json
    moved_nb, scorings = positive_scorings(moved_nb, task)  # scoring="f1" of the task's class
    moved_nb, guarded = guard_imports(moved_nb, installed)
    moved_nb, local = copy_local_modules(
        moved_nb, task.input_dir, network=network, installed=installed
    )
    # from the folders it adds to sys.path beside it (notebook_dir): sys.path.append("../src")
    moved_nb, _ = copy_path_modules(
        moved_nb, notebook_dir, task.input_dir, network=network, installed=installed
    )
    moved = answered + skipped + debug + moved + colab + stopped + cpu + old_calls + argv
    moved += scorings
    moved += guarded + local
    prepared = _prepare(seed_cell(text_as_object(moved_nb)), task)
    lacking = [] if prepared.understood else lacking_imports(moved_nb, installed, task.input_dir)
    if lacking:  # most likely what the notebook needs first
        named = ", ".join(lacking)
        prepared = replace(
            prepared,
            reason=f"it imports {named}, which the run's kernels lack (install "
            f"{'it' if len(lacking) == 1 else 'them'} where Jupyter runs: pip install "
            f"{' '.join(lacking)}); and {prepared.reason}",
        )
    if not moved:
        return prepared
    order = prepared.notebook.block_ids
    first = min((c.block_id for c in moved), key=order.index)  # the first cell changed
    out = prepared.notebook.insert_markdown_before(first, note_for(moved))
    return replace(prepared, notebook=out, data_paths=moved + prepared.data_paths)


def why_it_failed(
    error: str, task: Task, notebook_dir: Path | None = None, *, source: str = ""
) -> str:
    """What to do about the error that stopped the user's notebook, when the error says: a file
    it reads that is not where a run's notebooks see the data, a module of the user's own
    (a ``.py`` file or package in the task's folder or ``notebook_dir``, the notebook's own), a
    package the kernel lacks, or a question for its user (``input()`` in ``source``, its code);
    ``""`` for other errors."""
    asked = asks_for_input(error, source)
    if asked:
        return asked
    m = re.search(
        r"(?:FileNotFoundError|No such file or directory)\W+(?:\[Errno 2\][^']*)?'(?P<p>[^']+)'",
        error,
    )
    if m:
        shown = (
            sorted(p.name for p in task.input_dir.iterdir())[:8] if task.input_dir.is_dir() else []
        )
        # a path made from the folder it runs in: the run's own scratch folder is not the user's
        read = re.sub(r"^.*/mlestar-exec-[^/]+/(?:.*/)?work/[^/]+/", "./", m.group("p"))
        return (
            f"it reads {read!r}, which a run cannot find: each notebook of a run executes "
            f"in its own folder with the task's data in ./input ({', '.join(shown) or 'empty'}); "
            "read your files from 'input/...' (or set your data folder variable to 'input')"
        )
    m = re.search(r"No module named '(?P<m>[\w.]+)'", error)
    if m:
        top = m.group("m").split(".")[0]
        own = _own_module(top, task.input_dir, notebook_dir)
        if own is not None and own.parent == task.input_dir:
            return (
                f"it imports {m.group('m')!r}, which your own {own.name} among the task's data "
                "does not provide (a run's kernels import the .py files of the task's data "
                "from ./input, after the installed packages)"
            )
        if own is not None:
            return (
                f"it imports {top!r}, your own {own}, which a run's kernels cannot see: they see "
                f"only the task's data folder {task.input_dir} (as ./input, whose .py files import "
                f"as in Jupyter); put {own.name} there"
            )
        return (
            f"it imports {top!r}, which is not installed where the run's kernels run: install it "
            "in the environment Jupyter runs in (a run installs nothing itself)"
        )
    return ""


def _own_module(top: str, *folders: Path | None) -> Path | None:
    """The user's own module ``top`` (``top.py`` or a folder ``top/``) in the first of
    ``folders`` holding it, or ``None``."""
    for folder in folders:
        for own in (folder / f"{top}.py", folder / top) if folder else ():
            if own.is_file() or (own.is_dir() and any(own.glob("*.py"))):
                return own
    return None


def _prepare(nb: SolutionNotebook, task: Task) -> PreparedNotebook:
    """Roles inferred (tags win), and a validation cell in the task's metric when none prints one."""
    analysis = analyze(nb)
    if analysis.prints_score:
        return PreparedNotebook(tag_roles(nb, analysis), analysis, True)
    nb, named = name_cv_models(nb)
    if named:
        analysis = analyze(nb)
    tagged = tag_roles(nb, analysis)
    if not analysis.has_fit:
        return PreparedNotebook(
            tagged,
            analysis,
            False,
            "no model fit found: MLE-STAR looks for an estimator's .fit(...), lgb.train(...), "
            "cross_val_score(model, X, y) or a torch loop calling loss.backward(); add the "
            "cell that trains your model",
        )
    try:
        metric = get_metric(task.metric_name)
    except UnknownMetricError:
        metric = None
    ranked_k = (metric.k or 1) if metric is not None and metric.kind == "ranked" else None
    expr = _expr_of(metric) if metric else None
    if expr is None:
        return PreparedNotebook(
            tagged,
            analysis,
            False,
            f"the task's metric {task.metric_name!r} cannot be computed automatically; print "
            "'Final Validation Performance: <score>' in your notebook",
        )
    assert metric is not None
    if task.positive_label is not None:  # the class task.json names positive, as graded
        for helper in ("_mlestar_positive", "_mlestar_binary"):
            expr = expr.replace(f"{helper}(_y, _p)", f"{helper}(_y, _p, {task.positive_label!r})")
    # the notebook's values are logs already: their RMSE is the RMSLE; but a metric call of its
    # own on prices (mean_squared_log_error(y_va, np.expm1(pred))) is scored as the task's
    in_units = expr
    if metric.name == "rmsle" and models_log_of(nb, task.target):
        expr = _EXPR["rmse"]
    proba = metric.name in _PROBA
    args = (expr, proba, task.task_type == "classification", metric.higher_is_better)
    # y = np.log1p(train.pop("price")), graded by RMSE: the model's own values are logs
    logged = metric.name != "rmsle" and metric.kind == "regression"
    logged = logged and models_log_of(nb, task.target)
    # np.sqrt(-cross_val_score(..., scoring="neg_mean_squared_error")) of log prices: RMSLE
    # (scores of logs graded in the target's own units are no score of the task's metric)
    cv_metric = "rmse" if metric.name == "rmsle" and expr == _EXPR["rmse"] else metric.name
    cv_metric = "" if logged else cv_metric
    found = _own_cross_validation(analysis, nb, cv_metric, task.task_type == "classification")
    classifies = task.task_type == "classification"
    searched = None if found else search_score_cell(analysis, nb, metric.name, classifies)
    found = found or (_Found(*searched) if searched else None)  # GridSearchCV: its best_score_
    cv = None if found else booster_cv_cell(analysis, nb, metric.name)  # lgb.cv: its last mean
    found = found or (_Found(*cv) if cv else None)

    def validation(analysis: Analysis, nb: SolutionNotebook) -> _Found | None:
        return _validation_cell(
            analysis,
            nb,
            *args,
            ranked_k=ranked_k,
            logged=logged,
            metric_name=metric.name,
            in_units=in_units,
        )

    found = found or validation(analysis, nb)
    if found is not None and found.then_measured:  # the loop's best, in the task's metric
        measured = validation(analysis, nb)
        order = nb.block_ids
        if (
            measured is None
            or measured.loop_metric is not None
            or order.index(measured.after) < order.index(found.after)
        ):
            found = measured  # the loop left as it is
        else:
            found = measured._replace(
                code=f"{found.code}\n\n{measured.code}",
                how=f"{found.how} {measured.how}",
                lines=found.lines,
            )
    kept: tuple[PathChange, ...] = ()
    if found is not None and found.lines is not None:  # each model of a loop kept (cv_loop)
        block_id, source, lines = found.lines
        nb = nb.replace_block(block_id, source)
        kept = tuple(PathChange(block_id, "", line, "fold") for line in lines)
        analysis = analyze(nb)
        tagged = tag_roles(nb, analysis)
    if found is not None and found.loop_metric is not None:  # every pass of the loop is scored
        loop_metric = found.loop_metric
        source, lines = collect_folds(nb.block(loop_metric.block_id).source, loop_metric)
        nb = nb.replace_block(loop_metric.block_id, source)
        kept = tuple(PathChange(loop_metric.block_id, "", line, "fold") for line in lines)
        analysis = analyze(nb)
        tagged = tag_roles(nb, analysis)
        found = validation(analysis, nb)
    inside = sorted({f.scope for f in analysis.fits if f.scope})
    if found is None and inside and not any(f.var and not f.scope for f in analysis.fits):
        return PreparedNotebook(
            tagged,
            analysis,
            False,
            f"the model is fitted inside a function ({', '.join(inside)}), where a cell added "
            "after it cannot reach the model or the validation data; print 'Final Validation "
            "Performance: <score>' inside the function (on your validation rows, in the task's "
            f"metric, {task.metric_name}), or fit the model at the notebook's top level",
        )
    if found is None:
        return PreparedNotebook(
            tagged,
            analysis,
            False,
            f"found a model fit ({_fitted(analysis)}) but no validation rows a cell added after "
            "it can score it on: that needs a train_test_split into four parts (X_train, X_val, "
            "y_train, y_val), a metric call on its predictions, or a scikit-learn estimator to "
            "cross-validate; print 'Final Validation Performance: <score>' in your notebook "
            f"(on your own validation rows, in the task's metric, {task.metric_name})",
        )
    after, code, how = found.after, found.code, found.how
    tagged, freed, names = keep_for_validation(tagged, after, code)  # del X_valid; gc.collect()
    freed_names = ", ".join(f"`{n}`" for n in names)
    note = (
        (
            "**Added by MLE-STAR.** Your notebook prints no line a run reads as its validation "
            f"score ('Final Validation Performance: <score>', in the task's metric, "
            f"{task.metric_name}), so the next cell measures it {how}. Every refinement is "
            "compared by this score; the cells above and below are yours."
        )
        + (
            f" The cell above deletes {freed_names}, which this cell reads: in a run that "
            "`del` keeps them."
            if freed
            else ""
        )
        + (cv_note_for(named) if named else "")
    )
    out = tagged.insert_block_after(after, code, role="evaluate", origin="mlestar:validation")
    added = out.block_ids[out.block_ids.index(after) + 1]
    if found.compares:  # the run notes on it which model it kept (``compared_models``)
        out.cell(added).metadata[META][COMPARES] = found.compares
    out = out.insert_markdown_before(added, note)
    return PreparedNotebook(
        out, analysis, True, added_block=added, note=note, data_paths=kept + freed
    )


_PREDICT = (
    "def _mlestar_predict(_model, _X):\n"
    '    """The model\'s predictions for _X (a native xgboost Booster reads a DMatrix)."""\n'
    "    if type(_model).__name__ == 'Booster' and type(_model).__module__.startswith('xgboost'):\n"
    "        import xgboost as _xgb\n\n"
    "        _X = _xgb.DMatrix(_X)\n"
    "    return np.asarray(_model.predict(_X))\n\n\n"
)
# a native booster (lgb.train, xgb.train) predicts probabilities: its classes are 0..K-1
_BOOSTER_LABELS = (
    "    if type(_model).__name__ == 'Booster' and _p.dtype.kind == 'f':\n"
    "        _p = _p.argmax(axis=1) if _p.ndim == 2 else (_p > 0.5).astype(int)\n"
)


def _fitted(a: Analysis) -> str:
    """The models a notebook fits, for a message (``ols``, ``model``)."""
    names = sorted({f"`{f.var}`" for f in a.fits if f.var}) or ["a torch model"]
    return ", ".join(names[:3])


def _score_fn(
    expr: str, proba: bool, ranked_k: int | None = None, classification: bool = False
) -> str:
    """``_mlestar_score(_model, _X, _y)``: ``expr`` of the model's predictions ``_p`` (its
    probabilities where ``proba``; its ``ranked_k`` most likely classes per row for MAP@k; a
    native booster's probabilities read as classes for a label metric of a ``classification``)."""
    pred = (
        "    if hasattr(_model, 'predict_proba'):\n"
        "        _order = np.argsort(-np.asarray(_model.predict_proba(_X)), axis=1, kind='stable')\n"
        f"        _p = np.asarray(_model.classes_)[_order[:, :{ranked_k}]]\n"
        "    else:  # no probabilities: its one predicted class\n"
        "        _p = np.asarray(_model.predict(_X))[:, None]\n"
        if ranked_k
        else "    if hasattr(_model, 'predict_proba'):\n"
        "        _p = np.asarray(_model.predict_proba(_X))\n"
        "        _p = _p[:, 1] if _p.ndim == 2 and _p.shape[1] == 2 else _p\n"
        "    else:\n"
        "        _p = _mlestar_predict(_model, _X)\n"
        if proba
        else "    _p = _mlestar_predict(_model, _X)\n" + (_BOOSTER_LABELS if classification else "")
    )
    return (
        _imports(expr) + "\n\n" + _PREDICT + "def _mlestar_score(_model, _X, _y):\n"
        '    """The task\'s metric of a fitted model on (_X, _y)."""\n'
        f"{pred}"
        f"    return {expr}\n"
    )


def _best_of_collection(fit: Fit, score: str, higher: bool) -> str:
    """Code that scores every model of the collection ``fit``'s loop compares (``score``: an
    expression of ``_m``), prints each score and the best one, and leaves the best model in the
    loop's variable, as a notebook comparing models means to pick it."""
    pick = "max" if higher else "min"
    return (
        "\n\n\ndef _mlestar_models(_c):\n"
        '    """(name, model) pairs of a dict of models, a list of models or of (name, model) pairs."""\n'
        "    if isinstance(_c, dict):\n"
        "        return list(_c.items())\n"
        "    return [tuple(_m) if isinstance(_m, tuple) and len(_m) == 2 else (str(_i), _m) for _i, _m in enumerate(_c)]\n\n\n"
        "_compared = []\n"
        f"for _n, _m in _mlestar_models({fit.over}):\n"
        "    try:\n"
        f"        _compared.append(({score}, str(_n), _m))\n"
        "    except Exception as _e:  # a model the loop did not fit (a copy was fitted)\n"
        '        print(f"{_n}: not scored ({type(_e).__name__})")\n'
        "for _s, _n, _ in _compared:\n"
        '    print(f"{_n}: {_s}")\n'
        "if _compared:\n"
        f"    _best = {pick}(_compared, key=lambda _t: _t[0])\n"
        f"    {fit.var} = _best[2]  # the best of the models compared\n"
        '    print(f"best: {_best[1]}")\n'
        '    print(f"Final Validation Performance: {_best[0]}")'
    )


def _handed_to_a_function(
    nb: SolutionNotebook, models: set[str]
) -> tuple[str, str, str, str, str] | None:
    """(block, function, model, X, y) of the last top-level call ``f(model, X, y, ...)`` of a
    function of the notebook (``evaluate(model, X_va, va["y"])``) that takes a fitted model
    first and two more arguments, or ``None``."""
    own = set()
    calls = []
    for b in nb.code_blocks:
        try:
            tree = ast.parse(strip_magics(b.source))
        except SyntaxError:
            continue
        own |= {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
        for node in tree.body:
            value = node.value if isinstance(node, ast.Expr | ast.Assign) else None
            if (
                isinstance(value, ast.Call)
                and isinstance(value.func, ast.Name)
                and len(value.args) >= 3
                and isinstance(value.args[0], ast.Name)
                and value.args[0].id in models
                and not any(isinstance(a, ast.Starred) for a in value.args[:3])
            ):
                x, y = ast.unparse(value.args[1]), ast.unparse(value.args[2])
                calls.append((b.id, value.func.id, value.args[0].id, x, y))
    mine = [c for c in calls if c[1] in own]
    return mine[-1] if mine else None


def _scored_by_its_score(nb: SolutionNotebook, fits: list[Fit]) -> tuple[str, str, str, str] | None:
    """(block, model, X, y) of the last ``model.score(X, y)`` outside any function, where
    ``model`` is a model the notebook fits and ``X`` is no table it was fitted on (scikit-learn's
    own score of the validation rows: ``knn.score(X_val_s, y_val)``), else ``None``."""
    trained = {(f.var, f.args[0]) for f in fits if f.args}
    models = {f.var for f in fits}
    found = None
    for b in nb.code_blocks:
        try:
            tree = ast.parse(strip_magics(b.source))
        except SyntaxError:
            continue
        for stmt in tree.body:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                continue
            for node in ast.walk(stmt):
                if not (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "score"
                    and isinstance(node.func.value, ast.Name)
                    and node.func.value.id in models
                    and len(node.args) == 2
                    and not node.keywords
                ):
                    continue
                var, x, y = node.func.value.id, *(ast.unparse(a) for a in node.args)
                if (var, x) not in trained:
                    found = (b.id, var, x, y)
    return found


class _Found(NamedTuple):
    """The validation cell to add: after which block, its code, how it measures (for the note),
    the metric call it scores at every pass of a loop (``fold_scores``), if it does, and the
    collection of models it compares, keeping the best (``compared_models``), if it does."""

    after: str
    code: str
    how: str
    loop_metric: MetricCall | None = None
    compares: str = ""
    # (block, its source with lines added, the lines): models cross-validated in a loop, each
    # pass's score and model kept (``cv_loop``)
    lines: tuple[str, str, tuple[str, ...]] | None = None
    # ``code`` only picks the model (a loop scored in another metric): the cell a notebook
    # gets (``_validation_cell``) measures it after that code
    then_measured: bool = False


def _own_cross_validation(
    a: Analysis, nb: SolutionNotebook, metric: str, classification: bool
) -> _Found | None:
    """The notebook's own cross-validation, when it scores the task's metric: ``scores =
    cross_val_score(pipe, X, y, cv=5)`` at the top level (only ``pipe`` fitted after it, on
    all the rows, for the submission), whose ``scoring``
    is the metric (none: accuracy for a classifier, R² for a regressor; a ``neg_`` scorer's
    scores negated).  Its mean is the score a run reads, on the notebook's own folds, rather than
    a 3-fold cross-validation of the run's (which scored an outsider's notebook 0.774 where its
    own 5 folds said 0.782, and chose changes by it)."""
    order = [c.block_id for c in a.cells]
    fits = sorted((f for f in a.fits if not f.scope), key=lambda f: order.index(f.block_id))
    constants = scoring_constants(nb)
    for call in reversed(a.metrics):
        if call.func != "cross_val_score" or call.scope:
            continue
        later = [f for f in fits if order.index(f.block_id) > order.index(call.block_id)]
        if later and (not call.args or later[-1].var != call.args[0]):
            return None  # another model is fitted after it: its folds do not score that one
        try:
            tree = ast.parse(strip_magics(nb.block(call.block_id).source))
        except SyntaxError:
            return None
        for node in ast.walk(tree):
            if not (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Call)
                and node.value.lineno == call.position[0]
            ):
                continue
            cvs = _rooted_scores(node.value)  # np.sqrt(-cross_val_score(...)): the RMSE
            rooted = cvs is not None
            cvs = cvs or node.value
            scoring = next((k.value for k in cvs.keywords if k.arg == "scoring"), None)
            scoring = _resolved(scoring, constants)  # SCORING = "roc_auc"; scoring=SCORING
            if rooted:
                squared = scoring.value if isinstance(scoring, ast.Constant) else None
                squared = SCORING_METRICS.get(squared) if isinstance(squared, str) else None
                if squared not in ("mse", "msle"):
                    return None
                scored = f"r{squared}"  # rmse, rmsle
            elif scoring is None:
                scored = "accuracy" if classification else "r2"
            elif isinstance(scoring, ast.Constant) and isinstance(scoring.value, str):
                scored = SCORING_METRICS.get(scoring.value, "")
            elif _positive_scorer(scoring):  # scoring="f1" of the task's class (positive_scoring)
                assert isinstance(scoring, ast.Call) and isinstance(scoring.args[0], ast.Constant)
                scored = SCORING_METRICS.get(str(scoring.args[0].value), "")
            else:
                return None
            name = node.targets[0].id
            source = nb.block(call.block_id).source
            each = keep_each_model(source, node.lineno, name, call.args[0]) if call.args else None
            if rooted and each is not None:
                return None  # a loop's best is its greatest score: not so of errors' roots
            if scored != metric and each is not None:  # the best by the loop's own scores,
                return _Found(  # then measured in the task's metric (``cv_loop``)
                    call.block_id,
                    pick_best_code(call.args[0]),
                    f"for the best of your loop's models by the mean of their own "
                    f"cross-validation's scores (`{name}`, kept at each pass; not in the "
                    f"task's metric, so not the run's score), kept as `{call.args[0]}`,",
                    lines=(call.block_id, *each),
                    then_measured=True,
                )
            if scored != metric:
                return None
            negated = isinstance(scoring, ast.Constant) and str(scoring.value).startswith("neg_")
            negated = negated and not rooted  # the root of the negated scores is positive
            if each is not None:  # for name, model in [...]: s = cross_val_score(model, ...)
                return _Found(
                    call.block_id,
                    best_model_code(call.args[0], negated),
                    f"as the best of your loop's models by the mean of their cross-validation's "
                    f"scores (`{name}`, kept at each pass), and keeps that model as "
                    f"`{call.args[0]}`",
                    lines=(call.block_id, *each),
                )
            code = (
                "import numpy as np\n\n"
                f"# the mean of your own cross-validation's scores ({ast.unparse(scoring) if scoring else 'the default scoring'})\n"
                f'print(f"Final Validation Performance: {{{"-" if negated else ""}float(np.mean({name}))}}")'
            )
            return _Found(
                call.block_id, code, f"as the mean of your cross-validation's scores (`{name}`)"
            )
        return None
    return None


def _rooted_scores(value: ast.expr) -> ast.Call | None:
    """The ``cross_val_score(...)`` call of ``np.sqrt(-cross_val_score(...))`` (also ``-1 *``,
    ``* -1``, ``np.sqrt(np.abs(...))``): each fold's root of its squared error, else None."""
    if not (
        isinstance(value, ast.Call)
        and len(value.args) == 1
        and ast.unparse(value.func) in ("np.sqrt", "numpy.sqrt", "sqrt")
    ):
        return None
    inner = value.args[0]
    if isinstance(inner, ast.UnaryOp) and isinstance(inner.op, ast.USub):
        inner = inner.operand
    elif isinstance(inner, ast.BinOp) and isinstance(inner.op, ast.Mult):
        minus_one = [x for x in (inner.left, inner.right) if ast.unparse(x) in ("-1", "-1.0")]
        if not minus_one:
            return None
        inner = inner.right if minus_one[0] is inner.left else inner.left
    elif (
        isinstance(inner, ast.Call) and ast.unparse(inner.func) in ("np.abs", "abs") and inner.args
    ):
        inner = inner.args[0]
    else:
        return None
    if isinstance(inner, ast.Call) and ast.unparse(inner.func).split(".")[-1] == "cross_val_score":
        return inner
    return None


def _resolved(scoring: ast.expr | None, constants: dict[str, ast.expr]) -> ast.expr | None:
    """``scoring`` with a variable assigned once at a cell's top level read as its literal
    (``SCORING = "roc_auc"``, ``scoring=SCORING``; ``positive_class_scorer(SCORING, "yes")`` as
    ``positive_class_scorer("f1", "yes")``)."""
    if isinstance(scoring, ast.Name) and scoring.id in constants:
        return constants[scoring.id]
    if (
        isinstance(scoring, ast.Call)
        and isinstance(scoring.func, ast.Name)
        and scoring.func.id == SCORER_HELPER
        and scoring.args
        and isinstance(scoring.args[0], ast.Name)
        and scoring.args[0].id in constants
    ):
        return ast.Call(scoring.func, [constants[scoring.args[0].id], *scoring.args[1:]], [])
    return scoring


def _positive_scorer(node: ast.expr) -> bool:
    """Whether ``node`` is ``positive_class_scorer("f1", ...)`` (``positive_scoring``)."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == SCORER_HELPER
        and bool(node.args)
        and isinstance(node.args[0], ast.Constant)
    )


def _own_metric_cell(
    a: Analysis,
    nb: SolutionNotebook,
    expr: str,
    ranked_k: int | None,
    in_units: str = "",
    metric_name: str = "",
) -> _Found | None:
    """A cell scoring the values the notebook's last metric call after its last model fit
    takes (``rmse = mean_squared_error(np.expm1(y_va), pred)``), else ``None``; the last
    call of the task's metric, ``metric_name``, when there is one (``roc_auc_score(y_va,
    proba)`` before ``accuracy_score(y_va, pred)``: the AUC of probabilities, not of labels).
    ``in_units``: the task metric's expression on values in the target's own units, used when
    that call is a log error (``mean_squared_log_error(y_va, np.expm1(pred))``: prices, not
    their logs)."""
    order = [c.block_id for c in a.cells]
    # the fits after which a metric call scores the final model: all of them, but the refits on
    # every row that only make the submission (validate, then refit and write: the usual end)
    last_fit = max(
        (order.index(f.block_id) for f in a.fits if not _refit_for_submission(nb, f, order)),
        default=-1,
    )
    after = [
        m
        for m in reversed(a.metrics)
        if len(m.args) >= 2 and not m.scope and order.index(m.block_id) >= last_fit
    ]
    metric = next(iter(_task_metric_first(after, nb, metric_name)), None)
    if (
        metric is not None
        and metric.func not in ("cross_val_score", "cross_validate")
        and not ranked_k
    ):
        y, p = metric.args[0], metric.args[1]
        if in_units and metric.func.split(".")[-1] in _LOG_ERRORS:
            expr = in_units
        cell = nb.block(metric.block_id).source
        if in_loop(cell, metric) and not in_epoch_loop(cell, metric):
            return _Found(
                metric.block_id,
                fold_mean_code(_imports(expr), expr, y, p),
                f"from the values your metric uses (`{y}`, `{p}`) at every pass of your loop, "
                "as the mean of the passes (a line added in the loop keeps each pass's values)",
                metric,
            )
        code = (
            _imports(expr) + "\n"
            f"_y, _p = np.asarray({y}), np.asarray({p})\n"
            # the score first: a metric's own quotes inside the f-string need Python 3.12
            f"_score = {expr}\n"
            'print(f"Final Validation Performance: {_score}")'
        )
        return _Found(metric.block_id, code, f"from the values your metric uses (`{y}`, `{p}`)")
    return None


def _own_score_cell(a: Analysis, nb: SolutionNotebook, metric_name: str) -> _Found | None:
    """A cell printing the score the notebook writes out by hand in the task's metric, at its
    top level after its last model fit (a torch notebook's
    ``acc = (model(X_va).argmax(1) == y_va).float().mean().item()``), else ``None``."""
    order = [c.block_id for c in a.cells]
    last_fit = max((order.index(f.block_id) for f in a.fits if not f.scope), default=-1)
    if not metric_name or last_fit < 0:
        return None
    for block_id in reversed(order[last_fit:]):
        try:
            tree = ast.parse(strip_magics(nb.block(block_id).source))
        except SyntaxError:
            continue
        for node in reversed(_top_level_assignments(tree.body)):
            target = node.targets[0]
            if isinstance(target, ast.Name) and hand_written_metric(ast.unparse(node.value)) == (
                metric_name
            ):
                return _Found(
                    block_id,
                    f'print(f"Final Validation Performance: {{float({target.id})}}")',
                    f"from the score your cell writes out by hand (`{target.id}`)",
                )
    return None


def _top_level_assignments(body: list[ast.stmt]) -> list[ast.Assign]:
    """The one-name assignments of ``body`` run once (inside ``with``, ``if`` and ``try``, not
    in a function), in order; and those of a training loop's passes (``for epoch in ...``: after
    the loop the name holds its last pass's value, the score of the model the loop ends with),
    not of other loops (folds: each pass another model)."""
    found: list[ast.Assign] = []
    for node in body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            found.append(node)
        elif isinstance(node, (ast.With, ast.If, ast.Try)):
            inner = [*node.body, *getattr(node, "orelse", []), *getattr(node, "finalbody", [])]
            found += _top_level_assignments(inner)
        elif isinstance(node, ast.For | ast.AsyncFor | ast.While) and steps_a_model(node):
            found += _top_level_assignments(node.body)
    return found


def _validation_cell(
    a: Analysis,
    nb: SolutionNotebook,
    expr: str,
    proba: bool,
    classification: bool,
    higher: bool = True,
    *,
    ranked_k: int | None = None,
    logged: bool = False,
    metric_name: str = "",
    in_units: str = "",
) -> _Found | None:
    """(block to insert after, the cell's code, how it measures) or None.  ``ranked_k``: the
    metric scores each row's k most likely classes (MAP@k), which only the model can give: the
    values the notebook's own metric call takes (labels) are not used then.  ``logged``: the
    model predicts the log of the target, graded in its own units: the notebook's own metric
    call (on the values turned back, ``np.expm1``) comes before scoring the model on the split.
    ``metric_name``: the task's, which a score the notebook writes out by hand may compute.
    ``in_units``: the metric on the target's own units (see :func:`_own_metric_cell`)."""
    fits = [f for f in a.fits if f.var and not f.scope]  # a function's names are its own
    if logged:
        found = _own_metric_cell(a, nb, expr, ranked_k, in_units, metric_name)
        if found is not None:
            return found
    if a.split is not None:
        names = a.split[1]
        x_tr, x_val, y_val = names[0], names[1], names[3]
        # a cross-validation fits copies: the estimator it is given is never fitted itself
        # a model's fit takes the labels too: ``StandardScaler().fit(X_tr)`` is no model
        on_split = [
            f for f in fits if len(f.args) >= 2 and f.args[0] == x_tr and not f.cross_validated
        ]
        fit = _final_fit(a, on_split)
        if fit is not None and fit.over:
            code = _score_fn(expr, proba, ranked_k, classification) + _best_of_collection(
                fit, f"_mlestar_score(_m, {x_val}, {y_val})", higher
            )
            return _Found(
                fit.block_id,
                code,
                f"for each model of `{fit.over}` on your validation split (`{x_val}`, "
                f"`{y_val}`) and keeps the best as `{fit.var}`",
                compares=fit.over,
            )
        refit = _refit_after(fits, fit) if fit is not None else None
        if fit is not None and refit is not None:
            # clf.fit(X_tr, y_tr); ...; clf.fit(X, y) in one cell: after it ``clf`` has seen the
            # validation rows, so a copy fitted on the training rows is scored
            y_tr = names[2]
            code = _score_fn(expr, proba, ranked_k, classification) + (
                "\n\nfrom sklearn.base import clone as _clone\n\n"
                f"_m = _clone({fit.var}, safe=False)\n"
                f"_m.fit({x_tr}, {y_tr})\n"
                f'print(f"Final Validation Performance: {{_mlestar_score(_m, {x_val}, {y_val})}}")'
            )
            how = (
                f"on your validation split (`{x_val}`, `{y_val}`), with a copy of `{fit.var}` "
                f"fitted on `{x_tr}`, `{y_tr}` (your cell refits `{fit.var}` on "
                f"`{', '.join(refit.args[:2])}` after, which holds the validation rows)"
            )
            return _Found(fit.block_id, code, how)
        if fit is not None:
            code = _score_fn(expr, proba, ranked_k, classification) + (
                f'\n\nprint(f"Final Validation Performance: '
                f'{{_mlestar_score({fit.var}, {x_val}, {y_val})}}")'
            )
            return _Found(fit.block_id, code, f"on your validation split (`{x_val}`, `{y_val}`)")
    found = _own_metric_cell(a, nb, expr, ranked_k, in_units, metric_name) or _own_score_cell(
        a, nb, metric_name
    )
    if found is not None:
        return found
    # bst = lgb.train(params, lgb.Dataset(X_train, y_train)): a native booster, whose fit reads
    # no X_train, scored on the split's validation rows
    native = next((f for f in fits if not f.args), None)
    if a.split is not None and native is not None:
        x_val, y_val = a.split[1][1], a.split[1][3]
        code = _score_fn(expr, proba, ranked_k, classification) + (
            f'\n\nprint(f"Final Validation Performance: '
            f'{{_mlestar_score({native.var}, {x_val}, {y_val})}}")'
        )
        return _Found(native.block_id, code, f"on your validation split (`{x_val}`, `{y_val}`)")
    # score = evaluate(model, X_va, va["y"]): the notebook's own function scores its model on
    # rows it passes (a function's metric is out of reach; its arguments are not)
    handed = _handed_to_a_function(nb, {f.var for f in fits})
    if handed is not None:
        block_id, func, var, x, y = handed
        code = _score_fn(expr, proba, ranked_k, classification) + (
            f'\n\nprint(f"Final Validation Performance: {{_mlestar_score({var}, {x}, {y})}}")'
        )
        return _Found(block_id, code, f"on the rows your cell gives `{func}` (`{x}`, `{y}`)")
    # print("val acc", knn.score(X_val_s, y_val)): the rows the model's own score is given
    scored = _scored_by_its_score(nb, fits)
    if scored is not None:
        block_id, var, x, y = scored
        how = f"on the rows your cell gives `{var}.score` (`{x}`, `{y}`)"
        looped = next((f for f in fits if f.var == var and f.over), None)
        if looped is not None:  # for name, model in models.items(): ... model.score(X_va, y_va)
            code = _score_fn(expr, proba, ranked_k, classification) + _best_of_collection(
                looped, f"_mlestar_score(_m, {x}, {y})", higher
            )
            how = f"for each model of `{looped.over}` {how} and keeps the best as `{var}`"
            return _Found(block_id, code, how, compares=looped.over)
        code = _score_fn(expr, proba, ranked_k, classification) + (
            f'\n\nprint(f"Final Validation Performance: {{_mlestar_score({var}, {x}, {y})}}")'
        )
        return _Found(block_id, code, how)
    # def validate(X, y): ... rmse = mean_squared_error(y.iloc[va], p) ...; main() calls it:
    # the function keeps its metric's values at every call (``fold_scores``), a cell scores them
    inner = _metric_in_a_called_function(a, nb, metric_name) if not ranked_k else None
    if inner is not None:
        metric_in, after = inner
        y, p = metric_in.args[0], metric_in.args[1]
        return _Found(
            after,
            fold_mean_code(_imports(expr), expr, y, p, scope=metric_in.scope),
            f"from the values your metric uses in `{metric_in.scope}()` (`{y}`, `{p}`) at its "
            "latest call, every pass of its loop scored and averaged (two lines added in the "
            "function keep the values)",
            metric_in,
        )
    fit2: Fit | None = next((f for f in fits if len(f.args) >= 2), None)
    if fit2 is None:
        return None
    x, y = fit2.args[0], fit2.args[1]
    splitter = (
        "StratifiedKFold(n_splits=3, shuffle=True, random_state=0)"
        if classification
        else "KFold(n_splits=3, shuffle=True, random_state=0)"
    )
    code = _score_fn(expr, proba, ranked_k, classification) + (
        "\n\nfrom sklearn.base import clone\n"
        "from sklearn.model_selection import KFold, StratifiedKFold\n\n\n"
        "def _rows(_a, _i):\n"
        "    return _a.iloc[_i] if hasattr(_a, 'iloc') else np.asarray(_a)[_i] if isinstance(_a, list) else _a[_i]\n\n\n"
        "def _mlestar_cv(_est):\n"
        '    """The mean score of 3 copies of ``_est``, each fitted without its fold."""\n'
        "    return np.mean([\n"
        f"        _mlestar_score(clone(_est).fit(_rows({x}, _tr), _rows({y}, _tr)), _rows({x}, _va), _rows({y}, _va))\n"
        f"        for _tr, _va in {splitter}.split({x}, {y})\n"
        "    ])"
    )
    if fit2.over:
        code += _best_of_collection(fit2, "_mlestar_cv(_m)", higher)
        how = f"for each model of `{fit2.over}` by 3-fold cross-validation on `{x}`, `{y}`"
        return _Found(
            fit2.block_id, code, how + f" and keeps the best as `{fit2.var}`", compares=fit2.over
        )
    code += f'\n\n\nprint(f"Final Validation Performance: {{_mlestar_cv({fit2.var})}}")'
    return _Found(
        fit2.block_id, code, f"by 3-fold cross-validation of `{fit2.var}` on `{x}`, `{y}`"
    )


def _final_fit(a: Analysis, fits: list[Fit]) -> Fit | None:
    """The model the notebook ends with, of ``fits`` (fits on the split's training rows): the
    last in reading order before the first cell that writes a submission (the model it
    submits, not a baseline fitted first, ``DummyClassifier().fit(X_tr, y_tr)``, nor the last
    of a loop trying settings), else the last; ``None`` for none."""
    order = [c.block_id for c in a.cells]
    ranked = sorted(fits, key=lambda f: (order.index(f.block_id), f.lineno))
    written = next((order.index(c.block_id) for c in a.cells if c.role == "submission"), None)
    before = [f for f in ranked if written is None or order.index(f.block_id) <= written]
    chosen = before or ranked
    return chosen[-1] if chosen else None


def _refit_after(fits: list[Fit], fit: Fit) -> Fit | None:
    """A later fit of ``fit``'s model in ``fit``'s own cell on other rows (``clf.fit(X, y)``
    after ``clf.fit(X_tr, y_tr)``: validate, then refit on every row to submit), else None."""
    return next(
        (
            f
            for f in fits
            if f.var == fit.var
            and f.block_id == fit.block_id
            and f.lineno > fit.lineno
            and f.args[:1] != fit.args[:1]
            and not f.cross_validated
        ),
        None,
    )


def _refit_for_submission(nb: SolutionNotebook, fit: Fit, order: list[str]) -> bool:
    """Whether ``fit`` is a refit that only makes the submission: a model of its own name
    (``full = lgb.train(...)``, ``final = Model().fit(train)``), fitted after a metric call,
    that its own cell or a later one predicts with and writes to a file (``to_csv``), and that
    no metric call scores."""
    if not fit.var or fit.scope:
        return False
    at = order.index(fit.block_id)
    used = re.compile(rf"(?<![\w.]){re.escape(fit.var)}\s*\.\s*predict")
    for block_id in order[at:]:
        src = nb.block(block_id).source
        if used.search(src) and re.search(r"\.to_csv\(|\.to_parquet\(", src):
            return not re.search(rf"_score\s*\((?:[^()]|\([^()]*\))*\b{re.escape(fit.var)}\b", src)
    return False


def _metric_in_a_called_function(
    a: Analysis, nb: SolutionNotebook, metric_name: str = ""
) -> tuple[MetricCall, str] | None:
    """The last metric call inside a function of the notebook whose values a line after it can
    keep (``fold_scores.in_function``), the last of the task's metric ``metric_name`` when
    there is one, and the last block whose top level calls that function (directly, or
    through functions of the notebook that call it)."""
    for metric in _task_metric_first(list(reversed(a.metrics)), nb, metric_name):
        if not metric.scope or metric.func in ("cross_val_score", "cross_validate"):
            continue
        if not in_function(nb.block(metric.block_id).source, metric):
            continue
        after = _last_caller(nb, metric.scope)
        if after is not None:
            return metric, after
    return None


def _task_metric_first(
    calls: list[MetricCall], nb: SolutionNotebook, metric_name: str
) -> list[MetricCall]:
    """``calls`` with those that compute the task's metric ``metric_name`` first, each group
    in its own order (a notebook printing its AUC and its accuracy is scored by the values its
    AUC takes: the accuracy's are labels)."""

    def same(call: MetricCall) -> bool:
        name = call_metric(call, nb)
        try:
            return name is not None and get_metric(name).name == metric_name
        except UnknownMetricError:
            return False

    own = [c for c in calls if metric_name and same(c)]
    return own + [c for c in calls if c not in own]


def _last_caller(nb: SolutionNotebook, func: str) -> str | None:
    """The last code block whose top-level statements call ``func``, or a function of the
    notebook that calls it (``main()`` calling ``validate()``)."""
    trees: list[tuple[str, ast.Module]] = []
    for block in nb.code_blocks:
        try:
            trees.append((block.id, ast.parse(strip_magics(block.source))))
        except SyntaxError:
            continue
    callers = {func}
    grew = True
    while grew:  # the functions that call one of ``callers``, to a fixed point
        grew = False
        for _, tree in trees:
            for fn in ast.walk(tree):
                if (
                    isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef)
                    and fn.name not in callers
                    and _calls(fn.body, callers)
                ):
                    callers.add(fn.name)
                    grew = True
    found = None
    for block_id, tree in trees:
        top = [
            n
            for n in tree.body
            if not isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        ]
        if _calls(top, callers):
            found = block_id
    return found


def _calls(nodes: list[ast.stmt], names: set[str]) -> bool:
    """Some statement of ``nodes`` calls a function named in ``names``."""
    return any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in names
        for stmt in nodes
        for n in ast.walk(stmt)
    )


__all__ = [
    "NOT_UNDERSTOOD",
    "TIMED_OUT",
    "PreparedNotebook",
    "prepare_user_notebook",
    "why_it_failed",
]
