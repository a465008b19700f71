"""The service's strength estimate from uploaded games and its review by rank.

* ``POST /api/estimate``: SGF (Go 19x19) or PGN (chess) texts of the player's own games.  The
  upload is read strictly (:func:`sparring.estimation.upload.parse_uploads`: a broken record
  is a 422 naming its file and line, and nothing of the upload is used); a game repeated by
  content counts once; the player is the name given, or the one name in every game.  The
  answer is the shipped estimator's rank (Go) or Elo band (chess) with its bootstrap
  distribution, the games and moves it rests on, and the level offered to play at
  (:func:`offer_for`, through the level resolver).  Nothing is stored.
* ``POST /api/review``: one of those games reviewed (:mod:`sparring.estimation.review`).
* ``POST /api/games/{game_id}/review``: a finished Go 19x19 or chess game of the caller
  reviewed, the caller's side.

The work runs in the worker pool (these functions are its jobs); the routes are in
:mod:`sparring.service.routes.uploads`.
"""

import re
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from sparring.errors import BadValueError, SparringError
from sparring.levels import Level, level_table, resolve

if TYPE_CHECKING:
    from sparring.estimation.predict import Estimate
    from sparring.estimation.upload import Record


REVIEW_GAMES = ("go", "chess")
"""The games with a play network to review them (19x19 Go, chess)."""
SCALE_WORDS = {
    "go": "ranks of the Fox Go server's players (the estimator's training games)",
    "chess": "Lichess blitz rating bands (the estimator's training games)",
}


# ---- the jobs (run in the worker processes) -----------------------------------------------------
def _as_422(exc: SparringError, key: str) -> BadValueError:
    """A refusal of the request's content as a 422 with the same sentence."""
    if isinstance(exc, BadValueError):
        return exc
    return BadValueError(str(exc), key)


def _player_games(
    files: list[tuple[str, str]], player: str | None
) -> tuple[Any, str, str, list[tuple["Record", int]]]:
    """The upload read (:func:`parse_uploads`), the player and how they were found, and their
    games as (record, side): those where they made a move, as the estimate counts them."""
    from sparring.estimation.data import record_game
    from sparring.estimation.predict import find_player_games
    from sparring.estimation.upload import UploadedFile, find_player, parse_uploads

    uploaded = parse_uploads([UploadedFile(name, text) for name, text in files])
    name, how = find_player(uploaded.records, player)
    games = []
    for rec, side in find_player_games(uploaded.records, name):
        rules = record_game(rec)
        first = rules.to_move(rec.initial_state(rules))  # type: ignore[arg-type]
        if rec.moves.size > (1 if first != side else 0):
            games.append((rec, side))
    return uploaded, name, how, games


def estimate_upload(files: list[tuple[str, str]], player: str | None) -> dict[str, Any]:
    """The estimate of ``POST /api/estimate`` (see the module docstring); ``files`` are
    (name, text) pairs."""
    from sparring.estimation.predict import estimate_player
    from sparring.nn.estimators import default_estimator

    try:
        uploaded, name, how, games = _player_games(files, player)
        est = estimate_player(uploaded.records, name, default_estimator(uploaded.game))
    except SparringError as exc:
        raise _as_422(exc, "files") from None
    est.duplicates = list(uploaded.duplicates)
    played = [
        {
            "index": i,
            "source": f"{rec.path}:{rec.line}",
            "side": side,
            "opponent": _opponent(rec, side),
            "moves": g.moves,
            "result": rec.result,
        }
        for i, ((rec, side), g) in enumerate(zip(games, est.games, strict=True))
    ]
    return {
        **estimate_json(est),
        "player_found": how,
        "files": [{"name": n, "games": k} for n, k in uploaded.games_per_file.items()],
        "player_games": played,
        "offer": offer_for(uploaded.game, est.rank_name),
    }


def _opponent(record: "Record", side: int) -> str:
    from sparring.estimation.data import record_players

    return record_players(record)[1 - side]


