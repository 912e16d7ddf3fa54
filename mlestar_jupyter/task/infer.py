"""What a task folder leaves out, inferred: the metric and its direction, the id and target
columns, the modality, the task type, the files' roles, where the description and the grading
answers are.  Shared by the readers of every folder format (``readers.py`` picks one)."""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterable
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..metrics import (
    Metric,
    UnknownMetricError,
    get_metric,
    is_classification_metric,
    metric_names,
)
from .errors import LayoutError, TaskFormatError
from .fields import DataFile, FileRole, Modality, TaskType
from .metric_words import METRIC_LINE_WORDS, foreign_metric
from .spec_keys import direction_word
from .text_format import FEATHER_EXT, TEXT_TABLE_EXT, header_row, read_args, text_encoding

if TYPE_CHECKING:
    from .vocabulary import MetricMatch

# a training table's names by the MLE-bench layout (``train.csv``, ``train.tsv``, gzipped, zipped)
_TABLES = (*TEXT_TABLE_EXT, ".parquet", *FEATHER_EXT)

IMAGE_EXT = {".png", ".jpg", ".jpeg", ".bmp", ".gif", ".tif", ".tiff", ".webp"}
AUDIO_EXT = {".wav", ".mp3", ".flac", ".ogg", ".aiff", ".au"}
DATA_TYPE_WORDS: dict[str, Modality] = {
    "tabular": "tabular",
    "table": "tabular",
    "text": "text",
    "nlp": "text",
    "image": "image",
    "vision": "image",
    "audio": "audio",
    "speech": "audio",
    "sound": "audio",
    "time series": "time_series",
    "time-series": "time_series",
    "timeseries": "time_series",
    "signal": "time_series",
    "sequence": "time_series",
}


# scikit-learn's scorers of an error negate it ("neg_mean_absolute_error": higher is better);
# the registry grades the error itself, lower is better
_NEGATED = re.compile(r"^\s*neg[_ ]", re.I)


def resolve_metric(where: Path, raw: str, spec: dict[str, Any]) -> tuple[str, Any]:
    """The metric's canonical name and direction: the registry's; a direction the task states
    (``spec["direction"]``) must agree with it (scikit-learn's ``neg_`` scorers are higher is
    better of the negated error: they agree), else the task is refused."""
    try:
        m = get_metric(raw)
    except UnknownMetricError as e:  # the names it knows, or why these words name none
        raise TaskFormatError(where, str(e)) from None
    stated = spec.get("direction")
    if not stated:
        return m.name, m.direction
    direction = direction_word(stated)
    if direction is None:
        raise TaskFormatError(where, f"metric.direction {stated!r} is not 'maximize' or 'minimize'")
    if direction != m.direction and not (direction == "maximize" and _NEGATED.match(raw)):
        better, other = ("higher", "lower") if m.direction == "maximize" else ("lower", "higher")
        raise TaskFormatError(
            where,
            f"the metric {raw!r} ({m.name}) is {better}-is-better, but the task file says "
            f"{direction} ({stated!r}): remove that direction "
            f"(greater_is_better, direction ...) or name a metric that is {other}-is-better",
        )
    return m.name, m.direction


def metric_from_text(where: Path, text: str) -> tuple[str, Any]:
    """The metric named by a description: a "Metric: <name>" line (or "Metrik: Genauigkeit",
    "Métrica: exactitud": ``metric_words``), else the Evaluation section."""
    m = re.search(rf"(?im)^\s*[-*]?\s*(?:{METRIC_LINE_WORDS})\s*:\s*(.+?)\s*$", text)
    if m:
        said = m.group(1).strip("`* ")
        try:  # the English names first: French "précision" written bare is English "precision"
            return resolve_metric(where, said, {})  # ("Mean Average Precision @ 3" is MAP@3)
        except TaskFormatError:
            return resolve_metric(where, foreign_metric(said) or said, {})
    section = re.search(r"(?is)#+\s*evaluation\b(.{0,1500})", text)
    hay = section.group(1) if section else text
    from .vocabulary import find_metrics  # prose and formulas ("the average negative log ...")

    named = find_metrics(hay[:1500])
    try:
        found = get_metric(hay[:1500])
    except UnknownMetricError:
        found = None
    if found is not None and not (named and _said_more_fully(named[0], found)):
        return found.name, found.direction
    if named:
        return resolve_metric(where, named[0].name, {})
    raise TaskFormatError(
        where,
        f"names no metric: add a line 'Metric: <name>' (one of: {', '.join(metric_names())})",
    )


