"""Estimates and reviews: a player's rank or Elo band from uploaded games, one uploaded game
reviewed, and a finished game of the caller reviewed.  The work is a job of the worker pool
(:mod:`sparring.service.uploads`); nothing of an upload is stored."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from sparring.errors import BadValueError, IncompatibleError
from sparring.service.auth import Caller, owned
from sparring.service.core import ServiceDep
from sparring.service.schemas import error_responses
from sparring.service.uploads import (
    REVIEW_GAMES,
    EstimateBody,
    EstimateResult,
    ReviewOptions,
    ReviewResult,
    ReviewUploadBody,
    estimate_upload,
    review_record,
    review_upload,
)
from sparring.service.views import session_of

router = APIRouter()


def _files(body: EstimateBody | ReviewUploadBody) -> list[tuple[str, str]]:
    return [(f.name, f.text) for f in body.files]


@router.post(
    "/api/estimate", response_model=EstimateResult, responses=error_responses(401, 429, body=True)
)
async def estimate(body: EstimateBody, caller: Caller, service: ServiceDep) -> dict[str, Any]:
    """Your rank (Go) or Elo band (chess) from SGF or PGN files of your own games, with
    its distribution, the games and moves it rests on and the level offered to play at.
    A broken record: 422 naming its file and line.  Nothing is stored."""
    return await service.job(estimate_upload, _files(body), body.player, lane=service.ai_lane(None))


@router.post(
    "/api/review", response_model=ReviewResult, responses=error_responses(401, 429, body=True)
)
async def review_uploaded(
    body: ReviewUploadBody, caller: Caller, service: ServiceDep
) -> dict[str, Any]:
    """One game of an upload (``game``: its index in the estimate's ``player_games``)
    reviewed: the player's moves where the rank ``stronger`` steps up would most likely
    have played differently."""
    return await service.job(
        review_upload,
        _files(body),
        body.player,
        body.game,
        body.rank,
        body.stronger,
        body.top,
        lane=service.ai_lane(None),
    )


@router.post(
    "/api/games/{game_id}/review",
    response_model=ReviewResult,
    responses=error_responses(401, 403, 404, 409, 429, body=True),
)
async def review_game(
    game_id: str, body: ReviewOptions, caller: Caller, service: ServiceDep
) -> dict[str, Any]:
    """Your moves in a finished Go 19x19 or chess game where a player ``stronger`` ranks
    above ``rank`` would most likely have played differently."""
    row = await owned(service, game_id, caller)
    if row.game not in REVIEW_GAMES:
        raise BadValueError(
            f"a review needs a play network: Go 19x19 or chess, not {row.game}", "game"
        )
    if row.status != "over":
        raise IncompatibleError("the game is not over yet: a review is for a finished game")
    game = service.catalog[row.game].game
    text = await service.thread(lambda: session_of(row, game).export())
    return await service.job(
        review_record,
        row.game,
        text,
        f"{row.game}-{row.id}.{'sgf' if row.game == 'go' else 'pgn'}",
        row.human_side,
        body.rank,
        body.stronger,
        body.top,
        lane=service.ai_lane(None),
    )


__all__ = ["router"]
