"""The HTTP service: :func:`create_app` builds the FastAPI app from :class:`ServiceSettings`.

Everything the app holds lives in one :class:`Service` object made per app (no module-level
mutable state): the store, the worker pool, the AI moves in flight.  Endpoints are async and
never block the event loop: database calls run in threads, every change to a game runs in
the worker pool (:mod:`sparring.service.worker`); an AI move in flight is stopped when its
game is resigned or taken back.  The endpoints are described in docs/guide/service.md and,
with their request and response models, in ``/openapi.json`` (docs/reference/http-api.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime
import functools
import hashlib
import hmac
import json
import logging
import math
import multiprocessing
import secrets
import signal
import threading
import time
import unicodedata
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from multiprocessing.process import BaseProcess
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar

from fastapi import Depends, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from pydantic_core import PydanticCustomError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from sparring.errors import (
    BadValueError,
    GameOverError,
    IllegalMoveError,
    IncompatibleError,
    IncompatiblePlayerError,
    SparringError,
    UnsupportedGameError,
)
from sparring.games.base import Game
from sparring.levels import Level, LevelReport
from sparring.players.registry import kinds, settings_from_json
from sparring.players.settings import DSASettings
from sparring.players.settings_base import PlayerSettings
from sparring.profiles import OPPONENT_ELO_ESTIMATE, AdaptiveEntry, GameEntry, Profile
from sparring.records.common import date_headers
from sparring.service import worker
from sparring.service.catalog import (
    GameInfo,
    build_catalog,
    check_served,
    hint_settings,
    kinds_json,
    opponent_for,
)
from sparring.service.clock import (
    TimeControl,
    after_change,
    left_now,
    new_clock,
    now_ms,
    out_of_time,
)
from sparring.service.store import GameRow, StaleError, Store
from sparring.service.store import now_text as store_now
from sparring.service.uploads import add_routes as add_upload_routes
from sparring.service.views import (
    RANK_ESTIMATE,
    SessionCache,
    analysis_from,
    game_state,
    hint_view,
    profile_view,
    session_of,
    summary,
)
from sparring.strength.dsa import BayesConfig, elo_posterior

if TYPE_CHECKING:
    import uvicorn

LOGGER = logging.getLogger("sparring.service")
T = TypeVar("T")
STATIC = Path(__file__).parent / "static"
WAIT_POLL = 0.5
"""Seconds between reads of a game a request waits on (``GET ?wait``) when no change stored
by this process wakes it (a change stored by another server process)."""
RANKED_GAMES = ("go", "chess")
"""Games whose strength estimator gives the player's rank after each finished game."""
REQUEST_GRACE = 2
"""Seconds a stopping server waits for the requests it is answering (a request waiting on a
game, ``GET ?wait``, answers at once) before it cancels them."""
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
"""The server log's lines (:func:`run`): local time to the millisecond, level, logger."""


@dataclass(frozen=True)
class ServiceSettings:
    """How the service runs."""

    data_dir: Path = Path("sparring-data")
    """Where the default SQLite database lives."""
    db_url: str | None = None
    """A SQLAlchemy URL; None: ``sqlite:///DATA_DIR/sparring.sqlite``."""
    workers: int = 1
    """Worker processes for AI moves (one more takes the quick jobs: new games, moves,
    undo, resign, so that these never wait behind a search)."""
    ai_time: float = 2.0
    """Seconds an AI move may think at most (the simulations come from its settings)."""
    max_body: int = 64 * 1024
    """Largest request body in bytes (413 above)."""
    max_games_in_flight: int = 4
    """AI moves one player may wait for at once (429 above)."""
    max_queue: int = 64
    """Jobs the worker processes may hold at once (429 above)."""
    evaluation_cache: int = 50_000
    """Positions whose network outputs each worker process keeps (its
    :class:`~sparring.players.cache.PlayerCache`'s ``evaluation_cache``; 0: none)."""
    live_games: int = worker.LIVE_GAMES
    """Games whose session each worker process keeps live between moves instead of restoring
    it from the stored snapshot at every move (:mod:`sparring.service.worker`; 0: none)."""
    retry_after: int = 2
    """Seconds a 429 answer asks the client to wait."""
    rank_min_moves: int = 20
    """The fewest of a player's own moves (over their finished games of the game) that a
    rank estimate in their profile may rest on: a game resigned after a few moves gives
    none, instead of a rank whose bootstrap confidence over two or three moves means little."""

    def url(self) -> str:
        """The database URL."""
        if self.db_url:
            return self.db_url
        return f"sqlite:///{(self.data_dir / 'sparring.sqlite').resolve()}"


@dataclass
class Lane:
    """One worker process and the jobs sent to it that have not ended."""

    pool: ProcessPoolExecutor
    jobs: int = 0


class Busy(SparringError):
    """The service is full (the worker queue, or the player's games in flight)."""

    http_status = 429


def hash_token(token: str) -> str:
    """The stored form of a token: its SHA-256, hex."""
    return hashlib.sha256(token.encode()).hexdigest()


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
    opponent: dict[str, Any]
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