def _said_more_fully(first: MetricMatch, found: Metric) -> bool:
    """Whether ``first``, the page's first metric phrase, is the mention of ``found`` (the
    metric name the page states first) with words that make it another metric: Kaggle's "Root-
    Mean-Squared-Error (RMSE) between the logarithm of the predicted value and ..." is RMSLE."""
    if first.name == found.name:
        return False
    try:
        return get_metric(first.evidence).name == found.name
    except UnknownMetricError:
        return False


# a project's README as people name it (``Readme.md``, ``README.txt``, ``README`` ...: hunt S,
# session 35, each was "not a task folder"); matched whatever the case of its letters
README_NAMES = ("readme.md", "readme.txt", "readme.rst", "readme.markdown", "readme")


def file_named(root: Path, *names: str) -> Path | None:
    """The file of ``root`` named one of ``names`` (the first found, in their order), whatever
    the case of its letters (``DESCRIPTION.md``, ``Readme.md``); None without one."""
    if not root.is_dir():
        return None
    by_lower: dict[str, Path] = {}
    for p in sorted(root.iterdir()):  # "README.md" before "readme.md"
        if p.is_file():
            by_lower.setdefault(p.name.lower(), p)
    return next((by_lower[n.lower()] for n in names if n.lower() in by_lower), None)


# what authors call a task's description: ``description.md``, AIDE's ``goal.txt`` (its ``goal``
# and ``eval`` kept in a file), a benchmark's ``TASK.md`` / ``instructions.md`` (hunt U: "not a
# task folder"), in this order
DESCRIPTION_NAMES = (
    "description.md",
    "description.txt",
    "goal.txt",
    "goal.md",
    "task.md",
    "task.txt",
    "instructions.md",
    "instructions.txt",
)


def find_description(root: Path) -> Path | None:
    """The task's description in ``root`` (``DESCRIPTION_NAMES``: ``description.md``,
    ``goal.txt``, ``TASK.md``, ``instructions.md`` ...), or a README (``README.md``,
    ``README.txt``, ... : ``README_NAMES``) beside ``input/``, whatever the case of the names'
    letters; None without one."""
    p = file_named(root, *DESCRIPTION_NAMES)
    if p is not None:
        return p
    readme = file_named(root, *README_NAMES)
    if readme is not None and (root / "input").is_dir():
        return readme
    return file_named(root, "description.html")  # the competition's page saved from the browser


# what a Kaggle download or a competition's pages saved by hand call the task's text
KAGGLE_DESCRIPTIONS = (
    "data_description.txt",
    "data_description.md",
    "overview.md",
    "overview.txt",
    "README.txt",
    "overview.html",  # a competition's pages saved from the browser (read as text: page_text)
    "description.html",
    "overview.htm",
    "description.htm",
)


def find_kaggle_description(root: Path) -> Path | None:
    """A Kaggle download's own text about the task (``data_description.txt``, an ``overview``
    page saved as text, ``README.md``/``.txt``), for a folder of competition tables with no
    ``description.md``; None without one."""
    return file_named(root, *KAGGLE_DESCRIPTIONS, *README_NAMES)


def has_mlebench_files(root: Path) -> bool:
    """Whether ``root`` holds MLE-bench style sample_submission.csv (or a sample by another name
    competitions give it: ``is_sample_name``) and train data."""
    if not (root / "train").is_dir() and not any(
        p.is_file() and p.name.lower().startswith("train") and p.name.lower().endswith(_TABLES)
        for p in root.iterdir()
    ):
        return False
    return (root / "sample_submission.csv").exists() or any(
        is_sample_name(p.name) for p in root.iterdir() if p.is_file()
    )


