"""What is done in a game: the person's move, undo, resignation, a hint, and the game's
record.  Every change runs in the worker processes and is stored in one transaction
(:meth:`Service.store_result`); a change that leaves the AI to move asks for its move
(:meth:`Service.schedule_ai`), and an undo or a resignation first stops the AI move in flight
(:meth:`Service.cancel_ai`)."""

from __future__ import annotations

import asyncio
import datetime
from collections.abc import Awaitable
from typing import Any, Literal

from fastapi import APIRouter
from fastapi.responses import PlainTextResponse, Response

from sparring.errors import BadValueError, GameOverError, IllegalMoveError, IncompatibleError
from sparring.records.common import date_headers
from sparring.service import worker
from sparring.service.auth import Caller, owned
from sparring.service.catalog import hint_settings
from sparring.service.core import Service, ServiceDep
from sparring.service.pool import Busy
from sparring.service.routes.games import HINTS_NOT_RATED
from sparring.service.schemas import GameStateModel, HintModel, MoveBody, PlyBody, error_responses
from sparring.service.store import GameRow, StaleError
from sparring.service.views import hint_view, session_of

router = APIRouter()


class NoHints(IncompatibleError):
    """No hint in this game (hints off, an adaptive opponent): 409, key ``hints``."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.key = "hints"


async def ongoing_at(
    service: Service, game_id: str, caller: dict[str, Any], ply: int, over: str
) -> GameRow:
    """The caller's game, still going and at ``ply`` (GameOverError with ``over`` when it
    has ended, StaleError when it is at another ply)."""
    row = await owned(service, game_id, caller)
    if row.status != "ongoing":
        raise GameOverError(over)
    row = await service.check_clock(row)
    if row.status != "ongoing":
        raise GameOverError("your time ran out: the game is lost on time")
    if ply != row.ply:
        raise StaleError(
            f"the game is at ply {row.ply}, not {ply}; reload it (nothing was changed)"
        )
    return row


async def change(
    service: Service, row: GameRow, work: Awaitable[dict[str, Any]], by: str | None
) -> dict[str, Any]:
    """Store the result of ``work`` (a job computed from ``row``; ``by``: the mover of its
    one new move, None for an undo or a resignation), ask for the AI's move when it is to
    move, and answer the game's state."""
    result = await work
    await service.thread(service.store_result, row, result, by)
    service.after_store(row, result)
    fresh = await service.thread(service.db.game, row.id)
    if fresh.ai_to_move:
        service.schedule_ai(fresh)
    return await service.state_of(fresh)


async def change_after_cancel(
    service: Service, row: GameRow, work: Awaitable[dict[str, Any]]
) -> dict[str, Any]:
    """:func:`change` after :meth:`Service.cancel_ai`: should the change fail, the AI is
    asked again for the move it owes (its stopped move was dropped)."""
    try:
        return await change(service, row, work, None)
    except BaseException:
        fresh = await service.thread(service.db.game, row.id)
        if fresh.ai_to_move:
            service.schedule_ai(fresh)
        raise


@router.post(
    "/api/games/{game_id}/moves",
    response_model=GameStateModel,
    responses=error_responses(401, 403, 404, 409, 429, body=True),
)
async def play_move(
    game_id: str, body: MoveBody, caller: Caller, service: ServiceDep
) -> dict[str, Any]:
    """Your move (text as the game writes it) at the ply you expect the game to be at;
    the AI's reply follows in the background (``ai_thinking``)."""
    row = await ongoing_at(
        service, game_id, caller, body.ply, "the game is over; no move was played"
    )
    if row.to_move != row.human_side:
        raise StaleError("it is not your turn: the AI is thinking")
    info = service.catalog[row.game]
    session = await service.thread(service.sessions.session, row, info.game)
    move = info.game.parse_move(body.move, session.state)
    if move not in session.legal_moves():
        raise IllegalMoveError(f"{body.move!r} is not a legal move here", "move")
    if service.in_flight(caller["id"]) >= service.settings.max_games_in_flight:
        raise Busy("too many of your games wait for the AI; try again in a moment")
    work = service.job(worker.human_move, row.snapshot, row.human_side, move, row.id)
    return await change(service, row, work, "human")