def _errors(
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


# ---- the service --------------------------------------------------------------------------------
@dataclass
class Service:
    """What one app holds: settings, store, catalog, worker pool and the AI moves in flight."""

    settings: ServiceSettings
    store: Store | None = None
    catalog: dict[str, GameInfo] = field(default_factory=dict)
    lanes: list[Lane] = field(default_factory=list)
    """The worker processes of AI moves (and rank estimates), one process per lane."""
    quick: Lane | None = None
    """The worker process of the quick jobs: new games, people's moves, undo, resign."""
    lane_of: dict[str, int] = field(default_factory=dict)
    """The lane of each game's last AI move (its next one goes there too, where its
    positions are still in the evaluation cache, unless that lane is busier)."""
    jobs: int = 0
    ai_tasks: dict[str, asyncio.Task[None]] = field(default_factory=dict)
    ai_owner: dict[str, str] = field(default_factory=dict)
    ai_wanted: set[str] = field(default_factory=set)
    kinds: list[dict[str, Any]] = field(default_factory=list)
    background: set[asyncio.Task[None]] = field(default_factory=set)
    modules: tuple[str, ...] = ()
    """The modules that registered the player kinds (imported by every worker process)."""
    stops: Any = None
    """Shared stop flags of the AI moves in flight (one slot each), seen by the workers."""
    free_slots: list[int] = field(default_factory=list)
    slot_of: dict[str, int] = field(default_factory=dict)
    cancelled: set[str] = field(default_factory=set)
    """Games whose AI move in flight was stopped: its result is dropped, not stored."""
    moved: dict[str, asyncio.Event] = field(default_factory=dict)
    """Per game that a request waits on (``GET ?wait``): set at the game's next stored change."""
    stop_requested: Callable[[], bool] = lambda: False
    """Whether the server was asked to stop (:func:`run` reads uvicorn's flag): a request
    waiting on a game answers at once instead of holding the stop up."""
    stopping: bool = False
    """Set once the worker processes are being stopped: a worker that died then is not
    replaced."""
    hint_locks: dict[str, asyncio.Lock] = field(default_factory=dict)
    """Per game: held while its hint is searched (a second request waits and gets it)."""
    hint_cache: dict[str, tuple[int, dict[str, Any]]] = field(default_factory=dict)
    """Per game: the version of the game its last hint was for, and the hint."""
    flag_timers: dict[str, asyncio.TimerHandle] = field(default_factory=dict)
    """Per game whose person's clock runs: the timer that stores the loss on time when it
    runs out (the clock is also checked whenever the game is read or changed)."""
    sessions: SessionCache = field(default_factory=SessionCache)
    """The games shown last as sessions without players (reading a game after a move plays
    that move, not the whole game)."""

    @property
    def db(self) -> Store:
        assert self.store is not None, "the service is not started"
        return self.store

    async def thread(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in a thread (database calls)."""
        return await asyncio.to_thread(fn, *args)

    async def job(
        self, fn: Callable[..., T], *args: Any, queued: bool = True, lane: Lane | None = None
    ) -> T:
        """``fn(*args)`` in a worker process (``lane``; default the quick jobs' process);
        :class:`Busy` when ``queued`` and the workers' queue is full."""
        if queued and self.jobs >= self.settings.max_queue:
            raise Busy("the server is busy; try again in a moment")
        lane = lane or self.quick
        assert lane is not None, "the service is not started"
        self.jobs += 1
        lane.jobs += 1
        pool = lane.pool
        try:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(pool, functools.partial(fn, *args))
        except BrokenProcessPool:
            # the worker died (killed, out of memory): start a new one for the next jobs
            if lane.pool is pool and not (self.stopping or self.stop_requested()):
                pool.shutdown(wait=False, cancel_futures=True)
                lane.pool = self.new_pool()
            raise Busy("a worker process stopped; try again in a moment") from None
        finally:
            self.jobs -= 1
            lane.jobs -= 1

    def ai_lane(self, game_id: str | None) -> Lane:
        """The lane for an AI move of ``game_id``: the one of its last move while that is
        at most one job busier than the least busy lane, else the least busy (None: a job
        of no game, the least busy)."""
        least = min(range(len(self.lanes)), key=lambda i: self.lanes[i].jobs)
        if game_id is None:
            return self.lanes[least]
        last = self.lane_of.get(game_id)
        if (
            last is None
            or last >= len(self.lanes)
            or (self.lanes[last].jobs > self.lanes[least].jobs + 1)
        ):
            last = least
        self.lane_of[game_id] = last
        return self.lanes[last]

    def start_workers(self) -> None:
        """Start the worker processes (``settings.workers`` AI lanes and the quick one)."""
        self.lanes = [Lane(self.new_pool()) for _ in range(self.settings.workers)]
        self.quick = Lane(self.new_pool())
        for lane in (*self.lanes, self.quick):  # started now, not on the first job
            lane.pool.submit(worker.warm_up)

    def stop_workers(self) -> None:
        """End the worker processes now and wait for them.  The jobs in flight are dropped:
        an AI move is not stored, its game still awaits it and gets it at the next start
        (as after a crash).  The processes hold nothing that needs an orderly exit (no
        database, no file written; a job's result only counts once the server stored it),
        so they are terminated (SIGTERM; SIGKILL for one still there a second later)
        rather than left to an interpreter teardown that takes a second or more once a
        network is loaded.  Blocking, bounded, and a no-op the second time."""
        self.stopping = True
        processes: list[BaseProcess] = []
        for lane in (*self.lanes, *([self.quick] if self.quick else [])):
            # the pool's processes: no public API before Python 3.14
            processes.extend((getattr(lane.pool, "_processes", None) or {}).values())
            lane.pool.shutdown(wait=False, cancel_futures=True)
        self.lanes, self.quick = [], None
        _end_processes(processes)

    def new_pool(self) -> ProcessPoolExecutor:
        """One worker process (started with ``spawn``), sharing the stop flags; it ignores
        SIGINT (a Ctrl-C in a terminal reaches the whole process group: the server stops
        its workers itself)."""
        context = multiprocessing.get_context("spawn")
        if self.stops is None:
            slots = self.settings.max_queue + self.settings.workers
            self.stops = context.RawArray("b", slots)
            self.free_slots = list(range(slots))
        return ProcessPoolExecutor(
            max_workers=1,
            mp_context=context,
            initializer=worker.init_worker,
            initargs=(
                self.modules,
                self.stops,
                self.settings.evaluation_cache,
                True,
                self.settings.live_games,
            ),
        )

    async def shut_down(self) -> None:
        """Stop everything the app started (its lifespan's end): the AI moves in flight are
        stopped and dropped (their games resume at the next start), the background tasks
        cancelled, the worker processes ended (:meth:`stop_workers`), the store closed."""
        pending = sorted(gid for gid, task in self.ai_tasks.items() if not task.done())
        if pending:
            LOGGER.info(
                "stopping: %d AI move(s) in flight resume at the next start (games %s)",
                len(pending),
                ", ".join(pending),
            )
        for game_id in list(self.slot_of):
            self.cancel_ai(game_id)
        tasks = [*self.ai_tasks.values(), *self.background]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await asyncio.to_thread(self.stop_workers)
        if self.store is not None:
            self.store.close()

    def cancel_ai(self, game_id: str) -> None:
        """Ask the AI move in flight in ``game_id`` (if any) to stop now: its result will
        not be stored (the game changed), and its worker is free sooner."""
        slot = self.slot_of.get(game_id)
        if slot is not None:
            self.stops[slot] = 1
            self.cancelled.add(game_id)

    def in_flight(self, player_id: str) -> int:
        """AI moves the player waits for now."""
        return sum(
            1
            for gid, owner in self.ai_owner.items()
            if owner == player_id and gid in self.ai_tasks and not self.ai_tasks[gid].done()
        )

    def schedule_ai(self, row: GameRow) -> None:
        """Ask for the AI's move in ``row``'s game: start its task, or (when one runs) let it
        look at the game again before it ends.  (The event loop runs one step at a time: a
        task either still has to read :attr:`ai_wanted`, or is done.)"""
        self.ai_wanted.add(row.id)
        self.ai_owner[row.id] = row.player_id
        task = self.ai_tasks.get(row.id)
        if task is None or task.done():
            self.ai_tasks[row.id] = asyncio.get_running_loop().create_task(self._ai(row.id))

    async def _ai(self, game_id: str) -> None:
        """The AI's moves in one game while they are wanted (a change computed from a game
        that moved on meanwhile, e.g. by an undo, is dropped and the AI thinks again, up to
        five times)."""
        stale = 0
        try:
            while game_id in self.ai_wanted and stale < 5:
                self.ai_wanted.discard(game_id)
                began = time.perf_counter()
                row = await self.thread(self.db.game, game_id)
                if not row.ai_to_move:
                    continue
                read = time.perf_counter()
                slot = self.free_slots.pop() if self.free_slots else -1
                if slot >= 0:
                    self.stops[slot] = 0
                    self.slot_of[game_id] = slot
                try:
                    result = await self.job(
                        worker.ai_move,
                        row.snapshot,
                        row.human_side,
                        self.settings.ai_time,
                        slot,
                        row.id,
                        queued=False,
                        lane=self.ai_lane(game_id),
                    )
                finally:
                    if slot >= 0:
                        del self.slot_of[game_id]
                        self.free_slots.append(slot)
                back = time.perf_counter()
                if game_id in self.cancelled:
                    self.cancelled.discard(game_id)
                    continue  # stopped for a change of the game: that change decides
                try:
                    await self.thread(self.store_result, row, result, "ai")
                except StaleError:
                    stale += 1
                    self.ai_wanted.add(game_id)
                    continue
                stored = time.perf_counter()
                self.after_store(row, result)
                if LOGGER.isEnabledFor(logging.DEBUG):
                    _log_steps(row, result, (began, read, back, stored, time.perf_counter()))
        except asyncio.CancelledError:
            raise
        except Exception:
            if self.stop_requested() or self.stopping:
                # e.g. its worker got the stop signal too (systemd signals the whole group)
                LOGGER.info("AI move in game %s dropped by the stop", game_id)
            else:
                LOGGER.exception("AI move in game %s failed", game_id)
        finally:
            self.ai_wanted.discard(game_id)
            self.ai_owner.pop(game_id, None)

    def moved_event(self, game_id: str) -> asyncio.Event:
        """The event set at the next stored change of ``game_id``."""
        return self.moved.setdefault(game_id, asyncio.Event())

    def after_store(self, row: GameRow, result: dict[str, Any]) -> None:
        """After a stored change: wake the requests waiting for it; when a Go (19x19) or
        chess game ended, estimate the player's rank from their finished games of that game
        (in the background; kept if it rests on at least ``rank_min_moves`` of their moves)."""
        event = self.moved.pop(row.id, None)
        if event is not None:
            event.set()
        if row.clock is not None:
            self.watch_clock(row.id, row.human_side, result.get("clock"), int(result["to_move"]))
        if result["over"]:
            self.lane_of.pop(row.id, None)
            self.hint_cache.pop(row.id, None)
            self.hint_locks.pop(row.id, None)
        if result["over"] and row.game in RANKED_GAMES:
            task = asyncio.get_running_loop().create_task(self._estimate(row))
            self.background.add(task)
            task.add_done_callback(self.background.discard)

    def watch_clock(
        self, game_id: str, human: int, clock: dict[str, Any] | None, to_move: int
    ) -> None:
        """Set the timer that ends the game on time when the person's clock (running now)
        runs out; drop the game's earlier timer."""
        old = self.flag_timers.pop(game_id, None)
        if old is not None:
            old.cancel()
        if clock is None or clock.get("since") is None or to_move != human:
            return
        delay = left_now(clock, to_move, now_ms())[human] / 1000 + 0.05
        loop = asyncio.get_running_loop()
        self.flag_timers[game_id] = loop.call_later(delay, self._flag_soon, game_id)

    def _flag_soon(self, game_id: str) -> None:
        self.flag_timers.pop(game_id, None)
        task = asyncio.get_running_loop().create_task(self._flag(game_id))
        self.background.add(task)
        task.add_done_callback(self.background.discard)

    async def _flag(self, game_id: str) -> None:
        try:
            await self.check_clock(await self.thread(self.db.game, game_id))
        except asyncio.CancelledError:
            raise
        except StaleError:
            pass  # the person moved just in time (or undid, resigned)
        except Exception:
            LOGGER.exception("the clock of game %s failed", game_id)

    async def check_clock(self, row: GameRow) -> GameRow:
        """``row``, or, when the person's time has run out, the game after its loss on time
        is stored (as a resignation in the record, ``flagged`` on the clock)."""
        if row.status != "ongoing" or not out_of_time(
            row.clock, row.human_side, row.to_move, now_ms()
        ):
            return row
        result = await self.job(worker.resign, row.snapshot, row.human_side, row.id, queued=False)
        result["flagged"] = row.human_side
        await self.thread(self.store_result, row, result, None)
        self.after_store(row, result)
        return await self.thread(self.db.game, row.id)

    async def _estimate(self, row: GameRow) -> None:
        if row.hints_used:
            return  # a game played with hints says little of the player's own strength
        try:
            rows = await self.thread(self.db.games_of, row.player_id)
            game = self.catalog[row.game].game
            finished = [
                r
                for r in reversed(rows)
                if r.game == row.game and r.status == "over" and not r.hints_used
            ]
            texts = [await self.thread(_export, r, game) for r in finished]
            name = str(row.snapshot["names"][row.human_side])
            found = await self.job(
                worker.estimate_rank, row.game, texts, name, queued=False, lane=self.ai_lane(None)
            )
            if int(found["moves"]) < self.settings.rank_min_moves:
                return  # too few moves to say anything (ServiceSettings.rank_min_moves)
            await self.thread(self._keep_rank, row, found)
        except asyncio.CancelledError:
            raise
        except Exception:
            LOGGER.exception("rank estimate of player %s in %s failed", row.player_id, row.game)

    def _keep_rank(self, row: GameRow, found: dict[str, Any]) -> None:
        """Store a rank estimate in the profile and its details beside it (one transaction)."""
        when = store_now()  # (milliseconds: the key of the estimate's details)
        with self.db.transaction() as conn:
            data = self.db.profile_json(conn, row.player_id)
            profile = Profile.from_json(data) if data is not None else Profile.new(id=row.player_id)
            profile.add_estimate(row.game, str(found["rank"]), RANK_ESTIMATE, now=when)
            self.db.put_profile(conn, row.player_id, profile.to_json())
            details = {"game": row.game, "time": when, "kind": RANK_ESTIMATE, **found}
            details.pop("rank")
            self.db.add_estimate_details(conn, row.player_id, details)

    def store_result(self, row: GameRow, result: dict[str, Any], by: str | None) -> None:
        """Store a job's ``result`` computed from ``row`` in one transaction: the game row,
        the moves (``by``: the mover of one new move, None for an undo or a resignation) and,
        when the game ended, the profile.  :class:`StaleError` when the game moved on."""
        snapshot = result["snapshot"]
        ply = int(result["ply"])
        new_moves = []
        if by is not None:
            new_moves.append(
                {
                    "ply": ply - 1,
                    "move": int(snapshot["moves"][-1]),
                    "side": int(snapshot["movers"][-1]),
                    "played_by": by,
                    "analysis": None
                    if result.get("analysis") is None
                    else json.dumps(result["analysis"]),
                }
            )
        over = bool(result["over"])
        changes = {
            "snapshot": json.dumps(snapshot),
            "ply": ply,
            "to_move": int(result["to_move"]),
            "status": "over" if over else "ongoing",
            "result": result["result"],
        }
        if row.clock is not None:
            clock = after_change(
                row.clock,
                row.to_move,
                moved=by is not None,
                over=over,
                now=now_ms(),
                flagged=result.get("flagged"),
            )
            changes["clock"] = json.dumps(clock)
            result["clock"] = clock
        with self.db.transaction() as conn:
            self.db.apply(conn, row, changes, keep_moves=ply - len(new_moves), new_moves=new_moves)
            if over:
                data = self.db.profile_json(conn, row.player_id)
                profile = (
                    Profile.from_json(data) if data is not None else Profile.new(id=row.player_id)
                )
                details = self._finish(profile, row, result)
                self.db.put_profile(conn, row.player_id, profile.to_json())
                if details is not None:
                    self.db.add_estimate_details(conn, row.player_id, details)

    def _finish(
        self, profile: Profile, row: GameRow, result: dict[str, Any]
    ) -> dict[str, Any] | None:
        """Add the finished game (and the adaptive player's state and estimate) to the
        profile; the estimate's details for :meth:`Store.add_estimate_details`, if any."""
        when = store_now()  # (milliseconds: the key of the estimate's details)
        settings = settings_from_json(row.opponent)
        players = result["snapshot"].get("players") or [None, None]
        record = players[1 - row.human_side] or {}
        profile.history.append(
            GameEntry(
                game_id=row.id,
                game=row.game,
                game_params=dict(row.game_params),
                date=when,
                side=row.human_side,
                result=float(result["result"]),
                moves=int(result["ply"]),
                opponent={
                    "spec": settings.spec(),
                    "settings": dict(row.opponent),
                    "seed": record.get("seed"),
                },
                record=f"service:{row.id}",
            )
        )
        state = result.get("ai_state")
        if row.adaptive_key is not None and isinstance(state, dict):
            entry = AdaptiveEntry(
                row.game, row.adaptive_key, settings.spec(), dict(row.opponent), state, when
            )
            profile.adaptive = [
                e for e in profile.adaptive if (e.game, e.kind) != (entry.game, entry.kind)
            ] + [entry]
            found = profile.estimate_from_state(row.game, state, now=when)
            if found is not None:
                return self._posterior_interval(row, settings, state, when)
        return None

    def _posterior_interval(
        self, row: GameRow, settings: PlayerSettings, state: dict[str, Any], when: str
    ) -> dict[str, Any] | None:
        """For a Bayesian DSA player (``dsa``, mode ``bayes``): its posterior over the
        person's Elo after the games in ``state`` (:func:`sparring.strength.dsa.elo_posterior`
        on the calibrated range), as the interval mean -/+ one standard deviation."""
        info = self.catalog[row.game]
        results = state.get("results")
        if (
            not isinstance(settings, DSASettings)
            or settings.mode != "bayes"
            or not isinstance(settings.config, BayesConfig)
            or info.elo_range is None
            or not isinstance(results, list)
        ):
            return None
        low, high = info.elo_range
        pairs = tuple((float(own), float(score)) for own, score in results)
        posterior = elo_posterior(settings.config, low, high, pairs)
        return {
            "game": row.game,
            "time": when,
            "kind": OPPONENT_ELO_ESTIMATE,
            "low": posterior.mean - posterior.sd,
            "high": posterior.mean + posterior.sd,
            "games": len(pairs),
        }


def _log_steps(row: GameRow, result: dict[str, Any], stamps: tuple[float, ...]) -> None:
    """Log (DEBUG) the steps of an AI move stored in ``row``'s game: ``stamps`` are the
    :func:`time.perf_counter` stamps of the AI task (game read, result back, stored,
    notified), the worker's are in ``result["steps"]`` (:func:`worker.ai_move`).  The
    record's ``ai_move_steps`` holds them all (seconds; ``*_at``: the stamps)."""
    began, read, back, stored, notified = stamps
    work = result.get("steps") or {}
    steps = {
        "read": read - began,
        "queue": work.get("started", read) - read,
        **{k: v for k, v in work.items() if k not in ("started", "ended")},
        "back": back - work.get("ended", back),
        "store": stored - back,
        "notify": notified - stored,
        "began_at": began,
        "notified_at": notified,
    }
    text = ", ".join(f"{k} {v * 1000:.1f} ms" for k, v in steps.items() if not k.endswith("_at"))
    LOGGER.debug(
        "AI move in game %s at ply %d: %s", row.id, row.ply, text, extra={"ai_move_steps": steps}
    )


def _end_processes(processes: list[BaseProcess]) -> None:
    """Terminate ``processes`` (SIGTERM) and wait for them; SIGKILL for one still there a
    second later."""
    for proc in processes:
        proc.terminate()
    for proc in processes:
        proc.join(1.0)
        if proc.is_alive():
            LOGGER.warning("worker process %s did not end on SIGTERM: killed", proc.pid)
            proc.kill()
            proc.join()


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


def _export(row: GameRow, game: Game) -> str:
    """The stored game's record in its game's format (SGF, PGN)."""
    return session_of(row, game).export()


def _service(request: Request) -> Service:
    service: Service = request.app.state.service
    return service


def _player(request: Request) -> dict[str, Any]:
    """The caller (Authorization: Bearer TOKEN); 401 without a valid token."""
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized("send your token: Authorization: Bearer TOKEN")
    digest = hash_token(token.strip())
    row = _service(request).db.player_by_token_hash(digest)
    if row is None or not hmac.compare_digest(row["token_hash"], digest):
        raise Unauthorized("this token belongs to no player")
    return row


Caller = Annotated[dict[str, Any], Depends(_player)]
"""The player a request's token names (a dependency of the endpoints that need one)."""


class Unauthorized(SparringError):
    """No token, or a token of no player."""

    http_status = 401


class NoHints(IncompatibleError):
    """No hint in this game (hints off, an adaptive opponent): 409, key ``hints``."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.key = "hints"


class Forbidden(SparringError):
    """Another player's game or profile."""

    http_status = 403


class BodyLimit:
    """ASGI middleware: answer 413 to a request body over ``limit`` bytes, whether declared
    (``Content-Length``) or sent (a chunked body is read, up to ``limit`` bytes, before the
    app sees it: an error raised while the app reads its body would be answered 400 by
    FastAPI's body parsing)."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None:
            try:
                size = int(declared)
            except ValueError:
                size = self.limit + 1
            if size > self.limit:
                await self._too_big(scope, receive, send)
                return
        if scope.get("method") in ("GET", "HEAD", "OPTIONS", "DELETE") and declared is None:
            await self.app(scope, receive, send)  # no body (long polls keep their receive)
            return
        held: list[Message] = []
        seen = 0
        while True:
            message = await receive()
            held.append(message)
            if message["type"] != "http.request":
                break  # the client went away: the app sees it
            seen += len(message.get("body", b""))
            if seen > self.limit:
                await self._too_big(scope, receive, send)
                return
            if not message.get("more_body", False):
                break

        async def replay() -> Message:
            return held.pop(0) if held else await receive()

        await self.app(scope, replay, send)

    async def _too_big(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = JSONResponse(
            {"detail": f"the request body is larger than {self.limit} bytes", "key": None},
            status_code=413,
        )
        await response(scope, receive, send)


def _error(
    status: int, detail: str, key: str | None, headers: dict[str, str] | None = None
) -> JSONResponse:
    return JSONResponse({"detail": detail, "key": key}, status_code=status, headers=headers)


def create_app(settings: ServiceSettings | None = None) -> FastAPI:
    """The service's app for ``settings`` (the store is opened, the worker pool started and
    games whose AI was to move resumed when the app starts)."""
    if not kinds():
        raise IncompatibleError(
            "no player kinds are registered: import sparring.kinds (or use sparring.api) "
            "before create_app"
        )
    settings = settings or ServiceSettings()
    modules = tuple(sorted({info.module for info in kinds().values() if info.module}))
    service = Service(settings, modules=modules)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if settings.db_url is None:
            settings.data_dir.mkdir(parents=True, exist_ok=True)
        service.store = await asyncio.to_thread(Store.open, settings.url())
        service.catalog = await asyncio.to_thread(build_catalog)
        service.kinds = kinds_json()
        service.start_workers()
        for row in await asyncio.to_thread(service.db.games_awaiting_ai):
            service.schedule_ai(row)
        for row in await asyncio.to_thread(service.db.games_on_the_clock):
            service.watch_clock(row.id, row.human_side, row.clock, row.to_move)
        try:
            yield
        finally:
            for timer in service.flag_timers.values():
                timer.cancel()
            await service.shut_down()

    app = FastAPI(
        title="sparring",
        summary="A game AI as a training partner at any strength",
        lifespan=lifespan,
    )
    app.state.service = service
    app.add_middleware(BodyLimit, limit=settings.max_body)

    @app.exception_handler(SparringError)
    async def _sparring_error(request: Request, exc: SparringError) -> JSONResponse:
        headers = {"Retry-After": str(settings.retry_after)} if exc.http_status == 429 else None
        return _error(exc.http_status, str(exc), exc.key, headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = exc.errors()
        first = errors[0] if errors else {}
        if first.get("type") == "json_invalid":
            return _error(422, "the request body is not valid JSON", None)
        loc = [str(p) for p in first.get("loc", ()) if p not in ("body", "query", "path")]
        where = ".".join(loc) or None
        message = str(first.get("msg", "invalid request"))
        return _error(422, f"{where}: {message}" if where else message, where)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return _error(exc.status_code, str(exc.detail), None)

    async def owned(game_id: str, caller: dict[str, Any]) -> GameRow:
        row = await service.thread(service.db.game, game_id)
        if row.player_id != caller["id"]:
            raise Forbidden("this game belongs to another player")
        return row

    async def state_of(row: GameRow) -> dict[str, Any]:
        """The state of ``row``'s game (the row just read by the caller, and its moves)."""
        move_rows = await service.thread(service.db.moves_of, row.id, analysis_from(row))
        info = service.catalog[row.game]
        return await service.thread(game_state, row, info.game, move_rows, service.sessions)

    async def ongoing_at(game_id: str, caller: dict[str, Any], ply: int, over: str) -> GameRow:
        """The caller's game, still going and at ``ply`` (GameOverError with ``over`` when it
        has ended, StaleError when it is at another ply)."""
        row = await owned(game_id, caller)
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
        row: GameRow, work: Awaitable[dict[str, Any]], by: str | None
    ) -> dict[str, Any]:
        result = await work
        await service.thread(service.store_result, row, result, by)
        service.after_store(row, result)
        fresh = await service.thread(service.db.game, row.id)
        if fresh.ai_to_move:
            service.schedule_ai(fresh)
        return await state_of(fresh)

    async def change_after_cancel(row: GameRow, work: Awaitable[dict[str, Any]]) -> dict[str, Any]:
        """:func:`change` after :meth:`Service.cancel_ai`: should the change fail, the AI is
        asked again for the move it owes (its stopped move was dropped)."""
        try:
            return await change(row, work, None)
        except BaseException:
            fresh = await service.thread(service.db.game, row.id)
            if fresh.ai_to_move:
                service.schedule_ai(fresh)
            raise

    # ---- endpoints ---------------------------------------------------------------------------
    @app.post(
        "/api/players", status_code=201, response_model=PlayerCreated, responses=_errors(body=True)
    )
    async def create_player(body: NewPlayer) -> dict[str, Any]:
        """A new player; the token is shown only in this answer."""
        token = secrets.token_urlsafe(32)
        player_id = uuid.uuid4().hex
        await service.thread(service.db.add_player, player_id, body.name, hash_token(token))
        profile = Profile.new(body.name, id=player_id)

        def put() -> None:
            with service.db.transaction() as conn:
                service.db.put_profile(conn, player_id, profile.to_json())

        await service.thread(put)
        return {"id": player_id, "name": body.name, "token": token}

    @app.post(
        "/api/me/signin-codes",
        status_code=201,
        response_model=SigninCode,
        responses=_errors(401),
    )
    async def signin_code(caller: Caller) -> dict[str, Any]:
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

    @app.post("/api/signin", response_model=PlayerCreated, responses=_errors(401, body=True))
    async def signin(body: SigninBody) -> dict[str, Any]:
        """Sign this device in with a one-time code made on another: the player and a new
        token of its own (shown only here; the other device keeps its token)."""
        token = secrets.token_urlsafe(32)
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

    @app.get("/api/me", response_model=Me, responses=_errors(401))
    async def me(caller: Caller) -> dict[str, Any]:
        """Who the token belongs to."""
        return {"id": caller["id"], "name": caller["name"], "created": caller["created"]}

    @app.get("/api/me/profile", response_model=ProfileModel, responses=_errors(401))
    async def my_profile(caller: Caller) -> dict[str, Any]:
        """The caller's games and strength estimates."""
        data = await service.thread(service.db.read_profile, caller["id"])
        profile = None if data is None else Profile.from_json(data)
        rows = await service.thread(service.db.games_of, caller["id"])
        details = await service.thread(service.db.estimate_details_of, caller["id"])
        return profile_view(caller, profile, rows, details)

    @app.get(
        "/api/players/{player_id}/profile",
        response_model=ProfileModel,
        responses=_errors(401, 403, 422),
    )
    async def player_profile(player_id: str, caller: Caller) -> dict[str, Any]:
        """A player's profile: only its own player may read it (403 otherwise)."""
        if player_id != caller["id"]:
            raise Forbidden("this profile belongs to another player")
        return await my_profile(caller)

    @app.get("/api/catalog", response_model=Catalog, responses=_errors())
    async def catalog() -> dict[str, Any]:
        """The games with their levels, and the player kinds with their settings schemas."""
        return {
            "games": [info.to_json() for info in service.catalog.values()],
            "kinds": service.kinds,
        }

    @app.post(
        "/api/games",
        status_code=201,
        response_model=GameStateModel,
        responses=_errors(401, 404, 409, 429, body=True),
    )
    async def create_game(body: NewGame, caller: Caller) -> dict[str, Any]:
        """A new game against the opponent asked for; the AI moves first when you are
        second."""
        info = service.catalog.get(body.game)
        if info is None:
            raise _unknown_game(body.game, service.catalog)
        opp = body.opponent
        opponent: PlayerSettings
        report: LevelReport | None = None
        clamped: str | None = None
        try:
            if isinstance(opp, SettingsOpponent):
                _no_paths(opp.settings, "settings")
                check_served(opp.settings)
                opponent = settings_from_json(opp.settings)
            else:
                level, clamped = _level_of(opp, info)
                opponent, report = opponent_for(info, level)
        except SparringError as exc:
            if exc.key == "mode":
                exc.key = "kind"  # the request's field: opponent.kind
            if isinstance(exc, IncompatibleError):
                raise _not_offered(exc) from None
            raise
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
        if human == 1 and service.in_flight(caller["id"]) >= settings.max_games_in_flight:
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
                "notices": json.dumps(
                    list(result["notices"]) or _level_notices(report) or _notice(clamped)
                ),
                "hints": int(body.hints),
                "hints_used": 0,
                "clock": None
                if body.clock is None
                else json.dumps(new_clock(body.clock, now_ms())),
            },
        )
        row = await service.thread(service.db.game, game_id)
        if row.ai_to_move:
            service.schedule_ai(row)
        else:
            service.watch_clock(row.id, row.human_side, row.clock, row.to_move)
        return await state_of(row)

    @app.get("/api/games", response_model=list[GameSummary], responses=_errors(401))
    async def list_games(caller: Caller) -> list[dict[str, Any]]:
        """The caller's games, newest first."""
        rows = await service.thread(service.db.games_of, caller["id"])
        return [summary(await service.check_clock(r)) for r in rows]

    @app.get(
        "/api/games/{game_id}", response_model=GameStateModel, responses=_errors(401, 403, 404, 422)
    )
    async def get_game_state(
        game_id: str,
        caller: Caller,
        wait: Annotated[float, Query(ge=0, le=10, allow_inf_nan=False)] = 0.0,
    ) -> dict[str, Any]:
        """The game's state; ``wait`` seconds at most for the AI's move."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait
        moved = service.moved_event(game_id)  # (made before the game is read: no move missed)
        row = await service.check_clock(await owned(game_id, caller))
        while (
            row.ai_to_move and not service.stop_requested() and (left := deadline - loop.time()) > 0
        ):
            # woken when this process stores the game's next change; another server
            # process on the same database (PostgreSQL) is seen by reading again
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(moved.wait(), timeout=min(WAIT_POLL, left))
            moved = service.moved_event(game_id)
            row = await service.thread(service.db.game, game_id)
        return await state_of(row)

    @app.post(
        "/api/games/{game_id}/moves",
        response_model=GameStateModel,
        responses=_errors(401, 403, 404, 409, 429, body=True),
    )
    async def play_move(game_id: str, body: MoveBody, caller: Caller) -> dict[str, Any]:
        """Your move (text as the game writes it) at the ply you expect the game to be at;
        the AI's reply follows in the background (``ai_thinking``)."""
        row = await ongoing_at(game_id, caller, body.ply, "the game is over; no move was played")
        if row.to_move != row.human_side:
            raise StaleError("it is not your turn: the AI is thinking")
        info = service.catalog[row.game]
        session = await service.thread(service.sessions.session, row, info.game)
        move = info.game.parse_move(body.move, session.state)
        if move not in session.legal_moves():
            raise IllegalMoveError(f"{body.move!r} is not a legal move here", "move")
        if service.in_flight(caller["id"]) >= settings.max_games_in_flight:
            raise Busy("too many of your games wait for the AI; try again in a moment")
        work = service.job(worker.human_move, row.snapshot, row.human_side, move, row.id)
        return await change(row, work, "human")

    @app.post(
        "/api/games/{game_id}/undo",
        response_model=GameStateModel,
        responses=_errors(401, 403, 404, 409, 429, body=True),
    )
    async def undo(game_id: str, body: PlyBody, caller: Caller) -> dict[str, Any]:
        """Take back your last move and the AI's reply."""
        row = await ongoing_at(game_id, caller, body.ply, "the game is over; it cannot be undone")
        moves_by_human = [s for s in row.snapshot.get("movers", []) if s == row.human_side]
        if not moves_by_human:
            raise BadValueError("there is no move of yours to take back", "ply")
        service.cancel_ai(row.id)  # the AI's move in flight is dropped: the undo decides
        return await change_after_cancel(
            row, service.job(worker.undo, row.snapshot, row.human_side, row.id)
        )

    @app.post(
        "/api/games/{game_id}/resign",
        response_model=GameStateModel,
        responses=_errors(401, 403, 404, 409, 429, body=True),
    )
    async def resign(game_id: str, body: PlyBody, caller: Caller) -> dict[str, Any]:
        """You resign the game."""
        row = await ongoing_at(game_id, caller, body.ply, "the game is over already")
        service.cancel_ai(row.id)
        return await change_after_cancel(
            row, service.job(worker.resign, row.snapshot, row.human_side, row.id)
        )

    @app.post(
        "/api/games/{game_id}/hint",
        response_model=HintModel,
        responses=_errors(401, 403, 404, 409, 429, body=True),
    )
    async def hint(game_id: str, body: PlyBody, caller: Caller) -> dict[str, Any]:
        """A hint for your move at ``ply``: the top candidate moves of a fixed small search
        of the game's AI (run in the worker pool, bounded by the server's AI time).  Only in
        a game started with ``hints: true``, and never against an adaptive opponent (409:
        it estimates your strength from your moves).  Asked again at the same position, the
        same hint is answered; the game keeps the count of hints shown."""
        row = await ongoing_at(game_id, caller, body.ply, "the game is over; no hint is given")
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
                settings.ai_time,
                lane=service.ai_lane(None),
            )
            if found["analysis"] is None:
                raise NoHints("the AI's search gave no analysis of this position")
            session = await service.thread(service.sessions.session, row, info.game)
            answer = hint_view(info.game, session.state, found["analysis"], row.ply)
            await service.thread(service.db.count_hint, row.id)
            service.hint_cache[row.id] = (row.version, answer)
            return answer

    @app.get(
        "/api/games/{game_id}/record",
        response_class=PlainTextResponse,
        responses={
            200: {"content": {"text/plain": {"schema": {"type": "string"}}}},
            **_errors(401, 403, 404, 409, 422, json_ref=True),
        },
    )
    async def record(
        game_id: str,
        caller: Caller,
        format: Literal["sgf", "pgn", "moves"] | None = None,
    ) -> Response:
        """The game's record: SGF (Go), PGN (chess) or a move list (default: the game's);
        SGF and PGN dated with the day the game began (UTC)."""
        row = await owned(game_id, caller)
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

    add_upload_routes(app, service, _player, owned, _errors)  # estimate and review by rank

    from fastapi.staticfiles import StaticFiles

    # the page (index.html, app.js, style.css, ...) at /, after every /api route
    app.mount("/", StaticFiles(directory=STATIC, html=True, check_dir=False), name="page")

    return app