def complete_files(input_dir: Path, files: list[DataFile]) -> list[DataFile]:
    """Add every top-level entry of ``input_dir`` not named yet, guessing its role from its name."""
    named = {f.path for f in files}
    out = list(files)
    entries = [p for p in sorted(input_dir.iterdir()) if not p.name.startswith(".")]
    sample = None
    if not any(f.role == "sample_submission" for f in files):
        sample = min(
            (p.name for p in entries if p.name not in named and is_sample_name(p.name)),
            key=lambda n: "sample" not in n.lower(),  # sample_submission.csv before others
            default=None,
        )
    for p in entries:
        if p.name in named:
            continue
        n = p.name.lower()
        role: FileRole
        if p.name == sample:
            role = "sample_submission"
        elif n.startswith("train") and not any(f.role == "train" for f in out):
            role = "train"
        elif n.startswith("test") and not any(f.role == "test" for f in out):
            role = "test"
        else:
            role = "extra"
        out.append(DataFile(p.name, role))
    labels = next((i for i, f in enumerate(out) if _is_labels_table(f)), None)
    if labels is not None and not any(f.role == "train" for f in out):
        out[labels] = DataFile(out[labels].path, "train")
    return _labels_before_long_series(input_dir, out)


def _labels_before_long_series(input_dir: Path, files: list[DataFile]) -> list[DataFile]:
    """``files`` with a table of one row per series (``train_targets.csv``: ``machine_id,rpm``)
    as the training table when the one named ``train`` holds series long (``machine_id,step,
    vibration``: each id on many rows), which then is the series beside it, as
    ``train_series.csv`` is (``layout.arrays.long_series``)."""
    train = next((f for f in files if f.role == "train"), None)
    if train is None or not train.path.lower().endswith(TEXT_TABLE_EXT):
        return files
    others = [
        (i, f)
        for i, f in enumerate(files)
        if f.role == "extra"
        and f.path.lower().startswith("train")
        and f.path.lower().endswith(TEXT_TABLE_EXT)
    ]
    if not others:  # (nothing to read: a train.csv.zip that is no archive is the layout's to say)
        return files
    try:
        header = table_header(input_dir / train.path)
    except (TaskFormatError, OSError, ValueError):
        return files
    for i, f in others:
        try:
            cols = table_header(input_dir / f.path)
        except (TaskFormatError, OSError, ValueError):
            continue
        if (
            not 2 <= len(cols) <= 4
            or not header
            or cols[0] != header[0]
            or set(cols[1:]) & set(header)
        ):
            continue
        import pandas as pd

        key = cols[0]
        try:
            series = pd.read_csv(
                input_dir / train.path,
                usecols=[key],
                nrows=500,
                **read_args(input_dir / train.path),
            )[key]
            labels = pd.read_csv(
                input_dir / f.path, usecols=[key], nrows=500, **read_args(input_dir / f.path)
            )[key]
        except (OSError, ValueError):
            continue
        if series.duplicated().any() and not labels.duplicated().any():
            out = [DataFile(g.path, "extra") if g is train else g for g in files]
            out[i] = DataFile(f.path, "train")
            return out
    return files


def is_sample_name(name: str) -> bool:
    """Whether a file's name says it is a sample submission: ``sample_submission.csv``,
    ``sampleSubmission.csv``, Titanic's ``gender_submission.csv``, DrivenData's
    ``submission_format.csv``, ``example_submission.csv``, ``sample_solution.csv`` (a table
    whose name speaks of a submission and not of training or test data)."""
    n = name.lower()
    if not n.endswith((*TEXT_TABLE_EXT, ".parquet", *FEATHER_EXT, ".txt")):
        return False
    if n.startswith(("train", "test")):
        return False
    return "submission" in n or n.startswith(("sample_sol", "samplesol", "samplesub"))