def estimate_json(est: "Estimate") -> dict[str, Any]:
    """An :class:`~sparring.estimation.predict.Estimate` as the API answers it."""
    notes = []
    if est.resampled == "moves":
        notes.append(
            "one game: its confidence resamples the moves of one game, which ignores how a "
            "player varies from game to game, so it is optimistic"
        )
    if len(est.games) < 5:
        notes.append("few games: a rough estimate (about 15 games give 80% accuracy)")
    return {
        "game": est.game,
        "player": est.player,
        "scale": "rank" if est.game == "go" else "Elo band",
        "scale_words": SCALE_WORDS[est.game],
        "estimate": est.rank_name,
        "confidence": est.confidence,
        "within_one": est.within_one,
        "distribution": [
            {"rank": r, "share": float(p)}
            for r, p in zip(est.ranks, est.probabilities.tolist(), strict=True)
        ],
        "games": len(est.games),
        "moves": est.moves,
        "resampled": est.resampled,
        "duplicates": [str(d) for d in est.duplicates],
        "notes": notes,
    }


def review_upload(
    files: list[tuple[str, str]],
    player: str | None,
    index: int,
    rank: str,
    stronger: int,
    top: int,
) -> dict[str, Any]:
    """``POST /api/review``: the player's game ``index`` (in the order of
    ``player_games`` of the estimate) of the upload, reviewed."""
    from sparring.estimation.review import review_with_network

    try:
        _, _, _, games = _player_games(files, player)
        if not 0 <= index < len(games):
            raise BadValueError(
                f"game {index} is not one of the player's {len(games)} game(s): give 0 to "
                f"{len(games) - 1}",
                "game",
            )
        record, side = games[index]
        review = review_with_network(record, side, rank, stronger, top)
    except SparringError as exc:
        raise _as_422(exc, "files") from None
    return review.to_json()


def review_record(
    game: str, text: str, source: str, side: int, rank: str, stronger: int, top: int
) -> dict[str, Any]:
    """``POST /api/games/{id}/review``: the one game of ``text`` (SGF or PGN, as the service
    exports it, named ``source``) reviewed for ``side``."""
    from sparring.estimation.review import review_with_network
    from sparring.estimation.upload import Record
    from sparring.records import parse_pgn_games, parse_sgf_games

    records: list[Record] = list(
        parse_sgf_games(text, source) if game == "go" else parse_pgn_games(text, source)
    )
    if not records:
        raise BadValueError("the game's record could not be read back", "game")
    record = records[0]
    try:
        return review_with_network(record, side, rank, stronger, top).to_json()
    except SparringError as exc:
        raise _as_422(exc, "rank") from None


# ---- the level offered --------------------------------------------------------------------------
def _rank_value(text: str) -> float:
    """A Go rank on one line, stronger higher: 1k = 0, 9k = -8, 1d = 1."""
    match = re.fullmatch(r"(\d+)([kd])", text)
    if match is None:
        raise ValueError(f"not a rank: {text!r}")
    n = int(match.group(1))
    return float(n if match.group(2) == "d" else 1 - n)


def _rank_span(label: str) -> tuple[float, float]:
    """The weakest and strongest rank of an estimator's rank group (``1-2k``: 2k .. 1k)."""
    group = re.fullmatch(r"(\d+)-(\d+)([kd])", label)
    if group is None:
        v = _rank_value(label)
        return v, v
    a, b, unit = group.groups()
    ends = (_rank_value(f"{a}{unit}"), _rank_value(f"{b}{unit}"))
    return min(ends), max(ends)


def offer_for(game: str, estimate: str) -> dict[str, Any]:
    """The level offered to a player estimated at ``estimate`` (a Go rank group or a chess
    band), resolved by :func:`sparring.levels.resolve`: ``opponent`` (the body of
    ``POST /api/games``), its ``label`` and a ``notice`` when it is not the level estimated.

    Go: a rung of the measured rank ladder inside the estimated group; else the nearest
    level that exists (above the ladder: the strongest level), said so.  Chess: the Elo at
    the band's middle, clamped to the measured range by the resolver; the bands and the Elo
    levels are on two scales, and the notice says so."""
    if game == "chess":
        low, high = (float(x) for x in estimate.split("-"))
        elo = (low + high) / 2
        _, report = resolve(game, Level.at_elo(elo))
        notes = [
            f"The estimate is a Lichess blitz band; the levels are Elo on {report.scale}. "
            f"Offered: the band's middle, {elo:.0f}, as an Elo there (the two scales were "
            "not matched, so it is approximate)."
        ]
        if report.notice:
            notes.append(report.notice + ".")
        strongest = level_table(game).strongest
        if (
            report.elo is not None
            and report.elo < elo
            and strongest is not None
            and strongest.elo is not None
            and strongest.elo >= report.elo + 1  # a whole Elo, not a rounding
        ):
            notes.append(
                f"The strongest level (Elo {strongest.elo:.0f}) is stronger: choose "
                "'Its strongest' to play it."
            )
        return {
            "game": game,
            "opponent": {"mode": "elo", "elo": elo},
            "label": report.label,
            "notice": " ".join(notes),
        }
    return _go_offer(estimate)