SIGNIN_MINUTES = 10
"""How long a sign-in code for another device works (once)."""
HINTS_NOT_RATED = (
    "hints are not offered against an adaptive opponent: it estimates your strength from "
    "your moves, and a hint would spoil the estimate"
)


def _level_of(opp: Any, info: GameInfo) -> tuple[Level | None, str | None]:
    """The level a request's opponent asks for (None: the game's default AI), and the notice
    of an Elo outside the range played (:meth:`GameInfo.played_elo`)."""
    if isinstance(opp, EloOpponent):
        elo, notice = info.played_elo(opp.elo)
        return Level.at_elo(elo), notice
    return _other_level(opp), None


def _other_level(opp: Any) -> Level | None:
    """The level of a request's opponent other than an Elo (None: the game's default AI)."""
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


def _notice(text: str | None) -> list[str]:
    return [] if text is None else [text]


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
    from sparring.errors import UnknownGameError

    return UnknownGameError(f"unknown game {name!r}; choose one of {', '.join(catalog)}")


def log_config() -> dict[str, Any]:
    """The server log's configuration (:func:`logging.config.dictConfig`): every line on
    standard error as :data:`LOG_FORMAT` (with its time); uvicorn's own lines from warnings
    up (no access log), the service's (:data:`LOGGER`) from information up (when it stops)."""
    handler = {"class": "logging.StreamHandler", "formatter": "timed", "stream": "ext://sys.stderr"}
    quiet = {"handlers": ["log"], "level": "WARNING", "propagate": False}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"timed": {"format": LOG_FORMAT}},
        "handlers": {"log": handler},
        "loggers": {
            "uvicorn": quiet,
            "uvicorn.error": {"level": "WARNING"},
            "uvicorn.access": quiet,
            LOGGER.name: {"handlers": ["log"], "level": "INFO", "propagate": False},
        },
    }