# tables an image or audio download often names its training labels by, when no ``train*`` entry
# is there (``labels.csv`` with ``filename,label`` rows naming files under ``images/``)
_LABEL_TABLES = ("labels.csv", "annotations.csv", "labels.tsv", "annotations.tsv")


def _is_labels_table(f: DataFile) -> bool:
    """Whether ``f``, read as an extra file, is a table of training labels by its name."""
    return f.role == "extra" and f.path.lower() in _LABEL_TABLES


def labels_table(files: Iterable[DataFile]) -> str | None:
    """The table of training labels among ``files`` by its name (``labels.csv``), left an extra
    file where a ``train/`` folder of media took the training role (``complete_files``); the
    media layout reads the labels from it."""
    return next((f.path for f in files if _is_labels_table(f)), None)


def has_training_arrays(input_dir: Path) -> bool:
    """Whether ``input_dir`` holds ``.npy`` training arrays (``X_train.npy`` beside ``y_train.npy``),
    which the data layout reads when there is no training table (``layout.arrays.npy_files``)."""
    stems = [p.stem.lower() for p in input_dir.glob("*.npy")]
    if any("train" in s for s in stems) and any("test" in s for s in stems):
        return True
    from .other_tables import npz_array_names  # (a .npz of them: written as .npy for the run)

    return any(npz_array_names(p) for p in input_dir.glob("*.npz"))


def has_series_files(input_dir: Path) -> bool:
    """Whether ``input_dir`` holds sktime's ``.ts`` files, a training and a test one
    (``GunPoint_TRAIN.ts``, ``GunPoint_TEST.ts``), which the data layout reads
    (``layout.arrays.ts_files``)."""
    stems = [p.stem.lower() for p in input_dir.glob("*.ts")]
    return any("train" in s for s in stems) and any("test" in s for s in stems)


def submission_columns(path: Path) -> tuple[str | None, list[str]]:
    """The id column (None with a single column) and the target columns of a sample submission,
    read in its own format (``text_format.read_args``: a ``;`` or tab separator; cp1252, UTF-16, a
    UTF-8 byte-order mark that is no part of the id's name)."""
    header = table_header(path)
    if not header:
        raise TaskFormatError(
            path,
            "is empty: a sample submission needs a header row (id column, then target columns)",
        )
    if len(header) == 1:
        return None, header
    id_col = _id_among(header, _test_header_beside(path)) or header[0]
    return id_col, [c for c in header if c != id_col]


def _id_among(header: list[str], test_cols: list[str]) -> str | None:
    """The sample's column that the test table holds too (``progression,id`` beside a test
    table with ``id``: the id is not the first column), matched exactly, else ignoring case;
    ``None`` when not exactly one is."""
    for same in (lambda a, b: a == b, lambda a, b: a.lower() == b.lower()):
        shared = [c for c in header if any(same(c, t) for t in test_cols)]
        if len(shared) == 1:
            return shared[0]
    return None


def _test_header_beside(sample: Path) -> list[str]:
    """The columns of the test table beside a sample submission (``test.csv``, ``test.tsv``, a
    gzipped one); none when there is no such text table or it cannot be read."""
    for p in sorted(sample.parent.glob("[Tt][Ee][Ss][Tt]*")):
        if p.is_file() and p.name.lower().endswith(TEXT_TABLE_EXT):
            try:
                return table_header(p)
            except TaskFormatError:
                return []
    return []


def table_header(path: Path) -> list[str]:
    """The column names of a text table (also gzipped), read in its own format
    (``text_format.read_args``); empty for an empty file."""
    args = read_args(path) if path.is_file() else {}
    try:
        return header_row(path, args)
    except zipfile.BadZipFile as e:
        raise TaskFormatError(path, f"cannot be read as a zip archive ({e})") from None
    except OSError as e:
        raise TaskFormatError(path, f"cannot be read ({e.strerror})") from None
    except UnicodeDecodeError as e:
        raise TaskFormatError(path, f"cannot be read as text ({e}); save it as UTF-8") from None


