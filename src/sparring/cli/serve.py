"""``sparring serve``: the service (browser page and HTTP API) under uvicorn.

The command only reads its options and calls :func:`sparring.service.run`; everything else
lives in :mod:`sparring.service`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from sparring.errors import BadValueError, MissingResourceError


def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on (0..65535).")] = 8000,
    data: Annotated[
        Path, typer.Option(help="Folder of the default SQLite database (made if missing).")
    ] = Path("sparring-data"),
    db: Annotated[
        str | None,
        typer.Option(
            help="A SQLAlchemy database URL instead of SQLite under --data, e.g. "
            "postgresql+psycopg://user:pass@host/db."
        ),
    ] = None,
    workers: Annotated[
        int,
        typer.Option(
            help="Worker processes for AI moves (>= 1); one more takes the people's moves, "
            "new games, undo and resign."
        ),
    ] = 1,
    ai_time: Annotated[
        float, typer.Option("--ai-time", help="Seconds an AI move may think at most (> 0).")
    ] = 2.0,
) -> None:
    """Serve the game page and the HTTP API (/api, documented at /openapi.json); open the
    printed address in a browser.  Ctrl-C or SIGTERM stops the server (exit status 0);
    games continue after a restart, with the AI moves that were in flight."""
    try:
        from sparring.service import ServiceSettings, run
    except ModuleNotFoundError as exc:  # the web and database stack is the `serve` extra
        raise MissingResourceError(
            f"sparring serve needs the web and database packages ({exc.name} is missing): "
            "pip install 'sparring[serve]'"
        ) from None

    if not 0 <= port <= 65535:
        raise BadValueError(f"--port must be 0..65535, not {port}", "--port")
    if workers < 1:
        raise BadValueError(f"--workers must be >= 1, not {workers}", "--workers")
    if not (ai_time > 0 and ai_time < 3600):
        raise BadValueError(f"--ai-time must be in (0, 3600) seconds, not {ai_time}", "--ai-time")
    if db is None:
        try:
            data.mkdir(parents=True, exist_ok=True)
            probe = data / ".sparring-write-check"
            probe.write_text("")
            probe.unlink()
        except OSError as exc:
            raise BadValueError(
                f"--data {data}: cannot keep the database there ({exc.strerror})", "--data"
            ) from None
    settings = ServiceSettings(data_dir=data, db_url=db, workers=workers, ai_time=ai_time)
    run(settings, host=host, port=port, echo=typer.echo)


def register(app: typer.Typer) -> None:
    """Add the ``serve`` command to ``app``."""
    app.command("serve")(serve)
