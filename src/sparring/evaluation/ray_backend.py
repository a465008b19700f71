"""The Ray backend: a run's tasks as Ray tasks on a Ray cluster (the extra ``sparring[ray]``).

:class:`RayBackend` is a :class:`~sparring.evaluation.backend.Backend`: every task (one game
of a match or tournament, one series) is a Ray task that yields its games as they end
(a streaming generator); the driver, the process that called ``run_match`` /
``run_series_set``, receives them and alone writes the game store, exactly as with the
local process pool, so the games, the store's keys and resuming do not depend on the backend.

What crosses to the workers: a task is a small frozen dataclass of spec strings, seeds and,
for a series resumed mid-way, the players' saved states; no network or calibration travels
with it.  A worker builds the players from the specs and loads a network or calibration from
the installed package (or a path named in the spec, which must then exist on every node)
once per worker process (:func:`~sparring.evaluation.match.process_player_cache`); Ray
keeps its worker processes across tasks, so a network is loaded once per worker, not once
per game.  So there is nothing large to put in Ray's object store.

Fault tolerance: a task whose worker or node dies is retried by Ray (``max_retries``); its
games are deterministic (seeded), so a retried series plays the same games again and the
driver keeps only the first copy of each game key (the store ignores a key it holds).
Killing the driver ends its Ray job (Ray stops the job's tasks); a re-run resumes from the
store as with the local backend.  Ctrl-C or an error in the driver cancels the tasks in
flight.  Ray can lose a Ctrl-C (seen under load: a run went on to its last game and exited
0, with no trace of the ``KeyboardInterrupt``; perhaps a wait inside Ray ran Python's
handler and dropped its exception).  So while :meth:`RayBackend.run` runs in the main thread, SIGINT
also sets a flag (:class:`InterruptFlag`), and the loop, which waits at most
:data:`POLL_SECONDS` at a time, raises ``KeyboardInterrupt`` itself when the flag is set.

Ray is imported only here, and only when a :class:`RayBackend` is made: without Ray
installed everything else works, and making one raises a one-line
:class:`~sparring.errors.MissingResourceError` naming the extra.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, NoReturn, TypeVar

from sparring.errors import BadValueError, MissingResourceError
from sparring.evaluation.backend import Deliver, Job, RunCost, timed
from sparring.evaluation.store import GameRecord

T = TypeVar("T")

RAY_EXTRA = "pip install 'sparring[ray]'"
"""The command that installs the Ray backend's dependencies."""

DEFAULT_RETRIES = 3
"""Times Ray retries a task whose worker or node died."""


POLL_SECONDS = 0.5
"""The longest the driver waits for a game before it looks at the interrupt flag."""


