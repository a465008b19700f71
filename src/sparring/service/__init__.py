"""``sparring serve``: the game AI in the browser and over HTTP, with profiles that remember
the player.

An interface layer beside the command line: it uses only the public APIs below it (games,
typed player settings, :class:`~sparring.session.GameSession` snapshots, profiles, the record
writers).  :func:`create_app` builds the FastAPI app (:mod:`sparring.service.app`) from its
routes (:mod:`sparring.service.routes`), models (:mod:`sparring.service.schemas`), token
checks (:mod:`sparring.service.auth`) and the :class:`~sparring.service.core.Service` it
holds; the store is SQLAlchemy Core (:mod:`sparring.service.store`), every change to a game
runs in a pool of worker processes (:mod:`sparring.service.pool`,
:mod:`sparring.service.worker`) and the AI moves in flight are scheduled one record per game
(:mod:`sparring.service.scheduler`).
"""

from __future__ import annotations

from sparring.service.app import create_app, run
from sparring.service.settings import ServiceSettings

__all__ = ["ServiceSettings", "create_app", "run"]
