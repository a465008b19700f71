"""The execution seam: where the games of a run are played.

A run (a match, a tournament, a set of series) turns its configuration into *tasks* (plain,
picklable values: :class:`~sparring.evaluation.match.GameTask`,
:class:`~sparring.evaluation.series.SeriesTask`) and hands them, with the :class:`Job` that
says how one task is played, to a :class:`Backend`.  The backend plays them wherever it plays
(this process, a local process pool, a Ray cluster) and gives every finished game back to the
driver, in the driver's process, through ``deliver``; the driver alone writes the game store.
So the store's keys, what a re-run resumes and the games themselves (their moves, seeds and
results) do not depend on the backend.

Backends:

* :class:`LocalBackend` ``(workers)``: the calling process (``workers == 1``) or a
  :class:`~concurrent.futures.ProcessPoolExecutor` on the local machine, as described in
  :mod:`sparring.evaluation.match` (the default everywhere);
* :class:`~sparring.evaluation.ray_backend.RayBackend` ``(address)``: Ray tasks on a Ray
  cluster, in the optional extra ``sparring[ray]`` (see ``docs/research/ray.md``).

Every backend returns a :class:`RunCost`: games, wall seconds and the CPU seconds the
processes that played them spent, so that runs on different backends can be compared
(games per second, CPU seconds per game).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from sparring.errors import ConfigError
from sparring.evaluation.store import GameRecord

T = TypeVar("T")

Deliver = Callable[[GameRecord], None]
"""Receives, in the driver's process, every game a backend finished (each key once)."""


@dataclass(frozen=True)
class Job(Generic[T]):
    """How a task of one kind is played: what a backend needs to know about a run's tasks.

    ``iterate`` and ``pool`` must be module-level functions (a remote worker receives
    ``iterate`` by reference: its module is imported there).
    """

    name: str
    """What a task is, in messages: ``"game"`` or ``"series"``."""
    iterate: Callable[[T], Iterator[GameRecord]]
    """Plays one task in the current process, yielding each of its games as it ends."""
    pool: Callable[[Sequence[T], int, Deliver], float]
    """Plays tasks in a local pool of that many worker processes, delivering every game in
    the calling process as it ends; returns the CPU seconds the workers spent on them."""


@dataclass(frozen=True)
class RunCost:
    """What playing a run's games cost on one backend."""

    backend: str
    """The backend's description, e.g. ``"local (2 workers)"`` or ``"ray (2 CPUs)"``."""
    games: int
    """Games delivered (each key counted once)."""
    seconds: float
    """Wall seconds from the first task handed out to the last game delivered."""
    cpu_seconds: float
    """CPU seconds (user + system, all threads) of the processes that played the games,
    measured around each task or game in those processes (retried work that was lost is not
    counted)."""

    @property
    def games_per_second(self) -> float:
        """Games per wall second (0 when nothing was played)."""
        return self.games / self.seconds if self.seconds > 0 else 0.0

    @property
    def cpu_seconds_per_game(self) -> float:
        """CPU seconds per game (0 when nothing was played)."""
        return self.cpu_seconds / self.games if self.games else 0.0

    def line(self) -> str:
        """One line for the console: games per second and CPU seconds per game."""
        return (
            f"{self.backend}: {self.games} games in {self.seconds:.1f} s, "
            f"{self.games_per_second:.2f} games/s, "
            f"{self.cpu_seconds_per_game:.3f} CPU-s per game"
        )


class Backend(Protocol):
    """Plays tasks and hands every finished game to the driver (see the module docstring)."""

    @property
    def description(self) -> str:
        """The backend in a line of text, e.g. ``"local (2 workers)"``."""
        ...

    def run(self, job: Job[T], tasks: Sequence[T], deliver: Deliver) -> RunCost:
        """Play ``tasks``, calling ``deliver`` in this process with each finished game as it
        arrives (games of one task in order; each game key at most once).

        On any error, or Ctrl-C, the backend stops its work in flight (those games are lost:
        a re-run plays them) and raises it; games delivered before stay delivered.
        """
        ...

    def close(self) -> None:
        """Release what the backend holds (a cluster connection it opened)."""
        ...


@dataclass(frozen=True)
class LocalBackend:
    """Games in the calling process (``workers == 1``, or a single task) or in a local
    process pool of ``workers`` processes (see :mod:`sparring.evaluation.match`)."""

    workers: int = 1
    """Worker processes; 1 plays in the calling process."""

    def __post_init__(self) -> None:
        if isinstance(self.workers, bool) or not isinstance(self.workers, int):
            raise ConfigError(f"workers must be an integer, not {self.workers!r}", "workers")
        if self.workers < 1:
            raise ConfigError(f"workers must be >= 1, not {self.workers}", "workers")

    @property
    def description(self) -> str:
        """``"local (N workers)"``, or ``"local (in-process)"`` with one worker."""
        if self.workers == 1:
            return "local (in-process)"
        return f"local ({self.workers} workers)"

    def run(self, job: Job[T], tasks: Sequence[T], deliver: Deliver) -> RunCost:
        """Play ``tasks`` here (``workers == 1`` or one task) or in a pool of at most
        ``workers`` processes (never more than there are tasks)."""
        games = 0

        def count(record: GameRecord) -> None:
            nonlocal games
            games += 1
            deliver(record)

        start = time.perf_counter()
        if self.workers == 1 or len(tasks) <= 1:
            cpu_start = time.process_time()
            try:
                for task in tasks:
                    for record in job.iterate(task):
                        count(record)
            finally:
                cpu = time.process_time() - cpu_start
            description = "local (in-process)"
        else:
            size = min(self.workers, len(tasks))
            cpu = job.pool(tasks, size, count)
            description = f"local ({size} workers)"
        return RunCost(description, games, time.perf_counter() - start, cpu)

    def close(self) -> None:
        """Nothing to release (a pool lives for one :meth:`run`)."""


def local_or(backend: Backend | None, workers: int) -> Backend:
    """``backend``, or the :class:`LocalBackend` of ``workers`` processes when it is None."""
    return LocalBackend(workers) if backend is None else backend


def timed(
    iterate: Callable[[T], Iterator[GameRecord]], task: T
) -> Iterator[tuple[GameRecord, float]]:
    """``iterate(task)``'s games, each with the CPU seconds this process spent on it (from
    the end of the game before, or the start of the task)."""
    mark = time.process_time()
    for record in iterate(task):
        now = time.process_time()
        yield record, now - mark
        mark = time.process_time()


__all__ = [
    "Backend",
    "Deliver",
    "Job",
    "LocalBackend",
    "RunCost",
    "local_or",
    "timed",
]