class InterruptFlag:
    """While entered in the main thread: SIGINT sets :attr:`set`, then runs the handler that
    was there (Python's raises ``KeyboardInterrupt``).  A handler other than Python's
    default (an ignored SIGINT, or one the program installed) is left alone."""

    def __init__(self) -> None:
        self.set = False
        self._previous: Any = None

    def _handle(self, signum: int, frame: Any) -> None:
        self.set = True
        if callable(self._previous):
            self._previous(signum, frame)

    def __enter__(self) -> InterruptFlag:
        if threading.current_thread() is threading.main_thread():
            previous = signal.getsignal(signal.SIGINT)
            if previous is signal.default_int_handler:
                self._previous = previous
                signal.signal(signal.SIGINT, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
            self._previous = None

    def check(self) -> None:
        """Raise ``KeyboardInterrupt`` when a SIGINT came (whatever became of its own)."""
        if self.set:
            raise KeyboardInterrupt


def raise_task_error(error: BaseException) -> NoReturn:
    """Raise a failed Ray task's error as the worker raised it: the ``cause`` of Ray's
    ``RayTaskError`` when that is an ``Exception``, else ``error`` itself."""
    cause = getattr(error, "cause", None)
    if isinstance(cause, Exception):
        raise cause from None
    raise error


def import_ray() -> ModuleType:
    """The ``ray`` module; a one-line :class:`MissingResourceError` (key ``--backend``)
    naming the extra when Ray is not installed."""
    try:
        import ray
    except ImportError:
        error = MissingResourceError(
            f"--backend ray needs Ray, which is not installed: {RAY_EXTRA}"
        )
        error.key = "--backend"
        raise error from None
    return ray


def _play_remote(
    iterate: Callable[[T], Iterator[GameRecord]], task: T
) -> Iterator[tuple[GameRecord, float]]:
    """A Ray task's body: play ``task`` in the worker, yielding each game with the worker's
    CPU seconds spent on it."""
    yield from timed(iterate, task)


@dataclass
class RayBackend:
    """Ray tasks on the Ray cluster at ``address``.

    ``address`` is what :func:`ray.init` takes (``"127.0.0.1:6379"``, ``"auto"``); None uses
    ``RAY_ADDRESS`` when set, else Ray's own default (a running local cluster, or a new one
    on the local machine).  The connection is opened by the first :meth:`run` (when this process
    is not connected already) and closed by :meth:`close`.  Each task asks for ``num_cpus``
    CPUs; at most ``in_flight`` tasks are submitted at a time (None: four per CPU of the
    cluster, at least 16).
    """

    address: str | None = None
    """The cluster's address; None: ``RAY_ADDRESS``, else Ray's default."""
    max_retries: int = DEFAULT_RETRIES
    """Times Ray retries a task whose worker or node died (errors raised by a game are not
    retried)."""
    num_cpus: float = 1.0
    """CPUs each task asks for."""
    in_flight: int | None = None
    """Tasks submitted at a time; None: four per CPU of the cluster, at least 16."""
    _connected: bool = field(default=False, init=False, repr=False)
    _ray: ModuleType = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.address is not None and not self.address.strip():
            raise BadValueError("--ray-address must not be empty", key="--ray-address")
        if self.max_retries < 0:
            raise BadValueError(f"max_retries must be >= 0, not {self.max_retries}")
        if self.num_cpus <= 0:
            raise BadValueError(f"num_cpus must be > 0, not {self.num_cpus}")
        if self.in_flight is not None and self.in_flight < 1:
            raise BadValueError(f"in_flight must be >= 1, not {self.in_flight}")
        self._ray = import_ray()

    @property
    def description(self) -> str:
        """``"ray (N CPUs)"`` once connected, else ``"ray (ADDRESS)"``."""
        ray = self._ray
        if ray.is_initialized():
            cpus = ray.cluster_resources().get("CPU", 0)
            return f"ray ({cpus:g} CPUs)"
        return f"ray ({self.address or 'default address'})"

    def connect(self) -> None:
        """Connect this process to the cluster unless it is connected already."""
        ray = self._ray
        if ray.is_initialized():
            return
        ray.init(address=self.address, logging_level=logging.WARNING, configure_logging=True)
        self._connected = True

    def close(self) -> None:
        """Disconnect, when :meth:`connect` opened the connection."""
        if self._connected:
            self._ray.shutdown()
            self._connected = False

    def run(self, job: Job[T], tasks: Sequence[T], deliver: Deliver) -> RunCost:
        """Play ``tasks`` as Ray tasks, delivering each game here as it ends (each key once).

        An error in a task (after Ray's retries for a dead worker or node) is raised here as
        the worker raised it, once the games delivered before it are delivered; the other
        tasks are cancelled.
        """
        ray = self._ray
        self.connect()
        start = time.perf_counter()
        remote = ray.remote(
            num_cpus=self.num_cpus, max_retries=self.max_retries, retry_exceptions=False
        )(_play_remote)
        window = self.in_flight or max(16, 4 * int(ray.cluster_resources().get("CPU", 1)))
        description = self.description
        queue = list(tasks)
        queue.reverse()  # popped from the end: submitted in the tasks' order
        running: list[Any] = []
        seen: set[tuple[str, int, int]] = set()
        games = 0
        cpu = 0.0
        with InterruptFlag() as flag:
            try:
                while queue or running:
                    flag.check()
                    while queue and len(running) < window:
                        running.append(remote.remote(job.iterate, queue.pop()))
                    ready, running = ray.wait(running, num_returns=1, timeout=POLL_SECONDS)
                    for generator in ready:
                        try:
                            reference = next(generator)
                        except StopIteration:
                            continue  # the task ended: all its games were delivered
                        running.append(generator)
                        try:
                            record, seconds = ray.get(reference)
                        except ray.exceptions.RayTaskError as error:
                            raise_task_error(error)
                        if record.key in seen:
                            continue
                        seen.add(record.key)
                        games += 1
                        cpu += seconds
                        deliver(record)
            except BaseException:
                for generator in running:
                    with contextlib.suppress(Exception):  # a task that ended meanwhile
                        ray.cancel(generator, force=True)
                raise
        return RunCost(description, games, time.perf_counter() - start, cpu)


__all__ = [
    "DEFAULT_RETRIES",
    "POLL_SECONDS",
    "RAY_EXTRA",
    "InterruptFlag",
    "RayBackend",
    "import_ray",
    "raise_task_error",
]
