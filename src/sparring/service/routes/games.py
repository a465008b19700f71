"""The catalog and games: what can be played, a new game against the opponent asked for, the
caller's games and a game's state (waiting for the AI's move when asked to)."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import math
import secrets
import uuid
from typing import Annotated, Any

from fastapi import APIRouter, Query

from sparring.errors import (
    BadValueError,
    IncompatibleError,
    IncompatiblePlayerError,
    SparringError,
    UnknownGameError,
    UnsupportedGameError,
)
from sparring.levels import Level, LevelReport
from sparring.players.registry import settings_from_json
from sparring.players.settings_base import PlayerSettings
from sparring.profiles import Profile
from sparring.service import worker
from sparring.service.auth import Caller, owned
from sparring.service.catalog import GameInfo, check_served, opponent_for
from sparring.service.clock import new_clock, now_ms
from sparring.service.core import ServiceDep
from sparring.service.pool import Busy
from sparring.service.schemas import (
    AdaptiveOpponent,
    Catalog,
    EloOpponent,
    GameStateModel,
    GameSummary,
    NewGame,
    RankOpponent,
    SettingsOpponent,
    StrongestOpponent,
    error_responses,
)
from sparring.service.store import now_text as store_now
from sparring.service.views import summary

router = APIRouter()
WAIT_POLL = 0.5
"""Seconds between reads of a game a request waits on (``GET ?wait``) when no change stored
by this process wakes it (a change stored by another server process)."""
HINTS_NOT_RATED = (
    "hints are not offered against an adaptive opponent: it estimates your strength from "
    "your moves, and a hint would spoil the estimate"
)


@router.get("/api/catalog", response_model=Catalog, responses=error_responses())
async def catalog(service: ServiceDep) -> dict[str, Any]:
    """The games with their levels, and the player kinds with their settings schemas."""
    return {
        "games": [info.to_json() for info in service.catalog.values()],
        "kinds": service.kinds,
    }


@router.post(
    "/api/games",
    status_code=201,
    response_model=GameStateModel,
    responses=error_responses(401, 404, 409, 429, body=True),
)
async def create_game(body: NewGame, caller: Caller, service: ServiceDep) -> dict[str, Any]:
    """A new game against the opponent asked for; the AI moves first when you are
    second."""
    info = service.catalog.get(body.game)
    if info is None:
        raise _unknown_game(body.game, service.catalog)
    opponent, report = _opponent_of(body, info)
    adaptive_key = None if report is None else report.adaptive_key
    if body.hints and adaptive_key is not None:
        raise BadValueError(HINTS_NOT_RATED, "hints")
    state = None
    if adaptive_key is not None:
        data = await service.thread(service.db.read_profile, caller["id"])
        if data is not None:
            entry = Profile.from_json(data).adaptive_entry(info.game.name, adaptive_key)
            state = None if entry is None else entry.state
    report = _adaptive_label(report, state)
    human = {"first": 0, "second": 1}.get(body.side, secrets.randbelow(2))
    if human == 1 and service.in_flight(caller["id"]) >= service.settings.max_games_in_flight:
        raise Busy("too many of your games wait for the AI; try again in a moment")
    try:
        result = await service.job(
            worker.new_game,
            info.game.name,
            dict(info.game.params()),
            opponent.to_json(),
            secrets.randbelow(2**31),
            human,
            caller["name"],
            state,
        )
    except (IncompatiblePlayerError, UnsupportedGameError) as exc:
        raise _not_offered(exc) from None  # settings that do not fit the game
    when = store_now()
    game_id = uuid.uuid4().hex
    await service.thread(
        service.db.add_game,
        {
            "id": game_id,
            "player_id": caller["id"],
            "game": info.name,
            "game_params": json.dumps(dict(info.game.params())),
            "opponent": json.dumps(opponent.to_json()),
            "opponent_label": str(result["label"]) if report is None else report.label,
            "human_side": human,
            "status": "ongoing",
            "result": None,
            "ply": int(result["ply"]),
            "to_move": int(result["to_move"]),
            "version": 0,
            "snapshot": json.dumps(result["snapshot"]),
            "created": when,
            "updated": when,
            "adaptive_key": adaptive_key,
            "notices": json.dumps(list(result["notices"]) or _level_notices(report)),
            "hints": int(body.hints),
            "hints_used": 0,
            "clock": None if body.clock is None else json.dumps(new_clock(body.clock, now_ms())),
            "ai_level": _level_json(report),
        },
    )
    row = await service.thread(service.db.game, game_id)
    if row.ai_to_move:
        service.schedule_ai(row)
    else:
        service.watch_clock(row.id, row.human_side, row.clock, row.to_move)
    return await service.state_of(row)


@router.get("/api/games", response_model=list[GameSummary], responses=error_responses(401))
async def list_games(caller: Caller, service: ServiceDep) -> list[dict[str, Any]]:
    """The caller's games, newest first."""
    rows = await service.thread(service.db.games_of, caller["id"])
    return [summary(await service.check_clock(r)) for r in rows]


