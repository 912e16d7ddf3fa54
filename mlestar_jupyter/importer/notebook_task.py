"""A task read from a user's notebook, for a folder that holds a notebook and its data only.

A data scientist's folder is rarely a task folder: no ``task.json``, no ``description.md``, just
``analysis.ipynb`` beside ``train.csv`` (or a ``data/`` folder).  :func:`task_from_notebook`
reads what the notebook itself says: the data files it reads (found under its folder), the column
it predicts (``y = df["price"]``, ``train_test_split(X, df["label"])``, ``df.drop(columns=[...])``
or the one column the training table has and the test table lacks), and the metric it computes
(``mean_squared_error`` inside ``np.sqrt`` reads as RMSE).  Everything inferred is said in the
task's notices, and :func:`task_spec` writes it as a ``task.json`` the user can save and edit.
What cannot be inferred fails once, with a :class:`NotebookTaskError` saying what to add.
"""

from __future__ import annotations

import ast
import fnmatch
import os
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..metrics import (
    UnknownMetricError,
    fbeta,
    get_metric,
    is_classification_metric,
    pinball,
    top_k_accuracy,
)
from ..notebook import SolutionNotebook
from ..notebook.roles import LAST_COLUMN, Analysis, MetricCall, analyze, models_log_of
from ..task import Task
from ..task.column_names import find_column
from ..task.errors import TaskFormatError
from ..task.fields import DataFile, FileRole, TaskFields
from ..task.infer import (
    DESCRIPTION_NAMES,
    README_NAMES,
    file_named,
    has_mlebench_files,
    infer_modality,
    infer_task_type,
    likely_id_column,
    metric_from_text,
)
from ..task.layout.tables import read_args
from ..task.text_format import FEATHER_EXT, TEXT_TABLE_EXT
from .unread_sources import unreadable_sources

DATA_EXT = (
    *TEXT_TABLE_EXT,  # gzipped or zipped CSV too (train.csv.gz)
    ".parquet",
    *FEATHER_EXT,
    ".xlsx",
    ".xls",
    ".json",
    ".jsonl",
    ".txt",
)
_SKIP_DIRS = {"runs", "node_modules", "__pycache__", "site-packages", "final", "working"}
_MAX_DEPTH = 3
# sklearn metric functions (and scoring strings) -> the registry's metric names
_FUNC_METRIC = {
    "accuracy_score": "accuracy",
    "balanced_accuracy_score": "balanced_accuracy",
    "roc_auc_score": "roc_auc",
    "log_loss": "log_loss",
    "f1_score": "f1",
    "precision_score": "precision",
    "recall_score": "recall",
    "matthews_corrcoef": "mcc",
    "mean_squared_error": "mse",
    "root_mean_squared_error": "rmse",
    "mean_absolute_error": "mae",
    "r2_score": "r2",
    "mean_squared_log_error": "rmsle",
    "root_mean_squared_log_error": "rmsle",
    "brier_score_loss": "brier",
    "cohen_kappa_score": "cohen_kappa",
    "explained_variance_score": "explained_variance",
    "mean_poisson_deviance": "poisson_deviance",
    "median_absolute_error": "medae",
    "mean_absolute_percentage_error": "mape",
    "fbeta_score": "fbeta",  # its beta (and average) read from the call: f2, f0.5_macro
    "jaccard_score": "jaccard",
    "hamming_loss": "hamming_loss",
    "max_error": "max_error",
    "d2_absolute_error_score": "d2_absolute_error",
    "zero_one_loss": "zero_one_loss",
    "mean_pinball_loss": "pinball",  # its alpha read from the call: pinball@0.9
    "top_k_accuracy_score": "top_k_accuracy",  # its k read from the call: top3_accuracy
}
# scikit-learn's scoring names -> the registry's metric (a neg_ scorer's score is the metric's
# negative)
SCORING_METRICS = {
    "accuracy": "accuracy",
    "balanced_accuracy": "balanced_accuracy",
    "roc_auc": "roc_auc",
    "roc_auc_ovr": "roc_auc",
    "roc_auc_ovo": "roc_auc_ovo",
    "roc_auc_ovo_weighted": "roc_auc_ovo_weighted",
    "roc_auc_ovr_weighted": "roc_auc_ovr_weighted",
    "precision_macro": "precision_macro",
    "precision_weighted": "precision_weighted",
    "precision_micro": "accuracy",  # of one label per row: the share of right labels
    "recall_micro": "accuracy",
    "recall_weighted": "accuracy",
    "recall_macro": "balanced_accuracy",
    "d2_absolute_error_score": "d2_absolute_error",
    "neg_log_loss": "log_loss",
    "f1": "f1",
    "f1_macro": "f1_macro",
    "f1_micro": "f1_micro",
    "f1_weighted": "f1_weighted",
    "precision": "precision",
    "recall": "recall",
    "average_precision": "average_precision",
    "jaccard": "jaccard",
    "neg_mean_squared_error": "mse",
    "neg_root_mean_squared_error": "rmse",
    "neg_mean_absolute_error": "mae",
    "neg_median_absolute_error": "medae",
    "neg_mean_absolute_percentage_error": "mape",
    "neg_mean_squared_log_error": "rmsle",
    "neg_brier_score": "brier",
    "explained_variance": "explained_variance",
    "neg_mean_poisson_deviance": "poisson_deviance",
    "jaccard_macro": "jaccard_macro",
    "neg_max_error": "max_error",
    "top_k_accuracy": "top2_accuracy",  # scikit-learn's scorer counts the first 2
    "r2": "r2",
}
# what a gradient-boosting library monitors (``{"metric": "auc"}``, ``eval_metric="rmse"``) ->
# the registry's metric names: the notebook's metric when it computes none itself
_BOOSTER_METRIC = {
    "auc": "roc_auc",
    "rmse": "rmse",
    "l2_root": "rmse",
    "root_mean_squared_error": "rmse",
    "mae": "mae",
    "l1": "mae",
    "mean_absolute_error": "mae",
    "rmsle": "rmsle",
    "logloss": "log_loss",
    "binary_logloss": "log_loss",
    "multi_logloss": "log_loss",
    "mlogloss": "log_loss",
    "multiclass": "log_loss",
    "error": "accuracy",
    "merror": "accuracy",
    "binary_error": "accuracy",
    "multi_error": "accuracy",
    "mape": "mape",
}
_MONITORED = re.compile(
    r"""(?:["'](?:eval_)?metric["']\s*:|\b(?:eval_)?metric\s*=)\s*\[?\s*["'](?P<m>\w+)["']"""
)
# data a notebook makes itself: scikit-learn's bundled sets and generators
_REGRESSION_MAKERS = {
    "load_diabetes",
    "load_linnerud",
    "make_regression",
    "make_friedman1",
    "make_friedman2",
    "make_friedman3",
    "make_sparse_uncorrelated",
}
_MAKERS = re.compile(
    r"\b(?P<name>load_(?:iris|digits|wine|breast_cancer|diabetes|linnerud)|"
    r"make_(?:classification|blobs|moons|circles|gaussian_quantiles|hastie_10_2|regression|"
    r"friedman[123]|sparse_uncorrelated))\s*\("
)
# data a notebook downloads: a run's kernels have no network
_DOWNLOADS = re.compile(
    r"\bfetch_\w+\s*\(|\bload_dataset\s*\(|\btfds\.load\s*\(|\bget_rdataset\s*\(|"
    r"read_\w+\(\s*[rfb]?[\"']https?://"
)
_CLASS_VALUES_MAX = 30  # a numeric target with at most this many distinct values is a label