def paired_tables(
    input_dir: Path, files: list[DataFile]
) -> tuple[list[DataFile], list[str], str] | None:
    """Two tables none of whose names says what they are (``patients_2019.csv``,
    ``patients_2020_unlabelled.csv``), one holding every column of the other and one to three
    more: that one is the training table and the other the rows to predict, the extra columns
    being what is predicted.  Returns the files with those roles, the extra columns and a
    notice saying so; ``None`` for any other folder."""
    tables = [
        f
        for f in files
        if f.role == "extra"
        and f.path.lower().endswith(TEXT_TABLE_EXT)
        and (input_dir / f.path).is_file()
    ]
    if len(tables) != 2 or any(f.role in ("train", "test") for f in files):
        return None
    a, b = (table_header(input_dir / f.path) for f in tables)
    for (train, test), (wide, narrow) in (((0, 1), (a, b)), ((1, 0), (b, a))):
        extra = [c for c in wide if c not in narrow]
        if narrow and set(narrow) <= set(wide) and 1 <= len(extra) <= 3:
            train_f, test_f = tables[train], tables[test]
            roles = {train_f.path: "train", test_f.path: "test"}
            out = [DataFile(f.path, roles[f.path]) if f.path in roles else f for f in files]  # type: ignore[arg-type]
            said = (
                f"no table is named train or test: {train_f.path} is read as the training table "
                f"and {test_f.path} as the rows to predict (it has the same columns but "
                f"{', '.join(map(repr, extra))}); name them train.csv and test.csv to say otherwise"
            )
            return out, extra, said
    return None


def head_lines(path: Path, n: int = 4) -> str:
    """The first ``n`` lines of a text file and "..." (empty when it cannot be read)."""
    try:
        with path.open(encoding=text_encoding(path)) as fh:
            return "".join(line for _, line in zip(range(n), fh, strict=False)).rstrip() + "\n..."
    except (OSError, UnicodeError):
        return ""


def modality_from_words(words: str) -> Modality | None:
    """The modality a free-text ``data_type`` names, if any."""
    w = words.lower()
    for k, v in DATA_TYPE_WORDS.items():
        if k in w:
            return v
    return None


def _series_arff(input_dir: Path) -> bool:
    """Whether an ARFF file of the input holds series (``other_tables.arff_is_series``), not
    a table as OpenML's are."""
    from .other_tables import arff_is_series

    return any(arff_is_series(p) for p in islice(input_dir.rglob("*.arff"), 20))


def infer_modality(input_dir: Path, files: list[DataFile]) -> Modality:
    """The modality from the input's file types (and long text columns of the training CSV)."""
    exts: dict[str, int] = {}
    for i, p in enumerate(input_dir.rglob("*")):
        if i > 5000:
            break
        if p.is_file():
            exts[p.suffix.lower()] = exts.get(p.suffix.lower(), 0) + 1
    if sum(exts.get(e, 0) for e in IMAGE_EXT) >= 5:
        return "image"
    if sum(exts.get(e, 0) for e in AUDIO_EXT) >= 5:
        return "audio"
    if exts.get(".ts", 0) or (exts.get(".arff", 0) and _series_arff(input_dir)):
        return "time_series"
    train = next((f for f in files if f.role == "train"), None)
    if train and train.path.lower().endswith((".csv", ".jsonl", ".ndjson", ".parquet")):
        try:
            import pandas as pd  # only here: loading a task needs no pandas otherwise

            from .layout.tables import read_table  # (the layout package imports this module)

            path = input_dir / train.path
            df = (
                pd.read_csv(path, nrows=200, **read_args(path))  # its separator, encoding
                if train.path.endswith(".csv")
                else read_table(path, nrows=200)  # JSON lines (``{"text": ..., "label": ...}``)
            )
            if reads_as_text(df, _sample_columns(input_dir, files)):
                return "text"
        except (OSError, ValueError, LayoutError):  # pandas' parse errors are ValueErrors
            pass  # inference only: an unreadable table fails later, with context
    return "tabular"


