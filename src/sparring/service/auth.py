"""Who a request comes from, and what it may touch.

A player is known by a bearer token (``Authorization: Bearer TOKEN``) made when the player is
created (``POST /api/players``) or signed in on another device with a one-time code
(``POST /api/signin``); the server keeps only the SHA-256 of tokens and codes
(:func:`hash_token`).  :data:`Caller` is the dependency of the routes that need a player (401
without a valid token); :func:`owned` reads a game only its player may touch (403 for
another's).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Annotated, Any

from fastapi import Depends, Request

from sparring.errors import SparringError
from sparring.service.core import Service, get_service
from sparring.service.store import GameRow

SIGNIN_MINUTES = 10
"""How long a sign-in code for another device works (once)."""


class Unauthorized(SparringError):
    """No token, or a token of no player."""

    http_status = 401


class Forbidden(SparringError):
    """Another player's game or profile."""

    http_status = 403


def hash_token(token: str) -> str:
    """The stored form of a token: its SHA-256, hex."""
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    """A new player token (43 URL-safe characters: 256 random bits)."""
    return secrets.token_urlsafe(32)


def current_player(request: Request) -> dict[str, Any]:
    """The caller (Authorization: Bearer TOKEN); 401 without a valid token."""
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized("send your token: Authorization: Bearer TOKEN")
    digest = hash_token(token.strip())
    row = get_service(request).db.player_by_token_hash(digest)
    if row is None or not hmac.compare_digest(row["token_hash"], digest):
        raise Unauthorized("this token belongs to no player")
    return row


Caller = Annotated[dict[str, Any], Depends(current_player)]
"""The player a request's token names (a dependency of the endpoints that need one)."""


async def owned(service: Service, game_id: str, caller: dict[str, Any]) -> GameRow:
    """The game ``game_id`` of the caller (404 when there is none, 403 when it is
    another player's)."""
    row = await service.thread(service.db.game, game_id)
    if row.player_id != caller["id"]:
        raise Forbidden("this game belongs to another player")
    return row


__all__ = [
    "SIGNIN_MINUTES",
    "Caller",
    "Forbidden",
    "Unauthorized",
    "current_player",
    "hash_token",
    "new_token",
    "owned",
]
