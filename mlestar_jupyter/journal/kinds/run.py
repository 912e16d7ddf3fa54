"""Events of the run's course: start, phases, retrieval, candidates and their checks, the end."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from .base import EventData, PathName, Row


class ModelCardRef(Row):
    """A retrieved model as the ``models`` event lists it."""

    name: str = ""
    description: str = ""
    source: str | None = None
    url: str | None = None


# -- the run ------------------------------------------------------------------------------------
class RunStartedEvent(EventData):
    """The run began (again, after a resume: the same key, so written once)."""

    TYPE = "run_started"
    task: dict[str, Any] = Field(default_factory=dict)  # Task.to_json()
    config: dict[str, Any] = Field(default_factory=dict)  # RunConfig.to_json()
    backend: str | None = None


class ResumedEvent(EventData):
    """A killed or stopped run was started again."""

    TYPE = "resumed"
    elapsed: float | None = None
    after_seq: int | None = None


class PhaseEvent(EventData):
    """The loop entered a phase (retrieve, init, merge, refine, ensemble, submission, done)."""

    TYPE = "phase"
    phase: str | None = None
    path: PathName = ""


class SandboxEvent(EventData):
    """Which sandbox ran the kernels (written each time the executor starts)."""

    TYPE = "sandbox"
    kind: str = ""  # bwrap | setpriv | popen-user | none | gateway
    user: str = ""
    network: bool = False
    note: str = ""


class BudgetEvent(EventData):
    """A budget ran out, or a phase ended before its share (``what``: run, refine, ...)."""

    TYPE = "budget"
    what: str = ""
    message: str = ""
    # a refinement that ends with nothing left to refine: why, in the policy's words ("the
    # model of b3 must stay a GaussianNB, as the notebook reads nb.theta_, ..."); "" else
    why: str = ""


class WarningEvent(EventData):
    """Something the user should know; ``what``: task (how task.json was read), score, ..."""

    TYPE = "warning"
    message: str = ""
    what: str | None = None


class ErrorEvent(EventData):
    """An error the run survived."""

    TYPE = "error"
    message: str = ""


class RunStoppedEvent(EventData):
    """This process stopped (Ctrl-C, pause/stop, server shutdown); the run can be resumed."""

    TYPE = "run_stopped"
    reason: str = ""
    elapsed: float | None = None
    best_score: float | None = None
    by: str | None = None


class RunFinishedEvent(EventData):
    """The run ended for good."""

    TYPE = "run_finished"
    status: str | None = (
        None  # done | stopped | failed | no_improvement | not_understood | timed_out | all_failed
    )
    best_score: float | None = None
    elapsed: float | None = None
    reason: str = ""


# -- retrieval and the user's notebook ----------------------------------------------------------
class ModelsEvent(EventData):
    """The models retrieved for one path."""

    TYPE = "models"
    cards: list[ModelCardRef] = Field(default_factory=list)
    path: PathName = ""


class RetrievalFallbackEvent(EventData):
    """The retriever's answer was unusable or short; the local catalog filled in."""

    TYPE = "retrieval_fallback"
    reason: str = ""
    catalog_models: list[str] = Field(default_factory=list)
    path: PathName = ""


class UnderstandingEvent(EventData):
    """How the user's notebook was read (roles of its cells, the validation cell added)."""

    TYPE = "understanding"
    understood: bool | None = None
    reason: str = ""
    roles: dict[str, str] = Field(default_factory=dict)
    mixed: list[str] = Field(default_factory=list)
    target: str | None = None
    added_block: str | None = None
    note: str = ""
    # [block, as written, now, kind]: kind "path" (a data path), "install" (a line not run),
    # "module" (an import of a drawing package the kernel lacks, guarded)
    data_paths: list[list[str]] = Field(default_factory=list)


class ValidationSplitEvent(EventData):
    """The run's validation rows, once per run (``file`` None: no split)."""

    TYPE = "validation_split"
    file: str | None = None
    table: str | None = None
    rows: int = 0
    n_labelled: int | None = None
    seed: int | None = None
    digest: str | None = None
    columns: list[str] = Field(default_factory=list)
    kfold: bool = False  # a small table: out-of-fold predictions of every labelled row count too


# -- candidates and their checks ----------------------------------------------------------------
class CandidateEvent(EventData):
    """One executed candidate (the fields of ``Node``)."""

    TYPE = "candidate"
    node_id: str | None = None
    id: str | None = None
    parent_id: str | None = None
    phase: str | None = None
    path: PathName = ""
    label: str = ""
    block_id: str | None = None
    digest: str | None = None
    score: float | None = None
    ok: bool | None = None
    error: str | None = None
    notebook: str | None = None
    submission: str | None = None
    duration: float | None = 0.0
    stdout_tail: str = ""
    printed_score: float | None = None
    score_status: str = ""  # measured | mismatch | printed | untrusted | none

    @property
    def name(self) -> str | None:
        """The node id (``node_id``, or ``id`` in older events)."""
        return self.node_id or self.id


class ScoreCheck(EventData):
    """What ``score_mismatch`` and ``score_untrusted`` hold."""

    node_id: str | None = None
    printed: float | None = None
    measured: float | None = None
    message: str = ""


class ScoreMismatchEvent(ScoreCheck):
    """The printed score is not the measured one."""

    TYPE = "score_mismatch"


class ScoreUntrustedEvent(ScoreCheck):
    """No score the harness can trust."""

    TYPE = "score_untrusted"


class DebugEvent(EventData):
    """One debugger round."""

    TYPE = "debug"
    node_id: str | None = None
    round: int | None = None
    error: str = ""
    fixed: bool = False
    reason: str = ""
    # after a time-out: the training rows of the run that timed out and of the debugger's
    # version (fewer: a lighter version, not the same run again)
    rows: list[int | None] | None = None


class LeakageEvent(EventData):
    """The leakage checker's verdict on a candidate."""

    TYPE = "leakage"
    node_id: str | None = None
    block_id: str | None = None
    leaky: bool = False
    reason: str = ""
    fixed: bool = False


class DataUsageEvent(EventData):
    """Provided files the solution did not use, and whether a fix used them."""

    TYPE = "data_usage"
    path: PathName = ""
    unused_files: list[str] = Field(default_factory=list)
    fixed: bool = False
    score: float | None = None


class SubsamplingEvent(EventData):
    """A_test's check of a final notebook's code, or of its run's training rows."""

    TYPE = "subsampling"
    node_id: str | None = None
    found: list[str] = Field(default_factory=list)
    removed: bool | None = None
    remaining: list[str] = Field(default_factory=list)
    rows_reported: int | None = None
    rows_expected: int | None = None
    problem: str | None = None