@router.post(
    "/api/games/{game_id}/undo",
    response_model=GameStateModel,
    responses=error_responses(401, 403, 404, 409, 429, body=True),
)
async def undo(game_id: str, body: PlyBody, caller: Caller, service: ServiceDep) -> dict[str, Any]:
    """Take back your last move and the AI's reply."""
    row = await ongoing_at(
        service, game_id, caller, body.ply, "the game is over; it cannot be undone"
    )
    moves_by_human = [s for s in row.snapshot.get("movers", []) if s == row.human_side]
    if not moves_by_human:
        raise BadValueError("there is no move of yours to take back", "ply")
    service.cancel_ai(row.id)  # the AI's move in flight is dropped: the undo decides
    return await change_after_cancel(
        service, row, service.job(worker.undo, row.snapshot, row.human_side, row.id)
    )


@router.post(
    "/api/games/{game_id}/resign",
    response_model=GameStateModel,
    responses=error_responses(401, 403, 404, 409, 429, body=True),
)
async def resign(
    game_id: str, body: PlyBody, caller: Caller, service: ServiceDep
) -> dict[str, Any]:
    """You resign the game."""
    row = await ongoing_at(service, game_id, caller, body.ply, "the game is over already")
    service.cancel_ai(row.id)
    return await change_after_cancel(
        service, row, service.job(worker.resign, row.snapshot, row.human_side, row.id)
    )


@router.post(
    "/api/games/{game_id}/hint",
    response_model=HintModel,
    responses=error_responses(401, 403, 404, 409, 429, body=True),
)
async def hint(game_id: str, body: PlyBody, caller: Caller, service: ServiceDep) -> dict[str, Any]:
    """A hint for your move at ``ply``: the top candidate moves of a fixed small search
    of the game's AI (run in the worker pool, bounded by the server's AI time).  Only in
    a game started with ``hints: true``, and never against an adaptive opponent (409:
    it estimates your strength from your moves).  Asked again at the same position, the
    same hint is answered; the game keeps the count of hints shown."""
    row = await ongoing_at(service, game_id, caller, body.ply, "the game is over; no hint is given")
    if row.adaptive_key is not None:
        raise NoHints(HINTS_NOT_RATED)
    if not row.hints:
        raise NoHints(
            "hints are off in this game; they are chosen when a game starts (hints: true)"
        )
    if row.to_move != row.human_side:
        raise StaleError("it is the AI's turn: a hint is for your move")
    lock = service.hint_locks.setdefault(row.id, asyncio.Lock())
    async with lock:
        cached = service.hint_cache.get(row.id)
        if cached is not None and cached[0] == row.version:
            return cached[1]
        info = service.catalog[row.game]
        player = await service.thread(hint_settings, info)
        found = await service.job(
            worker.hint,
            row.snapshot,
            row.human_side,
            player.to_json(),
            service.settings.ai_time,
            lane=service.ai_lane(None),
        )
        if found["analysis"] is None:
            raise NoHints("the AI's search gave no analysis of this position")
        session = await service.thread(service.sessions.session, row, info.game)
        answer = hint_view(info.game, session.state, found["analysis"], row.ply)
        await service.thread(service.db.count_hint, row.id)
        service.hint_cache[row.id] = (row.version, answer)
        return answer


@router.get(
    "/api/games/{game_id}/record",
    response_class=PlainTextResponse,
    responses={
        200: {"content": {"text/plain": {"schema": {"type": "string"}}}},
        **error_responses(401, 403, 404, 409, 422, json_ref=True),
    },
)
async def record(
    game_id: str,
    caller: Caller,
    service: ServiceDep,
    format: Literal["sgf", "pgn", "moves"] | None = None,
) -> Response:
    """The game's record: SGF (Go), PGN (chess) or a move list (default: the game's);
    SGF and PGN dated with the day the game began (UTC)."""
    row = await owned(service, game_id, caller)
    info = service.catalog[row.game]
    session = await service.thread(session_of, row, info.game)
    fmt = format or info.game.record_format
    played = datetime.date.fromisoformat(row.created[:10])  # the day it began (UTC)
    text = session.export(fmt, **date_headers(fmt, played))
    ext = {"sgf": "sgf", "pgn": "pgn", "moves": "txt"}[fmt]
    return PlainTextResponse(
        text,
        headers={"Content-Disposition": f'attachment; filename="{row.game}-{row.id}.{ext}"'},
    )


__all__ = ["NoHints", "router"]
