"""``LLMPolicy``: every MLE-STAR role answered by a language model through the ``llm`` layer.

Around the model, the policy keeps what a small model gets wrong out of the executions:
- the environment manifest (Python, installed packages, CPU/GPU) is in every system prompt;
- code is pre-screened before it costs an execution: syntax, names used but never imported
  (repaired), modules that are not installed (sent back to the model with the reason);
- the metric and its direction always come from the task;
- prompts are sized to the model's context: long code, tracebacks and logs keep head and tail;
- cells are separated by ``# %% <role>`` markers; block ids survive a round trip through a script.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..notebook import BLOCK_ROLES, BlockMatchError, SolutionNotebook
from ..task import Task
from .config import RunConfig
from .environment import detect_environment, truncate_middle
from .errors import RunStopped
from .policy import (
    AblationResult,
    AblationStudy,
    AblationSummary,
    CardCatalog,
    DataUsageReport,
    GroundedPolicy,
    LeakageReport,
    ModelCard,
    Plan,
    RefineTarget,
)
from .roles import ROLES, AblationAnswer, ExtractAnswer, LeakageAnswer, RetrievedModel

log = logging.getLogger("mlestar.agent")
SCORE_NOTES_KEPT = 2  # harness messages about printed scores quoted in later prompts


def llm_settings(config: RunConfig, run_dir: Path, *, replay_from: Path | None = None) -> Any:
    """The run's LLM settings: ``MLESTAR_LLM_*`` variables, overridden by the run's backend and model."""
    from ..llm.settings import LLMSettings

    overrides: dict[str, Any] = {"backend": config.backend}
    if config.model:
        overrides["model"] = config.model
    if config.backend == "replay":
        src = replay_from or Path(run_dir)
        overrides["replay_path"] = str(src / "llm" if (src / "llm").is_dir() else src)
    return LLMSettings.from_env(**overrides)


def make_client(settings: Any, run_dir: Path, config: RunConfig, *, on_call: Any = None) -> Any:
    """The LLM client of a run: cache and call log in ``run_dir/llm``, the run's budgets."""
    from ..llm.client import LLMBudget, LLMClient

    return LLMClient.from_settings(
        settings,
        cache_dir=Path(run_dir) / "llm",
        on_call=on_call,
        budget=LLMBudget.from_run_budget(config.budget),
    )


@dataclass(frozen=True)
class RetrievalFallback:
    """Why the retriever's answer was not (all) used and which catalog models filled in."""

    reason: str
    catalog_models: tuple[str, ...]


def source_url(name: str, cited: str, sources: Sequence[Any]) -> str:
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


