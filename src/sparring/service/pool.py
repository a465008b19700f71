"""The service's worker processes: one :class:`Lane` (a process and its jobs) per AI worker
and one for the quick jobs, and the shared stop flags of the AI moves in flight.

Every change to a game runs as a job of :mod:`sparring.service.worker` in one of these
processes, never in the server's event loop.  The quick lane takes new games, the person's
moves, undo and resign, so that these never wait behind a search; AI moves (and rank
estimates, reviews) go to the AI lanes, a game's moves to the lane of its last one while that
is not much busier than the others (its positions are in that process's evaluation cache, its
session kept live there).  A stop flag is a byte of a shared array that a worker reads between
the simulations of a search (:func:`worker.ai_move`): the server sets it to stop an AI move
whose game changed meanwhile.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import multiprocessing
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from multiprocessing.process import BaseProcess
from typing import Any, TypeVar

from sparring.errors import SparringError
from sparring.service import worker
from sparring.service.settings import ServiceSettings

LOGGER = logging.getLogger("sparring.service")
T = TypeVar("T")


class Busy(SparringError):
    """The service is full (the worker queue, or the player's games in flight)."""

    http_status = 429


@dataclass
class Lane:
    """One worker process and the jobs sent to it that have not ended."""

    pool: ProcessPoolExecutor
    jobs: int = 0


class WorkerPool:
    """The worker processes of one app: ``settings.workers`` AI lanes and the quick one,
    started by :meth:`start`; ``modules`` (those that registered the player kinds) are
    imported by every process; ``stopping()`` says whether the server is stopping (a worker
    that died then is not replaced)."""

    def __init__(
        self,
        settings: ServiceSettings,
        modules: tuple[str, ...] = (),
        stopping: Callable[[], bool] = lambda: False,
    ) -> None:
        self.settings = settings
        self.modules = modules
        self.stopping = stopping
        self.lanes: list[Lane] = []
        """The worker processes of AI moves (and rank estimates), one process per lane."""
        self.quick: Lane | None = None
        """The worker process of the quick jobs: new games, people's moves, undo, resign."""
        self.jobs = 0
        """Jobs sent and not ended, all lanes together."""
        self.stops: Any = None
        """Shared stop flags of the AI moves in flight (one slot each), seen by the workers."""
        self.free_slots: list[int] = []
        self.ended = False
        """Set once :meth:`stop` ran: no lane is replaced any more."""

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
            if lane.pool is pool and not (self.ended or self.stopping()):
                pool.shutdown(wait=False, cancel_futures=True)
                lane.pool = self.new_pool()
            raise Busy("a worker process stopped; try again in a moment") from None
        finally:
            self.jobs -= 1
            lane.jobs -= 1

    def least_busy(self) -> int:
        """The index of the AI lane with the fewest jobs (the first of those)."""
        return min(range(len(self.lanes)), key=lambda i: self.lanes[i].jobs)

    def ai_lane(self, last: int | None) -> int:
        """The AI lane for a game's AI move: ``last`` (the lane of its last one) while that
        is at most one job busier than the least busy lane, else the least busy (None: a
        game without a last lane, or a job of no game)."""
        least = self.least_busy()
        if (
            last is None
            or last >= len(self.lanes)
            or self.lanes[last].jobs > self.lanes[least].jobs + 1
        ):
            return least
        return last

    def take_slot(self) -> int:
        """A stop flag for an AI move, lowered (-1: none is free; the move cannot be
        stopped early)."""
        if not self.free_slots:
            return -1
        slot = self.free_slots.pop()
        self.stops[slot] = 0
        return slot

    def free_slot(self, slot: int) -> None:
        """Give back a stop flag of :meth:`take_slot` (-1: none)."""
        if slot >= 0:
            self.free_slots.append(slot)

    def raise_flag(self, slot: int) -> None:
        """Ask the AI move holding stop flag ``slot`` to stop now."""
        if slot >= 0:
            self.stops[slot] = 1

    def start(self) -> None:
        """Start the worker processes (``settings.workers`` AI lanes and the quick one)."""
        self.lanes = [Lane(self.new_pool()) for _ in range(self.settings.workers)]
        self.quick = Lane(self.new_pool())
        for lane in (*self.lanes, self.quick):  # started now, not on the first job
            lane.pool.submit(worker.warm_up)

    def stop(self) -> None:
        """End the worker processes now and wait for them.  The jobs in flight are dropped:
        an AI move is not stored, its game still awaits it and gets it at the next start
        (as after a crash).  The processes hold nothing that needs an orderly exit (no
        database, no file written; a job's result only counts once the server stored it),
        so they are terminated (SIGTERM; SIGKILL for one still there a second later)
        rather than left to an interpreter teardown that takes a second or more once a
        network is loaded.  Blocking, bounded, and a no-op the second time."""
        self.ended = True
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


__all__ = ["Busy", "Lane", "WorkerPool"]
