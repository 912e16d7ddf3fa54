"""REST handlers under ``/mlestar/``: thin, authenticated, each one call into ``RunService``.

    POST /mlestar/runs                                   StartRun -> 201 DescribeRun
    GET  /mlestar/runs[?notebook=PATH]                   -> [DescribeRun]
    GET  /mlestar/runs/{run_id}                          -> DescribeRun
    POST /mlestar/runs/{run_id}/cancel                   -> DescribeRun
    POST /mlestar/runs/{run_id}/pause   {"pause": bool}  -> DescribeRun
    GET  /mlestar/runs/{run_id}/events?after=N[&limit=M] -> EventPage
    GET  /mlestar/runs/{run_id}/proposals                -> [Proposal]
    POST /mlestar/runs/{run_id}/proposals/{pid}/decision {"decision"} -> Proposal
    POST /mlestar/tasks/import  ImportTask -> ImportedTask   (``task_import``)

Errors: ``{"message", "fields": [{"field", "message"}]}`` with 400 / 403 / 404 / 409 (``errors``).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

import tornado.web
from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join
from pydantic import BaseModel, ValidationError

from ..messages import clip
from .errors import InvalidRequest, ServiceError
from .models import DecisionBody, PauseBody, StartRun
from .service import RunService

M = TypeVar("M", bound=BaseModel)
SERVICE_KEY = "mlestar_run_service"


def map_errors(method: Callable[..., Awaitable[None]]) -> Callable[..., Awaitable[None]]:
    """Turn a ``ServiceError`` into its status and a JSON body listing the bad fields."""

    @functools.wraps(method)
    async def wrapper(self: MlestarHandler, *args: Any, **kwargs: Any) -> None:
        """Run the handler; a ``ServiceError`` becomes its status and a clipped JSON body."""
        try:
            await method(self, *args, **kwargs)
        except ServiceError as e:
            if e.status >= 500:
                self.log.error("mlestar: %s", clip(e.message))
            self.set_status(e.status)
            self.finish(json.dumps(_clipped(e.to_json())))

    return wrapper


def _clipped(body: dict[str, Any]) -> dict[str, Any]:
    """An error body with the message and every field entry cut to a readable length."""
    fields = [{k: clip(str(v), 200) for k, v in f.items()} for f in body.get("fields") or []]
    return {**body, "message": clip(str(body.get("message", ""))), "fields": fields[:50]}


def _nul_field(value: Any, path: str = "") -> str | None:
    """The dotted name of the first string (key or value) in ``value`` holding a NUL byte."""
    if isinstance(value, str):
        return clip(path or "body", 100) if "\x00" in value else None
    if isinstance(value, dict):
        items: Any = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return None
    for k, v in items:
        name = f"{path}.{k}" if path else str(k)
        if isinstance(k, str) and "\x00" in k:
            return clip(name, 100)
        found = _nul_field(v, name)
        if found is not None:
            return found
    return None


class MlestarHandler(APIHandler):
    """Base: access to the service, model (de)serialisation."""

    @property
    def service(self) -> RunService:
        """The ``RunService`` the server extension put in the tornado settings."""
        return self.settings[SERVICE_KEY]  # type: ignore[no-any-return]

    def body_as(self, model: type[M]) -> M:
        """The JSON body as ``model``; a bad body is an ``InvalidRequest`` naming the fields."""
        try:
            raw = json.loads(self.request.body or b"{}")
        except UnicodeDecodeError:
            raise InvalidRequest(
                "the body is not UTF-8; send JSON encoded as UTF-8",
                [{"field": "body", "message": "not UTF-8"}],
            ) from None
        except json.JSONDecodeError as e:
            raise InvalidRequest(
                f"the body is not JSON ({e})", [{"field": "body", "message": "invalid JSON"}]
            ) from None
        nul = _nul_field(raw)
        if nul is not None:
            raise InvalidRequest(
                f"{nul} holds a NUL byte; text fields cannot contain one",
                [{"field": nul, "message": "NUL byte"}],
            )
        try:
            return model.model_validate(raw)
        except ValidationError as e:
            fields = [
                {"field": ".".join(str(x) for x in err["loc"]) or "body", "message": err["msg"]}
                for err in e.errors()
            ]
            raise InvalidRequest(
                "invalid request: " + "; ".join(f"{f['field']}: {f['message']}" for f in fields),
                fields,
            ) from None

    def int_arg(self, name: str, default: int) -> int:
        """Query argument ``name`` as an int (``default`` when absent); not an integer is a 400."""
        raw = self.get_query_argument(name, None)
        if raw is None:
            return default
        try:
            return int(raw)
        except ValueError:
            raise InvalidRequest(
                f"{name} must be an integer", [{"field": name, "message": "not an integer"}]
            ) from None

    def send(self, data: BaseModel | Sequence[BaseModel], status: int = 200) -> None:
        """Finish with ``data`` as JSON (a model, or a list of models) and ``status``."""
        self.set_status(status)
        if not isinstance(data, BaseModel):
            self.finish(json.dumps([d.model_dump(mode="json") for d in data]))
        else:
            self.finish(data.model_dump_json())


class RunsHandler(MlestarHandler):
    """``/mlestar/runs``: list the runs, start one."""

    @tornado.web.authenticated
    @map_errors
    async def get(self) -> None:
        """Every run, newest first; ``?notebook=PATH`` keeps the runs started on it."""
        self.send(self.service.list_runs(self.get_query_argument("notebook", None)))

    @tornado.web.authenticated
    @map_errors
    async def post(self) -> None:
        """Start a run from a ``StartRun`` body; 201 with the new run."""
        self.send(self.service.start(self.body_as(StartRun)), status=201)


class RunHandler(MlestarHandler):
    """``/mlestar/runs/{run_id}``: one run."""

    @tornado.web.authenticated
    @map_errors
    async def get(self, run_id: str) -> None:
        """The run's state (404 for an unknown id)."""
        self.send(self.service.describe(run_id))


