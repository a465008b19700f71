"""The service's AI-move record and its scheduler, without worker processes: the record's
states (wanted, thinking, storing, done, failed), its cancel, its deadline and its lane; the
scheduler's tasks with a pool whose jobs the test releases one by one."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any, cast

import pytest

from sparring.service import worker
from sparring.service.pool import Lane, WorkerPool
from sparring.service.scheduler import MAX_STALE, AIMove, MoveState, Scheduler, TransitionError
from sparring.service.settings import ServiceSettings
from sparring.service.store import GameRow, StaleError


# ---- the record ---------------------------------------------------------------------------------
def test_a_move_is_wanted_then_thinking_then_storing_then_done() -> None:
    move = AIMove("g1", "p1")
    assert (move.state, move.wanted, move.lane, move.slot, move.deadline) == (
        MoveState.WANTED,
        True,
        None,
        -1,
        None,
    )
    assert move.active
    assert move.next_read() is True and move.wanted is False
    move.start(lane=1, slot=7, now=100.0, seconds=2.0)
    assert (move.state, move.lane, move.slot, move.deadline) == (MoveState.THINKING, 1, 7, 102.0)
    assert move.back() == 7  # the stop flag to give back
    assert (move.state, move.slot, move.deadline) == (MoveState.STORING, -1, None)
    move.stored()
    assert move.state is MoveState.WANTED and move.next_read() is False  # not asked again
    assert move.end() == -1
    assert (move.state, move.active, move.lane) == (MoveState.DONE, False, 1)


def test_the_deadline_is_the_search_time_after_the_start() -> None:
    move = AIMove("g1", "p1")
    assert move.left(5.0) is None  # not thinking: no deadline
    move.next_read()
    move.start(lane=0, slot=-1, now=40.5, seconds=2.0)
    assert move.deadline == 42.5
    assert move.left(41.25) == 1.25
    assert move.left(43.0) == -0.5  # past it
    move.back()
    assert move.left(41.0) is None


def test_a_cancelled_move_drops_its_result_and_gives_back_its_flag() -> None:
    move = AIMove("g1", "p1")
    assert move.cancel() == -1 and move.cancelled is False  # wanted: nothing to stop
    move.next_read()
    move.start(lane=0, slot=3, now=0.0, seconds=1.0)
    assert move.cancel() == 3 and move.cancelled is True
    assert move.back() == 3
    assert (move.state, move.cancelled, move.slot) == (MoveState.WANTED, False, -1)  # dropped
    assert move.next_read() is False  # not asked again: the change decides


def test_stale_results_are_retried_up_to_the_limit() -> None:
    move = AIMove("g1", "p1")
    for attempt in range(MAX_STALE):
        assert move.next_read() is True, attempt
        move.start(lane=0, slot=-1, now=0.0, seconds=1.0)
        move.back()
        move.found_stale()
        assert (move.stale, move.wanted, move.state) == (attempt + 1, True, MoveState.WANTED)
    assert move.next_read() is False  # wanted, but MAX_STALE (5) stale results already
    assert move.stale == 5


def test_the_record_refuses_the_changes_it_does_not_make() -> None:
    move = AIMove("g1", "p1")
    with pytest.raises(TransitionError, match="g1: wanted, not thinking"):
        move.back()
    with pytest.raises(TransitionError, match="wanted, not storing"):
        move.stored()
    move.start(lane=0, slot=-1, now=0.0, seconds=1.0)
    with pytest.raises(TransitionError, match="thinking, not wanted"):
        move.start(lane=0, slot=-1, now=0.0, seconds=1.0)
    with pytest.raises(TransitionError, match="thinking, not storing"):
        move.found_stale()
    assert move.end(failed=True) == -1
    assert (move.state, move.active) == (MoveState.FAILED, False)


# ---- the scheduler ------------------------------------------------------------------------------
def _row(game_id: str = "g1", ai_to_move: bool = True) -> GameRow:
    return GameRow(
        id=game_id, player_id="p1", game="connect4", game_params={}, opponent={},
        opponent_label="AI", human_side=0, status="ongoing", result=None, ply=3,
        to_move=1 if ai_to_move else 0, version=2, snapshot={"moves": [3, 3, 4]}, created="",
        updated="", adaptive_key=None, notices=[],
    )  # fmt: skip


class Jobs:
    """A pool's ``job`` whose calls wait until the test releases them (with a result or an
    error), in order."""

    def __init__(self) -> None:
        self.calls: list[tuple[Callable[..., Any], tuple[Any, ...], Lane | None]] = []
        self.waiting: list[asyncio.Future[dict[str, Any]]] = []

    async def job(
        self, fn: Callable[..., Any], *args: Any, queued: bool = True, lane: Lane | None = None
    ) -> Any:
        self.calls.append((fn, args, lane))
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.waiting.append(future)
        return await future

    def release(self, result: dict[str, Any] | BaseException) -> None:
        future = self.waiting.pop(0)
        if isinstance(result, BaseException):
            future.set_exception(result)
        else:
            future.set_result(result)


class Harness:
    """A scheduler over a pool of two lanes and four stop flags (no processes), a store
    that records what it is given (or raises what the test says), and a clock at 50.0."""

    def __init__(self, rows: dict[str, GameRow]) -> None:
        self.rows = rows
        self.pool = WorkerPool(ServiceSettings(workers=2, max_queue=2))
        self.pool.lanes = [Lane(cast(Any, None)), Lane(cast(Any, None))]
        self.pool.stops = bytearray(4)
        self.pool.free_slots = [0, 1, 2, 3]
        self.jobs = Jobs()
        self.pool.job = self.jobs.job  # type: ignore[method-assign]
        self.stored: list[tuple[str, dict[str, Any]]] = []
        self.announced: list[str] = []
        self.store_error: Exception | None = None
        self.scheduler = Scheduler(
            self.pool, 2.0, self.read, self.store, self.after, clock=lambda: 50.0
        )

    async def read(self, game_id: str) -> GameRow:
        return self.rows[game_id]

    async def store(self, row: GameRow, result: dict[str, Any]) -> None:
        if self.store_error is not None:
            raise self.store_error
        self.stored.append((row.id, result))

    def after(self, row: GameRow, result: dict[str, Any]) -> None:
        self.announced.append(row.id)


async def _settle() -> None:
    """Let the scheduler's tasks run until they wait again."""
    for _ in range(10):
        await asyncio.sleep(0)


