"""The local model catalog: one JSON card plus one Jinja notebook template per model.

A card (``<name>.json``) says what the model is for; its template (``<name>.py.j2``) is a
percent-format notebook whose ``# %% <role>`` headers tag each cell with its MLE-STAR role.  Cards
shipped in ``offline/catalog/`` are read first; ``load_catalog(extra_dirs=[...])`` adds a user's
own cards (the paper's "human intervention"): a user card with the same name replaces the shipped one.

Card fields::

    name, description, modalities, task_types, requires, example_code,
    priority        lower is tried first among cards of the same modality
    family          cards of one family (e.g. "gbm") are alike: the retriever offers one of each
                    family before a second of any (default: the card's own name)
    params          {role: {param: default}}: the knobs refinement strategies turn
    ablations       [{name, role, params}]: how to switch a block off or simplify it
"""

from __future__ import annotations

import importlib.util
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2

from ..agent.policy import ModelCard
from .errors import CatalogError

CATALOG_DIR = Path(__file__).parent / "catalog"


@dataclass(frozen=True)
class Ablation:
    """One way to switch a block off or simplify it: a role and the params that do it."""

    name: str
    role: str
    params: dict[str, Any]


@dataclass(frozen=True)
class Card:
    """A catalog entry: a model, the tasks it fits, and its notebook template."""

    name: str
    description: str
    modalities: tuple[str, ...]
    task_types: tuple[str, ...]
    template: str
    requires: tuple[str, ...] = ()
    example_code: str = ""
    priority: int = 50
    family: str = ""
    params: dict[str, dict[str, Any]] = field(default_factory=dict)
    ablations: tuple[Ablation, ...] = ()
    # its training is random (a network, a forest): a refit on every row is a new draw, so the
    # final submission averages it with the validated model (for a linear model or a booster
    # the refit alone is as good or better: benchmarks/results/final_average.md)
    refit_average: bool = False
    source: str = "catalog"
    folder: Path = CATALOG_DIR

    @property
    def available(self) -> bool:
        """Whether every package the card needs can be imported here."""
        return all(importlib.util.find_spec(p) is not None for p in self.requires)

    def fits(self, modality: str, task_type: str) -> bool:
        return modality in self.modalities and task_type in self.task_types

    def to_model_card(self) -> ModelCard:
        """The card as the policy protocol's ``ModelCard``."""
        return ModelCard(
            name=self.name,
            description=self.description,
            example_code=self.example_code,
            modalities=self.modalities,
            task_types=self.task_types,
            source=self.source,
            template=self.name,
            requires=self.requires,
        )


@dataclass(frozen=True)
class Catalog:
    """Cards by name and the Jinja environment their templates render in."""

    cards: dict[str, Card]
    env: jinja2.Environment

    def __getitem__(self, name: str) -> Card:
        try:
            return self.cards[name]
        except KeyError:
            raise CatalogError(
                f"no card {name!r} in the catalog; known cards: {', '.join(sorted(self.cards))}"
            ) from None

    def __contains__(self, name: object) -> bool:
        return name in self.cards

    def matching(self, modality: str, task_type: str, *, available_only: bool = True) -> list[Card]:
        """Cards for this modality and task type, best first: the best card of each family (by
        priority, then name), then the families' other cards, so a short list holds unlike models."""
        found = sorted(
            (
                c
                for c in self.cards.values()
                if c.fits(modality, task_type) and (c.available or not available_only)
            ),
            key=lambda c: (c.priority, c.name),
        )
        firsts: dict[str, Card] = {}
        for c in found:
            firsts.setdefault(c.family or c.name, c)
        return [*firsts.values(), *(c for c in found if c not in firsts.values())]

    def closest(self, model_name: str, modality: str, task_type: str) -> Card | None:
        """The card for this task most like a model named in words ("Gradient Boosting Classifier"
        → hist_gradient_boosting), or None when no card shares a meaningful word with the name."""
        words = _words(model_name) - _GENERIC_WORDS
        best, best_score = None, 0
        for c in self.matching(modality, task_type):
            score = 2 * len(words & _words(c.name.replace("_", " "))) + len(
                words & (_words(c.description) - _GENERIC_WORDS)
            )
            if score > best_score:
                best, best_score = c, score
        return best if best_score >= 2 else None


