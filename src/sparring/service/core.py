"""What one app holds (:class:`Service`): its settings, store, catalog, worker processes
(:class:`~sparring.service.pool.WorkerPool`), AI moves in flight
(:class:`~sparring.service.scheduler.Scheduler`), the games shown last
(:class:`~sparring.service.views.SessionCache`), the requests waiting on games, hints and
clocks; and how a job's result is stored (:meth:`Service.store_result`) and announced
(:meth:`Service.after_store`).

Made once per app by :func:`~sparring.service.app.create_app` (no module-level mutable state);
the routes reach it through :func:`get_service`.  It never blocks the event loop: database
calls run in threads (:meth:`Service.thread`), every change to a game in a worker process
(:meth:`Service.job`).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Request

from sparring.games.base import Game
from sparring.players.registry import settings_from_json
from sparring.players.settings import DSASettings
from sparring.players.settings_base import PlayerSettings
from sparring.profiles import OPPONENT_ELO_ESTIMATE, AdaptiveEntry, GameEntry, Profile
from sparring.service import worker
from sparring.service.catalog import GameInfo, build_catalog, kinds_json
from sparring.service.clock import after_change, left_now, now_ms, out_of_time
from sparring.service.pool import Lane, WorkerPool
from sparring.service.scheduler import Scheduler
from sparring.service.settings import ServiceSettings
from sparring.service.store import GameRow, StaleError, Store
from sparring.service.store import now_text as store_now
from sparring.service.views import (
    RANK_ESTIMATE,
    SessionCache,
    analysis_from,
    game_state,
    session_of,
)
from sparring.strength.dsa import BayesConfig, elo_posterior

LOGGER = logging.getLogger("sparring.service")
T = TypeVar("T")
RANKED_GAMES = ("go", "chess")
"""Games whose strength estimator gives the player's rank after each finished game."""


@dataclass
class Service:
    """What one app holds: settings, store, catalog, worker processes, the AI moves in
    flight and the per-game state of requests (waits, hints, clocks)."""

    settings: ServiceSettings
    modules: tuple[str, ...] = ()
    """The modules that registered the player kinds (imported by every worker process)."""
    store: Store | None = None
    catalog: dict[str, GameInfo] = field(default_factory=dict)
    kinds: list[dict[str, Any]] = field(default_factory=list)
    pool: WorkerPool = field(init=False)
    """The worker processes and the stop flags of the AI moves."""
    scheduler: Scheduler = field(init=False)
    """The AI moves in flight, one record per game."""
    background: set[asyncio.Task[None]] = field(default_factory=set)
    moved: dict[str, asyncio.Event] = field(default_factory=dict)
    """Per game that a request waits on (``GET ?wait``): set at the game's next stored change."""
    stop_requested: Callable[[], bool] = lambda: False
    """Whether the server was asked to stop (:func:`~sparring.service.app.run` reads
    uvicorn's flag): a request waiting on a game answers at once instead of holding the stop
    up."""
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

    def __post_init__(self) -> None:
        self.pool = WorkerPool(self.settings, self.modules, self._stopping)
        self.scheduler = Scheduler(
            self.pool,
            self.settings.ai_time,
            read=lambda game_id: self.thread(self.db.game, game_id),
            store=lambda row, result: self.thread(self.store_result, row, result, "ai"),
            after=self.after_store,
            stopping=self._stopping,
        )

    def _stopping(self) -> bool:
        return self.stopping or self.stop_requested()

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
        """``fn(*args)`` in a worker process (:meth:`WorkerPool.job`)."""
        return await self.pool.job(fn, *args, queued=queued, lane=lane)

    def ai_lane(self, game_id: str | None) -> Lane:
        """The AI lane for a job of ``game_id`` (the lane of its last AI move unless that is
        busier; None: a job of no game, the least busy)."""
        move = None if game_id is None else self.scheduler.moves.get(game_id)
        return self.pool.lanes[self.pool.ai_lane(None if move is None else move.lane)]

    async def start(self) -> None:
        """Start what the app needs (its lifespan's start): the store opened, the catalog
        built, the worker processes started, the games whose AI is to move resumed and the
        running clocks watched."""
        settings = self.settings
        if settings.db_url is None:
            settings.data_dir.mkdir(parents=True, exist_ok=True)
        self.store = await asyncio.to_thread(Store.open, settings.url())
        self.catalog = await asyncio.to_thread(build_catalog)
        self.kinds = kinds_json()
        self.pool.start()
        for row in await asyncio.to_thread(self.db.games_awaiting_ai):
            self.schedule_ai(row)
        for row in await asyncio.to_thread(self.db.games_on_the_clock):
            self.watch_clock(row.id, row.human_side, row.clock, row.to_move)

    def stop_workers(self) -> None:
        """End the worker processes now and wait for them (:meth:`WorkerPool.stop`):
        blocking, bounded, and a no-op the second time."""
        self.stopping = True
        self.pool.stop()

    async def shut_down(self) -> None:
        """Stop everything the app started (its lifespan's end): the clocks' timers, the AI
        moves in flight stopped and dropped (their games resume at the next start), the
        background tasks cancelled, the worker processes ended (:meth:`stop_workers`), the
        store closed."""
        for timer in self.flag_timers.values():
            timer.cancel()
        pending = self.scheduler.pending()
        if pending:
            LOGGER.info(
                "stopping: %d AI move(s) in flight resume at the next start (games %s)",
                len(pending),
                ", ".join(pending),
            )
        for game_id in pending:
            self.cancel_ai(game_id)
        tasks = [*self.scheduler.tasks(), *self.background]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await asyncio.to_thread(self.stop_workers)
        if self.store is not None:
            self.store.close()

    def cancel_ai(self, game_id: str) -> None:
        """Ask the AI move in flight in ``game_id`` (if any) to stop now: its result will
        not be stored (the game changed), and its worker is free sooner."""
        self.scheduler.cancel(game_id)

    def in_flight(self, player_id: str) -> int:
        """AI moves the player waits for now."""
        return self.scheduler.in_flight(player_id)

    def schedule_ai(self, row: GameRow) -> None:
        """Ask for the AI's move in ``row``'s game (:meth:`Scheduler.schedule`)."""
        self.scheduler.schedule(row)

    async def state_of(self, row: GameRow) -> dict[str, Any]:
        """The state of ``row``'s game (the row just read by the caller, and its moves)."""
        move_rows = await self.thread(self.db.moves_of, row.id, analysis_from(row))
        info = self.catalog[row.game]
        return await self.thread(game_state, row, info.game, move_rows, self.sessions)

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
            self.scheduler.forget(row.id)
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
            texts = [await self.thread(export_record, r, game) for r in finished]
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


def export_record(row: GameRow, game: Game) -> str:
    """The stored game's record in its game's format (SGF, PGN)."""
    return session_of(row, game).export()


def get_service(request: Request) -> Service:
    """The app's :class:`Service` (a dependency of the routes)."""
    service: Service = request.app.state.service
    return service


ServiceDep = Annotated[Service, Depends(get_service)]
"""A route's parameter that receives the app's :class:`Service`."""


__all__ = ["RANKED_GAMES", "Service", "ServiceDep", "export_record", "get_service"]
