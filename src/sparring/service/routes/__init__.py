"""The service's HTTP routes, one :class:`fastapi.APIRouter` per module, added to the app in
:data:`ROUTERS`' order (the order of the OpenAPI document and of the HTTP reference):
players, sign-in and profiles (:mod:`.players`), the catalog and games
(:mod:`.games`), what is done in a game (:mod:`.play`), and estimates and reviews
(:mod:`.uploads`).  Each route reaches the app's
:class:`~sparring.service.core.Service` through the dependency
:func:`~sparring.service.core.get_service` and the caller through
:data:`~sparring.service.auth.Caller`."""

from __future__ import annotations

from sparring.service.routes import games, play, players, uploads

ROUTERS = (players.router, games.router, play.router, uploads.router)
"""The routers, in the order they are added to the app."""

__all__ = ["ROUTERS"]
