"""Players: a new player and its token, one-time sign-in codes for another device, who the
token names and the player's profile."""

from __future__ import annotations

import datetime
import secrets
import uuid
from typing import Any

from fastapi import APIRouter

from sparring.profiles import Profile
from sparring.service.auth import (
    SIGNIN_MINUTES,
    Caller,
    Forbidden,
    Unauthorized,
    hash_token,
    new_token,
)
from sparring.service.core import ServiceDep
from sparring.service.schemas import (
    Me,
    NewPlayer,
    PlayerCreated,
    ProfileModel,
    SigninBody,
    SigninCode,
    error_responses,
)
from sparring.service.views import profile_view

router = APIRouter()


@router.post(
    "/api/players",
    status_code=201,
    response_model=PlayerCreated,
    responses=error_responses(body=True),
)
async def create_player(body: NewPlayer, service: ServiceDep) -> dict[str, Any]:
    """A new player; the token is shown only in this answer."""
    token = new_token()
    player_id = uuid.uuid4().hex
    await service.thread(service.db.add_player, player_id, body.name, hash_token(token))
    profile = Profile.new(body.name, id=player_id)

    def put() -> None:
        with service.db.transaction() as conn:
            service.db.put_profile(conn, player_id, profile.to_json())

    await service.thread(put)
    return {"id": player_id, "name": body.name, "token": token}


@router.post(
    "/api/me/signin-codes",
    status_code=201,
    response_model=SigninCode,
    responses=error_responses(401),
)
async def signin_code(caller: Caller, service: ServiceDep) -> dict[str, Any]:
    """A one-time code that signs another device in as you (``POST /api/signin``, or
    the page at ``path``): it works once, for :data:`SIGNIN_MINUTES` minutes; the server
    keeps only its SHA-256."""
    code = secrets.token_urlsafe(16)
    expires = (
        datetime.datetime.now(datetime.UTC) + datetime.timedelta(minutes=SIGNIN_MINUTES)
    ).isoformat(timespec="milliseconds")
    await service.thread(service.db.add_signin_code, caller["id"], hash_token(code), expires)
    return {
        "code": code,
        "path": f"/#signin/{code}",
        "expires": expires,
        "seconds": SIGNIN_MINUTES * 60,
    }


@router.post("/api/signin", response_model=PlayerCreated, responses=error_responses(401, body=True))
async def signin(body: SigninBody, service: ServiceDep) -> dict[str, Any]:
    """Sign this device in with a one-time code made on another: the player and a new
    token of its own (shown only here; the other device keeps its token)."""
    token = new_token()
    row = await service.thread(
        service.db.redeem_signin_code, hash_token(body.code.strip()), hash_token(token)
    )
    if row is None:
        raise Unauthorized(
            "this sign-in code is not valid: it was used already, it expired (a code lasts "
            f"{SIGNIN_MINUTES} minutes) or it is mistyped; make a new one on the device "
            "you play on (Profile, Play on another device)"
        )
    return {"id": row["id"], "name": row["name"], "token": token}


@router.get("/api/me", response_model=Me, responses=error_responses(401))
async def me(caller: Caller) -> dict[str, Any]:
    """Who the token belongs to."""
    return {"id": caller["id"], "name": caller["name"], "created": caller["created"]}


@router.get("/api/me/profile", response_model=ProfileModel, responses=error_responses(401))
async def my_profile(caller: Caller, service: ServiceDep) -> dict[str, Any]:
    """The caller's games and strength estimates."""
    data = await service.thread(service.db.read_profile, caller["id"])
    profile = None if data is None else Profile.from_json(data)
    rows = await service.thread(service.db.games_of, caller["id"])
    details = await service.thread(service.db.estimate_details_of, caller["id"])
    return profile_view(caller, profile, rows, details)


@router.get(
    "/api/players/{player_id}/profile",
    response_model=ProfileModel,
    responses=error_responses(401, 403, 422),
)
async def player_profile(player_id: str, caller: Caller, service: ServiceDep) -> dict[str, Any]:
    """A player's profile: only its own player may read it (403 otherwise)."""
    if player_id != caller["id"]:
        raise Forbidden("this profile belongs to another player")
    return await my_profile(caller, service)


__all__ = ["router"]
