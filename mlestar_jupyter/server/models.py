"""Pydantic models of the REST API (mirrored by the TypeScript interfaces in ``labextension/``).

Times are POSIX seconds (floats); paths are relative to the Jupyter server root, with ``/``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

# no_improvement / not_understood: a run on the user's notebook that ended honestly without proposals
# timed_out: the user's notebook ran past the time limit of one execution, so it gave no score
# all_failed: every candidate failed, the submission (if any) is a fallback
RunStatus = Literal[
    "running",
    "done",
    "stopped",
    "failed",
    "no_improvement",
    "not_understood",
    "timed_out",
    "all_failed",
]
FINISHED = (
    "done",
    "stopped",
    "failed",
    "no_improvement",
    "not_understood",
    "timed_out",
    "all_failed",
)


class StartRun(BaseModel):
    """Body of ``POST /mlestar/runs``."""

    model_config = ConfigDict(extra="forbid")

    task_dir: str | None = Field(
        None, description="task folder, or one table of a dataset; default: the notebook's folder"
    )
    notebook_path: str | None = Field(None, description="notebook to refine (.ipynb)")
    backend: Literal["offline", "gemini", "openai", "replay"] = "offline"
    model: str | None = Field(
        None,
        max_length=200,
        pattern=r"^[A-Za-z0-9_.:/@+-]+$",
        description="LLM model name for gemini / openai (default: the backend's setting)",
    )
    time_limit: float | None = Field(
        None,
        gt=0,
        allow_inf_nan=False,
        description="wall-clock budget in seconds (at most c.RunService.max_time_limit)",
    )
    exec_timeout: float | None = Field(
        None,
        gt=0,
        allow_inf_nan=False,
        description="time limit of one execution in seconds, > 0 (default: min(600, max(30, "
        "time_limit/4))); 0 is refused, as by the CLI's --exec-timeout",
    )
    mode: Literal["autopilot", "step"] = "autopilot"
    models: int | None = Field(None, ge=1, le=50, description="M: models retrieved")
    inner: int | None = Field(None, ge=1, le=100, description="K: inner refinement steps")
    outer: int | None = Field(None, ge=1, le=100, description="T: outer refinement steps")
    parallel: int | None = Field(None, ge=1, le=16, description="L: parallel solutions")
    ensemble_rounds: int | None = Field(None, ge=0, le=100, description="R: ensemble rounds")
    block: str | None = Field(
        None,
        max_length=100,
        pattern=r"^[A-Za-z0-9_.-]+$",
        description="refine only this block id (e.g. b2), as the cell context menu asks",
    )
    target: str | None = Field(
        None,
        min_length=1,
        max_length=200,
        pattern=r"^[^\x00-\x1f]+$",
        description="the column to predict: of a dataset (a folder of one table without test "
        "rows), or with a notebook in a folder without task.json, instead of the one read from "
        "the notebook",
    )
    metric: str | None = Field(
        None,
        min_length=1,
        max_length=100,
        pattern=r"^[^\x00-\x1f]+$",
        description="the metric (rmse, roc_auc, MAP@3, ...): of a dataset (a folder of one "
        "table without test rows), or with a notebook in a folder without task.json, instead of "
        "the one read from the notebook",
    )


class DescribeRun(BaseModel):
    """A run's state, derived from its folder (and its process, while it lives)."""

    run_id: str
    status: RunStatus
    phase: str | None = None
    best_score: float | None = None
    metric: str | None = None
    direction: str | None = None
    notebook_path: str | None = None
    task_dir: str | None = None
    run_dir: str
    started: float | None = None
    elapsed: float = 0.0
    pending_proposals: int = 0
    paused: bool = False
    stop_requested: bool = False
    message: str = ""  # why the run ended as it did (e.g. what was not understood)


class Proposal(BaseModel):
    """One proposed change of a cell (a ``proposal`` event plus its decision)."""

    proposal_id: str
    kind: Literal["change", "insert", "delete"] = "change"
    block_id: str | None = None
    cell_id: str | None = None
    after_block_id: str | None = None  # insert: the cell the new one goes after (None: the top)
    after_cell_id: str | None = None
    old_source: str = ""
    new_source: str = ""
    plan: str = ""
    score_before: float | None = None
    score_after: float | None = None
    decision: Literal["accept", "reject"] | None = None


class DecisionBody(BaseModel):
    """Body of ``POST /mlestar/runs/{id}/proposals/{pid}/decision``."""

    model_config = ConfigDict(extra="forbid")

    decision: Literal["accept", "reject"]


class PauseBody(BaseModel):
    """Body of ``POST /mlestar/runs/{id}/pause``."""

    model_config = ConfigDict(extra="forbid")

    pause: bool


class RunEvent(BaseModel):
    """One line of a run's ``events.jsonl`` (``journal.Event``); ``data`` follows the model of
    its ``type`` in ``journal.kinds``, ``v`` is the journal's schema version."""

    seq: int
    key: str
    type: str
    data: dict[str, Any]
    time: float
    v: int = 1


class EventPage(BaseModel):
    """Events ``after`` (the number the client already has) up to ``next``; pass ``next`` back."""

    events: list[RunEvent]
    next: int
