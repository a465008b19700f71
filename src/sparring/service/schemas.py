"""The service's request bodies and answers as pydantic models (the OpenAPI document's
schemas, docs/reference/http-api.md), and the error answers each route declares
(:func:`error_responses`)."""

from __future__ import annotations

import unicodedata
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from pydantic_core import PydanticCustomError

from sparring.service.clock import TimeControl


# ---- request bodies -----------------------------------------------------------------------------
class _Body(BaseModel):
    """A request body: unknown keys are rejected (422)."""

    model_config = ConfigDict(extra="forbid")


NAME_JOINERS = frozenset("\u200c\u200d")
"""Format characters a name may hold: the zero-width non-joiner and joiner (Persian and Indic
scripts, emoji sequences)."""


def check_name(name: str) -> str:
    """A player's name as given, or :class:`PydanticCustomError` (422, key ``name``) with one
    sentence: a name needs a visible character, and holds no control, line-break or format
    character (the bidirectional overrides and isolates among them, which would make the name
    read differently from what it is), except the zero-width (non-)joiners and the tags of
    flag emoji."""
    for ch in name:
        category = unicodedata.category(ch)
        allowed = ch in NAME_JOINERS or 0xE0020 <= ord(ch) <= 0xE007F
        if category in ("Cc", "Cs", "Zl", "Zp") or (category == "Cf" and not allowed):
            label = unicodedata.name(ch, "a control character")
            raise PydanticCustomError(
                "name_character",
                "a name cannot hold U+{code} ({label}): use letters, digits, spaces and "
                "punctuation",
                {"code": f"{ord(ch):04X}", "label": label},
            )
    if not any(not ch.isspace() and unicodedata.category(ch) != "Cf" for ch in name):
        raise PydanticCustomError(
            "name_blank", "a name needs at least one visible character, not only spaces"
        )
    return name


class NewPlayer(_Body):
    """``POST /api/players``: the name (shown as given, at most 40 characters, at least one
    of them visible; no control, line-break or format character such as a right-to-left
    override: :func:`check_name`)."""

    name: Annotated[str, Field(max_length=40), AfterValidator(check_name)]


class EloOpponent(_Body):
    """An AI at an Elo on the game's scale (``levels.elo`` of the catalog; clamped to the
    measured range, and said so)."""

    mode: Literal["elo"]
    elo: Annotated[float, Field(ge=-10000, le=10000, allow_inf_nan=False, strict=True)]


class RankOpponent(_Body):
    """An AI at a rank of the game's measured rank ladder (``levels.ranks`` of the catalog)."""

    mode: Literal["rank"]
    rank: Annotated[str, Field(min_length=1, max_length=20)]


class AdaptiveOpponent(_Body):
    """An adaptive AI continued from the profile: DSA bayes, intra-game DSA, AlphaDDA1-floor."""

    mode: Literal["adaptive"]
    kind: Literal["bayes", "intra", "alphadda1-floor"] = "bayes"


class SettingsOpponent(_Body):
    """Any player kind by its settings JSON (``{"kind": ..., ...}``, see ``/api/catalog``)."""

    mode: Literal["settings"]
    settings: dict[str, Any]


class DefaultOpponent(_Body):
    """The game's default AI."""

    mode: Literal["default"]


class StrongestOpponent(_Body):
    """The game's strongest measured level (``levels.strongest`` of the catalog)."""

    mode: Literal["strongest"]


Opponent = Annotated[
    EloOpponent
    | RankOpponent
    | AdaptiveOpponent
    | SettingsOpponent
    | DefaultOpponent
    | StrongestOpponent,
    Field(discriminator="mode"),
]


class NewGame(_Body):
    """``POST /api/games``: the game, the opponent and the person's side; ``hints``: whether
    the person may ask for hints during the game (``POST /api/games/{id}/hint``; not
    against an adaptive opponent)."""

    game: Annotated[str, Field(min_length=1, max_length=40)]
    opponent: Opponent = DefaultOpponent(mode="default")
    side: Literal["first", "second", "random"] = "first"
    hints: Annotated[bool, Field(strict=True)] = False
    clock: TimeControl | None = None
    """A time control (None: no clock)."""


class MoveBody(_Body):
    """A move as the game writes it, at the ply the client believes the game is at."""

    move: Annotated[str, Field(min_length=1, max_length=20)]
    ply: Annotated[int, Field(ge=0, le=100000, strict=True)]


class SigninBody(_Body):
    """``POST /api/signin``: a one-time sign-in code (``POST /api/me/signin-codes``)."""

    code: Annotated[str, Field(min_length=1, max_length=100)]


class PlyBody(_Body):
    """The ply the client believes the game is at (undo, resign)."""

    ply: Annotated[int, Field(ge=0, le=100000, strict=True)]


# ---- responses ----------------------------------------------------------------------------------
class PlayerCreated(BaseModel):
    """A new player and its token (shown only here)."""

    id: str
    name: str
    token: str


class SigninCode(BaseModel):
    """A one-time sign-in code for another device: ``path`` (after the server's address)
    opens the page there and signs in; the code works once, until ``expires``."""

    code: str
    path: str
    expires: str
    seconds: int


