"""The AI's moves in flight: one :class:`AIMove` record per game whose AI is asked to move,
owned by the :class:`Scheduler`.

A game's AI move is asked for (:meth:`Scheduler.schedule`) when a change leaves the AI to
move (the person's move, a new game where the AI moves first, an undo whose stopped move is
owed again, a game found waiting for it when the server starts).  One asyncio task per game
then runs the record through its states:

``wanted``
    asked for: the task reads the game (nothing to do when the AI is no longer to move);
``thinking``
    sent to an AI worker lane (:attr:`AIMove.lane`) with a stop flag (:attr:`AIMove.slot`)
    and a deadline (:attr:`AIMove.deadline`: the search's time limit, ``ai_time`` after it was
    sent);
``storing``
    its result back and being stored;
``done``, ``failed``
    the task ended (stored, nothing to do, dropped; or an error, logged).

A change of the game while its AI thinks (an undo, a resignation) cancels the move
(:meth:`Scheduler.cancel`: its stop flag raised, :attr:`AIMove.cancelled`): the worker plays
its best move so far at once and the result is dropped, the change decides.  A move asked for
again while its task runs (:attr:`AIMove.wanted`) makes the task read the game again before
it ends, and a result computed from a game that moved on meanwhile (:class:`StaleError` when
it is stored) is dropped and the AI thinks again, up to :data:`MAX_STALE` times.  The record
of a game's last AI move stays, with its lane (the game's next AI move goes there, where its
positions are cached and its session kept live), until the game is over
(:meth:`Scheduler.forget`).
"""

from __future__ import annotations

import asyncio
import enum
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from sparring.service import worker
from sparring.service.pool import WorkerPool
from sparring.service.store import GameRow, StaleError

LOGGER = logging.getLogger("sparring.service")
MAX_STALE = 5
"""Results of one game's AI found stale (the game moved on) before its task gives up (the
next change of the game asks again)."""


class MoveState(enum.Enum):
    """Where an :class:`AIMove` is (see the module docstring)."""

    WANTED = "wanted"
    THINKING = "thinking"
    STORING = "storing"
    DONE = "done"
    FAILED = "failed"


class TransitionError(RuntimeError):
    """A state change an :class:`AIMove` does not make (a bug in its caller)."""


@dataclass
class AIMove:
    """The AI's move in one game, from the moment it is asked for until its task ends."""

    game_id: str
    owner: str
    """The player whose game it is (their moves in flight are bounded)."""
    state: MoveState = MoveState.WANTED
    wanted: bool = True
    """Asked for since the task last read the game: it reads the game (again) before it
    ends."""
    lane: int | None = None
    """The AI lane of its search (while ``thinking`` and after: the game's next AI move goes
    there too); None before the first."""
    slot: int = -1
    """Its stop flag while ``thinking`` (-1: none)."""
    cancelled: bool = False
    """Stopped for a change of the game while ``thinking``: its result is dropped."""
    deadline: float | None = None
    """When its search must have ended (the event loop's clock: sent + ``ai_time``), while
    ``thinking``; None otherwise."""
    stale: int = 0
    """Its results found stale so far (the game moved on before they were stored)."""
    forgotten: bool = False
    """The game is over: the record goes once its task ends."""
    task: asyncio.Task[None] | None = None

    @property
    def active(self) -> bool:
        """Whether its task still runs (wanted, thinking or storing)."""
        return self.state in (MoveState.WANTED, MoveState.THINKING, MoveState.STORING)

    def _expect(self, *states: MoveState) -> None:
        if self.state not in states:
            wanted = " or ".join(s.value for s in states)
            raise TransitionError(
                f"AI move of game {self.game_id}: {self.state.value}, not {wanted}"
            )

    def next_read(self) -> bool:
        """Whether the task reads the game (again): asked for since its last read and fewer
        than :data:`MAX_STALE` stale results.  Clears :attr:`wanted`."""
        self._expect(MoveState.WANTED)
        go = self.wanted and self.stale < MAX_STALE
        self.wanted = False
        return go

    def start(self, lane: int, slot: int, now: float, seconds: float) -> None:
        """``wanted`` -> ``thinking``: sent to AI lane ``lane`` with stop flag ``slot``,
        thinking at most ``seconds`` from ``now``."""
        self._expect(MoveState.WANTED)
        self.state = MoveState.THINKING
        self.lane, self.slot, self.cancelled = lane, slot, False
        self.deadline = now + seconds

    def cancel(self) -> int:
        """Drop the result of the search in flight (its game changed): the stop flag to
        raise (-1: none, the move is not ``thinking``, or it has no flag)."""
        if self.state is not MoveState.THINKING:
            return -1
        self.cancelled = True
        return self.slot

    def back(self) -> int:
        """``thinking`` -> ``storing``, or back to ``wanted`` when it was cancelled (its result
        dropped); the stop flag to give back (-1: none)."""
        self._expect(MoveState.THINKING)
        slot, self.slot, self.deadline = self.slot, -1, None
        self.state = MoveState.WANTED if self.cancelled else MoveState.STORING
        self.cancelled = False
        return slot

    def stored(self) -> None:
        """``storing`` -> ``wanted`` (the task ends unless it was asked for again)."""
        self._expect(MoveState.STORING)
        self.state = MoveState.WANTED

    def found_stale(self) -> None:
        """``storing`` -> ``wanted``: the game moved on before the result was stored; the
        AI thinks again (:attr:`stale` counts it)."""
        self._expect(MoveState.STORING)
        self.stale += 1
        self.wanted = True
        self.state = MoveState.WANTED

    def end(self, failed: bool = False) -> int:
        """The task ended: ``done`` (or ``failed``); the stop flag it still held to give
        back (-1: none)."""
        slot, self.slot, self.deadline = self.slot, -1, None
        self.state = MoveState.FAILED if failed else MoveState.DONE
        self.wanted = self.cancelled = False
        return slot

    def left(self, now: float) -> float | None:
        """Seconds from ``now`` to its deadline (below 0: past it); None when not
        ``thinking``."""
        return None if self.deadline is None else self.deadline - now


