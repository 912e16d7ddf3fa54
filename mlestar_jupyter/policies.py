"""Build the policies of a run from its backend name: the one place that knows both kinds.

``offline`` needs no key and plays every role itself; the LLM backends (``gemini``, ``openai``,
``replay``) get an ``LLMPolicy`` that leans on an ``OfflinePolicy`` for starter cells, static checks
and the local catalog.  This module sits above ``agent`` and ``offline`` so that neither imports
the other (``agent`` only knows the ``GroundedPolicy`` and ``CardCatalog`` protocols).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .agent.config import RunConfig
from .agent.policy import Policy
from .offline import Catalog, OfflinePolicy, load_catalog
from .task import Task

if TYPE_CHECKING:
    from .agent.llm_policy import LLMPolicy

KNOWN_BACKENDS = ("offline", "gemini", "openai", "replay")

PolicyFactory = Callable[[int], Policy]


class BackendChoiceError(ValueError):
    """The backend name is unknown or cannot be used here."""


def make_policy_factory(
    task: Task,
    config: RunConfig,
    run_dir: Path,
    *,
    on_llm_call: Any = None,
    catalog_dirs: list[Path] | None = None,
    replay_from: Path | None = None,
) -> tuple[PolicyFactory, Policy | None]:
    """A function ``path_index -> Policy`` for this run, and the fall-back policy (offline catalog)."""

    def offline(i: int) -> OfflinePolicy:
        return OfflinePolicy(
            task,
            config,
            seed=config.seed + i,
            path=i,
            **({"catalog": _catalog(catalog_dirs)} if catalog_dirs else {}),
        )

    if config.backend == "offline":
        return offline, None
    if config.backend not in KNOWN_BACKENDS:
        raise BackendChoiceError(
            f"unknown backend {config.backend!r}; choose one of: {', '.join(KNOWN_BACKENDS)}"
        )
    from .agent.llm_policy import LLMPolicy, llm_settings, make_client

    settings = llm_settings(config, run_dir, replay_from=replay_from)
    client = make_client(settings, run_dir, config, on_call=on_llm_call)
    catalog = _catalog(catalog_dirs)

    def llm(i: int) -> Policy:
        return LLMPolicy(
            task,
            config,
            client,
            path_index=i,
            catalog=catalog,
            fallback=offline(i),
            context_tokens=settings.context_tokens,
            max_answer_tokens=min(
                settings.max_tokens or settings.context_tokens,
                max(256, settings.context_tokens // 4),
            ),
        )

    return llm, offline(0)


def _catalog(dirs: list[Path] | None) -> Catalog:
    return load_catalog(extra_dirs=dirs or [])


def grounded_llm_policy(
    task: Task, config: RunConfig, client: Any, *, path_index: int = 0, **kwargs: Any
) -> LLMPolicy:
    """An ``LLMPolicy`` with the offline policy and the shipped catalog behind it, as a run builds
    it (for code that holds a client already: notebooks, tests, the benchmarks)."""
    from .agent.llm_policy import LLMPolicy  # noqa: F811 - the LLM stack loads only when used

    kwargs.setdefault("catalog", load_catalog())
    kwargs.setdefault(
        "fallback", OfflinePolicy(task, config, seed=config.seed + path_index, path=path_index)
    )
    return LLMPolicy(task, config, client, path_index=path_index, **kwargs)