def reads_as_text(df: Any, submitted: set[str]) -> bool:
    """Whether a training table's first rows (``df``) are a text task's: a column of long strings
    (over 60 characters on average), short text (``short_text``) under a name free text goes by
    (``TEXT_COLUMNS``), or sentences that are most of the features whatever their column's name
    (``submitted``: the sample submission's columns, which are no features)."""
    obj = df.select_dtypes(include="object")
    if len(obj.columns) and obj.apply(lambda s: s.astype(str).str.len().mean()).max() > 60:
        return True
    if any(short_text(obj[c]) for c in obj.columns if str(c).lower() in TEXT_COLUMNS):
        return True
    return _sentences_are_the_features(df, submitted)


# names a column of free text goes by: a short text (a tweet, a one-line review) under one of
# them is still the text of a text task, not a category
TEXT_COLUMNS = frozenset(
    {
        "text",
        "review",
        "reviews",
        "review_text",
        "sentence",
        "sentences",
        "comment",
        "comment_text",
        "tweet",
        "message",
        "body",
        "utterance",
        "headline",
        "document",
        "content",
    }
)


def _sample_columns(input_dir: Path, files: list[DataFile]) -> set[str]:
    """The sample submission's columns (its id and targets), empty without a readable one."""
    sample = next((f for f in files if f.role == "sample_submission"), None)
    if sample is None:
        return set()
    try:
        id_col, targets = submission_columns(input_dir / sample.path)
    except TaskFormatError:
        return set()
    return {c for c in (id_col, *targets) if c}


def _sentences_are_the_features(df: Any, submitted: set[str]) -> bool:
    """Whether the table's features are mostly sentences, whatever their column is called
    (``words``, ``phrase``, ``Pregunta``): a short-text column (``short_text``) makes up at least
    half of the columns that are neither the sample submission's (id, targets) nor an id
    (a column named like one, or integers each written once)."""
    features = [c for c in df.columns if str(c) not in submitted and not _id_like(df[c], str(c))]
    texts = [c for c in df.select_dtypes(include="object").columns if c in features]
    texts = [c for c in texts if short_text(df[c])]
    return bool(texts) and 2 * len(texts) >= len(features)


def _id_like(values: Any, name: str) -> bool:
    """A column that numbers the rows: named ``id`` (``Id``, ``row_id``, ``review_id``), or
    integers each written once, in increasing order."""
    if re.fullmatch(r"(?i)(?:.*[_ ])?id|index|row", name):
        return True
    return bool(values.dtype.kind in "iu" and values.is_monotonic_increasing and values.is_unique)


def short_text(values: Any, words: float = 4) -> bool:
    """Whether a column reads as free text though its values are short: sentences of several
    words (``words`` on average), mostly each written once."""
    text = values.dropna().astype(str)
    if len(text) < 5:
        return False
    return bool(text.str.split().str.len().mean() >= words and text.nunique() >= 0.5 * len(text))


def infer_task_type(raw: Any, metric_name: str) -> TaskType:
    """Classification or regression: from the task file's word, else from the metric."""
    r = str(raw or "").lower()
    if "class" in r:
        return "classification"
    if "regress" in r:
        return "regression"
    return "classification" if is_classification_metric(metric_name) else "regression"


def split_instructions(instr: Any) -> list[str]:
    """Special instructions as a list (a numbered paragraph is split at its numbers)."""
    if isinstance(instr, list):
        return [str(s).strip() for s in instr if str(s).strip()]
    text = str(instr).strip()
    if not text:
        return []
    parts = re.split(r"(?:^|\s)(?=\d+\.\s)", text)
    items = [re.sub(r"^\d+\.\s*", "", p).strip() for p in parts if p.strip()]
    return items or [text]


def answers_folder(root: Path) -> Path:
    """Where a task folder's grading answers live: ``answers/<task folder name>/`` beside the
    task folder, outside the folder handed to a run (``<dir>/<task>`` -> ``<dir>/answers/<task>``)."""
    return root.parent / "answers" / root.name


