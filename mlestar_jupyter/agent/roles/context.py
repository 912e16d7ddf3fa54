"""``RoleContext``: what the prompts show of the task, sized to the model's context window.

Long code, tracebacks and logs keep their head and tail (``fit``); the input files are previewed
once (columns, types, a row); the grounded policy (the offline one, in a run) lends cells that load
the data and the training-row count.  The system prompt carries the environment manifest and the
task's metric and direction, which always come from the task, never from the model.
"""

from __future__ import annotations

import logging

from ...metrics import UnknownMetricError, get_metric
from ...notebook import SolutionNotebook
from ...task import Task
from ..config import RunConfig
from ..environment import Environment, detect_environment, truncate_middle
from ..policy import GroundedPolicy
from .base import Role

log = logging.getLogger("mlestar.agent")

SYSTEM = Role("system", "text")
SCORE_NOTES_KEPT = 2  # harness messages about printed scores quoted in later prompts


def system_prompt(task: Task, env: Environment | None = None) -> str:
    """The system prompt of every request: the manifest of ``env`` (where the kernels run;
    ``None``: this machine), the task's metric and direction."""
    env = env or detect_environment()
    return SYSTEM.render(
        manifest=env.render(),
        metric=task.metric_name,
        metric_call=_sklearn_call(task.metric_name),
        direction=task.direction,
        positive_label=task.positive_label,
        cpus=env.cpus,
        gpu=env.gpu,
    )


def _sklearn_call(name: str) -> str:
    """How scikit-learn computes the task's metric, where its name alone may not say it
    (``f2``: ``fbeta_score(..., beta=2, ...)``); empty for the well-known ones."""
    try:
        return get_metric(name).sklearn
    except UnknownMetricError:
        return ""


class RoleContext:
    """The task's parts a prompt quotes, each cut to its share of ``context_chars``.

    Parameters
    ----------
    task, config:   the run's task and settings (``max_train_rows``).
    context_chars:  characters a prompt may fill (the rest of the window is the answer's).
    grounded:       a policy that knows the data layout without an LLM: starter cells, row count.
    """

    def __init__(
        self,
        task: Task,
        config: RunConfig,
        context_chars: int,
        grounded: GroundedPolicy | None = None,
    ) -> None:
        self.task = task
        self.config = config
        self.context_chars = context_chars
        self.grounded = grounded
        self.score_notes: list[str] = []  # the harness's latest findings about printed scores
        self._preview: str | None = None
        self._starter: str | None = None

    def fit(self, text: str, share: float = 0.5) -> str:
        """``text`` within ``share`` of the prompt's room, head and tail kept."""
        return truncate_middle(text, int(self.context_chars * share))

    def describe(self, share: float) -> str:
        """The task's description, fitted."""
        return self.fit(self.task.describe(), share)

    def script(self, nb: SolutionNotebook, share: float = 0.6) -> str:
        """A notebook as a percent script (block ids in the markers), fitted."""
        return self.fit(nb.to_script(), share)

    def data(self, share: float = 0.15) -> str:
        """The input files at a glance (columns, types, a row; folders' files), computed once."""
        if self._preview is None:
            from ...task.preview import preview_data

            try:
                self._preview = preview_data(self.task)
            except OSError as e:  # a preview helps; the task text still says a lot
                log.info("data preview unavailable: %s", e)
                self._preview = ""
        return self.fit(self._preview, share)

    def starter(self) -> str:
        """Cells that load this task's data (from the grounded policy), "" when none can be made
        or they would take more than a fifth of the prompt."""
        if self._starter is None:
            self._starter = ""
            if self.grounded is not None:
                try:
                    self._starter = str(self.grounded.starter_code())
                except Exception as e:  # noqa: BLE001 - another policy's best effort: the model can load the data itself
                    log.info("no starter cells: %s", e)
        return self._starter if len(self._starter) <= self.context_chars * 0.2 else ""

    def needs_subsample(self) -> bool:
        """Whether the task may have more training rows than ``max_train_rows`` (an instruction
        to subsample a 400-row table only confuses a small model)."""
        try:
            rows = self.grounded.train_rows() if self.grounded is not None else None
        except Exception:  # noqa: BLE001 - another policy's best effort: unknown keeps the instruction
            rows = None
        return rows is None or rows > self.config.max_train_rows

    def hear_score_feedback(self, message: str) -> None:
        """Keep the latest ``SCORE_NOTES_KEPT`` harness messages about printed scores."""
        if message and message not in self.score_notes:
            self.score_notes = [*self.score_notes, message][-SCORE_NOTES_KEPT:]
