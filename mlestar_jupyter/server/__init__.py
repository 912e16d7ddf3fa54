"""The Jupyter server extension: a REST API under ``/mlestar/`` over ``RunService``.

Enabled by ``jupyter-config/server-config/mlestar_jupyter.json``.  Configure with
``c.RunService.runs_dir``, ``c.RunService.command``, ``c.RunService.cancel_grace_seconds``,
``c.RunService.max_time_limit`` and ``c.RunService.shutdown_grace_seconds``.  The runs a server
started are stopped (journaled as stopped, resumable) when it shuts down.
Imports of jupyter_server happen on load, so importing this package stays cheap.
"""

from __future__ import annotations

from typing import Any


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    """Where jupyter_server finds ``_load_jupyter_server_extension``."""
    return [{"module": "mlestar_jupyter.server"}]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    """Create the ``RunService``, re-discover runs on disk and register the handlers."""
    from tornado.ioloop import IOLoop

    from .handlers import SERVICE_KEY, routes
    from .service import RunService

    def schedule(delay: float, fn: Any) -> None:
        IOLoop.current().call_later(delay, fn)

    service = RunService(
        root_dir=serverapp.root_dir, schedule=schedule, config=serverapp.config, log=serverapp.log
    )
    found = service.discover()
    web_app = serverapp.web_app
    web_app.settings[SERVICE_KEY] = service
    web_app.add_handlers(".*$", routes(web_app.settings["base_url"]))
    _stop_runs_on_shutdown(serverapp, service)
    serverapp.log.info(
        "mlestar: REST API at %smlestar/ (%d runs found in %s)",
        web_app.settings["base_url"],
        len(found),
        service.runs_path,
    )


def _stop_runs_on_shutdown(serverapp: Any, service: Any) -> None:
    """Stop the server's runs when it shuts down (``RunService.stop_all``).  jupyter_server calls
    the shutdown hooks of ``ExtensionApp`` extensions only, so this module extension chains its
    hook onto ``cleanup_extensions``, which every shutdown (``ServerApp._cleanup``) awaits."""
    import asyncio

    previous = serverapp.cleanup_extensions

    async def cleanup_extensions() -> None:
        try:
            stopped = await asyncio.to_thread(service.stop_all)
            if stopped:
                serverapp.log.info(
                    "mlestar: stopped %d run(s): %s", len(stopped), ", ".join(stopped)
                )
        finally:
            await previous()

    serverapp.cleanup_extensions = cleanup_extensions


__all__ = ["_jupyter_server_extension_points", "_load_jupyter_server_extension"]