class LLMPolicy:
    """MLE-STAR's roles played by an LLM (see the module docstring)."""

    name = "llm"

    def __init__(
        self,
        task: Task,
        config: RunConfig,
        client: Any,
        *,
        path_index: int = 0,
        catalog: CardCatalog | None = None,
        fallback: GroundedPolicy | None = None,
        context_tokens: int = 32768,
        max_reasks: int = 2,
        max_answer_tokens: int | None = None,
    ) -> None:
        self.task = task
        self.config = config
        self.client = client
        self.path_index = path_index
        self.catalog = catalog
        self.fallback = fallback
        # ~3 characters a token for code; a quarter of the window is left for the answer
        self.context_chars = int(context_tokens * 3 * 0.75)
        # ... and every answer is capped to that quarter: a small model caught in a loop (endless
        # whitespace under a JSON grammar) stops there instead of generating for many minutes
        self.max_answer_tokens = max_answer_tokens or max(256, context_tokens // 4)
        self.max_reasks = max_reasks
        self._preview: str | None = None
        self._starter: str | None = None
        self._score_notes: list[str] = []  # the harness's latest findings about printed scores
        self.retrieval_fallback: RetrievalFallback | None = None  # set when the catalog filled in
        env = detect_environment()
        self.system = ROLES["system"].render(
            manifest=env.render(),
            metric=task.metric_name,
            direction=task.direction,
            cpus=env.cpus,
            gpu=env.gpu,
        )

    # ------------------------------------------------------------------ calls
    def _request(
        self,
        role: str,
        prompt: str,
        *,
        json_schema: Any = None,
        search: bool = False,
        salt: str = "",
    ) -> Any:
        from ..llm.types import LLMRequest

        schema = None
        if json_schema is not None:
            from pydantic import TypeAdapter

            schema = TypeAdapter(json_schema).json_schema()
        return LLMRequest.of(
            prompt,
            system=self.system,
            role=role,
            json_schema=schema,
            search=search,
            salt=f"path{self.path_index}{salt}",
            temperature=self.config_temperature,
            max_tokens=self.max_answer_tokens,
        )

    @property
    def config_temperature(self) -> float | None:
        return None

    def _ask(
        self,
        role: str,
        prompt: str,
        parse: Any,
        *,
        schema: Any = None,
        salt: str = "",
        search: bool = False,
    ) -> Any:
        """Ask until ``parse`` accepts the answer; a parse error is quoted back to the model (at most
        ``max_reasks`` times).  An exhausted LLM budget ends the run gracefully."""
        from ..llm import errors as E
        from ..llm import structured as S

        req = self._request(role, prompt, json_schema=schema, search=search, salt=salt)
        try:
            return S.ask_until_valid(self.client, req, parse, max_reasks=self.max_reasks)
        except E.BudgetExceeded as e:
            raise RunStopped(f"LLM budget reached: {e}") from e

    def _call(
        self,
        kind: str,
        role: str,
        prompt: str,
        schema: Any = None,
        salt: str = "",
        search: bool = False,
    ) -> Any:
        """Text (``kind="text"``) or a JSON answer validated against ``schema`` (``"json"``)."""
        from ..llm import structured as S
        from ..llm.errors import ReplyFormatError

        if kind == "json":
            adapter = _adapter(schema)
            return self._ask(
                role, prompt, lambda t: S.validate_json(t, adapter), schema=schema, salt=salt
            )

        def text(t: str) -> str:
            if not t.strip():
                raise ReplyFormatError("the answer was empty", raw=t)
            return t

        return self._ask(role, prompt, text, salt=salt)

    def _code(
        self, role: str, prompt: str, salt: str = "", whole: bool = False, starter: str = ""
    ) -> str:
        """Ask for code and pre-screen it (syntax, missing imports repaired, uninstalled modules,
        exit(); for a whole program also names used but never defined, sent back once); what
        fails goes back to the model with the reason before it costs an execution.  A program
        that uses what the ``starter`` cells define (``X``, ``y``, ``X_test``...) without them
        gets them put in front."""
        from ..codecheck.prescreen import prescreen
        from ..codecheck.static_checks import undefined_names
        from ..llm import structured as S
        from ..llm.errors import ReplyFormatError

        told = [False]  # undefined names are a static guess: say it once, then let the run decide

        def parse(text: str) -> str:
            code, problem = prescreen(_without_stray_fences(S.extract_code(text)))
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

        return str(self._ask(role, prompt, parse, salt=salt))

    def _fit(self, text: str, share: float = 0.5) -> str:
        return truncate_middle(text, int(self.context_chars * share))

    def _data(self, share: float = 0.15) -> str:
        """The input files at a glance (columns, types, a row; folders' files), computed once."""
        if self._preview is None:
            from ..task.preview import preview_data

            try:
                self._preview = preview_data(self.task)
            except Exception as e:  # noqa: BLE001 - a preview helps; the task text still says a lot
                log.info("data preview unavailable: %s", e)
                self._preview = ""
        return self._fit(self._preview, share)

    def starter(self) -> str:
        """Cells that load this task's data (from the offline layout), or "" when none can be made."""
        if self._starter is None:
            self._starter = ""
            if self.static is not None:
                try:
                    self._starter = str(self.static.starter_code())
                except Exception as e:  # noqa: BLE001 - the model can still load the data itself
                    log.info("no starter cells: %s", e)
        return self._starter if len(self._starter) <= self.context_chars * 0.2 else ""

    def _needs_subsample(self) -> bool:
        """Whether the task may have more training rows than ``max_train_rows`` (an instruction
        to subsample a 400-row table only confuses a small model)."""
        try:
            rows = self.static.train_rows() if self.static is not None else None
        except Exception:  # noqa: BLE001 - unknown: keep the instruction
            rows = None
        return rows is None or rows > self.config.max_train_rows

    def _script(self, nb: SolutionNotebook) -> str:
        return self._fit(nb.to_script(), 0.6)

    def _to_notebook(
        self, code: str, base: SolutionNotebook | None = None, origin: str = ""
    ) -> SolutionNotebook:
        return script_to_notebook(code, base=base, origin=origin)

    # ------------------------------------------------------------------ roles
    def retrieve(self, m: int) -> list[ModelCard]:
        cards = self._user_cards()
        prompt = ROLES["retriever"].render(
            task=self._fit(self.task.describe(), 0.3),
            m=m,
            modality=self.task.modality,
            task_type=self.task.task_type,
        )
        why = ""
        try:
            if self._can_search():  # Gemini: grounded in a web search, each model its own page
                answer, sources = self._search_models(prompt)
                found = [
                    ModelCard(
                        name=r.model_name,
                        description=r.model_name,
                        example_code=r.example_code,
                        source="web",
                        url=source_url(r.model_name, r.source_url, sources),
                    )
                    for r in answer[:m]
                ]
            else:
                answer = self._call("json", "retriever", prompt, schema=list[RetrievedModel])
                found = [
                    ModelCard(
                        name=r.model_name,
                        description=r.model_name,
                        example_code=r.example_code,
                        source="llm",
                        url=r.source_url,
                    )
                    for r in answer[:m]
                ]
            cards = [self._with_example(c) for c in cards + found]
        except RunStopped:
            raise
        except Exception as e:  # noqa: BLE001 - no search or a bad answer: the local catalog fills in
            why = f"{type(e).__name__}: {str(e)[:300]}"
            log.warning("retriever: %s; using the local catalog", e)
        if len(cards) < m:
            why = why or f"the retriever named {len(cards)} of {m} models"
            known = {c.name.lower() for c in cards}
            extra = [] if self.fallback is None else self.fallback.retrieve(m)
            added = [c for c in extra if c.name.lower() not in known][: m - len(cards)]
            cards += added
            self.retrieval_fallback = RetrievalFallback(why, tuple(c.name for c in added))
        return cards[:m]

    def _search_models(self, prompt: str) -> tuple[list[RetrievedModel], tuple[Any, ...]]:
        """A grounded search for models; an answer that does not parse is asked again with the
        error quoted (at most ``max_reasks`` times), each time with the search on."""
        from ..llm import errors as E
        from ..llm import structured as S
        from ..llm.types import Message

        req = self._request("retriever", prompt, search=True)
        current = req
        for attempt in range(self.max_reasks + 1):
            try:
                ans = S.generate_with_search(self.client, current)
                return S.parse_json(ans.text, list[RetrievedModel]), tuple(ans.sources)
            except E.BudgetExceeded as e:
                raise RunStopped(f"LLM budget reached: {e}") from e
            except E.ReplyFormatError as e:
                if attempt == self.max_reasks:
                    raise E.ReplyFormatError(
                        f"{e.problem} (still, after {self.max_reasks} re-asks)", raw=e.raw
                    ) from e
                current = req.extend(
                    Message("assistant", (e.raw or "")[:8000]),
                    Message(
                        "user",
                        f"Your answer could not be used: {e.problem}. Answer again with JSON "
                        "only: a list of objects "
                        '{"model_name": str, "example_code": str, "source_url": str}.',
                    ),
                )
        raise AssertionError("unreachable")  # pragma: no cover

    def _with_example(self, card: ModelCard) -> ModelCard:
        """A card whose example code shows no real use of the model (a small model often answers
        a comment) borrows the example of the closest local catalog card."""
        if card.source == "user" or _substantial(card.example_code):
            return card
        catalog = self.catalog
        if catalog is None:
            return card
        match = catalog.closest(card.name, self.task.modality, self.task.task_type)
        if match is None or not match.example_code:
            return card
        return replace(card, example_code=match.example_code, description=match.description)

    def _can_search(self) -> bool:
        return getattr(getattr(self.client, "backend", None), "id", "") == "gemini"

    def _user_cards(self) -> list[ModelCard]:
        """Cards the user added to a catalog folder (the paper's human intervention) always join."""
        if self.catalog is None:
            return []
        return [
            c.to_model_card()
            for c in self.catalog.matching(self.task.modality, self.task.task_type)
            if c.source == "user"
        ]

    @property
    def static(self) -> GroundedPolicy | None:
        """The grounded fall-back policy (the run factory passes the offline one), whose static
        leakage checks, starter cells and row count help the LLM's roles; None runs without."""
        return self.fallback

    def init_solution(self, card: ModelCard) -> SolutionNotebook:
        starter = self.starter()
        prompt = ROLES["init"].render(
            task=self._fit(self.task.describe(), 0.25),
            data=self._data(),
            card=card,
            starter=starter,
            max_rows=self.config.max_train_rows,
            subsample=self._needs_subsample(),
        )
        code = self._code("init", prompt, salt=card.name, whole=True, starter=starter)
        return self._to_notebook(code, origin=f"init:{card.name}")

    def merge(self, base: SolutionNotebook, reference: SolutionNotebook) -> SolutionNotebook:
        prompt = ROLES["merger"].render(
            base=self._fit(base.to_script(), 0.3),
            reference=self._fit(reference.to_script(), 0.3),
            max_rows=self.config.max_train_rows,
            metric=self.task.metric_name,
        )
        return self._to_notebook(self._code("merger", prompt, whole=True), origin="merger")

    def ablation(
        self, solution: SolutionNotebook, previous: list[AblationSummary]
    ) -> AblationStudy:
        prompt = ROLES["ablation"].render(
            solution=self._script(solution), previous=[self._fit(p.text, 0.05) for p in previous]
        )
        code = self._code("ablation", prompt)
        return AblationStudy(notebook=SolutionNotebook.new([("other", code)], origin="ablation"))

    def summarize_ablation(
        self,
        study: AblationStudy,
        baseline: float | None,
        output: str,
        variant_scores: dict[str, float | None],
    ) -> AblationSummary:
        code = study.notebook.source if study.notebook else ""
        parsed = parse_ablation_lines(output)
        prompt = ROLES["summarize"].render(
            code=self._fit(code, 0.3),
            output=self._fit(output, 0.2),
            metric=self.task.metric_name,
            direction=self.task.direction,
        )
        try:
            ans: AblationAnswer = self._call("json", "summarize", prompt, schema=AblationAnswer)
            text = ans.summary
            items = {i.name: i.score for i in ans.results} or parsed
        except RunStopped:
            raise
        except Exception as e:  # noqa: BLE001 - the printed lines are enough for the bars
            log.info("summarize: %s; using the printed scores", e)
            text, items = (output[-1500:] or "no output"), parsed
        base = items.pop("baseline", None) if "baseline" in items else baseline
        sign = 1 if self.task.direction == "maximize" else -1
        results = tuple(
            AblationResult(n, None, s, None if (s is None or base is None) else sign * (base - s))
            for n, s in items.items()
        )
        return AblationSummary(text=text, baseline=base, results=results)

    def extract(
        self, solution: SolutionNotebook, summary: AblationSummary, refined: list[str]
    ) -> RefineTarget:
        prompt = ROLES["extractor"].render(
            solution=self._script(solution), summary=self._fit(summary.text, 0.1), refined=refined
        )
        from ..llm import structured as S
        from ..llm.errors import ReplyFormatError

        adapter = _adapter(ExtractAnswer)

        def parse(text: str) -> RefineTarget:
            ans = S.validate_json(text, adapter)
            try:
                return resolve_target(solution, ans.block_id, ans.code_block, ans.plan)
            except BlockMatchError as e:
                raise ReplyFormatError(
                    f"{e}. Valid block ids: {', '.join(solution.block_ids)}", raw=text
                ) from e

        return self._ask("extractor", prompt, parse, schema=ExtractAnswer)  # type: ignore[no-any-return]

    def hear_score_feedback(self, message: str) -> None:
        """The harness found a printed score it could not take as printed (``CandidateRunner``):
        the next debugger and coder prompts quote the latest such messages."""
        if message and message not in self._score_notes:
            self._score_notes = [*self._score_notes, message][-SCORE_NOTES_KEPT:]

    def code(self, solution: SolutionNotebook, target: RefineTarget, plan: Plan) -> str:
        block = target.fragment or solution.block(target.block_id).source
        prompt = ROLES["coder"].render(
            block=self._fit(block, 0.4), plan=plan.text, score_notes=list(self._score_notes)
        )
        return self._code("coder", prompt, salt=plan.text[:80])

    def plan(
        self,
        solution: SolutionNotebook,
        target: RefineTarget,
        history: list[tuple[Plan, float | None]],
    ) -> Plan:
        block = target.fragment or solution.block(target.block_id).source
        hist = [(p.text, "failed" if s is None else f"{s:.5g}") for p, s in history]
        prompt = ROLES["planner"].render(
            block=self._fit(block, 0.4),
            history=hist,
            metric=self.task.metric_name,
            direction=self.task.direction,
            baseline=_score_of(solution),
        )
        return Plan(text=self._call("text", "planner", prompt, salt=str(len(history))).strip())

    def ensemble_plan(
        self, solutions: list[SolutionNotebook], history: list[tuple[Plan, float | None]]
    ) -> Plan:
        share = 0.5 / max(1, len(solutions))
        hist = [(p.text, "failed" if s is None else f"{s:.5g}") for p, s in history]
        prompt = ROLES["ens_planner"].render(
            solutions=[self._fit(s.to_script(), share) for s in solutions],
            history=hist,
            metric=self.task.metric_name,
            direction=self.task.direction,
        )
        return Plan(text=self._call("text", "ens_planner", prompt, salt=str(len(history))).strip())

    def ensemble(self, solutions: list[SolutionNotebook], plan: Plan) -> SolutionNotebook:
        share = 0.5 / max(1, len(solutions))
        prompt = ROLES["ensembler"].render(
            solutions=[self._fit(s.to_script(), share) for s in solutions],
            plan=plan.text,
            metric=self.task.metric_name,
        )
        return self._to_notebook(
            self._code("ensembler", prompt, salt=plan.text[:80], whole=True), origin="ensembler"
        )

    def debug(
        self, solution: SolutionNotebook, error: str, failed_block: str | None
    ) -> SolutionNotebook:
        prompt = ROLES["debugger"].render(
            code=self._script(solution),
            error=self._fit(error, 0.2),
            data=self._data(0.1),
            submission="submission" in error.lower(),
            score_notes=list(self._score_notes),
        )
        code = self._code("debugger", prompt, salt=error[-200:], whole=True, starter=self.starter())
        return self._to_notebook(code, base=solution, origin="debugger")

    def check_leakage(self, solution: SolutionNotebook) -> LeakageReport:
        """Static check first (free); then the LLM detector; a leak found is fixed in its block."""
        static = (
            self.static.check_leakage(solution) if self.static is not None else LeakageReport(False)
        )
        if static.leaky and static.fixed_source:
            return static
        prompt = ROLES["leakage_detect"].render(code=self._script(solution))
        try:
            ans: LeakageAnswer = self._call("json", "leakage_detect", prompt, schema=LeakageAnswer)
        except RunStopped:
            raise
        except Exception as e:  # noqa: BLE001
            log.info("leakage check: %s; static check only", e)
            return static
        if not ans.leakage and not static.leaky:
            return LeakageReport(False)
        quoted = _without_markers(ans.code_block)
        fragment = quoted if ans.leakage and quoted.strip() else None
        try:
            block_id = solution.locate(fragment) if fragment else static.block_id
        except BlockMatchError:
            block_id, fragment = static.block_id, None
        reason = ans.reason or static.reason
        if not block_id:
            return LeakageReport(True, None, reason)
        block_src = solution.block(block_id).source
        new = self._code(
            "leakage_fix", ROLES["leakage_fix"].render(block=fragment or block_src, reason=reason)
        )
        fixed = (
            solution.replace_in_block(block_id, fragment, new).block(block_id).source
            if fragment
            else new
        )
        broken = _newly_undefined(solution, solution.replace_block(block_id, fixed))
        if broken:  # a fix that breaks the program is worse than the leak it claims to fix
            note = f" (fix discarded: it left {', '.join(broken)} undefined)"
            return LeakageReport(True, block_id, reason + note, None)
        return LeakageReport(True, block_id, reason, fixed)

    def check_data_usage(self, solution: SolutionNotebook) -> DataUsageReport:
        from ..codecheck.static_checks import unused_files

        unused = tuple(unused_files(solution.source, [f.path for f in self.task.files]))
        files = [f"{f.path} ({f.role})" for f in self.task.files]
        prompt = ROLES["data_usage"].render(
            code=self._script(solution),
            task=self._fit(self.task.describe(), 0.2),
            files=files,
            unused=list(unused),
        )
        text = self._call("text", "data_usage", prompt)
        if "all the provided information is used" in text.lower() and "```" not in text:
            return DataUsageReport(unused, None)
        from ..codecheck.prescreen import prescreen
        from ..llm import structured as S

        code, problem = prescreen(S.extract_code(text))
        if problem:
            return DataUsageReport(unused, None)
        return DataUsageReport(unused, self._to_notebook(code, base=solution, origin="data_usage"))

    def check_novelty(self, solution: SolutionNotebook, reference: str) -> str:
        """The paper's contamination check: ``"Novel"`` or ``"Same"`` against a reference text."""
        from ..llm.errors import ReplyFormatError

        def parse(text: str) -> str:
            word = next((w for w in ("Novel", "Same") if w.lower() in text.lower()), None)
            if word is None:
                raise ReplyFormatError("answer with one word: Novel or Same", raw=text)
            return word

        prompt = ROLES["novelty"].render(
            reference=self._fit(reference, 0.3), code=self._script(solution)
        )
        return str(self._ask("novelty", prompt, parse))

    def make_submission(self, solution: SolutionNotebook) -> SolutionNotebook:
        from .submission import value_spec

        values = value_spec(self.task)  # what the metric needs in each column
        prompt = ROLES["submission"].render(
            task=self._fit(self.task.describe(), 0.2),
            data=self._data(0.1),
            code=self._script(solution),
            output_format=self.task.output_format
            or ",".join(((self.task.id_col,) if self.task.id_col else ()) + self.task.target_cols),
            values=values.describe() if values is not None else "",
        )
        code = self._code("submission", prompt, whole=True, starter=self.starter())
        return self._to_notebook(code, base=solution, origin="submission")


# ---------------------------------------------------------------------- helpers
def _substantial(code: str, lines: int = 2) -> bool:
    """Whether ``code`` has at least ``lines`` statements besides imports and comments."""
    body = [
        ln
        for ln in code.splitlines()
        if ln.strip() and not ln.lstrip().startswith(("#", "import ", "from "))
    ]
    return len(body) >= lines


def with_starter(code: str, starter: str) -> str:
    """``code`` with the ``starter`` cells in front when it uses names only they define."""
    from ..codecheck.static_checks import defined_names, undefined_names

    if undefined_names(code) & defined_names(starter):
        return starter.rstrip() + "\n\n" + code.lstrip()
    return code


def _newly_undefined(before: SolutionNotebook, after: SolutionNotebook) -> list[str]:
    """Names ``after`` uses without defining them that ``before`` did define."""
    from ..codecheck.static_checks import undefined_names

    return sorted(undefined_names(after.source) - undefined_names(before.source))


def _without_markers(code: str) -> str:
    """A quoted fragment without ``# %%`` cell-marker lines (models copy them from the prompt)."""
    return "\n".join(ln for ln in code.splitlines() if not ln.lstrip().startswith("# %%")).strip(
        "\n"
    )


def _without_stray_fences(code: str) -> str:
    """Code without lines that are only a Markdown fence (a model that opened a block twice)."""
    return "\n".join(ln for ln in code.splitlines() if not re.match(r"^\s*```[\w-]*\s*$", ln))


def _adapter(schema: Any) -> Any:
    from pydantic import TypeAdapter

    return TypeAdapter(schema)


def script_to_notebook(
    code: str, *, base: SolutionNotebook | None = None, origin: str = ""
) -> SolutionNotebook:
    """A percent script from a model → notebook.  ``# %% b3 (model)`` keeps block b3's identity;
    ``# %% model`` sets a role; a script without markers is split at top-level comment headers."""
    if "# %%" not in code:
        code = _split_unmarked(code)
    lines = []
    for line in code.splitlines():
        m = re.match(r"^#\s*%%\s*(.*)$", line)
        if m and not m.group(1).strip().startswith("[markdown]"):
            title = m.group(1).strip()
            bm = re.match(r"\[?(b\d+)\]?\s*(?:\((\w+)\))?", title)
            if bm:
                lines.append(f"# %% {bm.group(1)} ({bm.group(2) or 'other'})")
                continue
            word = next((w for w in BLOCK_ROLES if title.lower().startswith(w)), "other")
            lines.append(f"# %% ({word})")
            continue
        lines.append(line)
    nb = SolutionNotebook.from_script("\n".join(lines), base=base)
    for c in nb.nb.cells:
        if c.cell_type == "code":
            c.metadata["mlestar"].setdefault("origin", origin)
            title_role = c.metadata["mlestar"].get("role")
            if not title_role:
                c.metadata["mlestar"]["role"] = "other"
    return nb.require_code()


def _split_unmarked(code: str) -> str:
    """Insert cell markers before top-level comment lines that start a new step."""
    out, first = [], True
    for line in code.splitlines():
        if (
            re.match(
                r"^#\s*(\d+[.)]|step\b|load|read|preprocess|feature|model|train|evaluat|predict|valid)",
                line,
                re.I,
            )
            and not first
        ):
            out.append("# %%")
        out.append(line)
        first = False
    return "# %%\n" + "\n".join(out)


def resolve_target(
    solution: SolutionNotebook, block_id: str, code_block: str, plan: str
) -> RefineTarget:
    """Map the extractor's answer onto a block: by its id, or by locating the quoted code."""
    frag = _without_markers(code_block)
    if block_id in solution.block_ids:
        src = solution.block(block_id).source
        if not frag.strip() or frag.strip() == src.strip():
            return RefineTarget(block_id, Plan(plan), None)
        if frag in src:
            return RefineTarget(block_id, Plan(plan), frag)
    bid = solution.locate(frag)  # raises BlockMatchError with a clear message
    src = solution.block(bid).source
    return RefineTarget(
        bid, Plan(plan), None if frag.strip() == src.strip() or frag not in src else frag
    )


_ABL = re.compile(r"ablation\s+(.+?)\s*[:=]\s*(-?\d+(?:\.\d+)?(?:e-?\d+)?)", re.I)


def parse_ablation_lines(output: str) -> dict[str, float | None]:
    """``Ablation <name>: <score>`` lines of an ablation program's output."""
    out: dict[str, float | None] = {}
    for m in _ABL.finditer(output):
        out[
            m.group(1).strip().lower()
            if m.group(1).strip().lower() == "baseline"
            else m.group(1).strip()
        ] = float(m.group(2))
    return out


def _score_of(nb: SolutionNotebook) -> str:
    for c in nb.nb.cells:
        if c.cell_type == "code":
            scores = c.metadata.get("mlestar", {}).get("scores") or []
            if scores:
                return str(scores[-1])
    return "unknown"