def run(
    settings: ServiceSettings,
    host: str = "127.0.0.1",
    port: int = 8000,
    echo: Callable[[str], None] = print,
) -> None:
    """Serve ``create_app(settings)`` with uvicorn at ``host:port`` until SIGTERM or SIGINT
    (Ctrl-C), then stop cleanly and return: the requests being answered end (at most
    :data:`REQUEST_GRACE` seconds), the AI moves in flight are dropped and resume at the
    next start, the worker processes end (:meth:`Service.stop_workers`) and with them
    multiprocessing's resource tracker once this process exits.  Log lines carry their time
    (:func:`log_config`)."""
    import uvicorn

    if isinstance(port, bool) or not 0 <= port <= 65535:
        raise BadValueError(f"port must be 0..65535, not {port}", "port")
    if settings.db_url is None:
        settings.data_dir.mkdir(parents=True, exist_ok=True)
    Store.open(settings.url()).close()  # a bad URL or an unreachable database: one line
    app = create_app(settings)
    service: Service = app.state.service
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        log_config=log_config(),
        access_log=False,
        timeout_graceful_shutdown=REQUEST_GRACE,
    )
    server = uvicorn.Server(config)
    service.stop_requested = lambda: server.should_exit
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    echo(f"sparring serve: open http://{shown}:{port}/  (database {settings.url()})")
    caught: list[int] = []
    with _stop_signals(server, caught):
        try:
            server.run()
        finally:
            service.stop_workers()  # (done already unless the app's shutdown was skipped)
    if caught:
        LOGGER.info("stopped (%s)", signal.Signals(caught[0]).name)


@contextlib.contextmanager
def _stop_signals(server: uvicorn.Server, caught: list[int]) -> Iterator[None]:
    """While entered (in the main thread): SIGTERM and SIGINT ask ``server`` to stop and are
    noted in ``caught``.  Uvicorn installs its own handlers while it serves, and raises the
    signals it caught again once it is done, under these handlers: noted, not fatal, so that
    the caller ends the worker processes and this process exits normally (no process left
    behind, exit status 0)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def note(sig: int, frame: FrameType | None) -> None:
        caught.append(sig)
        server.should_exit = True

    stops = (signal.SIGTERM, signal.SIGINT)
    previous = {sig: signal.signal(sig, note) for sig in stops}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


__all__ = ["Service", "ServiceSettings", "create_app", "hash_token", "log_config", "run"]