def test_an_ai_move_is_searched_on_a_lane_with_a_flag_and_stored() -> None:
    async def scenario() -> None:
        h = Harness({"g1": _row()})
        move = h.scheduler.schedule(_row())
        await _settle()
        ((fn, args, lane),) = h.jobs.calls
        assert fn is worker.ai_move
        assert args == ({"moves": [3, 3, 4]}, 0, 2.0, 3, "g1")  # slot 3: the last free flag
        assert lane is h.pool.lanes[0]
        assert (move.state, move.lane, move.slot, move.deadline) == (
            MoveState.THINKING, 0, 3, 52.0,
        )  # fmt: skip
        assert h.pool.stops[3] == 0 and h.pool.free_slots == [0, 1, 2]
        assert h.scheduler.in_flight("p1") == 1 and h.scheduler.in_flight("p2") == 0
        assert h.scheduler.pending() == ["g1"]
        h.jobs.release({"move": 5})
        await _settle()
        assert h.stored == [("g1", {"move": 5})] and h.announced == ["g1"]
        assert (move.state, move.slot, move.deadline) == (MoveState.DONE, -1, None)
        assert h.pool.free_slots == [0, 1, 2, 3]
        assert h.scheduler.in_flight("p1") == 0 and h.scheduler.pending() == []
        assert h.scheduler.moves["g1"] is move  # kept, with its lane, until the game is over

    asyncio.run(scenario())


def test_a_cancelled_move_raises_its_flag_and_is_not_stored() -> None:
    async def scenario() -> None:
        h = Harness({"g1": _row()})
        move = h.scheduler.schedule(_row())
        await _settle()
        h.scheduler.cancel("g1")
        assert h.pool.stops[3] == 1 and move.cancelled
        h.jobs.release({"move": 5})  # the worker's best move so far
        await _settle()
        assert h.stored == [] and h.announced == []
        assert move.state is MoveState.DONE and h.pool.free_slots == [0, 1, 2, 3]

    asyncio.run(scenario())


