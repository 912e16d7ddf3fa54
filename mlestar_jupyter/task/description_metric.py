"""The metric of a task read from a description: the one its text names, else the one a
benchmark's config beside it names, else a Hugging Face dataset card's.
"""

from __future__ import annotations

from pathlib import Path

from .errors import TaskFormatError
from .fields import Direction
from .infer import metric_from_text, resolve_metric
from .spec_file import read_spec
from .spec_keys import ALIASES, canonical_spec, metric_fields
from .target_line import TARGET_LINE

# a benchmark's own config beside a description: MLE-bench's competition ``config.yaml``
# (``grader: {name: auc-roc}``), or the metric under a name task.json's readers know
_CONFIG_FILES = ("config.yaml", "config.yml", "competition.yaml", "metadata.json")


def described_metric(root: Path, desc_path: Path, text: str) -> tuple[str, Direction, str]:
    """The metric the description names, else the one a benchmark's config beside it names
    (MLE-bench's ``config.yaml``: ``grader: {name: auc-roc}``; hunt O: such a folder was
    refused, "description.md: names no metric"), with a notice saying so ("" when the
    description named it); neither: the description's own error."""
    try:
        name, direction = metric_from_text(desc_path, text)
        return name, direction, ""
    except TaskFormatError as unnamed:
        for folder in dict.fromkeys((desc_path.parent, root)):
            for config in (folder / n for n in _CONFIG_FILES):
                raw, key = _config_metric(config)
                if raw is None:
                    continue
                try:
                    name, direction = resolve_metric(config, raw, {})
                except TaskFormatError:
                    continue
                said = f"{desc_path.name} names no metric: read {config.name}'s '{key}' ({raw!r})"
                return name, direction, said
        raise unnamed


def _config_metric(config: Path) -> tuple[str | None, str]:
    """The metric's name a benchmark's config file gives (and the key it was under), or
    ``(None, "")``: no such file, none readable, or no metric in it."""
    if not config.is_file():
        return None, ""
    try:
        spec = read_spec(config)
    except TaskFormatError:
        return None, ""
    canon, _ = canonical_spec(spec)
    raw, _fields = metric_fields(canon.get("metric"))
    if not raw:
        return None, ""
    key = next(
        (k for k in ("metric", *ALIASES["metric"]) if spec.get(k) not in (None, "")), "metric"
    )
    return raw, key


def card_and_metric(
    root: Path, desc_path: Path, text: str
) -> tuple[str, str, tuple[str, Direction, str] | TaskFormatError]:
    """``text`` read as a Hugging Face dataset card when it opens with one's front matter
    (``task.dataset_card``), what the card said (``""``: nothing, or no card), and the metric,
    resolved once (a benchmark's config beside the description read once): the one the text
    names, a card's front matter left out (``described_metric``), else the card's (accuracy,
    for a card with one column of classes), else the error saying none is named (the caller
    raises it after its own checks)."""
    from .dataset_card import card_description, front_matter

    metric: tuple[str, Direction, str] | TaskFormatError
    try:
        metric = described_metric(root, desc_path, front_matter(text)[1])
    except TaskFormatError as unnamed:
        metric = unnamed
    named = not isinstance(metric, TaskFormatError)
    carded, said = card_description(
        text, names_target=TARGET_LINE.search(text) is not None, names_metric=named
    )
    if not named and carded != text:  # the card's "Metric: accuracy" line
        try:
            metric = (*metric_from_text(desc_path, carded), "")
        except TaskFormatError:
            pass
    return carded, said, metric


__all__ = ["card_and_metric", "described_metric"]
