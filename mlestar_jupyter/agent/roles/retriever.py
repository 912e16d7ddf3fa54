"""A_retriever (paper §3.1): models for the task, each with example code and the page it came from.

With Gemini the answer is grounded in a web search and each model keeps its own source page;
other backends answer from what the model knows.  Cards a user added to a catalog folder always
join (the paper's human intervention); a card whose example shows no real use of the model
borrows the closest catalog card's.  When the answer is unusable (or short), the grounded policy's
catalog fills in and ``Retrieval.fallback`` says why.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from pydantic import BaseModel

from ...llm.errors import RateLimited, SearchUnavailable
from ...llm.types import Source
from ..policy import CardCatalog, GroundedPolicy, ModelCard
from .base import Role
from .caller import MODEL_ERRORS, RoleCaller
from .context import RoleContext

log = logging.getLogger("mlestar.agent")


# One model of the retriever's answer.
# (No docstring: pydantic would put it in the JSON schema sent with every request, and the
# schema is part of the cache key of the run's recorded answers.)
class RetrievedModel(BaseModel):
    model_name: str
    example_code: str = ""
    source_url: str = ""  # the page the model was found on (grounded search)


ROLE = Role("retriever", "json", list[RetrievedModel])
FALLS_BACK_ON: tuple[type[Exception], ...] = (*MODEL_ERRORS, SearchUnavailable, RateLimited)
"""An unusable answer, no web search, or a rate-limit burst on the run's first call (it ended
the whole search with no models; the ``retrieval_fallback`` event says why): the local catalog
fills in.  A server that is down or refuses the key is no reason to go on: that propagates."""
RETRY_HINT = (
    "Answer again with JSON only: a list of objects "
    '{"model_name": str, "example_code": str, "source_url": str}.'
)


@dataclass(frozen=True)
class RetrievalFallback:
    """Why the retriever's answer was not (all) used and which catalog models filled in."""

    reason: str
    catalog_models: tuple[str, ...]


@dataclass(frozen=True)
class Retrieval:
    """The retriever's cards, and the fall-back to the catalog when there was one."""

    cards: list[ModelCard]
    fallback: RetrievalFallback | None = None


def render(ctx: RoleContext, m: int) -> str:
    """The retriever's prompt for ``m`` models."""
    task = ctx.task
    return ROLE.render(
        task=ctx.describe(0.3), m=m, modality=task.modality, task_type=task.task_type
    )


def retrieve(
    caller: RoleCaller,
    ctx: RoleContext,
    m: int,
    *,
    catalog: CardCatalog | None,
    fallback: GroundedPolicy | None,
) -> Retrieval:
    """Up to ``m`` cards: the user's, the model's answer, then the fall-back's catalog models."""
    cards = user_cards(ctx, catalog)
    why = ""
    try:
        found = _ask(caller, render(ctx, m), m)
        cards = [with_example(ctx, catalog, c) for c in cards + found]
    except FALLS_BACK_ON as e:
        why = f"{type(e).__name__}: {str(e)[:300]}"
        log.warning("retriever: %s; using the local catalog", e)
    if len(cards) >= m:
        return Retrieval(cards[:m])
    why = why or f"the retriever named {len(cards)} of {m} models"
    known = {c.name.lower() for c in cards}
    extra = [] if fallback is None else fallback.retrieve(m)
    added = [c for c in extra if c.name.lower() not in known][: m - len(cards)]
    cards += added
    return Retrieval(cards[:m], RetrievalFallback(why, tuple(c.name for c in added)))


def _ask(caller: RoleCaller, prompt: str, m: int) -> list[ModelCard]:
    """The model's cards: from a grounded search (each its own page) where the backend can."""
    if caller.can_search:
        answer, sources = caller.search(ROLE, prompt, retry_hint=RETRY_HINT)
        return [
            _card(r, "web", source_url(r.model_name, r.source_url, sources)) for r in answer[:m]
        ]
    answer = caller.ask(ROLE, prompt)
    return [_card(r, "llm", r.source_url) for r in answer[:m]]


def _card(r: RetrievedModel, source: str, url: str) -> ModelCard:
    return ModelCard(
        name=r.model_name,
        description=r.model_name,
        example_code=r.example_code,
        source=source,
        url=url,
    )


def source_url(name: str, cited: str, sources: Sequence[Source]) -> str:
    """The page a retrieved model came from: the URL the answer cites for it, else the grounding
    source whose title or address names the model, else ``""`` (never another model's page)."""
    if cited.startswith(("http://", "https://")):
        return cited
    words = [w for w in re.split(r"[^a-z0-9]+", name.lower()) if len(w) > 2]
    squashed = re.sub(r"[^a-z0-9]", "", name.lower())
    for s in sources:
        hay = f"{getattr(s, 'title', '')} {getattr(s, 'uri', '')}".lower()
        if squashed and squashed in re.sub(r"[^a-z0-9]", "", hay):
            return str(s.uri)
    for s in sources:
        hay = f"{getattr(s, 'title', '')} {getattr(s, 'uri', '')}".lower()
        if words and words[0] in hay:
            return str(s.uri)
    return ""


def user_cards(ctx: RoleContext, catalog: CardCatalog | None) -> list[ModelCard]:
    """Cards the user added to a catalog folder (the paper's human intervention) always join."""
    if catalog is None:
        return []
    return [
        c.to_model_card()
        for c in catalog.matching(ctx.task.modality, ctx.task.task_type)
        if c.source == "user"
    ]


def with_example(ctx: RoleContext, catalog: CardCatalog | None, card: ModelCard) -> ModelCard:
    """``card``, or, when its example code shows no real use of the model (a small model often
    answers a comment), the card with the example of the closest local catalog card."""
    if card.source == "user" or _substantial(card.example_code) or catalog is None:
        return card
    match = catalog.closest(card.name, ctx.task.modality, ctx.task.task_type)
    if match is None or not match.example_code:
        return card
    return replace(card, example_code=match.example_code, description=match.description)


def _substantial(code: str, lines: int = 2) -> bool:
    """Whether ``code`` has at least ``lines`` statements besides imports and comments."""
    body = [
        ln
        for ln in code.splitlines()
        if ln.strip() and not ln.lstrip().startswith(("#", "import ", "from "))
    ]
    return len(body) >= lines
