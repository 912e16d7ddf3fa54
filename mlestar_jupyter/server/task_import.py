"""``POST /mlestar/tasks/import``: ``mlestar task import`` for the JupyterLab dialog.

    POST /mlestar/tasks/import   ImportTask -> 200 ImportedTask (preview) | 201 ImportedTask (written)

Every path is relative to the Jupyter root and must stay inside it (403 otherwise).  With
``preview`` the data is unpacked and the extraction checked, but no task.json is written, so the
dialog can show the fields (guessed ones marked) for the user to confirm or correct (``target``,
``id_column``) before posting again without ``preview``.  Fields that do not check out are a 400
whose ``fields`` list each one with what to add.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Literal

import tornado.web
from pydantic import BaseModel, ConfigDict, Field

from ..importer import ImportResult, TaskImportError, import_mlebench, import_task
from .errors import InvalidRequest
from .handlers import MlestarHandler, map_errors
from .paths import relative_to_root, resolve_inside

_COLUMN = r"^[^\x00-\x1f]{1,200}$"


class ImportTask(BaseModel):
    """Body of ``POST /mlestar/tasks/import``."""

    model_config = ConfigDict(extra="forbid")

    sources: list[str] = Field(default_factory=list, description="saved pages (root-relative)")
    data: list[str] = Field(default_factory=list, description="downloaded folders or archives")
    from_mlebench: str | None = Field(None, description="an MLE-bench competition folder instead")
    out: str = Field(min_length=1, description="the task folder to write")
    backend: Literal["offline", "gemini", "openai", "replay"] = "offline"
    model: str | None = Field(None, max_length=200, pattern=r"^[A-Za-z0-9_.:/@+-]+$")
    target: str | None = Field(None, pattern=_COLUMN, description="the target column")
    id_column: str | None = Field(None, pattern=_COLUMN, description="the id column")
    preview: bool = Field(False, description="check and show, write no task.json")
    force: bool = Field(False, description="replace an existing task.json")


class ImportedTask(BaseModel):
    """The extracted task.json, where it is, and which fields were guessed (and why)."""

    task_dir: str
    written: bool
    task: dict[str, Any]
    guessed: dict[str, str]


def run_import(root: Path, req: ImportTask) -> ImportResult:
    """The import ``req`` asks for, every path checked to stay inside ``root``."""
    out = resolve_inside(root, req.out, "out")
    common: dict[str, Any] = dict(
        backend=req.backend,
        model=req.model,
        target=req.target,
        id_col=req.id_column,
        force=req.force,
    )
    try:
        if req.from_mlebench:
            folder = resolve_inside(root, req.from_mlebench, "from_mlebench")
            return import_mlebench(folder, out, write=not req.preview, **common)
        if not req.data:
            raise InvalidRequest(
                "pass the downloaded files in 'data'",
                [{"field": "data", "message": "missing"}],
            )
        sources = [resolve_inside(root, s, f"sources.{i}") for i, s in enumerate(req.sources)]
        data = [resolve_inside(root, d, f"data.{i}") for i, d in enumerate(req.data)]
        return import_task(sources, data, out, write=not req.preview, **common)
    except TaskImportError as e:
        raise InvalidRequest(
            str(e), [{"field": p.field, "message": f"{p.message}; {p.fix}"} for p in e.problems]
        ) from None


class ImportTaskHandler(MlestarHandler):
    """``/mlestar/tasks/import``: turn saved pages and data files (or an MLE-bench folder) into a task folder."""

    @tornado.web.authenticated
    @map_errors
    async def post(self) -> None:
        """Import from an ``ImportTask`` body: 201 when written, 200 for a preview."""
        req = self.body_as(ImportTask)
        root = self.service.root
        result = await asyncio.get_running_loop().run_in_executor(None, run_import, root, req)
        written = result.task is not None
        body = ImportedTask(
            task_dir=relative_to_root(root, result.task_dir),
            written=written,
            task=result.spec.to_json(),
            guessed=result.guessed,
        )
        self.send(body, status=201 if written else 200)