class Me(BaseModel):
    """The caller."""

    id: str
    name: str
    created: str


class GameSummary(BaseModel):
    """A game in a list (``result``: the person's score once over)."""

    id: str
    game: str
    opponent_label: str
    human_side: int
    status: Literal["ongoing", "over"]
    result: float | None
    ply: int
    created: str
    updated: str


class GameStateModel(GameSummary):
    """A game's whole state (see the service contract)."""

    to_move: int
    ai_thinking: bool
    board: dict[str, Any]
    legal: list[dict[str, Any]]
    last_move: dict[str, Any] | None
    moves: list[dict[str, Any]] = Field(
        description="every move played (ply, side, by, move, text; san in chess) with what "
        "the AI thought of it (analysis): while the game goes on only for the AI's last move "
        "(none against an adaptive opponent), for every AI move once it is over, else null",
    )
    result_text: str | None
    opponent: dict[str, Any] = Field(
        description="the AI: its label, settings, notices and level (the level it was asked "
        "to play: kind, the Elo played, rank; null for a player spec)",
    )
    cell_of_move: dict[str, list[int]]
    click: Literal["cell", "column"]
    hints: dict[str, Any] = Field(
        description="on: hints may be asked for (chosen at the start); offered: false against "
        "an adaptive opponent; used: hints shown so far",
    )
    clock: dict[str, Any] | None = Field(
        None,
        description="the time control (initial, increment seconds), each side's time left "
        "now in milliseconds, the side whose time runs (null: none) and the side that lost "
        "on time (null: none); null without a clock",
    )
    score: dict[str, Any] | None = Field(
        None,
        description="Go: captures and Tromp-Taylor area of (Black, White), komi and the margin "
        "black - white - komi; null in the other games",
    )


class HintCandidate(BaseModel):
    """One candidate move of a hint: visits and their share, value ``q`` for the person
    (-1 lost .. 1 won), prior."""

    move: int
    text: str
    visits: int
    share: float
    q: float | None
    prior: float | None


class HintModel(BaseModel):
    """A hint: the move the search would play for the person at ``ply`` and its top
    candidates; ``value``: its value of the position for the person (-1 .. 1)."""

    ply: int
    move: dict[str, Any]
    candidates: list[HintCandidate]
    value: float | None
    simulations: int
    search: str


class ProfileModel(BaseModel):
    """A player's games and strength estimates."""

    id: str
    name: str
    games: list[GameSummary]
    estimates: list[dict[str, Any]]
    adaptive: list[dict[str, Any]]


class Catalog(BaseModel):
    """The games with their levels and the player kinds with their schemas."""

    games: list[dict[str, Any]]
    kinds: list[dict[str, Any]]


class ErrorBody(BaseModel):
    """Every error: one sentence and the field it is about."""

    detail: str
    key: str | None


ERROR_MEANING = {
    400: "The body could not be parsed (e.g. a form body where JSON is expected).",
    401: "No token, or a token of no player (or a sign-in code that is not valid).",
    403: "Another player's game or profile.",
    404: "No such game, or an unknown name (game, player kind, setting, network).",
    409: "The game is at another ply or over, or the state kept in the profile does not fit.",
    413: "The request body is larger than the server accepts.",
    422: "A malformed body or parameter, a bad value, an option the game does not offer "
    "(a level, settings that do not fit it) or an illegal move.",
    429: "Too many AI moves in flight (the player's or the server's); retry after Retry-After.",
}
"""What each error status means, for the OpenAPI description of the endpoints."""


def error_responses(
    *codes: int, body: bool = False, json_ref: bool = False
) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI ``responses`` of the errors an endpoint can answer, each an
    :class:`ErrorBody`: ``codes`` and 413 (every request's body is bounded), plus 400 and
    422 when it reads a JSON body (``body``); 429 also declares its ``Retry-After``.
    ``json_ref``: for a route whose answers are not JSON (the errors still are; the
    :class:`ErrorBody` schema is named by reference, other routes register it)."""
    wanted = {413, *codes, *((400, 422) if body else ())}
    out: dict[int | str, dict[str, Any]] = {}
    for code in sorted(wanted):
        entry: dict[str, Any] = {"model": ErrorBody, "description": ERROR_MEANING[code]}
        if code == 429:
            entry["headers"] = {
                "Retry-After": {
                    "description": "Seconds to wait before trying again.",
                    "schema": {"type": "integer"},
                }
            }
        if json_ref:  # the route's own media type is not JSON: name the errors' one
            del entry["model"]
            entry["content"] = {
                "application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}
            }
        out[code] = entry
    return out


__all__ = [
    "ERROR_MEANING",
    "AdaptiveOpponent",
    "Catalog",
    "DefaultOpponent",
    "EloOpponent",
    "ErrorBody",
    "GameStateModel",
    "GameSummary",
    "HintCandidate",
    "HintModel",
    "Me",
    "MoveBody",
    "NewGame",
    "NewPlayer",
    "Opponent",
    "PlayerCreated",
    "PlyBody",
    "ProfileModel",
    "RankOpponent",
    "SettingsOpponent",
    "SigninBody",
    "SigninCode",
    "StrongestOpponent",
    "check_name",
    "error_responses",
]
