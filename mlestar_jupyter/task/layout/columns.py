"""What the feature columns of a table hold: long text, dates, steps of an ordered scale, many
distinct values; and which extra tables join onto it."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

import pandas as pd

from ..column_names import column_key
from ..errors import LayoutError
from ..infer import short_text
from ..model import Task
from .model import TABLE_EXT
from .tables import label_values, read_head, read_table

# Scales whose steps are ordered, lowest first (lower-case): quality grades, sizes, cuts, levels.
ORDERED_SCALES: tuple[tuple[str, ...], ...] = (
    ("po", "fa", "ta", "gd", "ex"),
    ("fair", "good", "very good", "premium", "ideal"),
    ("poor", "fair", "average", "good", "very good", "excellent"),
    ("xxs", "xs", "s", "m", "l", "xl", "xxl", "xxxl"),
    ("small", "medium", "large", "extra large"),
    ("very low", "low", "medium", "high", "very high"),
    ("none", "low", "medium", "high"),
    ("never", "rarely", "sometimes", "often", "always"),
    ("strongly disagree", "disagree", "neutral", "agree", "strongly agree"),
)

# Bands of numbers written as text ("5-9", "10-14", "65+", "< 1 year", "10+ years", "$10k-$20k",
# "<=50k", ">50k"): ordered by the number each one starts from, a "less than" band before the
# band that starts at its number and a "more than" band after it.
BAND = re.compile(
    r"^(?P<side><=?|>=?|less than|under|below|up to|over|above|more than)?\s*[$€£]?\s*"
    r"(?P<num>\d[\d,]*(?:\.\d+)?)\s*(?P<k>k)?%?(?P<rest>(?:\s*(?:-|–|to)\s*[$€£]?\s*\d[\d,]*"
    r"(?:\.\d+)?\s*k?)?\s*\+?\s*(?:[a-z/%]+\.?)?(?:\s+(?:[a-z/%]+|or more|and over))?)\s*$"
)
BAND_MARK = re.compile(
    r"\d\s*(?:-|–|to)\s*[$€£]?\s*\d|\+|^[<>]|^(?:less than|under|below|up to|over|above|more than)\b"
)
MAX_BANDS = 40  # more distinct values than this are no scale of bands (addresses, codes)
# Written where a band is not known; left out of the scale (their rank is missing)
NOT_KNOWN = frozenset({"n/a", "na", "unknown", "missing", "none", "not stated", "-", "?"})


# Numbers written as text: a currency sign, thousands separators, a percent sign, or an
# accountant's parentheses around a negative amount ($5,662.50; 1,234; 12.5%; (300.00); € 1,200).
AMOUNT = re.compile(r"^\(?[-+]?\s*[$€£¥]?\s*[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\s*%?\)?$")
AMOUNT_MARK = re.compile(r"[$€£¥%(]|\d,\d{3}")  # what makes a number text in a table


def saved_index_columns(head: pd.DataFrame, exclude: set[str | None]) -> tuple[str, ...]:
    """The columns that are a row index saved with the table: named as pandas names a blank
    header (``Unnamed: 0``), whole numbers, one per row.  As a feature such a column tells the
    model where the row sat in a file (often sorted by the target: a perfect score on the
    validation rows, noise on the test rows)."""
    return tuple(
        str(c)
        for c in head.columns
        if c not in exclude
        and re.fullmatch(r"Unnamed: \d+", str(c))
        and pd.api.types.is_integer_dtype(head[c])
        and head[c].is_unique
    )


def amount_columns(head: pd.DataFrame, exclude: set[str | None]) -> tuple[str, ...]:
    """Text columns whose values all are numbers written as text (``AMOUNT``), some with a
    currency sign, a thousands separator or a percent sign; words for "not known" (n/a) aside."""
    out = []
    for c in head.select_dtypes(exclude=["number", "bool"]).columns:
        values = head[c].dropna().astype(str).str.strip()
        values = values[(values != "") & ~values.str.lower().isin(NOT_KNOWN)]
        if c in exclude or len(values) < 3:
            continue
        if values.str.fullmatch(AMOUNT).all() and values.str.contains(AMOUNT_MARK).any():
            out.append(str(c))
    return tuple(out)


def amounts(values: pd.Series) -> pd.Series:
    """The numbers that amounts written as text stand for ($1,234.50 is 1234.5, (300) and -$300
    are -300, 12.5% is 12.5); missing where a value is no number."""
    text = values.astype("string").str.strip()
    negative = text.str.match(r"^\(.*\)$|^-|^[$€£¥]\s*-", na=False)
    number = pd.to_numeric(text.str.replace(r"[^\d.]", "", regex=True), errors="coerce")
    return number.where(~negative, -number).astype(float)


def text_column(head: pd.DataFrame, exclude: set[str | None]) -> str:
    """The non-numeric column with the longest values on average (a text task's text)."""
    cands = [c for c in head.select_dtypes(exclude="number").columns if c not in exclude]
    if not cands:
        raise LayoutError("a text task needs a column of text in the training table; none found")
    return max(cands, key=lambda c: head[c].astype(str).str.len().mean())


# A UTC offset after a time of day (04:41:58+02:00, 04:41Z): dropped, so a column whose offsets
# differ (summer and winter time) still parses, and the hours stay the local ones.
UTC_OFFSET = r"(\d:\d\d(?::\d\d(?:\.\d+)?)?)\s*(?:Z|[+-]\d\d:?\d\d)$"


# Day, month and year between dots (20.06.2017) are written day first, as in most of Europe.
DAY_FIRST = r"^\d{1,2}\.\d{1,2}\.\d{4}"
# How a value that reads as a date begins: numbers (2021-03-04, 03/04/2021, 04.03.2021) or a
# month's name beside them (Jun 20, 2017; 20 June 2017; 20-Jun-17; 2017-Jun-20).
DATE_START = (
    r"^\d{1,4}[-/]\d{1,2}[-/]\d{1,4}|" + DAY_FIRST + r"|^(?:\d{1,4}(?:st|nd|rd|th)?[ ./-])?"
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?,?[ ./-]\d{1,4}"
)


def local_times(values: pd.Series) -> pd.Series:
    """Text values parsed as dates and times (NaT where they do not parse), offsets dropped;
    day first when most values are written with dots (20.06.2017)."""
    text = values.astype(str).str.strip().str.replace(UTC_OFFSET, r"\1", regex=True)
    day_first = bool(text.str.match(DAY_FIRST).sum() > len(text) / 2)
    return pd.to_datetime(text, errors="coerce", format="mixed", dayfirst=day_first)


def date_columns(head: pd.DataFrame, exclude: set[str | None]) -> tuple[str, ...]:
    """Text columns whose values read as dates (``DATE_START``: 2021-03-04, 03/04/2021,
    04.03.2021, Mar 4, 2021 ...)."""
    out = []
    for c in head.select_dtypes(exclude=["number", "bool"]).columns:
        values = head[c].dropna().astype(str).str.strip()
        if (
            c in exclude
            or values.empty
            or not values.str.match(DATE_START, case=False).mean() > 0.9
        ):
            continue
        if local_times(values).notna().mean() > 0.9:
            out.append(c)
    return tuple(out)


def clock_columns(head: pd.DataFrame, date_cols: tuple[str, ...]) -> tuple[str, ...]:
    """The date columns whose values also hold a time of day (like 2017-06-20 04:41:58): some
    value is not at midnight."""
    out = []
    for c in date_cols:
        when = local_times(head[c].dropna()).dropna()
        if (when != when.dt.normalize()).any():
            out.append(c)
    return tuple(out)


def ordered_columns(
    head: pd.DataFrame, exclude: set[str | None], tables: Sequence[Path] = ()
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Text columns whose values (at least two distinct) all are steps of one known scale, and
    columns of number bands (``band_scale``) whose order differs from their text's (the
    catalog's codes sort the text, so "10-14" before "5-9"); a band column's scale holds every
    value the ``tables`` (training and test) have in it, not only the first rows'."""
    out = []
    for c in head.select_dtypes(exclude=["number", "bool"]).columns:
        values = set(head[c].dropna().astype(str).str.strip().str.lower())
        if c in exclude or len(values) < 2:
            continue
        scale = next((s for s in ORDERED_SCALES if values <= set(s)), None)
        if scale is None and band_scale(values) is not None:
            everywhere = set(values)
            for path in tables:
                everywhere |= _column_values(path, str(c))
            scale = band_scale(everywhere)
            if scale is not None and list(scale) == sorted(scale):
                scale = None  # sorted as text they are already in order: ranks add nothing
        if scale is not None:
            out.append((str(c), scale))
    return tuple(out)


def band_scale(values: set[str]) -> tuple[str, ...] | None:
    """``values`` (lower-case) in the order of the numbers they start from, when all of them
    (3 to ``MAX_BANDS``, not counting ``NOT_KNOWN`` words such as "n/a") are bands of numbers
    and some are written as ranges, open ends or bounds ("10-14", "65+", "< 1 year");
    ``None`` otherwise (plain numbers are no bands)."""
    values = values - NOT_KNOWN
    if not 3 <= len(values) <= MAX_BANDS or not any(BAND_MARK.search(v) for v in values):
        return None
    keys = {}
    for v in values:
        m = BAND.match(v)
        if m is None:
            return None
        number = float(m["num"].replace(",", "")) * (1000 if m["k"] else 1)
        side = m["side"] or ""
        below = side.startswith("<") or side in ("less than", "under", "below", "up to")
        above = side.startswith(">") or side in ("over", "above", "more than")
        keys[v] = (number, -1 if below else 1 if above else 0, v)
    return tuple(sorted(values, key=keys.__getitem__))


def _column_values(path: Path, column: str) -> set[str]:
    """The distinct values (lower-case, stripped) of one column of a table (none if unreadable)."""
    try:
        return {v.strip().lower() for v in label_values(path, column)}
    except (OSError, ValueError, KeyError):
        return set()


def sentence_columns(features: pd.DataFrame, exclude: set[str | None]) -> tuple[str, ...]:
    """Text feature columns that hold sentences rather than categories (``short_text``: three
    words or more on average, mostly distinct), e.g. a passenger's full name ("Braund, Mr. Owen
    Harris") or a product's title: their words say something, their values each once nothing."""
    return tuple(
        str(c)
        for c in features.select_dtypes(include="object").columns
        if c not in exclude and short_text(features[c], words=3)
    )


MAX_CONTEXT_COLUMNS = 5
CONTEXT_SEEN = 0.5  # of the test rows with a value, the share whose value the training rows hold


def context_columns(
    head: pd.DataFrame,
    tables: tuple[Path, Path],
    exclude: set[str | None],
) -> tuple[str, ...]:
    """A text task's columns beside its text whose values are categories that recur in the test
    rows (a tweet's ``keyword``, a review's ``product_category``): at most half as many distinct
    values as rows, and at least ``CONTEXT_SEEN`` of the test rows' values seen in training.  A
    column whose test values are all new (reviews of other films than the training ones) says
    nothing about the test rows, and would only be learnt by heart."""
    train, test = tables
    out: list[str] = []
    for c in head.columns:
        if c in exclude or len(out) >= MAX_CONTEXT_COLUMNS:
            continue
        values = head[c].dropna()
        if values.empty or values.nunique() > max(2, len(values) // 2):
            continue
        seen = _column_values(train, str(c))
        try:
            tested = read_table(test, columns=[str(c)], as_text=True)[str(c)].dropna()
        except (OSError, ValueError, KeyError, LayoutError):
            continue
        shared = tested.str.strip().str.lower().isin(seen).mean() if len(tested) else 0.0
        if shared >= CONTEXT_SEEN:
            out.append(str(c))
    return tuple(out)


def high_cardinality_columns(
    features: pd.DataFrame, exclude: set[str | None], at_least: int = 30
) -> tuple[str, ...]:
    """Text feature columns with ``at_least`` distinct values among the rows read."""
    return tuple(
        str(c)
        for c in features.select_dtypes(exclude=["number", "bool"]).columns
        if c not in exclude and features[c].nunique() >= at_least
    )


class TableJoins(NamedTuple):
    """Which extra tables join onto the training and test tables, and which are set aside."""

    tables: tuple[tuple[str, str], ...]  # (file, key column) joined onto train and test
    set_aside: tuple[tuple[str, str], ...]  # (file, why it is not read)


def joinable_tables(
    task: Task,
    head: pd.DataFrame,
    exclude: set[str | None],
    *,
    train: Path | None = None,
    targets: Sequence[str | None] = (),
) -> TableJoins:
    """Extra tables that share a key column with the training table (joined onto train and
    test), and those set aside (``_unlearnable``): a table holding the target (``targets`` and
    the task's target columns), or one whose keys are none of the ``train`` table's, describes
    the test rows only -- the organisers' answers (hunt F, session 28: a ``test_labels.csv``
    joined by every candidate failed each with a KeyError, or leaked the test labels)."""
    out, aside = [], []
    keys_read: dict[str, set[str] | None] = {}  # the training table's keys, read once per column

    def train_keys(key: str) -> set[str] | None:
        if key not in keys_read:
            keys_read[key] = _key_values(train, key) if train is not None else None
        return keys_read[key]

    for f in task.files:
        if (
            f.path in exclude
            or not f.path.lower().endswith(TABLE_EXT)
            or f.role == "sample_submission"
        ):
            continue
        try:
            extra = read_head(task.input_dir / f.path, n=2000)
        except LayoutError:
            continue
        keys = [c for c in extra.columns if c in head.columns and c not in task.target_cols]
        if not keys or not extra[keys[0]].is_unique:
            continue
        why = _unlearnable(
            task.input_dir / f.path,
            [str(c) for c in extra.columns],
            keys[0],
            train_keys,
            (*targets, *task.target_cols),
        )
        if why:
            aside.append((f.path, why))
        else:
            out.append((f.path, keys[0]))
    return TableJoins(tuple(out), tuple(aside))


def _unlearnable(
    path: Path,
    columns: Sequence[str],
    key: str,
    train_keys: Callable[[str], set[str] | None],
    targets: Sequence[str | None],
) -> str | None:
    """Why the extra table at ``path`` (its ``columns``, joined on ``key``) must not be read,
    ``None`` when it may: it holds a target column (any spelling: ``column_key``), which a model
    would copy, or its keys are none of the training table's (``train_keys(key)``), so it
    describes only the rows to predict and nothing can be learnt from it (hunt F, session 28)."""
    wanted = {column_key(t) for t in targets if t}
    held = [c for c in columns if column_key(c) in wanted]
    if held:
        return f"it holds the target {held[0]!r} (the answers: a model would copy them)"
    ours = train_keys(key)
    theirs = _key_values(path, key) if ours is not None else None
    if ours is None or theirs is None:
        return None
    if theirs and not theirs & ours:
        return (
            f"none of its {key!r} values are the training rows': it describes only the rows to "
            "predict, so nothing can be learnt from it"
        )
    return None


def _key_values(path: Path, column: str) -> set[str] | None:
    """The values of ``column`` in the table at ``path``, as stripped text (``None``: unreadable)."""
    try:
        return set(read_table(path, columns=[column], as_text=True)[column].dropna().str.strip())
    except (OSError, ValueError, KeyError, LayoutError):
        return None
