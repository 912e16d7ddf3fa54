"""Build the policy for a run from its backend name (``offline`` needs no key; others use ``llm``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..task import Task
from .config import RunConfig
from .policy import Policy

KNOWN_BACKENDS = ("offline", "gemini", "openai", "replay")


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
):  # type: ignore[no-untyped-def]
    """A function ``path_index -> Policy`` for this run, and the fall-back policy (offline catalog)."""
    from ..offline import OfflinePolicy

    def offline(i: int) -> Policy:
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
    from .llm_policy import LLMPolicy, llm_settings, make_client

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


def _catalog(dirs: list[Path] | None) -> Any:
    from ..offline import load_catalog

    return load_catalog(extra_dirs=dirs or [])