_GENERIC_WORDS = frozenset(
    "a an the and or of with for to on in by model models classifier classifiers regressor "
    "regression classification based simple strong fast".split()
)
_ALIASES = {"lgbm": "lightgbm", "xgb": "xgboost", "logistic": "linear"}


def _split_camel(m: re.Match[str]) -> str:
    return f"{m.group(1)} {m.group(2)}" if m.group(1) else f"{m.group(3)} {m.group(4)}"


def _words(text: str) -> set[str]:
    out = set()
    for w in re.findall(
        r"[a-z0-9]+", re.sub(r"([a-z])([A-Z])|([A-Z]+)([A-Z][a-z])", _split_camel, text).lower()
    ):
        out.add(_ALIASES.get(w, w))
    return out


def load_catalog(extra_dirs: Iterable[str | Path] = ()) -> Catalog:
    """Read the shipped cards, then each folder of ``extra_dirs`` (later folders win on a name clash)."""
    dirs = [CATALOG_DIR, *(Path(d).expanduser() for d in extra_dirs)]
    cards: dict[str, Card] = {}
    for d in dirs:
        if not d.is_dir():
            raise CatalogError(
                f"{d}: not a folder; pass a folder holding <name>.json cards and <name>.py.j2 templates"
            )
        for path in sorted(d.glob("*.json")):
            card = _read_card(path, source="catalog" if d == CATALOG_DIR else "user")
            cards[card.name] = card
    # A user folder comes first so its templates (and partials) shadow the shipped ones.
    loader = jinja2.FileSystemLoader([str(d) for d in reversed(dirs)])
    env = jinja2.Environment(
        loader=loader,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["py"] = py_literal  # {{ value|py }}: a Python literal
    return Catalog(cards=cards, env=env)


def py_literal(value: Any) -> str:
    """``value`` as Python source, strings double-quoted as ruff formats them."""
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list | tuple):
        inner = ", ".join(py_literal(v) for v in value)
        return (
            f"[{inner}]"
            if isinstance(value, list)
            else f"({inner}{',' if len(value) == 1 else ''})"
        )
    if isinstance(value, dict):
        return "{" + ", ".join(f"{py_literal(k)}: {py_literal(v)}" for k, v in value.items()) + "}"
    return repr(value)


def _read_card(path: Path, *, source: str) -> Card:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise CatalogError(
            f"{path}: not valid JSON (line {e.lineno}: {e.msg}); fix the syntax"
        ) from None
    missing = [k for k in ("name", "description", "modalities", "task_types") if k not in raw]
    if missing:
        raise CatalogError(
            f"{path}: missing field(s) {', '.join(missing)}; see offline/catalog/lightgbm.json for an example"
        )
    template = raw.get("template", f"{raw['name']}.py.j2")
    if not (path.parent / template).is_file():
        raise CatalogError(
            f"{path}: its template {template} is not beside it; add {path.parent / template}"
        )
    return Card(
        name=raw["name"],
        description=raw["description"],
        modalities=tuple(raw["modalities"]),
        task_types=tuple(raw["task_types"]),
        template=template,
        requires=tuple(raw.get("requires", ())),
        example_code=raw.get("example_code", ""),
        priority=int(raw.get("priority", 50)),
        family=str(raw.get("family", "")),
        params={k: dict(v) for k, v in raw.get("params", {}).items()},
        ablations=tuple(
            Ablation(a["name"], a["role"], a.get("params", {})) for a in raw.get("ablations", ())
        ),
        refit_average=bool(raw.get("refit_average", False)),
        source=source,
        folder=path.parent,
    )