# the data folder of a notebook that makes its own data in a folder too wide to mount
EMPTY_INPUT = Path(__file__).resolve().parent / "no_data"


class NotebookTaskError(TaskFormatError):
    """The notebook does not say enough to make a task (the message says what to add)."""


@dataclass(frozen=True)
class _Column:
    name: str
    why: str


def task_from_notebook(
    nb: SolutionNotebook,
    folder: str | Path,
    name: str = "",
    *,
    target: str | None = None,
    metric: str | None = None,
) -> Task:
    """The task ``nb`` works on, its data searched for under ``folder`` (the notebook's own
    folder); ``name`` (the notebook's file name) names the task and the messages.  ``target``
    (a column of the training table) and ``metric`` (any name the registry reads) replace what
    would be read from the notebook."""
    return Task(**notebook_task_fields(nb, folder, name, target=target, metric=metric))


def notebook_task_fields(
    nb: SolutionNotebook,
    folder: str | Path,
    name: str = "",
    *,
    target: str | None = None,
    metric: str | None = None,
) -> TaskFields:
    """The ``TaskFields`` of :func:`task_from_notebook`."""
    root = Path(folder).expanduser().resolve()
    label = name or "the notebook"
    nb.require_code()
    given_metric = _given_metric(metric, root) if metric else None
    given_target = target
    sources = [_plain(b.source) for b in nb.code_blocks]
    refs = list(dict.fromkeys(r for s in sources for r in _file_literals(s)))
    found = _resolve(root, refs)
    if not found:
        made = _made_in_notebook(nb, root, label, given_target, given_metric)
        if made is not None:
            return made
        zipped = _zipped_tables(root, sources)
        if zipped:
            names = ", ".join(zipped[:4])
            held = _held_in(root, zipped[0]) or zipped[0].rsplit(".", 1)[0]
            raise NotebookTaskError(
                root,
                f"{label} reads zipped tables ({names}); a run reads the tables themselves: "
                f"unpack {'it' if len(zipped) == 1 else 'them'} beside the notebook (unzip "
                f"{zipped[0]}) and read the files they hold (pd.read_csv({held!r}))",
            )
        hint = unreadable_sources(root, sources, DATA_EXT)
        if hint is not None:
            raise NotebookTaskError(root, f"not a task folder, and {label} {hint}")
        said = ", ".join(repr(r) for r in refs[:6]) or "no file name at all"
        raise NotebookTaskError(
            root,
            f"not a task folder, and {label} reads no data file found under it (it names "
            f"{said}): put the data the notebook reads in this folder (or a folder below it), "
            "or add task.json (TAM-Bench schema) beside an input/ folder",
        )
    input_dir = Path(os.path.commonpath([p.parent for p in found]))
    _check_mountable(input_dir, root, label)
    try:
        files = _roles([p.relative_to(input_dir).as_posix() for p in found])
    except NotebookTaskError:  # only test or submission files: the rows come from elsewhere?
        hint = unreadable_sources(root, sources, DATA_EXT)
        if hint is None:
            raise
        raise NotebookTaskError(root, f"{label} {hint}") from None
    train = next(f for f in files if f.role == "train")
    test = next((f for f in files if f.role == "test"), None)
    train_cols = _columns(input_dir / train.path)
    unread_test = _unread_test(input_dir, train, train_cols) if test is None else None
    if unread_test is not None:  # rows to predict the notebook never reads: a cell will
        test = unread_test
        files.append(test)
    test_cols = _columns(input_dir / test.path) if test else []
    sample = _unread_sample(input_dir, test, test_cols) if test else None
    if sample is not None and not any(f.role == "sample_submission" for f in files):
        files.append(sample)
    analysis = analyze(nb)
    column = (
        _given_target(given_target, train_cols, input_dir / train.path) if given_target else None
    )
    code = "\n".join(_plain(b.source) for b in nb.code_blocks)
    found_target = column or _target(analysis, train_cols, test_cols, code)
    several = () if found_target else _several_targets(train_cols, test_cols, code)
    if several:  # Y = train[["Weight", "Waist", "Pulse"]]: a model of several targets
        found_target = _Column(
            ", ".join(several),
            "the training table's columns the test table lacks, each named in the notebook's "
            "code: it predicts them all",
        )
    if found_target is None:
        raise NotebookTaskError(
            input_dir / train.path,
            f"{label} reads this file, but which of its columns it predicts is not clear "
            f"(columns: {', '.join(train_cols[:12]) or 'unreadable'}): assign it to y "
            "(y = df['your_target']) or add task.json with target_cols",
        )
    sample_file = next((f for f in files if f.role == "sample_submission"), None)
    targets = several or (found_target.name,)
    metric, metric_why = given_metric or _metric(
        analysis,
        nb,
        input_dir / train.path,
        targets[0],
        input_dir / sample_file.path if sample_file else None,
        described=_described_metric(root, input_dir),
    )
    if given_metric:
        _check_given_metric(metric, input_dir / train.path, targets[0])
    direction = get_metric(metric).direction
    id_col = _id_column(train_cols, test_cols, targets[0])
    notices = (
        f"{root}: no task.json; the task was read from {label}: data in "
        f"{_shown(input_dir, root)}, training table {train.path}"
        + (f", test table {test.path}" if test else ", no test table (nothing to submit)")
        + (" (beside the training table; the notebook does not read it)" if unread_test else "")
        + (f", sample submission {sample.path} (beside the test table)" if sample else "")
        + f"; target{'s' if several else ''} {', '.join(repr(t) for t in targets)} "
        f"({found_target.why}); metric {metric} ({metric_why})"
        + (f"; id column {id_col!r}" if id_col else ""),
        _how_to_keep(input_dir, root),
    )
    return TaskFields(
        id=_slug(Path(name).stem if name else root.name),
        root=root,
        input_dir=input_dir,
        goal=_goal(nb, found_target.name, train.path),  # several: "Weight, Waist, Pulse"
        metric_name=metric,
        direction=direction,
        task_type=infer_task_type(None, metric),
        modality=infer_modality(input_dir, files),
        target_cols=targets,
        id_col=id_col,
        files=tuple(files),
        source_format="notebook",
        notices=notices,
    )


