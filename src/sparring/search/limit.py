"""A bound on thinking: :class:`Limit` (as python-chess's ``chess.engine.Limit``).

A search asked to stop on a clock, a node count or a flag (a UCI ``go movetime``, a server's
deadline, a "move now" button) takes a :class:`Limit`; every searching player's
:meth:`~sparring.players.base.Player.select_move` accepts one.  The searches check it
*between* compiled chunks of work, never inside them (so the compiled loops stay as fast as
without a limit): the batched PUCT search between network batches, UCT between chunks of
simulations on a tree kept across chunks, minimax between chunks of leaves of an iterative
deepening.  When the limit hits, the player plays the best move found so far (the deepest
completed minimax iteration; the most visited move; with no simulation done, the network's
prior or any legal move), and its :class:`~sparring.search.analysis.MoveAnalysis` says so.

A limit may also ask to be told how the search is going: :attr:`Limit.progress` is called
between the chunks of a PUCT or UCT search of one position, at most every
:attr:`Limit.progress_every` seconds, with the analysis so far (what a UCI engine prints as
``info`` lines while it thinks).  The reports read the tree and change nothing in the search.

A search run without a limit (``None``, or a limit of nothing but ``simulations`` at least the
player's own) is the very search it always was: the same moves for the same seeds.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from sparring.errors import BadValueError

if TYPE_CHECKING:
    from sparring.search.analysis import MoveAnalysis, SearchKind
    from sparring.search.stats import RootStats

StopFlag = threading.Event | Callable[[], bool]
"""Something that says "stop now": an event (set from another thread) or a callable
returning True."""


@dataclass(frozen=True)
class Limit:
    """How long a search may think; every field None means no bound of that kind.

    The search ends at the first bound reached, and then returns the best move found so far.
    """

    simulations: int | None = None
    """At most this many simulations (the player's own count still applies: the smaller one
    wins).  Minimax, which runs no simulations, ignores it."""
    nodes: int | None = None
    """Stop once the search holds at least this many nodes (PUCT, UCT: tree nodes; minimax:
    leaves evaluated), checked between chunks."""
    time: float | None = None
    """Seconds of thinking, counted from the start of the search."""
    stop: StopFlag | None = None
    """Stop when this event is set or this callable returns True (e.g. from another thread)."""
    progress: Callable[[MoveAnalysis], None] | None = None
    """Called between chunks of a PUCT or UCT search of one position, at most every
    :attr:`progress_every` seconds (the first time after that long), with the analysis so far:
    its move the most visited (the first of the principal variation), ``stopped`` False, its
    ``time`` the seconds since the search started.  Not called after the search (the
    analysis in the player's :class:`~sparring.players.base.Decision` is the final word);
    other searches (minimax, a batch of positions) never call it."""
    progress_every: float = 0.5
    """Seconds between two calls of :attr:`progress`."""

    def __post_init__(self) -> None:
        for key in ("simulations", "nodes"):
            value = getattr(self, key)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise BadValueError(f"limit {key} must be an integer, not {value!r}", key=key)
            if value is not None and value < 0:
                raise BadValueError(f"limit {key} must be >= 0, not {value}", key=key)
        if self.time is not None:
            if isinstance(self.time, bool) or not isinstance(self.time, int | float):
                raise BadValueError(f"limit time must be seconds, not {self.time!r}", key="time")
            if not math.isfinite(self.time) or self.time < 0:
                raise BadValueError(
                    f"limit time must be a finite number of seconds >= 0, not {self.time}",
                    key="time",
                )
        if self.stop is not None and not (
            isinstance(self.stop, threading.Event) or callable(self.stop)
        ):
            raise BadValueError(
                "limit stop must be a threading.Event or a callable returning bool", key="stop"
            )
        if self.progress is not None and not callable(self.progress):
            raise BadValueError("limit progress must be a callable", key="progress")
        every = self.progress_every
        if (
            isinstance(every, bool)
            or not isinstance(every, int | float)
            or not math.isfinite(every)
            or every < 0
        ):
            raise BadValueError(
                f"limit progress_every must be a finite number of seconds >= 0, not {every!r}",
                key="progress_every",
            )

    @property
    def interruptible(self) -> bool:
        """Whether the search must check the limit while it runs (a time, node or stop bound;
        a simulation count alone only shortens the search, and :attr:`progress` ends nothing)."""
        return self.time is not None or self.nodes is not None or self.stop is not None

    def cap(self, simulations: int) -> int:
        """``simulations`` capped by :attr:`simulations`."""
        if self.simulations is None:
            return simulations
        return min(simulations, self.simulations)

    def start(self) -> LimitClock:
        """A clock for one search under this limit, started now."""
        return LimitClock(self)


def cap_time(limit: Limit | None, seconds: float | None) -> Limit | None:
    """``limit`` with its time bound at most ``seconds`` (a player's own cap on a move's
    thinking, whatever it is asked); ``limit`` itself when ``seconds`` is None or its bound
    is already no longer."""
    if seconds is None:
        return limit
    if limit is None:
        return Limit(time=seconds)
    if limit.time is not None and limit.time <= seconds:
        return limit
    return replace(limit, time=seconds)


class LimitClock:
    """One search's view of its :class:`Limit`: started when built, asked between chunks.

    :attr:`stopped` becomes True the first time :meth:`hit` answers True (the search was cut
    short by time, nodes or the stop flag).
    """

    def __init__(self, limit: Limit | None) -> None:
        self.limit = limit
        self.started = time.perf_counter()
        self.deadline = (
            math.inf if limit is None or limit.time is None else self.started + limit.time
        )
        self.stopped = False
        """Whether the limit ended the search before its own budget."""
        self.reason: str | None = None
        """``"time"``, ``"nodes"`` or ``"stop"`` once :attr:`stopped`."""
        self.budget: int | None = None
        """The simulations the search sets out to run (its own count capped by the limit's),
        set by a PUCT or UCT search when it starts; None before, and for other searches."""
        self._reported = self.started
        """When :attr:`Limit.progress` was last called (the start before the first call)."""

    @property
    def reports(self) -> bool:
        """Whether the limit asks for :attr:`Limit.progress` reports (the search must then run
        in chunks even without a bound to check)."""
        return self.limit is not None and self.limit.progress is not None

    def due(self) -> bool:
        """Whether a progress report is due now (:attr:`Limit.progress_every` seconds after
        the last one, or after the start)."""
        limit = self.limit
        if limit is None or limit.progress is None:
            return False
        return time.perf_counter() - self._reported >= limit.progress_every

    def report(self, root: RootStats, search: SearchKind) -> None:
        """Call :attr:`Limit.progress` with the analysis of ``root``, the statistics of the
        ``search`` so far (its move the most visited: the principal variation's first; the
        highest prior before any simulation)."""
        limit = self.limit
        if limit is None or limit.progress is None:
            return
        from sparring.search.analysis import MoveAnalysis

        self._reported = time.perf_counter()
        if len(root.pv):
            move = int(root.pv[0])
        elif len(root.moves):
            move = int(root.moves[int(root.priors.argmax())])
        else:
            return
        analysis = MoveAnalysis.from_root(
            move, search, root, time=self.elapsed(), budget=self.budget
        )
        limit.progress(analysis)

    @property
    def interruptible(self) -> bool:
        """Whether :meth:`hit` can ever answer True."""
        return self.limit is not None and self.limit.interruptible

    def elapsed(self) -> float:
        """Seconds since the search started."""
        return time.perf_counter() - self.started

    def remaining(self) -> float:
        """Seconds left before the time bound (``inf`` without one; may be negative)."""
        return self.deadline - time.perf_counter()

    def hit(self, nodes: int = 0, lookahead: float = 0.0) -> bool:
        """Whether the search must stop now, having ``nodes`` nodes (see :attr:`Limit.nodes`).

        ``lookahead`` (seconds): stop already when the time bound falls within it, e.g. half
        the duration of the search's next indivisible step (a network batch), so that the
        bound is met on average rather than overshot by the whole step."""
        limit = self.limit
        if self.stopped:
            return True
        if limit is None:
            return False
        reason: str | None = None
        stop = limit.stop
        if stop is not None and (stop.is_set() if isinstance(stop, threading.Event) else stop()):
            reason = "stop"
        elif limit.time is not None and time.perf_counter() + lookahead >= self.deadline:
            reason = "time"
        elif limit.nodes is not None and nodes >= limit.nodes:
            reason = "nodes"
        if reason is not None:
            self.stopped = True
            self.reason = reason
        return self.stopped


class ChunkSizer:
    """How much work to run before the next check of a :class:`LimitClock`.

    Chunks are sized from the measured rate so that one takes about :attr:`target` seconds,
    and never longer than the time left (so that the time bound is overshot by about one
    chunk at most); the first chunk is ``first`` units.
    """

    def __init__(self, clock: LimitClock, first: int = 16, target: float = 0.002) -> None:
        self.clock = clock
        self.size = max(1, first)
        self.target = target
        self.rate = 0.0
        """Units per second measured so far (0 before the first chunk)."""
        self._units = 0
        self._seconds = 0.0

    def next(self, left: int) -> int:
        """Units to run next, at most ``left`` (>= 1 when ``left >= 1``)."""
        size = self.size
        if self.rate > 0.0:
            size = int(self.rate * self.target)
            remaining = self.clock.remaining()
            if math.isfinite(remaining):
                size = min(size, int(self.rate * max(remaining, 0.0)))
        return max(1, min(size, left))

    @property
    def lookahead(self) -> float:
        """Half the time of one unit (for :meth:`LimitClock.hit`: a unit that would end
        further past the time bound than short of it is not started)."""
        return 0.5 / self.rate if self.rate > 0.0 else 0.0

    def done(self, units: int, seconds: float) -> None:
        """Record that ``units`` took ``seconds``."""
        self._units += units
        self._seconds += seconds
        if self._seconds > 0.0 and self._units > 0:
            self.rate = self._units / self._seconds


__all__ = ["ChunkSizer", "Limit", "LimitClock", "StopFlag"]
