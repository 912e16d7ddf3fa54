"""A Hugging Face dataset card (``README.md`` opening with YAML front matter) read as the task's
description.

A dataset downloaded from the Hub (``huggingface-cli download --repo-type dataset``) holds its
splits as ``data/train-00000-of-00001.parquet`` ... and a ``README.md`` whose front matter lists
the features: ``dtype: {class_label: {names: {'0': neg, '1': pos}}}`` marks the column of
classes.  Such a card names no ``Target:`` line and no metric, so the folder was refused
("names no metric", then "names no 'Target: <column>' line") although the card says what is
predicted.  :func:`card_description` reads the card: the one ``class_label`` feature is the
target and, when the card's text names no metric, accuracy is the metric (as for a dataset of
classes given without one); the front matter is left out of the description, whose goal would
otherwise be YAML, and the class names are said in words.
"""

from __future__ import annotations

import re
from typing import Any

_FRONT = re.compile(r"\A\ufeff?---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.DOTALL)


def front_matter(text: str) -> tuple[dict[str, Any] | None, str]:
    """The YAML front matter of ``text`` as a dict (``None``: none, or not a mapping) and the
    text after it (``text`` itself when there is none)."""
    m = _FRONT.match(text)
    if m is None:
        return None, text
    import yaml

    try:
        meta = yaml.safe_load(m.group(1))
    except yaml.YAMLError:
        return None, text
    return (meta if isinstance(meta, dict) else None), text[m.end() :]


def class_features(meta: dict[str, Any]) -> dict[str, list[str]]:
    """The card's features of classes: name -> class names in label order (``dataset_info`` is
    one mapping, or a list of them, one per configuration: the first with features counts)."""
    info = meta.get("dataset_info")
    infos = info if isinstance(info, list) else [info]
    for one in infos:
        features = one.get("features") if isinstance(one, dict) else None
        if not isinstance(features, list):
            continue
        found: dict[str, list[str]] = {}
        for f in features:
            dtype = f.get("dtype") if isinstance(f, dict) else None
            label = dtype.get("class_label") if isinstance(dtype, dict) else None
            if isinstance(label, dict) and isinstance(f.get("name"), str):
                found[f["name"]] = _names(label.get("names"))
        return found
    return {}


def _names(names: object) -> list[str]:
    """Class names as the card lists them: ``{'0': neg, '1': pos}`` or ``[neg, pos]``."""
    if isinstance(names, dict):
        keyed = sorted(names.items(), key=lambda kv: int(kv[0]) if str(kv[0]).isdigit() else 0)
        return [str(v) for _, v in keyed]
    if isinstance(names, list):
        return [str(v) for v in names]
    return []


def card_description(text: str, *, names_target: bool, names_metric: bool) -> tuple[str, str]:
    """``text`` as the task reads it, and a notice of what the card said (``""``: ``text`` is no
    dataset card, or says nothing the task needs).  ``names_target`` / ``names_metric``: the
    text already has a ``Target:`` line / names a metric, which the card does not override."""
    meta, body = front_matter(text)
    if meta is None:
        return text, ""
    classes = class_features(meta)
    if len(classes) != 1:
        if "dataset_info" not in meta and "configs" not in meta:
            return text, ""
        return body, ""  # a card's front matter, but no single column of classes to predict
    (target, names) = next(iter(classes.items()))
    lines = []
    said = []
    if not names_target:
        lines.append(f"Target: {target}")
        said.append(f"its one column of classes, {target!r}, is the target")
    if not names_metric:
        lines.append("Metric: accuracy")
        said.append("no metric is named: accuracy")
    if names:
        shown = ", ".join(f"{i} = {n}" for i, n in enumerate(names[:50]))
        lines.append(f"Classes of {target}: {shown}")
    if not said:
        return body.rstrip() + "\n\n" + "\n".join(lines) + "\n", ""
    notice = "the dataset card's features say what to predict: " + "; ".join(said)
    return body.rstrip() + "\n\n" + "\n".join(lines) + "\n", notice


__all__ = ["card_description", "class_features", "front_matter"]