ReadGame = Callable[[str], Awaitable[GameRow]]
StoreResult = Callable[[GameRow, dict[str, Any]], Awaitable[None]]
AfterStore = Callable[[GameRow, dict[str, Any]], None]


class Scheduler:
    """The AI moves of one app: a record per game (:attr:`moves`), their tasks, their
    worker lanes and stop flags (``pool``).  ``read`` reads a game, ``store`` stores an AI
    move's result computed from a row (:class:`StaleError` when the game moved on),
    ``after`` runs after it is stored (waking the requests waiting on it); ``stopping()``
    says whether the server is stopping (a failure then is logged as a drop); ``clock()``
    is the time of the deadlines (None: the event loop's clock)."""

    def __init__(
        self,
        pool: WorkerPool,
        ai_time: float,
        read: ReadGame,
        store: StoreResult,
        after: AfterStore,
        stopping: Callable[[], bool] = lambda: False,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.pool = pool
        self.ai_time = ai_time
        self.read = read
        self.store = store
        self.after = after
        self.stopping = stopping
        self.clock = clock
        self.moves: dict[str, AIMove] = {}
        """The record of each game's AI move in flight, or of its last one (until the game is
        over)."""

    def schedule(self, row: GameRow) -> AIMove:
        """Ask for the AI's move in ``row``'s game: a new record and its task, or (when one
        runs) its record asked for again, so that the task reads the game again before it
        ends.  (The event loop runs one step at a time: a running task either still has to
        look at :attr:`AIMove.wanted`, or is done.)"""
        move = self.moves.get(row.id)
        if move is not None and move.active:
            move.wanted = True
            return move
        lane = None if move is None else move.lane
        move = AIMove(row.id, row.player_id, lane=lane)
        self.moves[row.id] = move
        move.task = asyncio.get_running_loop().create_task(self._run(move))
        return move

    def cancel(self, game_id: str) -> None:
        """Stop the AI move in flight in ``game_id`` (if it is thinking): its result will not
        be stored (the game changed), and its worker is free sooner."""
        move = self.moves.get(game_id)
        if move is not None:
            self.pool.raise_flag(move.cancel())

    def forget(self, game_id: str) -> None:
        """The game is over: its record goes (once its task ends, if it runs)."""
        move = self.moves.get(game_id)
        if move is None:
            return
        if move.active:
            move.forgotten = True
        else:
            del self.moves[game_id]

    def in_flight(self, player_id: str) -> int:
        """AI moves the player waits for now."""
        return sum(1 for m in self.moves.values() if m.owner == player_id and m.active)

    def pending(self) -> list[str]:
        """The games whose AI move is in flight, sorted."""
        return sorted(gid for gid, m in self.moves.items() if m.active)

    def tasks(self) -> list[asyncio.Task[None]]:
        """The tasks of the AI moves (those that ended too)."""
        return [m.task for m in self.moves.values() if m.task is not None]

    async def _run(self, move: AIMove) -> None:
        """The task of ``move``: its game read, searched and stored while it is wanted."""
        failed = False
        try:
            while move.next_read():
                began = time.perf_counter()
                row = await self.read(move.game_id)
                if not row.ai_to_move:
                    continue
                read = time.perf_counter()
                lane = self.pool.ai_lane(move.lane)
                now = self.clock() if self.clock else asyncio.get_running_loop().time()
                move.start(lane, self.pool.take_slot(), now, self.ai_time)
                try:
                    result = await self.pool.job(
                        worker.ai_move,
                        row.snapshot,
                        row.human_side,
                        self.ai_time,
                        move.slot,
                        row.id,
                        queued=False,
                        lane=self.pool.lanes[lane],
                    )
                finally:
                    self.pool.free_slot(move.back())
                back = time.perf_counter()
                if move.state is MoveState.WANTED:
                    continue  # cancelled for a change of the game: that change decides
                try:
                    await self.store(row, result)
                except StaleError:
                    move.found_stale()
                    continue
                stored = time.perf_counter()
                move.stored()
                self.after(row, result)
                if LOGGER.isEnabledFor(logging.DEBUG):
                    log_steps(row, result, (began, read, back, stored, time.perf_counter()))
        except asyncio.CancelledError:
            raise
        except Exception:
            failed = True
            if self.stopping():
                # e.g. its worker got the stop signal too (systemd signals the whole group)
                LOGGER.info("AI move in game %s dropped by the stop", move.game_id)
            else:
                LOGGER.exception("AI move in game %s failed", move.game_id)
        finally:
            self.pool.free_slot(move.end(failed))
            if move.forgotten and self.moves.get(move.game_id) is move:
                del self.moves[move.game_id]


def log_steps(row: GameRow, result: dict[str, Any], stamps: tuple[float, ...]) -> None:
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


__all__ = ["MAX_STALE", "AIMove", "MoveState", "Scheduler", "TransitionError"]