@router.get(
    "/api/games/{game_id}",
    response_model=GameStateModel,
    responses=error_responses(401, 403, 404, 422),
)
async def get_game_state(
    game_id: str,
    caller: Caller,
    service: ServiceDep,
    wait: Annotated[float, Query(ge=0, le=10, allow_inf_nan=False)] = 0.0,
) -> dict[str, Any]:
    """The game's state; ``wait`` seconds at most for the AI's move."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait
    moved = service.moved_event(game_id)  # (made before the game is read: no move missed)
    row = await service.check_clock(await owned(service, game_id, caller))
    while row.ai_to_move and not service.stop_requested() and (left := deadline - loop.time()) > 0:
        # woken when this process stores the game's next change; another server
        # process on the same database (PostgreSQL) is seen by reading again
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(moved.wait(), timeout=min(WAIT_POLL, left))
        moved = service.moved_event(game_id)
        row = await service.thread(service.db.game, game_id)
    return await service.state_of(row)


# ---- a new game's opponent ----------------------------------------------------------------------
def _opponent_of(body: NewGame, info: GameInfo) -> tuple[PlayerSettings, LevelReport | None]:
    """The opponent a new game's request asks for: its settings and the level's report (None
    for settings given as such).  An option the game does not offer is a 422
    (:func:`_not_offered`)."""
    opp = body.opponent
    try:
        if isinstance(opp, SettingsOpponent):
            _no_paths(opp.settings, "settings")
            check_served(opp.settings)
            return settings_from_json(opp.settings), None
        return opponent_for(info, _level_of(opp))
    except SparringError as exc:
        if exc.key == "mode":
            exc.key = "kind"  # the request's field: opponent.kind
        if isinstance(exc, IncompatibleError):
            raise _not_offered(exc) from None
        raise


def _level_of(opp: Any) -> Level | None:
    """The level a request's opponent asks for (None: the game's default AI); the resolver
    clamps an Elo outside the measured range and says so (its report's notice)."""
    if isinstance(opp, EloOpponent):
        return Level.at_elo(opp.elo)
    if isinstance(opp, RankOpponent):
        return Level.at_rank(opp.rank)
    if isinstance(opp, AdaptiveOpponent):
        return Level.adaptive(opp.kind)
    if isinstance(opp, StrongestOpponent):
        return Level.strongest()
    return None


def _adaptive_label(report: LevelReport | None, state: Any) -> LevelReport | None:
    """An adaptive level's label with the level it starts this game at: its estimate of the
    person from the profile (``adaptive (between games): now playing about 1420``)."""
    if report is None or report.adaptive_key is None:
        return report
    elo = state.get("opponent_elo") if isinstance(state, dict) else None
    if not isinstance(elo, int | float) or not math.isfinite(elo):
        return dataclasses.replace(report, label=f"{report.label}: finding your level")
    return dataclasses.replace(report, label=f"{report.label}: now playing about {elo:.0f}")


def _level_json(report: LevelReport | None) -> str | None:
    """The level a new game's AI plays, as stored
    (:attr:`~sparring.service.store.GameRow.ai_level`): its kind, the
    Elo played (clamped or snapped to a measured row as the label says) and the rank."""
    if report is None or report.level is None:
        return None
    level = {"kind": report.level.kind, "elo": report.elo, "rank": report.level.rank}
    return json.dumps(level)


def _level_notices(report: LevelReport | None) -> list[str]:
    """The level's notice (clamped, the nearest measured level, not measured), shown when
    the player itself says nothing (a clamped Elo's player says it in its own words)."""
    return [] if report is None or not report.notice else [report.notice]


def _not_offered(exc: SparringError) -> BadValueError:
    """An option of a new game's request that does not apply to its game (a kind of level the
    game does not offer, player settings that do not fit it) as the request's error: 422 with
    the same sentence and key, not 409 (nothing stored conflicts with the request)."""
    return BadValueError(str(exc), exc.key)


def _unknown_game(name: str, catalog: dict[str, GameInfo]) -> SparringError:
    return UnknownGameError(f"unknown game {name!r}; choose one of {', '.join(catalog)}")


def _no_paths(value: Any, key: str) -> None:
    """Reject file paths in settings sent over HTTP (a network or calibration is named by its
    shipped name): :class:`BadValueError` naming the setting."""
    if isinstance(value, dict):
        for k, v in value.items():
            _no_paths(v, str(k))
    elif isinstance(value, list):
        for v in value:
            _no_paths(v, key)
    elif isinstance(value, str) and ("/" in value or "\\" in value or value.startswith(".")):
        raise BadValueError(
            f"{key}: files cannot be named over HTTP; use a shipped name (not {value[:40]!r})",
            key,
        )


__all__ = ["HINTS_NOT_RATED", "WAIT_POLL", "router"]
