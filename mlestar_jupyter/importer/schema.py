"""The unified task.json (TAM-Bench's schema) as pydantic models.

``TaskDraft`` is what an extractor answers (the LLM's structured output, or the offline
heuristics): fields the pages may leave out are optional, and ``guessed`` names the fields that
were inferred rather than read.  ``TaskSpec`` is what is written: every field the loader needs.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..metrics import UnknownMetricError, get_metric, metric_names

DataType = Literal["Tabular", "Text", "Image", "Audio", "Time series", "Other"]
TaskKind = Literal["classification", "regression", "other"]


class MetricSpec(BaseModel):
    """The metric as the pages state it; the name must be one the evaluator grades."""

    metric_name: str = Field(description=f"one of: {', '.join(metric_names())}")
    direction: Literal["maximize", "minimize"] = Field(
        description="maximize if higher scores are better, else minimize"
    )
    metric_formula: str = Field(default="", description="the formula, if the pages give one")

    @field_validator("metric_name")
    @classmethod
    def _known(cls, v: str) -> str:
        try:
            return get_metric(v).name
        except UnknownMetricError:
            raise ValueError(
                f"unknown metric {v!r}: use one of {', '.join(metric_names())}"
            ) from None


class TaskDraft(BaseModel):
    """An extractor's reading of the pages and the data (see the module docstring)."""

    model_config = ConfigDict(extra="ignore")

    task_type: TaskKind = Field(description="classification, regression or other")
    goal_description: str = Field(description="one or two sentences: what to predict from what")
    metric: MetricSpec | None = Field(
        default=None, description="null when the pages state no metric"
    )
    target_col: list[str] = Field(
        default_factory=list,
        description="the training table's column(s) to predict (empty when unknown)",
    )
    id_col: str | None = Field(default=None, description="the id column of the submission")
    data_type: DataType = Field(default="Tabular", description="the data's modality")
    train_files: list[str] = Field(
        default_factory=list, description="training files/folders, as listed under Files"
    )
    test_files: list[str] = Field(
        default_factory=list, description="test files/folders, as listed under Files"
    )
    train_description: str = Field(default="", description="what the training data holds")
    test_description: str = Field(default="", description="what the test data holds")
    special_instructions: list[str] = Field(
        default_factory=list,
        description="rules and constraints the solution must follow (e.g. no external data)",
    )
    guessed: list[str] = Field(
        default_factory=list,
        description="names of the fields above inferred rather than stated in the pages",
    )


class DataPart(BaseModel):
    """Where one part of the data is (names relative to ``input/``) and what it holds."""

    data_location: str = ""
    data_description: str = ""


class DataInformation(BaseModel):
    """``data_information`` of task.json."""

    data_type: DataType
    train: DataPart
    test: DataPart
    inference: DataPart = Field(default_factory=DataPart)


class TaskSpec(BaseModel):
    """The task.json that is written (TAM-Bench's unified schema, plus ``id_col`` and ``import``)."""

    task_type: TaskKind
    goal_description: str = Field(min_length=1)
    metric: MetricSpec
    target_col: str | list[str]
    id_col: str | None = None
    data_information: DataInformation
    output_format: str
    special_instructions: str = ""
    id: str | None = None
    provenance: dict[str, Any] = Field(default_factory=dict, alias="import")

    model_config = ConfigDict(populate_by_name=True)

    def to_json(self) -> dict[str, Any]:
        """The task.json object (``import`` holds the provenance: backend, sources, guesses)."""
        return self.model_dump(by_alias=True, exclude_none=True)


def numbered(items: list[str]) -> str:
    """TAM-Bench's ``special_instructions`` string: ``1. … 2. …``."""
    return " ".join(f"{i + 1}. {s.strip().rstrip('.')}." for i, s in enumerate(items) if s.strip())
