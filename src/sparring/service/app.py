"""The HTTP service: :func:`create_app` builds the FastAPI app from :class:`ServiceSettings`.

The app is put together from

* :mod:`sparring.service.core`: the :class:`~sparring.service.core.Service` one app holds (its
  store, catalog and per-game request state), made per app (no module-level mutable state);
* :mod:`sparring.service.pool` and :mod:`sparring.service.scheduler`: the worker processes,
  and the AI moves in flight, one record per game;
* :mod:`sparring.service.routes`: the endpoints, one router per module, their request and
  response models in :mod:`sparring.service.schemas` and the caller's token checked by
  :mod:`sparring.service.auth`; :mod:`sparring.service.uploads` adds the estimate and review
  routes;
* this module: the body-size limit, the error answers, the page's static files, and
  :func:`run` (``sparring serve``).

Endpoints are async and never block the event loop: database calls run in threads, every
change to a game runs in the worker processes (:mod:`sparring.service.worker`); an AI move in
flight is stopped when its game is resigned or taken back.  The endpoints are described in
docs/guide/service.md and, with their request and response models, in ``/openapi.json``
(docs/reference/http-api.md).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import signal
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from sparring.errors import BadValueError, IncompatibleError, SparringError
from sparring.players.registry import kinds
from sparring.service.core import Service
from sparring.service.routes import ROUTERS
from sparring.service.settings import ServiceSettings
from sparring.service.store import Store

if TYPE_CHECKING:
    import uvicorn

LOGGER = logging.getLogger("sparring.service")
STATIC = Path(__file__).parent / "static"
REQUEST_GRACE = 2
"""Seconds a stopping server waits for the requests it is answering (a request waiting on a
game, ``GET ?wait``, answers at once) before it cancels them."""
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
"""The server log's lines (:func:`run`): local time to the millisecond, level, logger."""


class BodyLimit:
    """ASGI middleware: answer 413 to a request body over ``limit`` bytes, whether declared
    (``Content-Length``) or sent (a chunked body is read, up to ``limit`` bytes, before the
    app sees it: an error raised while the app reads its body would be answered 400 by
    FastAPI's body parsing)."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None:
            try:
                size = int(declared)
            except ValueError:
                size = self.limit + 1
            if size > self.limit:
                await self._too_big(scope, receive, send)
                return
        if scope.get("method") in ("GET", "HEAD", "OPTIONS", "DELETE") and declared is None:
            await self.app(scope, receive, send)  # no body (long polls keep their receive)
            return
        held: list[Message] = []
        seen = 0
        while True:
            message = await receive()
            held.append(message)
            if message["type"] != "http.request":
                break  # the client went away: the app sees it
            seen += len(message.get("body", b""))
            if seen > self.limit:
                await self._too_big(scope, receive, send)
                return
            if not message.get("more_body", False):
                break

        async def replay() -> Message:
            return held.pop(0) if held else await receive()

        await self.app(scope, replay, send)

    async def _too_big(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = JSONResponse(
            {"detail": f"the request body is larger than {self.limit} bytes", "key": None},
            status_code=413,
        )
        await response(scope, receive, send)


def _error(
    status: int, detail: str, key: str | None, headers: dict[str, str] | None = None
) -> JSONResponse:
    return JSONResponse({"detail": detail, "key": key}, status_code=status, headers=headers)


def create_app(settings: ServiceSettings | None = None) -> FastAPI:
    """The service's app for ``settings`` (the store is opened, the worker processes started
    and games whose AI was to move resumed when the app starts)."""
    if not kinds():
        raise IncompatibleError(
            "no player kinds are registered: import sparring.kinds (or use sparring.api) "
            "before create_app"
        )
    settings = settings or ServiceSettings()
    modules = tuple(sorted({info.module for info in kinds().values() if info.module}))
    service = Service(settings, modules=modules)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await service.start()
        try:
            yield
        finally:
            await service.shut_down()

    app = FastAPI(
        title="sparring",
        summary="A game AI as a training partner at any strength",
        lifespan=lifespan,
    )
    app.state.service = service
    app.add_middleware(BodyLimit, limit=settings.max_body)
    app.add_exception_handler(
        SparringError, functools.partial(_sparring_error, settings.retry_after)
    )
    app.add_exception_handler(RequestValidationError, _invalid)
    app.add_exception_handler(StarletteHTTPException, _http)
    for router in ROUTERS:
        app.include_router(router)

    from fastapi.staticfiles import StaticFiles

    # the page (index.html, app.js, style.css, ...) at /, after every /api route
    app.mount("/", StaticFiles(directory=STATIC, html=True, check_dir=False), name="page")
    return app


async def _sparring_error(retry_after: int, request: Request, exc: Exception) -> JSONResponse:
    """A :class:`SparringError` as its status, sentence and key (429: with Retry-After)."""
    assert isinstance(exc, SparringError)
    headers = {"Retry-After": str(retry_after)} if exc.http_status == 429 else None
    return _error(exc.http_status, str(exc), exc.key, headers)


async def _invalid(request: Request, exc: Exception) -> JSONResponse:
    """A request that does not fit its model: 422 naming the first field at fault."""
    assert isinstance(exc, RequestValidationError)
    errors = exc.errors()
    first = errors[0] if errors else {}
    if first.get("type") == "json_invalid":
        return _error(422, "the request body is not valid JSON", None)
    loc = [str(p) for p in first.get("loc", ()) if p not in ("body", "query", "path")]
    where = ".".join(loc) or None
    message = str(first.get("msg", "invalid request"))
    return _error(422, f"{where}: {message}" if where else message, where)


async def _http(request: Request, exc: Exception) -> JSONResponse:
    """Starlette's own errors (404 of an unknown path, 405) in the service's error body."""
    assert isinstance(exc, StarletteHTTPException)
    return _error(exc.status_code, str(exc.detail), None)


def log_config() -> dict[str, Any]:
    """The server log's configuration (:func:`logging.config.dictConfig`): every line on
    standard error as :data:`LOG_FORMAT` (with its time); uvicorn's own lines from warnings
    up (no access log), the service's (:data:`LOGGER`) from information up (when it stops)."""
    handler = {"class": "logging.StreamHandler", "formatter": "timed", "stream": "ext://sys.stderr"}
    quiet = {"handlers": ["log"], "level": "WARNING", "propagate": False}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"timed": {"format": LOG_FORMAT}},
        "handlers": {"log": handler},
        "loggers": {
            "uvicorn": quiet,
            "uvicorn.error": {"level": "WARNING"},
            "uvicorn.access": quiet,
            LOGGER.name: {"handlers": ["log"], "level": "INFO", "propagate": False},
        },
    }