def _go_offer(estimate: str) -> dict[str, Any]:
    table = level_table("go")
    low, high = _rank_span(estimate)
    ladder = [(r.rank, _rank_value(str(r.rank))) for r in table.ranks if r.rank]
    inside = [(rank, v) for rank, v in ladder if low <= v <= high]
    if inside:
        middle = (low + high) / 2
        rank, _ = min(inside, key=lambda rv: (abs(rv[1] - middle), rv[1]))
        _, report = resolve("go", Level.at_rank(rank))
        return {"game": "go", "opponent": {"mode": "rank", "rank": rank},
                "label": report.label, "notice": None}  # fmt: skip
    top_rank, top = max(ladder, key=lambda rv: rv[1]) if ladder else ("", -99.0)
    if (not ladder or top < low) and table.strongest is not None:
        _, report = resolve("go", Level.strongest())
        ladder_words = f"the rank ladder's strongest rung is {top_rank}; " if ladder else ""
        return {
            "game": "go",
            "opponent": {"mode": "strongest"},
            "label": report.label,
            "notice": (
                f"Your estimate, {estimate}, is stronger than every Go level measured here "
                f"({ladder_words}the estimate is a rank of the Fox Go server). The strongest "
                "level is the nearest that exists; it is likely much weaker than you."
            ),
        }
    rank, _ = min(ladder, key=lambda rv: (min(abs(rv[1] - low), abs(rv[1] - high)), rv[1]))
    _, report = resolve("go", Level.at_rank(rank))
    return {
        "game": "go",
        "opponent": {"mode": "rank", "rank": rank},
        "label": report.label,
        "notice": f"No measured level plays {estimate}; offered the nearest, {rank}.",
    }


# ---- the routes' bodies and answers -----------------------------------------------------------
class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class UploadFile(_Body):
    """One record file: its name (``.sgf`` for Go, ``.pgn`` for chess) and its text."""

    name: Annotated[str, Field(min_length=1, max_length=200)]
    text: str


class EstimateBody(_Body):
    """``POST /api/estimate``: the files and the player's name in them (None: the one name
    that is in every game)."""

    files: Annotated[list[UploadFile], Field(min_length=1, max_length=20)]
    player: Annotated[str | None, Field(max_length=100)] = None


class ReviewOptions(_Body):
    """How a game is reviewed: the player's ``rank`` (a rank or band of the estimator), how
    many ranks ``stronger`` the comparison is, and how many moves are marked (``top``)."""

    rank: Annotated[str, Field(min_length=1, max_length=20)]
    stronger: Annotated[int, Field(ge=1, le=10, strict=True)] = 3
    top: Annotated[int, Field(ge=1, le=30, strict=True)] = 5


class ReviewUploadBody(ReviewOptions):
    """``POST /api/review``: the upload of ``POST /api/estimate`` and the index of one of the
    player's games (``player_games`` of its answer)."""

    files: Annotated[list[UploadFile], Field(min_length=1, max_length=20)]
    player: Annotated[str | None, Field(max_length=100)] = None
    game: Annotated[int, Field(ge=0, le=10000, strict=True)]


class RankShare(BaseModel):
    rank: str
    share: float


class Offer(BaseModel):
    """The level offered: ``opponent`` is the body of ``POST /api/games``'s ``opponent``."""

    game: str
    opponent: dict[str, Any]
    label: str
    notice: str | None


class EstimateResult(BaseModel):
    """A strength estimate from uploaded games."""

    game: str
    player: str
    player_found: str
    scale: str
    scale_words: str
    estimate: str
    confidence: float
    within_one: float
    distribution: list[RankShare]
    games: int
    moves: int
    resampled: str
    duplicates: list[str]
    notes: list[str]
    files: list[dict[str, Any]]
    player_games: list[dict[str, Any]]
    offer: Offer


class ReviewResult(BaseModel):
    """The moves where a stronger rank would most likely have played differently."""

    game: str
    source: str
    player: str
    side: int
    own_rank: str
    stronger_rank: str
    network: str
    moves: int
    marked: list[dict[str, Any]]
    notes: list[str]
    values: str


__all__ = [
    "EstimateResult",
    "ReviewResult",
    "estimate_upload",
    "offer_for",
    "review_record",
    "review_upload",
]
