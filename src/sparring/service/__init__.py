"""``sparring serve``: the game AI in the browser and over HTTP, with profiles that remember
the player.

An interface layer beside the command line: it uses only the public APIs below it (games,
typed player settings, :class:`~sparring.session.GameSession` snapshots, profiles, the record
writers).  :func:`create_app` builds the FastAPI app (:mod:`sparring.service.app`), the store
is SQLAlchemy Core (:mod:`sparring.service.store`), every change to a game runs in a pool of
worker processes (:mod:`sparring.service.worker`).
"""

from __future__ import annotations

from sparring.service.app import ServiceSettings, create_app, run

__all__ = ["ServiceSettings", "create_app", "run"]