def _too_wide(folder: Path) -> bool:
    """Whether ``folder`` is the home folder or a file system's root: mounted into a run's
    kernels it would show generated code the user's keys and settings (``~/.ssh``, ...)."""
    return folder == Path.home().resolve() or folder == Path(folder.anchor)


def _check_mountable(input_dir: Path, root: Path, label: str) -> None:
    """Refuse a data folder that a run cannot show its kernels: one above the notebook's own
    (it would hold the notebook's project, or more), the home folder, a file system's root."""
    if input_dir in root.parents or _too_wide(input_dir):
        raise NotebookTaskError(
            input_dir,
            f"{label} reads its data from this folder, which a run would mount read-only into "
            "its kernels whole (it is above the notebook's folder, or the home folder): move the "
            "data files into a folder of their own (data/ beside the notebook) and read them "
            "from there",
        )


def _given_metric(metric: str, root: Path) -> tuple[str, str]:
    try:
        return get_metric(metric).name, "given with --metric"
    except UnknownMetricError as e:
        raise NotebookTaskError(root, f"--metric: {e}") from None


def _check_given_metric(metric: str, train: Path, target: str) -> None:
    """A metric given with --metric must fit the target (accuracy of prices, RMSE of words)."""
    from .checks import metric_problem

    try:
        y = _read_head(train, rows=500)[target]
    except Exception:  # noqa: BLE001  (nothing to look at: the run will say)
        return
    problem = metric_problem(get_metric(metric), y, given=True)
    if problem:
        raise NotebookTaskError(train, f"--metric {metric}: {problem}")


def _given_target(target: str, train_cols: list[str], train: Path) -> _Column:
    if train_cols and target not in train_cols:
        near = find_column(target, train_cols, loose=True)
        hint = f" (did you mean {near!r}?)" if near else ""
        raise NotebookTaskError(
            train,
            f"--target {target!r} is not a column of this table{hint}; its columns: "
            f"{', '.join(train_cols[:20])}",
        )
    return _Column(target, "given with --target")


def _made_in_notebook(
    nb: SolutionNotebook,
    root: Path,
    label: str,
    given_target: str | None = None,
    given_metric: tuple[str, str] | None = None,
) -> TaskFields | None:
    """The task of a notebook that makes its own data (``load_iris()``, ``make_moons(...)``):
    no files, no test rows; ``None`` when it does not.  One that downloads its data
    (``fetch_openml``, ``sns.load_dataset``, a URL) fails here, saying what to do."""
    code = "\n".join(_plain(b.source) for b in nb.code_blocks)
    fetched = re.search(_DOWNLOADS, code)
    made = re.search(_MAKERS, code)
    if made is None:
        if fetched is not None:
            raise NotebookTaskError(
                root,
                f"{label} downloads its data ({fetched.group(0).rstrip('(')}), which a run "
                "cannot do (its kernels have no network): save the data as a CSV beside the "
                "notebook and read it from there with pd.read_csv",
            )
        return None
    source = made.group(0).rstrip("(")
    kind = "regression" if made.group("name") in _REGRESSION_MAKERS else "classification"
    analysis = analyze(nb)
    metric, why = (
        given_metric
        or _computed_metric(analysis, nb)
        or (
            ("accuracy", "the notebook computes no metric; its data is for classification")
            if kind == "classification"
            else ("rmse", "the notebook computes no metric; its data is for regression")
        )
    )
    named = analysis.target if analysis.target != LAST_COLUMN else None  # no table, no position
    target = given_target or named or ""
    return TaskFields(
        id=_slug(Path(label).stem if label != "the notebook" else root.name),
        root=root,
        # the notebook's folder (files it reads beside it, a saved model, stay readable), but
        # never the home folder or a root mounted whole: then a folder that holds nothing
        input_dir=EMPTY_INPUT if _too_wide(root) else root,
        goal=_goal(nb, target or "the target", f"{source}()"),
        metric_name=metric,
        direction=get_metric(metric).direction,
        task_type=infer_task_type(None, metric),
        modality="tabular",
        target_cols=(target,) if target else (),
        id_col=None,
        files=(),
        source_format="notebook",
        notices=(
            f"{root}: no task.json; the task was read from {label}: it makes its own data "
            f"({source}), so there is no data folder and no test table (nothing to submit); "
            f"metric {metric} ({why})" + _tables_left_aside(root),
        ),
    )


def _tables_left_aside(root: Path) -> str:
    """What to do about a competition's tables beside a notebook that reads none of them (it
    makes its own data): ``""`` when the folder holds none."""
    if not root.is_dir() or not has_mlebench_files(root):
        return ""
    tables = sorted(p.name for p in root.iterdir() if p.is_file() and p.suffix.lower() == ".csv")
    return (
        f". The folder's tables ({', '.join(tables[:4])}) are not read by the notebook: to hand in "
        "a submission for them, read them in the notebook, or run the folder without it "
        f"(mlestar run {root})"
    )


def _known(name: str) -> bool:
    try:
        get_metric(name)
    except UnknownMetricError:
        return False
    return True


def _how_to_keep(input_dir: Path, root: Path) -> str:
    if input_dir != root and input_dir.is_relative_to(root):
        # into the folder the run was given, which may hold the notebook in a folder of its own
        # (notebooks/), the data beside it (data/raw): task.json's data_dir is relative to it
        return (
            f"to keep or correct this, copy the run's task.json into {root} (the folder the run "
            f"was given; its data_dir {input_dir.relative_to(root).as_posix()!r} is relative to "
            "it) and edit it"
        )
    return (
        "to keep or correct this, make a task folder: the run's task.json beside an input/ "
        "folder holding the data files, and edit it"
    )


def task_spec(task: Task) -> dict[str, Any]:
    """``task`` as a TAM-Bench ``task.json``: what a user saves to keep or correct what was
    read from the notebook (``data_dir`` names the data folder when it is inside the
    notebook's folder; otherwise the data goes in an ``input/`` folder beside it)."""
    inside = task.input_dir != task.root and task.input_dir.is_relative_to(task.root)
    where = {"data_dir": task.input_dir.relative_to(task.root).as_posix()} if inside else {}
    return {
        **where,
        "task_id": task.id,
        "goal_description": task.goal,
        "metric": task.metric_name,
        "task_type": task.task_type,
        "target_cols": list(task.target_cols),
        "id_col": task.id_col,
        "data_information": {
            "files": [{"path": f.path, "role": f.role} for f in task.files],
        },
    }