def find_answers(root: Path) -> Path | None:
    """The grading answers of a task folder (``answers_folder`` first, then older layouts)."""
    outside = answers_folder(root) / "answers.csv"
    if outside.is_file():
        return outside
    for cand in (  # older layouts inside the task folder (never mounted in a kernel's jail)
        "private/answers.csv",
        "answers.csv",
        "prepared/private/test.csv",
        "prepared/private/answers.csv",
    ):
        p = root / cand
        if p.is_file():
            return p
    return None


def first_paragraph(text: str) -> str:
    """The first paragraph of a description that is prose: not a heading, and, when there is
    prose, not a Markdown table, a badge or image line, a code fence or a rule (hunt Q: a
    README opening with its table of columns had that table as the task's goal)."""
    paras = [
        p.strip() for p in re.split(r"\n\s*\n", text) if p.strip() and not p.strip().startswith("#")
    ]
    prose = [p for p in paras if not _not_prose(p)]
    return (prose or paras)[0] if paras else text.strip()[:500]


def _not_prose(paragraph: str) -> bool:
    """Whether a paragraph is a Markdown table, images or badges, a code fence or a rule."""
    lines = [ln.strip() for ln in paragraph.splitlines() if ln.strip()]
    return all(ln.startswith("|") for ln in lines) or lines[0].startswith(
        ("![", "[![", "```", "---", "<!--", "<img")
    )


# names of a row's id that do not end in "id": OpenML's row id ``rid``, a pandas index saved
# as a column (``reset_index()``: ``index``), ``idx`` (hunt of session 32: both were features)
_ID_NAMES = ("id", "rid", "index", "idx")


def likely_id_column(train_cols: list[str], test_cols: list[str], target: str) -> str | None:
    """The column of both tables (of the training table, without a test table) that is named as
    an id (``id``, ``PassengerId``, ``row_id``, ``customer id``, ``rid``, ``index``), or
    ``None``."""
    both = [c for c in (test_cols or train_cols) if c in train_cols and c != target]
    for c in both:
        low = c.lower()
        if (
            low in _ID_NAMES
            or low.endswith(("_id", " id"))
            or (low.endswith("id") and c[-2:] in ("Id", "ID"))
        ):
            return c
    return None


# data files in formats no reader here opens, and the line that saves each as CSV (hunt O:
# train.pkl beside a README was refused for naming no 'Target:' line)
_FOREIGN: dict[tuple[str, ...], tuple[str, str]] = {
    (".pkl", ".pickle"): (
        "pickled objects, which a run does not load (unpickling runs code)",
        "pd.read_pickle('{name}').to_csv('{stem}.csv', index=False)",
    ),
    (".h5", ".hdf5", ".hdf"): (
        "HDF5 stores, which no reader here knows",
        "pd.read_hdf('{name}').to_csv('{stem}.csv', index=False)",
    ),
    (".rds", ".rdata", ".rda"): (
        "R objects, which no reader here knows",
        "in R: write.csv(readRDS('{name}'), '{stem}.csv', row.names = FALSE)",
    ),
    (".sav", ".dta", ".sas7bdat"): (
        "SPSS / Stata / SAS files, which no reader here knows",
        "pd.read_spss / pd.read_stata / pd.read_sas('{name}').to_csv('{stem}.csv', index=False)",
    ),
}


def _saved_dataset_hint(folder: Path) -> str:
    """What to do with a Hugging Face ``datasets`` folder written by ``save_to_disk``
    (``dataset_dict.json``, ``train/data-00000-of-00001.arrow``), which no reader here opens
    (hunt Q: such a folder was refused for naming no 'Target:' line); ``""`` for any other."""
    splits = sorted(
        d.name for d in folder.iterdir() if d.is_dir() and any(d.glob("data-*-of-*.arrow"))
    )
    if not splits or (not (folder / "dataset_dict.json").is_file() and len(splits) < 2):
        return ""
    saves = "; ".join(f"d['{s}'].to_csv('{s}.csv', index=False)" for s in splits[:3])
    return (
        f"; {folder.name}/ is a Hugging Face dataset saved by save_to_disk (splits "
        f"{', '.join(splits[:4])}: Arrow files, which a run does not read); save each split as "
        f"CSV beside them (python: from datasets import load_from_disk; "
        f"d = load_from_disk('{folder}'); {saves})"
    )