def test_a_move_asked_for_again_while_cancelled_is_searched_again() -> None:
    async def scenario() -> None:
        h = Harness({"g1": _row()})
        move = h.scheduler.schedule(_row())
        await _settle()
        h.scheduler.cancel("g1")
        assert h.scheduler.schedule(_row()) is move  # (an undo left the AI to move again)
        h.jobs.release({"move": 5})
        await _settle()
        assert len(h.jobs.calls) == 2 and h.stored == []
        assert move.state is MoveState.THINKING and move.cancelled is False
        h.jobs.release({"move": 6})
        await _settle()
        assert h.stored == [("g1", {"move": 6})] and move.state is MoveState.DONE

    asyncio.run(scenario())


def test_stale_results_are_searched_again_five_times_at_most() -> None:
    async def scenario() -> None:
        h = Harness({"g1": _row()})
        h.store_error = StaleError("the game moved on")
        move = h.scheduler.schedule(_row())
        for _ in range(MAX_STALE):
            await _settle()
            h.jobs.release({"move": 5})
        await _settle()
        assert len(h.jobs.calls) == 5 and h.jobs.waiting == []
        assert (move.state, move.stale, h.stored) == (MoveState.DONE, 5, [])

    asyncio.run(scenario())


def test_nothing_is_searched_when_the_ai_is_not_to_move() -> None:
    async def scenario() -> None:
        h = Harness({"g1": _row(ai_to_move=False)})
        move = h.scheduler.schedule(_row())
        await _settle()
        assert h.jobs.calls == [] and move.state is MoveState.DONE and move.lane is None

    asyncio.run(scenario())


def test_a_games_next_move_goes_to_the_lane_of_its_last_one() -> None:
    async def scenario() -> None:
        h = Harness({"g1": _row()})
        h.pool.lanes[0].jobs = 1  # lane 0 busy: the first move goes to lane 1
        first = h.scheduler.schedule(_row())
        await _settle()
        h.jobs.release({"move": 5})
        await _settle()
        h.pool.lanes[0].jobs = 0
        second = h.scheduler.schedule(_row())
        assert second is not first and second.lane == 1  # the game's lane carried over
        await _settle()
        assert second.lane == 1 and h.jobs.calls[-1][2] is h.pool.lanes[1]
        h.pool.lanes[1].jobs = 2  # (two jobs busier than lane 0: the least busy wins)
        assert h.pool.ai_lane(1) == 0 and h.pool.ai_lane(None) == 0
        h.jobs.release({"move": 6})
        await _settle()

    asyncio.run(scenario())


def test_a_finished_game_is_forgotten_once_its_task_ends() -> None:
    async def scenario() -> None:
        h = Harness({"g1": _row(), "g2": _row("g2")})
        h.scheduler.schedule(_row())
        h.scheduler.schedule(_row("g2"))
        await _settle()
        h.scheduler.forget("g1")  # (its game ended meanwhile)
        assert list(h.scheduler.moves) == ["g1", "g2"]
        h.jobs.release({"move": 5})
        h.jobs.release({"move": 6})
        await _settle()
        assert list(h.scheduler.moves) == ["g2"]
        h.scheduler.forget("g2")
        h.scheduler.forget("g3")  # (no record: nothing to do)
        assert h.scheduler.moves == {}

    asyncio.run(scenario())


class Lines(logging.Handler):
    """The messages of the records it is given."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def test_a_failed_search_is_logged_and_frees_its_flag() -> None:
    async def scenario() -> AIMove:
        h = Harness({"g1": _row()})
        move = h.scheduler.schedule(_row())
        await _settle()
        h.jobs.release(RuntimeError("the worker broke"))
        await _settle()
        assert h.pool.free_slots == [0, 1, 2, 3] and h.stored == []
        return move

    lines = Lines()
    logger = logging.getLogger("sparring.service")
    logger.addHandler(lines)
    try:
        move = asyncio.run(scenario())
    finally:
        logger.removeHandler(lines)
    assert (move.state, move.active) == (MoveState.FAILED, False)
    assert lines.lines == ["AI move in game g1 failed"]