def run(
    settings: ServiceSettings,
    host: str = "127.0.0.1",
    port: int = 8000,
    echo: Callable[[str], None] = print,
) -> None:
    """Serve ``create_app(settings)`` with uvicorn at ``host:port`` until SIGTERM or SIGINT
    (Ctrl-C), then stop cleanly and return: the requests being answered end (at most
    :data:`REQUEST_GRACE` seconds), the AI moves in flight are dropped and resume at the
    next start, the worker processes end (:meth:`Service.stop_workers`) and with them
    multiprocessing's resource tracker once this process exits.  Log lines carry their time
    (:func:`log_config`)."""
    import uvicorn

    if isinstance(port, bool) or not 0 <= port <= 65535:
        raise BadValueError(f"port must be 0..65535, not {port}", "port")
    if settings.db_url is None:
        settings.data_dir.mkdir(parents=True, exist_ok=True)
    Store.open(settings.url()).close()  # a bad URL or an unreachable database: one line
    app = create_app(settings)
    service: Service = app.state.service
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        log_config=log_config(),
        access_log=False,
        timeout_graceful_shutdown=REQUEST_GRACE,
    )
    server = uvicorn.Server(config)
    service.stop_requested = lambda: server.should_exit
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    echo(f"sparring serve: open http://{shown}:{port}/  (database {settings.url()})")
    caught: list[int] = []
    with _stop_signals(server, caught):
        try:
            server.run()
        finally:
            service.stop_workers()  # (done already unless the app's shutdown was skipped)
    if caught:
        LOGGER.info("stopped (%s)", signal.Signals(caught[0]).name)


@contextlib.contextmanager
def _stop_signals(server: uvicorn.Server, caught: list[int]) -> Iterator[None]:
    """While entered (in the main thread): SIGTERM and SIGINT ask ``server`` to stop and are
    noted in ``caught``.  Uvicorn installs its own handlers while it serves, and raises the
    signals it caught again once it is done, under these handlers: noted, not fatal, so that
    the caller ends the worker processes and this process exits normally (no process left
    behind, exit status 0)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def note(sig: int, frame: FrameType | None) -> None:
        caught.append(sig)
        server.should_exit = True

    stops = (signal.SIGTERM, signal.SIGINT)
    previous = {sig: signal.signal(sig, note) for sig in stops}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


__all__ = ["ServiceSettings", "create_app", "log_config", "run"]