def foreign_tables_hint(folder: Path) -> str:
    """What to do with the training and test data of ``folder`` kept in a format no reader
    here opens (pickles, HDF5, R, SPSS): the files and the line that saves each
    as CSV; ``""`` when there are none."""
    if not folder.is_dir():
        return ""
    saved = _saved_dataset_hint(folder)
    if saved:
        return saved
    found = []
    for p in sorted(folder.iterdir()):
        name = p.name.lower()
        kinds = [k for k in _FOREIGN if name.endswith(k)]
        if p.is_file() and kinds and not p.with_suffix(".csv").exists():
            found.append((p, _FOREIGN[kinds[0]]))
    if not found:
        return ""
    what = found[0][1][0]
    saves = "; ".join(how.format(name=p.name, stem=p.stem) for p, (_, how) in found[:3])
    return (
        f"; input/ holds {', '.join(p.name for p, _ in found[:4])}: {what}; save them as CSV "
        f"beside them (python: import pandas as pd; {saves})"
    )


def _workbook_sheets_hint(folder: Path) -> str:
    """What to do with a workbook holding the training and test rows as its sheets
    (``data.xlsx`` with sheets ``train`` and ``test``): a run reads one table per file, so
    each sheet saved as its own; ``""`` when there is none."""
    if not folder.is_dir():
        return ""
    for p in sorted(folder.glob("*.xls*")):
        try:
            from openpyxl import load_workbook

            book = load_workbook(p, read_only=True)
            sheets = list(book.sheetnames)
            book.close()
        except Exception:  # noqa: BLE001 - no workbook openpyxl reads (.xls, broken): no hint
            continue
        named = [s for s in sheets if re.match(r"(?i)\s*(train|test)", s)]
        if len(sheets) > 1 and named:
            saves = "; ".join(
                f"pd.read_excel({p.name!r}, sheet_name={s!r}).to_csv({s.strip().lower() + '.csv'!r}, index=False)"
                for s in named[:3]
            )
            return (
                f"; {p.name} holds the sheets {', '.join(map(repr, sheets[:6]))}: a run reads one "
                f"table per file, so save each sheet as its own (python: import pandas as pd; {saves})"
            )
    return ""


def unread_files_hint(folder: Path) -> str:
    """What to do with the files of ``folder`` a run cannot read as tables: zip archives that
    hold them (a competition's download, ``data.zip`` or ``train.zip`` of ``train.csv``; a
    table zipped on its own, ``train.csv.zip``, is read as it is) and tables in a format no
    reader here knows (OpenML's ``.arff``); ``""`` when there are none."""
    import zipfile

    foreign = foreign_tables_hint(folder) or _workbook_sheets_hint(folder)
    if foreign:
        return foreign
    arff = sorted(p.name for p in folder.glob("*.arff"))
    if arff:
        return (
            f"; input/ holds {', '.join(arff[:3])}: `mlestar run` reads dense ARFF tables as "
            "CSV, but not sparse rows or relational attributes; save them as CSV "
            "(scipy.io.arff.loadarff(path) gives the rows: pd.DataFrame(rows).to_csv(...))"
        )

    said = []
    for archive in sorted(folder.glob("*.zip")):
        if archive.name.lower().endswith(TEXT_TABLE_EXT):
            continue
        try:
            with zipfile.ZipFile(archive) as z:
                held = [n for n in z.namelist() if not n.endswith("/")][:4]
        except (OSError, zipfile.BadZipFile):
            continue
        if held:
            said.append(f"{archive.name} (holding {', '.join(held)})")
    if not said:
        return ""
    return (
        f"; input/ holds the archive {'; '.join(said)}: a run reads the files themselves, so "
        f"unpack {'it' if len(said) == 1 else 'them'} there (cd {folder} && "
        + " && ".join(f"unzip {a.split(' ')[0]}" for a in said)
        + ")"
    )
