"""``RoleCaller``: how every role asks the model, and how a run's client is wired.

One request per role answer: the system prompt, the role's prompt, the role's JSON schema (for JSON
answers), a salt that tells the run's paths apart in the cache, and a cap on the answer's length.

- ``ask``: until the role's parser accepts the answer; a reply the parser refuses
  (``ReplyFormatError``) is quoted back with the problem, at most ``max_reasks`` times.
- ``code``: ``ask`` with the code answer pre-screened before it costs an execution: syntax,
  names used but never imported (repaired), modules that are not installed, ``exit()``; for a
  whole program also names used but never defined (said once).  Starter cells go in front of a
  program that uses what only they define.
- ``search``: a web-grounded ask (Gemini), re-asked the same way, each time with the search on.

Errors the model caused (``MODEL_ERRORS``: an answer still in the wrong shape after the re-asks,
or cut off at the length limit) are what a role may fall back from.  Infrastructure errors
(``AuthFailed``, ``Unavailable``, ``RateLimited`` ...) propagate; an exhausted LLM budget, or a call
abandoned by the run's stop (``Cancelled``), becomes ``RunStopped``, which ends the run gracefully.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...codecheck.prescreen import prescreen
from ...codecheck.static_checks import defined_names, undefined_names
from ...llm import structured as S
from ...llm.client import LLMBudget, LLMClient, OnCall
from ...llm.errors import BudgetExceeded, Cancelled, ReplyFormatError, Truncated
from ...llm.settings import LLMSettings
from ...llm.types import LLMRequest, Message, Source
from ..config import RunConfig
from ..errors import RunStopped
from .base import Role

MODEL_ERRORS: tuple[type[Exception], ...] = (ReplyFormatError, Truncated)
"""Errors the model caused: a role may fall back from these (and only these)."""


@dataclass(frozen=True)
class CallSettings:
    """How roles talk to the model."""

    context_tokens: int = 32768  # the model's context window
    max_reasks: int = 2  # re-asks with the problem quoted before a role gives up
    max_answer_tokens: int | None = None  # cap on each answer; None: a quarter of the window
    temperature: float | None = None  # None: the backend's default

    @property
    def context_chars(self) -> int:
        """Characters a prompt may fill: ~3 a token for code, a quarter of the window left over."""
        return int(self.context_tokens * 3 * 0.75)

    @property
    def answer_tokens(self) -> int:
        """The cap on every answer: a small model caught in a loop (endless whitespace under a JSON
        grammar) stops there instead of generating for many minutes."""
        return self.max_answer_tokens or max(256, self.context_tokens // 4)


class RoleCaller:
    """Asks the model on behalf of the roles (see the module docstring).

    Parameters
    ----------
    client:      the run's LLM client (cache, journal, budgets).
    system:      the system prompt of every request.
    settings:    re-asks, answer cap, temperature.
    path_index:  the run's path, salted into every request so that paths get their own answers.
    local_modules: modules the kernels import from the task's data (a user's ``helpers.py``),
                 not sent back as "not installed".
    """

    def __init__(
        self,
        client: LLMClient,
        system: str,
        settings: CallSettings,
        *,
        path_index: int = 0,
        local_modules: frozenset[str] = frozenset(),
    ) -> None:
        self.client = client
        self.system = system
        self.settings = settings
        self.path_index = path_index
        self.local_modules = local_modules

    @property
    def can_search(self) -> bool:
        """Whether the backend grounds answers in a web search (Gemini)."""
        return getattr(self.client.backend, "id", "") == "gemini"

    def request(
        self, role: Role, prompt: str, *, salt: str = "", search: bool = False
    ) -> LLMRequest:
        """The request for ``prompt`` (a searched request carries no schema)."""
        return LLMRequest.of(
            prompt,
            system=self.system,
            role=role.name,
            json_schema=None if search else role.request_schema,
            search=search,
            salt=f"path{self.path_index}{salt}",
            temperature=self.settings.temperature,
            max_tokens=self.settings.answer_tokens,
        )

    def ask(
        self,
        role: Role,
        prompt: str,
        *,
        parse: Callable[[str], Any] | None = None,
        salt: str = "",
    ) -> Any:
        """The answer ``parse`` (default: the role's parser) accepts, re-asking with its problem."""
        req = self.request(role, prompt, salt=salt)
        with _budget_stops_the_run():
            return S.ask_until_valid(
                self.client, req, parse or role.parse, max_reasks=self.settings.max_reasks
            )

    def code(
        self, role: Role, prompt: str, *, salt: str = "", whole: bool = False, starter: str = ""
    ) -> str:
        """Code from a code role, pre-screened (see the module docstring); ``whole``: the answer
        is a whole program, checked for names used but never defined."""
        told = [False]  # undefined names are a static guess: say it once, then let the run decide

        def parse(text: str) -> str:
            code, problem = prescreen(role.parse(text), self.local_modules)
            if problem is None and starter:
                code = with_starter(code, starter)
            if problem is None and whole and not told[0]:
                missing = sorted(undefined_names(code))
                if missing:
                    told[0] = True
                    problem = f"these names are used but never defined: {', '.join(missing[:10])}"
            if problem is not None:
                raise ReplyFormatError(problem, raw=text, hint="answer again with this fixed")
            return code

        return str(self.ask(role, prompt, parse=parse, salt=salt))

    def search(self, role: Role, prompt: str, *, retry_hint: str) -> tuple[Any, tuple[Source, ...]]:
        """A web-grounded answer parsed by the role, and its sources; an answer that does not
        parse is asked again with the problem and ``retry_hint`` (what to answer) quoted."""
        req = self.request(role, prompt, search=True)
        current = req
        last = self.settings.max_reasks
        for attempt in range(last + 1):
            try:
                with _budget_stops_the_run():
                    ans = S.generate_with_search(self.client, current)
                return role.parse(ans.text), tuple(ans.sources)
            except ReplyFormatError as e:
                if attempt == last:
                    raise ReplyFormatError(
                        f"{e.problem} (still, after {last} re-asks)", raw=e.raw
                    ) from e
                current = req.extend(
                    Message("assistant", (e.raw or "")[:8000]),
                    Message("user", f"Your answer could not be used: {e.problem}. {retry_hint}"),
                )
        raise AssertionError("unreachable")  # pragma: no cover


@contextmanager
def _budget_stops_the_run() -> Iterator[None]:
    try:
        yield
    except BudgetExceeded as e:
        raise RunStopped(f"LLM budget reached: {e}") from e
    except Cancelled as e:  # the client was cancelled by the run's stop (Ctrl-C)
        raise RunStopped(e.problem) from e


def with_starter(code: str, starter: str) -> str:
    """``code`` with the ``starter`` cells in front when it uses names only they define."""
    if undefined_names(code) & defined_names(starter):
        return starter.rstrip() + "\n\n" + code.lstrip()
    return code


# ---------------------------------------------------------------------- client wiring
def llm_settings(
    config: RunConfig, run_dir: Path, *, replay_from: Path | None = None
) -> LLMSettings:
    """The run's LLM settings: ``MLESTAR_LLM_*`` variables, overridden by the run's backend and model."""
    overrides: dict[str, Any] = {"backend": config.backend}
    if config.model:
        overrides["model"] = config.model
    if config.backend == "replay":
        src = replay_from or Path(run_dir)
        overrides["replay_path"] = str(src / "llm" if (src / "llm").is_dir() else src)
    return LLMSettings.from_env(**overrides)


def make_client(
    settings: LLMSettings, run_dir: Path, config: RunConfig, *, on_call: OnCall | None = None
) -> LLMClient:
    """The LLM client of a run: cache and call log in ``run_dir/llm``, the run's budgets."""
    return LLMClient.from_settings(
        settings,
        cache_dir=Path(run_dir) / "llm",
        on_call=on_call,
        budget=LLMBudget.from_run_budget(config.budget),
    )