# ---------------------------------------------------------------------- data files
def _plain(source: str) -> str:
    """Cell source with IPython magics and shell lines blanked (they do not parse)."""
    return "\n".join("" if re.match(r"\s*[%!]", ln) else ln for ln in source.splitlines())


def _file_literals(source: str) -> Iterator[str]:
    """String constants (and the constant parts of f-strings) that name a data file."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        yield from (m.group(2) for m in re.finditer(r"""(["'])([^"'\n]+?)\1""", source))
        return
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            parts = [v.value for v in node.values if isinstance(v, ast.Constant)]
            text = "".join(p for p in parts if isinstance(p, str))
            if text.lower().endswith(DATA_EXT):
                yield text.split("/")[-1] if text.startswith("/") and len(parts) > 1 else text
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value.lower().endswith(DATA_EXT) and "\n" not in node.value:
                yield node.value


def _zipped_tables(root: Path, sources: list[str]) -> list[str]:
    """The compressed tables the notebook names (Kaggle's ``train.csv.zip``, which pandas reads
    as it is) that lie under ``root``, by file name."""
    named = list(
        dict.fromkeys(
            m.group(2).replace("\\", "/").split("/")[-1]
            for src in sources
            for m in re.finditer(r"""(["'])([^"'\n]+?\.(?:zip|7z|bz2|xz))\1""", src)
        )
    )
    if not named:
        return []
    here = {p.name for p in _walk(root)}
    return [n for n in named if n in here]  # in the notebook's order


def _held_in(root: Path, archive: str) -> str | None:
    """The first table a zip archive under ``root`` named ``archive`` holds (``train.csv`` of
    ``data.zip``), or ``None`` when it is no zip or holds none."""
    import zipfile

    for path in _walk(root):
        if path.name != archive:
            continue
        try:
            with zipfile.ZipFile(path) as z:
                tables = [n for n in z.namelist() if n.lower().endswith(DATA_EXT)]
        except (OSError, zipfile.BadZipFile):
            return None
        return tables[0].split("/")[-1] if tables else None
    return None


def _walk(root: Path) -> Iterator[Path]:
    """Files under ``root`` (hidden folders, run folders and caches left out), shallow first."""
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        depth = len(here.relative_to(root).parts)
        dirnames[:] = sorted(
            d
            for d in dirnames
            if not d.startswith(".")
            and d not in _SKIP_DIRS
            and depth < _MAX_DEPTH
            and not (here / d / "events.jsonl").exists()
        )
        for f in sorted(filenames):
            yield here / f


_GLOB = re.compile(r"[*?\[]")


def _resolve(root: Path, refs: list[str]) -> list[Path]:
    """The files under ``root`` the references name: the path as written when it is there,
    else a file of that name whose folders best match the ones written; a pattern
    (``train*.csv``) names the one file it matches (several are parts, not one table)."""
    by_name: dict[str, list[Path]] = {}
    for p in _walk(root):
        by_name.setdefault(p.name.lower(), []).append(p)
    out: list[Path] = []
    for ref in refs:
        written = Path(ref.replace("\\", "/"))
        direct = (root / written).resolve() if not written.is_absolute() else written
        # as written: under the folder, or beside it (``../data/train.csv``: a project's
        # notebooks/ and data/ folders); an absolute path only under the folder
        if direct.is_file() and (direct.is_relative_to(root) or not written.is_absolute()):
            hit: Path | None = direct
        elif _GLOB.search(written.name):  # glob.glob('data/train*.csv'): the one file it finds
            matched = [
                p
                for name, paths in by_name.items()
                if fnmatch.fnmatchcase(name, written.name.lower())
                for p in paths
            ]
            hit = matched[0] if len(matched) == 1 else None
        else:
            folders = {part.lower() for part in written.parts[:-1]}
            same = by_name.get(written.name.lower(), [])
            hit = max(
                same,
                key=lambda p: (
                    len(folders & {q.lower() for q in p.relative_to(root).parts}),
                    -len(p.parts),
                ),
                default=None,
            )
        if hit is not None and hit not in out:
            out.append(hit)
    return out


def _roles(paths: list[str]) -> list[DataFile]:
    """Each file's role from its name; the first file that is not a test or sample file trains."""
    roles: list[FileRole] = []
    for p in paths:
        stem = Path(p).stem.lower()
        if "sample" in stem or "submission" in stem:
            roles.append("sample_submission")
        elif "test" in stem:
            roles.append("test")
        elif "train" in stem:
            roles.append("train")
        else:
            roles.append("extra")
    if "train" not in roles:
        first = next((i for i, r in enumerate(roles) if r == "extra"), None)
        if first is None:
            raise NotebookTaskError(
                paths[0],
                "the notebook reads no training table (only test or submission files): "
                "read the labelled data in the notebook, or add task.json",
            )
        roles[first] = "train"
    tests = [i for i, r in enumerate(roles) if r == "test"]
    for i in tests[1:]:
        roles[i] = "extra"
    samples = [i for i, r in enumerate(roles) if r == "sample_submission"]
    for i in samples[1:]:
        roles[i] = "extra"
    return [DataFile(p, r) for p, r in zip(paths, roles, strict=True)]


def _unread_test(input_dir: Path, train: DataFile, train_cols: list[str]) -> DataFile | None:
    """The test table beside the training table that the notebook does not read (a Kaggle
    download's ``test.csv`` when the notebook only validates): a table named ``test*`` holding
    the training table's columns but one to three of them (the targets)."""
    folder = (input_dir / train.path).parent
    for path in sorted(folder.iterdir()):
        if not path.is_file() or not path.name.lower().startswith("test"):
            continue
        if not path.name.lower().endswith((*TEXT_TABLE_EXT, ".parquet")):
            continue
        cols = _columns(path)
        if cols and set(cols) < set(train_cols) and len(train_cols) - len(cols) <= 3:
            return DataFile(path.relative_to(input_dir).as_posix(), "test")
    return None


def _unread_sample(input_dir: Path, test: DataFile, test_cols: list[str]) -> DataFile | None:
    """The sample submission beside the test table that the notebook does not read (a Kaggle
    folder's ``sample_submission.csv``, Titanic's ``gender_submission.csv``): it says what the
    submission's columns are.  It must start with a column of the test table (the ids)."""
    folder = (input_dir / test.path).parent
    for path in sorted(folder.glob("*.csv")):
        if "submission" not in path.stem.lower():
            continue
        cols = _columns(path)
        if cols and cols[0] in test_cols:
            return DataFile(path.relative_to(input_dir).as_posix(), "sample_submission")
    return None


def _read_head(path: Path, rows: int = 0) -> Any:
    """The first ``rows`` (5) rows of a table the notebook reads; a text table in its own format
    (``read_args``: separator, decimal mark, encoding), its separator sniffed when it is
    none of ``,`` ``;`` tab ``|`` (a ``.txt`` of space-separated columns)."""
    import pandas as pd

    suffix = path.suffix.lower()
    if path.name.lower().endswith(TEXT_TABLE_EXT):  # train.csv.gz: pandas unpacks it
        suffix = ".csv"
    if suffix in (".csv", ".txt", ".tsv"):
        args: dict[str, Any] = dict(read_args(path))
        if "sep" not in args:
            args |= {"sep": None, "engine": "python"}
        return pd.read_csv(path, nrows=rows or 5, **args)
    if suffix == ".parquet":  # the first row group only (a head, not the whole file)
        import pyarrow.parquet as pq

        with pq.ParquetFile(path) as f:
            if f.metadata.num_row_groups == 0:
                return f.schema_arrow.empty_table().to_pandas()
            head = f.read_row_group(0).to_pandas()
        return head.head(rows or 5)
    if suffix in FEATHER_EXT:
        return pd.read_feather(path)
    if suffix in (".xlsx", ".xls"):
        return pd.read_excel(path, nrows=rows or 5)
    if suffix in (".json", ".jsonl"):
        return pd.read_json(path, lines=suffix == ".jsonl")
    return pd.DataFrame()


def _columns(path: Path) -> list[str]:
    try:
        if path.suffix.lower() == ".parquet":  # the schema alone
            import pyarrow.parquet as pq

            return [str(c) for c in pq.read_schema(path).names]
        return [str(c) for c in _read_head(path).columns]
    except Exception:  # noqa: BLE001  (inference only: an unreadable table names no columns)
        return []


# ---------------------------------------------------------------------- target, metric, id
def _target(
    a: Analysis, train_cols: list[str], test_cols: list[str], code: str = ""
) -> _Column | None:
    """The column the notebook predicts: the one its code takes as its target (also one it
    makes itself from the training table: ``df["high_risk"] = df.progression > median``), else
    the training table's one column the test table lacks."""
    if a.target == LAST_COLUMN and train_cols:
        return _Column(
            train_cols[-1], "the last column, which the notebook's code takes as its target"
        )
    named = a.target if a.target and a.target != LAST_COLUMN else None
    only_train = [c for c in train_cols if c not in test_cols] if test_cols else []
    if named and (named in train_cols or not train_cols):
        if named in test_cols and len(only_train) == 1:  # a feature the test rows have too
            return _Column(
                only_train[0],
                f"the training table's one column the test table lacks (the notebook's code "
                f"also takes {named!r} out of its features, but the test table has it)",
            )
        return _Column(named, "the column the notebook's code takes as its target")
    source = _recoded_from(code, named) if named else None
    if named and source in train_cols and source not in test_cols:
        return _Column(
            str(source),
            f"the column the notebook's code recodes as its target {named!r} (the test table "
            "lacks it)",
        )
    if named and _made_in(code, named):
        return _Column(
            named,
            "a column the notebook's code makes from the training table and takes as its target",
        )
    if len(only_train) == 1:
        return _Column(only_train[0], "the training table's one column the test table lacks")
    return None


def _several_targets(train_cols: list[str], test_cols: list[str], code: str) -> tuple[str, ...]:
    """The training table's columns the test table lacks, when there are several and the
    notebook's code names each of them (``targets = ["Weight", "Waist", "Pulse"]``, ``Y =
    train[["y1", "y2"]]``): the notebook predicts them all; else ``()``."""
    only_train = [c for c in train_cols if c not in test_cols] if test_cols else []
    if len(only_train) < 2:
        return ()
    named = [c for c in only_train if re.search(rf"""["']{re.escape(c)}["']""", code)]
    return tuple(named) if len(named) == len(only_train) else ()


def _recoded_from(code: str, column: str) -> str | None:
    """The column whose labels the code recodes as ``column`` (``df["y"] = (df["default"] ==
    "Yes").astype(int)``, ``df["y"] = df["default"].map({"Yes": 1, "No": 0})``), else ``None``:
    the notebook predicts that column, written as numbers."""
    c = re.escape(column)
    m = re.search(
        rf"""\[\s*["']{c}["']\s*\]\s*=(?!=)\s*\(?\s*\w+\s*\[\s*["'](?P<src>[^"'\n]+)["']\s*\]"""
        r"""\s*(?:==|!=|\.eq\(|\.map\(|\.replace\(|\.isin\()""",
        code,
    )
    return m.group("src") if m and m.group("src") != column else None


def _made_in(code: str, column: str) -> bool:
    """Whether ``code`` makes the column ``column`` of a table (``df["y"] = ...``,
    ``df.assign(y=...)``, ``df.loc[:, "y"] = ...``)."""
    c = re.escape(column)
    return bool(
        re.search(rf"""\[\s*(?::\s*,\s*)?["']{c}["']\s*\]\s*=(?!=)""", code)
        or re.search(rf"\.assign\((?:[^()]|\([^()]*\))*\b{c}\s*=(?!=)", code)
    )


def _computed_metrics(a: Analysis, nb: SolutionNotebook) -> list[tuple[str, str]]:
    """The metrics the notebook computes and where each was read: the last one called at its
    top level first, then the others back to front, then those inside functions; every name of a
    ``scoring=[...]`` list.  Empty when it computes none known."""
    found: dict[str, str] = {}
    for call in [*reversed([m for m in a.metrics if not m.scope]), *reversed(a.metrics)]:
        for name in _metrics_of(call, nb):
            if _known(name):
                found.setdefault(name, f"from {call.source[:60]}")
    chosen = _chosen_by(nb, set(found))
    if chosen is not None:  # the one the notebook picks its best model by comes first
        name, why = chosen
        return [(name, f"{found[name]}; {why}"), *((n, w) for n, w in found.items() if n != name)]
    return list(found.items())


# best = min(results, key=lambda k: results[k]["mae"]) / sorted(..., key=...["rmse"]) / idxmax
_CHOICE = re.compile(
    r"""\b(?:min|max|sorted|sort_values|idxmin|idxmax|nsmallest|nlargest)\b[^\n]*?"""
    r"""\[\s*["'](?P<key>[\w ]+)["']\s*\]"""
)


def _chosen_by(nb: SolutionNotebook, computed: set[str]) -> tuple[str, str] | None:
    """The computed metric the notebook picks its best model by (``min(results, key=lambda k:
    results[k]["mae"])``), and where that was read; ``None`` when it picks none of them."""
    for b in reversed(nb.code_blocks):
        for m in _CHOICE.finditer(_plain(b.source)):
            try:
                name = get_metric(m.group("key")).name
            except UnknownMetricError:
                continue
            if name in computed:
                return name, f"the notebook picks its best model by it ({m.group(0)[:60]})"
    return None


def _computed_metric(a: Analysis, nb: SolutionNotebook) -> tuple[str, str] | None:
    """The metric the notebook computes (see ``_computed_metrics``), or ``None``."""
    found = _computed_metrics(a, nb)
    return found[0] if found else None


def _described_metric(root: Path, input_dir: Path) -> tuple[str, str] | None:
    """The metric a description beside the notebook or its data names (``DESCRIPTION_NAMES``,
    ``README_NAMES``: ``description.md``, ``README.md``, ...: "Evaluation: macro F1", "Metric: RMSE"), with why; None without one."""
    for folder in dict.fromkeys((root, input_dir)):
        path = file_named(folder, *DESCRIPTION_NAMES, *README_NAMES)
        if path is None:
            continue
        try:
            name, _ = metric_from_text(path, path.read_text(encoding="utf-8", errors="replace"))
        except (TaskFormatError, OSError):
            continue
        return get_metric(name).name, f"the notebook computes no metric; {path.name} names it"
    return None


def _metric(
    a: Analysis,
    nb: SolutionNotebook,
    train: Path,
    target: str,
    sample: Path | None = None,
    *,
    described: tuple[str, str] | None = None,
) -> tuple[str, str]:
    """The metric the notebook computes, else the one a description beside it names
    (``described``, when it fits the target), else the default for the target's kind.  Where the
    notebook submits probabilities (``_submits_probabilities``), a probability metric it
    computes wins over a label metric computed later (``accuracy_score(y, p > 0.5)`` after
    ``roc_auc_score(y, p)``), and a label target it computes no probability metric for is
    scored by ROC AUC (two classes) or log loss: a label metric would reject its file."""
    computed = _computed_metrics(a, nb)
    kind = _fitted_kind(a, nb)  # a classifier's target is labels, a regressor's numbers
    label = kind == "classifier" if kind else _is_label(train, target)
    proba = _submits_probabilities(nb, sample, target) if label else ""
    if proba:
        for name, why in computed:
            if get_metric(name).kind == "probability":
                return name, f"{why}; the notebook submits probabilities ({proba})"
        if described is not None and get_metric(described[0]).kind == "probability":
            return described[0], f"{described[1]}; the notebook submits probabilities ({proba})"
        name = "roc_auc" if _classes(train, target) == 2 else "log_loss"
        return name, f"the notebook submits probabilities ({proba}); a label metric would not"
    if computed:
        name, why = computed[0]
        if name in ("rmse", "mse") and models_log_of(nb, target) and not _turned_back(a, nb):
            return "rmsle", f"{why}, on the log of {target!r}, which is RMSLE"  # errors of logs
        return name, why
    for b in nb.code_blocks:  # the metric a booster is told to watch, when it fits the target
        for m in _MONITORED.finditer(b.source):
            watched = _BOOSTER_METRIC.get(m.group("m").lower())
            if watched is not None and is_classification_metric(watched) == label:
                return watched, f"the notebook computes no metric; its model monitors {m.group(0)}"
    found = _searched_metric(nb) or _hand_written_metric(nb) or _model_score(a, nb, label)
    if found is not None and is_classification_metric(found[0]) == label:
        return found
    if described is not None and is_classification_metric(described[0]) == label:
        return described
    if label:
        return "accuracy", "the notebook computes no metric; a label target: accuracy"
    return "rmse", "the notebook computes no metric; a numeric target: rmse"


_EXP = re.compile(r"\b(?:np|numpy|math)\.expm?1?\(")


def _turned_back(a: Analysis, nb: SolutionNotebook) -> bool:
    """Whether a squared-error call of the notebook takes values turned back from logs
    (``mean_squared_error(np.expm1(y_va), pred)`` with ``pred = np.expm1(model.predict(X))``):
    the error is then in the target's own units, not RMSLE."""
    for m in a.metrics:
        if "squared_error" not in m.func:
            continue
        if _EXP.search(m.source):
            return True
        cell = nb.block(m.block_id).source
        for arg in m.args:
            if arg.isidentifier() and re.search(rf"^\s*{arg}\s*=.*{_EXP.pattern}", cell, re.M):
                return True
    return False


def _model_score(a: Analysis, nb: SolutionNotebook, label: bool) -> tuple[str, str] | None:
    """``model.score(X_val, y_val)`` of a model the notebook fits: scikit-learn's own score, R²
    of a regressor, accuracy of a classifier; ``None`` when it calls none."""
    fitted = {f.var for f in a.fits if f.var}
    for b in nb.code_blocks:
        for m in re.finditer(r"\b(\w+)\.score\(\s*[^,()]+,\s*[^,()]+\)", b.source):
            if m.group(1) in fitted:
                name = "accuracy" if label else "r2"
                return name, f"the notebook scores {m.group(0)}: scikit-learn's {name} of it"
    return None


_CLASSIFIER = re.compile(
    r"\w*Classifier\b|\bLogisticRegression\w*|\b(?:Linear|Nu)?SVC\b|\b\w*NB\b"
    r"|\bNearestCentroid\b|\b\w*DiscriminantAnalysis\b"
)
_REGRESSOR = re.compile(
    r"\w*Regressor\b|\b(?:Linear|Bayesian\w*|Huber|Poisson|Tweedie|Gamma|Quantile|Isotonic)"
    r"Regression\b|\b(?:Ridge|Lasso|ElasticNet|Lars|LassoLars|KernelRidge)(?:CV)?\b"
    r"|\b(?:Linear|Nu)?SVR\b"
)


def _fitted_kind(a: Analysis, nb: SolutionNotebook) -> str | None:
    """ "classifier" or "regressor": what every model the notebook fits and builds with a
    constructor it names is (the last estimator of the line that builds it: a pipeline's
    model); ``None`` when they differ or none is named.  A ``RandomForestRegressor`` of ratings
    1–10 predicts numbers, whatever values the target takes; a ``RandomForestClassifier`` of
    labels kept in another file predicts labels (hunt E, session 28)."""
    kinds = set()
    for fit in a.fits:
        code = _assigned_code(nb, fit.var) if fit.var else ""
        found = [
            (m.start(), kind)
            for kind, pattern in (("classifier", _CLASSIFIER), ("regressor", _REGRESSOR))
            for m in pattern.finditer(code)
        ]
        if found:
            kinds.add(max(found)[1])
    return kinds.pop() if len(kinds) == 1 else None


def _assigned_code(nb: SolutionNotebook, var: str) -> str:
    """The text of the last top-level statement of the notebook assigning ``var`` (``""``:
    none)."""
    found = ""
    for b in nb.code_blocks:
        try:
            tree = ast.parse(_plain(b.source))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == var for t in node.targets
            ):
                found = ast.get_source_segment(_plain(b.source), node.value) or found
    return found


# a search or cross-validation told what to score: GridSearchCV(..., scoring="neg_..._error")
_SCORING = re.compile(r"""\bscoring\s*=\s*["'](?P<m>\w+)["']""")
# a metric written out by hand, over a difference (errors) or a comparison (accuracy)
_MINUS = r"(?=.*[\w\])]\s*-\s*[\w(\[])"  # a difference of two things
_SQUARED = r"(?=.*(?:\*\*\s*2\b|square\())"
_BY_HAND = (
    ("rmse", re.compile(rf"(?=.*\bsqrt\()(?=.*\bmean\b){_SQUARED}{_MINUS}")),
    ("mae", re.compile(rf"(?=.*\bmean\b)(?=.*\babs(?:olute)?\(){_MINUS}")),
    ("mse", re.compile(rf"(?=.*\bmean\b){_SQUARED}{_MINUS}")),
    (
        "accuracy",
        re.compile(
            r"\bmean\(\s*\(?[^()=]*==[^()=]*\)?\s*\)|\([^()=]*==[^()=]*\)\.mean\("
            # torch: (model(X_va).argmax(1) == y_va).float().mean().item()
            r"|==[^=\n]*\)\s*\.(?:float|double|type\([^()]*\))\(\)\s*\.mean\("
        ),
    ),
)


def _searched_metric(nb: SolutionNotebook) -> tuple[str, str] | None:
    """The metric a search or cross-validation of the notebook is told to score
    (``GridSearchCV(pipe, grid, scoring="neg_root_mean_squared_error")``), or ``None``."""
    for b in reversed(nb.code_blocks):
        for m in _SCORING.finditer(_plain(b.source)):
            name = SCORING_METRICS.get(m.group("m"))
            if name is not None and _known(name):
                return name, f"from {m.group(0)}"
    return None


def hand_written_metric(code: str) -> str | None:
    """The metric one line of code writes out by hand (``np.sqrt(np.mean((p - y)**2))``: RMSE;
    ``np.mean(np.abs(p - y))``: MAE; ``(pred == y).mean()``, or torch's
    ``(out.argmax(1) == y).float().mean()``: accuracy), else ``None``."""
    code = code.split("#", 1)[0]
    found = next((name for name, shape in _BY_HAND if shape.search(code)), None)
    return found or ("accuracy" if _mean_of_equals(code) else None)


def _mean_of_equals(code: str) -> bool:
    """Whether ``code`` (one line) takes the mean of an ``==`` comparison, whatever calls its
    sides hold: ``(gb.predict(val[cols]) == val['y']).mean()``, ``np.mean(model.predict(X) ==
    y)``, ``(out.argmax(1) == y).float().mean()`` (hunt E, session 28: the nested calls hid it
    from the patterns, and the notebook "computed no metric")."""
    try:
        tree = ast.parse(code.strip())
    except SyntaxError:
        return False

    def equals(node: ast.expr) -> bool:
        while (  # .float(), .astype(float), .double(): the comparison's values as numbers
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("float", "double", "astype", "type")
        ):
            node = node.func.value
        return isinstance(node, ast.Compare) and [type(o) for o in node.ops] == [ast.Eq]

    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "mean" and equals(func.value):
            return True
        named = ast.unparse(func)
        if named in ("np.mean", "numpy.mean", "mean") and node.args and equals(node.args[0]):
            return True
    return False


def _hand_written_metric(nb: SolutionNotebook) -> tuple[str, str] | None:
    """The metric the last line of the notebook that writes one out by hand computes
    (``hand_written_metric``), and where it was read; ``None`` when no line does."""
    for b in reversed(nb.code_blocks):
        for line in reversed(_plain(b.source).splitlines()):
            name = hand_written_metric(line)
            if name is not None:
                return name, f"written out by hand: {line.split('#', 1)[0].strip()[:60]}"
    return None


def _submits_probabilities(nb: SolutionNotebook, sample: Path | None, target: str) -> str:
    """Why the submission of a label target holds probabilities, or ``""``: the sample
    submission's prediction column holds fractions in [0, 1], or a cell that writes a CSV
    calls ``predict_proba``."""
    if sample is not None:
        try:
            head = _read_head(sample, rows=200)
        except Exception:  # noqa: BLE001  (inference only: an unreadable sample says nothing)
            head = None
        if head is not None and len(head.columns) > 1:
            col = head[target] if target in head.columns else head[head.columns[-1]]
            values = col.dropna()
            if (
                values.dtype.kind == "f"
                and len(values)
                and values.between(0, 1).all()
                and not (values == values.round()).all()
            ):
                return f"the sample submission's {col.name!r} holds fractions"
    for b in nb.code_blocks:
        if ".to_csv(" not in b.source:
            continue
        calls = [ln for ln in b.source.splitlines() if "predict_proba(" in ln]
        if calls and not all(_THRESHOLDED.search(ln) for ln in calls):
            return "the cell writing its CSV calls predict_proba"
    return ""


# probabilities made labels on their line: ``(model.predict_proba(X)[:, 1] > 0.4).astype(int)``,
# ``np.where(p > t, 1, 0)``, ``.argmax(1)``, ``.round()``
_THRESHOLDED = re.compile(
    r"predict_proba\(.*(?:[<>]=?\s*[\w.]|\.argmax\(|\.round\(|\.astype\(\s*['\"]?(?:int|bool))"
    r"|\b(?:np|numpy)\.(?:where|round|argmax|rint)\(.*predict_proba\("
)


def _classes(train: Path, target: str) -> int:
    try:
        return int(_read_head(train, rows=5000)[target].nunique())
    except Exception:  # noqa: BLE001  (no values to look at)
        return 0


def _metrics_of(call: MetricCall, nb: SolutionNotebook) -> list[str]:
    """The metric(s) a call computes: a cross-validation's ``scoring`` (one name, or each of a
    list, tuple or dict of them), else ``_metric_of``."""
    if call.func not in ("cross_val_score", "cross_validate"):
        name = _metric_of(call, nb)
        return [name] if name else []
    m = re.search(r"""scoring\s*=\s*(?:["'](\w+)["']|([\[({][^\])}]*[\])}]))""", call.source)
    if m is None:
        return []
    names = [m.group(1)] if m.group(1) else re.findall(r"""["'](\w+)["']""", m.group(2))
    return [SCORING_METRICS[n] for n in names if n in SCORING_METRICS]


def call_metric(call: MetricCall, nb: SolutionNotebook) -> str | None:
    """The metric the metric function's call ``call`` in ``nb`` computes (``roc_auc`` for
    ``roc_auc_score(y, p)``, ``rmse`` for the root of an MSE), ``None`` for a cross-validation
    or a function of no metric the registry knows."""
    return _metric_of(call, nb)


def _metric_of(call: MetricCall, nb: SolutionNotebook) -> str | None:
    """The metric a metric function's call computes (RMSE for the root of an MSE, ...); a
    helper's call (``score(y_val, pred)``) with the settings the helper gives its metric
    function (``average='macro'``: the macro F1)."""
    src = f"{call.source[:-1]}, {call.settings})" if call.settings else call.source
    name = _FUNC_METRIC.get(call.func)
    if name is None:
        return None
    if name == "f1":
        m = re.search(r"""average\s*=\s*["'](macro|micro|weighted)["']""", src)
        return f"f1_{m.group(1)}" if m else name
    if name in ("precision", "recall", "roc_auc"):
        return _averaged(name, src)
    if name in ("fbeta", "jaccard", "pinball", "top_k_accuracy"):
        return _with_parameter(name, src)
    if name == "cohen_kappa":
        m = re.search(r"""weights\s*=\s*["'](quadratic|linear)["']""", src)
        # linear weights: no metric here has them; the quadratic kappa is the nearest
        return "qwk" if m else name
    if name == "mse":  # RMSE when the notebook takes its root
        line = _line_of(nb, call)
        func = re.escape(src[: src.index("(")].split(".")[-1])
        rooted = (
            re.search(r"squared\s*=\s*False", src)
            or re.search(r"sqrt\s*\(\s*" + func, line)
            or re.search(
                re.escape(call.source) + r"\s*\)?\s*\*\*\s*\(?\s*(?:0?\.5|1\s*/\s*2)\b", line
            )
        )
        return "rmse" if rooted or re.match(r"\s*\w*rmse\w*\s*=", line, re.I) else "mse"
    return name


# precision_score's and recall_score's averages of one label per row, as the registry's metrics
_AVERAGED = {
    ("precision", "macro"): "precision_macro",
    ("precision", "weighted"): "precision_weighted",
    ("precision", "micro"): "accuracy",
    ("recall", "macro"): "balanced_accuracy",
    ("recall", "weighted"): "accuracy",
    ("recall", "micro"): "accuracy",
}


def _averaged(name: str, src: str) -> str:
    """The metric a call of ``precision_score``, ``recall_score`` or ``roc_auc_score``
    computes by its ``average`` (and ``multi_class``: ``"ovo"`` is ``roc_auc_ovo``)."""
    avg = re.search(r"""average\s*=\s*["'](\w+)["']""", src)
    average = avg.group(1) if avg else "macro"
    if name != "roc_auc":
        return _AVERAGED.get((name, average), name) if avg else name
    ovo = re.search(r"""multi_class\s*=\s*["']ovo["']""", src) is not None
    if average == "weighted":
        return "roc_auc_ovo_weighted" if ovo else "roc_auc_ovr_weighted"
    return "roc_auc_ovo" if ovo else "roc_auc"


def _with_parameter(name: str, src: str) -> str | None:
    """The metric a call of ``fbeta_score``, ``jaccard_score``, ``mean_pinball_loss`` or
    ``top_k_accuracy_score`` computes, with the parameter it is given (scikit-learn's default
    where none: alpha 0.5, k 2); ``None`` for an F-beta whose beta is not written out or an
    average not graded here (weighted, micro, samples)."""
    avg = re.search(r"""average\s*=\s*["'](\w+)["']""", src)
    average = avg.group(1) if avg else "binary"
    if average not in ("binary", "macro"):
        return None
    if name == "jaccard":
        return "jaccard_macro" if average == "macro" else "jaccard"
    number = {"fbeta": "beta", "pinball": "alpha", "top_k_accuracy": "k"}[name]
    given = re.search(rf"\b{number}\s*=\s*(\d*\.\d+|\d+)", src)
    try:
        if name == "fbeta":
            return fbeta(float(given.group(1)), average == "macro").name if given else None
        if name == "pinball":
            return pinball(float(given.group(1)) if given else 0.5).name
        return top_k_accuracy(int(float(given.group(1))) if given else 2).name
    except UnknownMetricError:  # beta 0, alpha 1.5, k 0
        return None


def _line_of(nb: SolutionNotebook, call: MetricCall) -> str:
    """The source line holding ``call`` (its first line): the line holding its first line as
    written, else the first calling its function (a fold's RMSE line before the whole one's)."""
    head = call.source.split("(")[0].split(".")[-1]
    block = next((b for b in nb.code_blocks if b.id == call.block_id), None)
    lines = (block.source if block else "").splitlines()
    first = call.source.strip().splitlines()[0] if call.source.strip() else ""
    found = [ln for ln in lines if first and first in ln]
    if found:
        return found[0]
    for ln in lines:
        if re.search(re.escape(head) + r"\s*\(", ln):
            return ln
    return ""


def _is_label(train: Path, target: str) -> bool:
    try:
        col = _read_head(train, rows=5000)[target]
    except Exception:  # noqa: BLE001  (no values to look at: call it numeric)
        return False
    if col.dtype.kind in "OSUbc" or str(col.dtype) == "category":
        return True
    values = col.dropna()  # numbers: a label when few and whole
    whole = col.dtype.kind in "iu" or bool((values == values.round()).all())
    return whole and values.nunique() <= _CLASS_VALUES_MAX


def _id_column(train_cols: list[str], test_cols: list[str], target: str) -> str | None:
    return likely_id_column(train_cols, test_cols, target)


# ---------------------------------------------------------------------- words
def _goal(nb: SolutionNotebook, target: str, train: str) -> str:
    for cell in nb.nb.cells:
        if cell.cell_type == "markdown":
            text = " ".join(
                ln.strip("# ").strip() for ln in str(cell.source).splitlines() if ln.strip()
            )
            if text:
                return f"{text[:300]} (predict {target!r} from {train})"
            break
    return f"Predict {target!r} from {train}."


def _shown(input_dir: Path, root: Path) -> str:
    rel = os.path.relpath(input_dir, root).replace(os.sep, "/")
    return "the notebook's folder" if rel == "." else f"{rel}/"


def _slug(text: str) -> str:
    """``text`` as a task id of ASCII letters: accents dropped (``données`` -> ``donnees``, not
    ``donn-es``), other runs of characters made one ``-``."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", plain).strip("-") or "notebook-task"


__all__ = [
    "NotebookTaskError",
    "call_metric",
    "hand_written_metric",
    "notebook_task_fields",
    "task_from_notebook",
    "task_spec",
]