class CancelHandler(MlestarHandler):
    """``/mlestar/runs/{run_id}/cancel``."""

    @tornado.web.authenticated
    @map_errors
    async def post(self, run_id: str) -> None:
        """Ask the run to stop (its process is killed after a grace period)."""
        self.send(self.service.cancel(run_id))


class PauseHandler(MlestarHandler):
    """``/mlestar/runs/{run_id}/pause``."""

    @tornado.web.authenticated
    @map_errors
    async def post(self, run_id: str) -> None:
        """Pause the run between steps, or resume it, per ``{"pause": bool}``."""
        self.send(self.service.pause(run_id, self.body_as(PauseBody).pause))


class EventsHandler(MlestarHandler):
    """``/mlestar/runs/{run_id}/events``: the journal, page by page."""

    @tornado.web.authenticated
    @map_errors
    async def get(self, run_id: str) -> None:
        """The events from ``?after=N`` on, at most ``?limit=M`` (default 1000)."""
        self.send(
            self.service.events(run_id, self.int_arg("after", 0), self.int_arg("limit", 1000))
        )


class ProposalsHandler(MlestarHandler):
    """``/mlestar/runs/{run_id}/proposals``."""

    @tornado.web.authenticated
    @map_errors
    async def get(self, run_id: str) -> None:
        """Every proposal of the run with its decision."""
        self.send(self.service.proposals(run_id))


class DecisionHandler(MlestarHandler):
    """``/mlestar/runs/{run_id}/proposals/{proposal_id}/decision``."""

    @tornado.web.authenticated
    @map_errors
    async def post(self, run_id: str, proposal_id: str) -> None:
        """Record a ``DecisionBody``'s decision; a second decision is refused."""
        req = self.body_as(DecisionBody)
        self.send(self.service.decide(run_id, proposal_id, req.decision))


_ID = r"(?P<{}>[A-Za-z0-9][A-Za-z0-9_.-]*)"


def routes(base_url: str) -> list[tuple[str, type[MlestarHandler]]]:
    """The URL patterns of the API under ``base_url``."""
    from .task_import import ImportTaskHandler

    run = "runs/" + _ID.format("run_id")
    table: list[tuple[str, type[MlestarHandler]]] = [
        ("runs", RunsHandler),
        (run, RunHandler),
        (run + "/cancel", CancelHandler),
        (run + "/pause", PauseHandler),
        (run + "/events", EventsHandler),
        (run + "/proposals", ProposalsHandler),
        (run + "/proposals/" + _ID.format("proposal_id") + "/decision", DecisionHandler),
        ("tasks/import", ImportTaskHandler),
    ]
    return [(url_path_join(base_url, "mlestar", path) + "/?$", handler) for path, handler in table]
