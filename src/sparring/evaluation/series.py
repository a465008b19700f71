"""Series: G games in order between the same two player objects, many series in parallel.

A *series* is ``games_per_series`` games between one player A and one player B, each built
once (from its spec) for the whole series, so that a player that learns between games (e.g.
dynamic strength adjustment) carries what it learned from game to game; A moves first in the
even-numbered games.  A run plays ``series`` such series: a series is the unit of work sent to
a worker process, and its games come back to the parent one by one as they finish (through a
queue), where each is stored at once.

Reproducibility: game ``i`` of series ``s`` has the seed :func:`~sparring.evaluation.match.
derive_seed` ``(seed, s, i)`` and, before it, both players are :meth:`reseeded
<sparring.players.base.Player.reseed>` with :func:`~sparring.evaluation.match.player_seeds` of
that seed; the players are built with the seeds of :func:`series_seed` ``(seed, s)``.  A game
therefore depends on the base seed, the series and game index and what the players learned in
the series' earlier games: not on the number of workers or the order series finish in.  For
players that keep no state, game ``i`` of series ``s`` is the game a match plays as game ``i``
of pairing ``s`` (same seed, same moves).

Durability and resuming: every game is committed with both players' end-of-game
:meth:`~sparring.players.base.Player.save_state` (:attr:`GameRecord.player_states
<sparring.evaluation.store.GameRecord.player_states>`).  A re-run of the same game, specs and
seed (its run key leaves out the numbers of games, series and workers) skips finished series
and continues a partly played one after its last stored game: the players are built afresh and
restored from the stored states; where no states are stored (a store written by other code)
the stored games are replayed through them instead (``new_game``, ``observe`` for every move,
``game_over``; no search).  Either way the continued series plays the games an uninterrupted
one plays, provided the players' :meth:`restore_state` (or, for the replay, their between-game
state being a function of the moves and results) is faithful.
"""

from __future__ import annotations

import dataclasses
import json
import queue as queue_module
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from sparring.errors import ConfigError, is_interrupt
from sparring.evaluation.backend import Backend, Deliver, Job, RunCost, local_or
from sparring.evaluation.match import (
    GameCallback,
    HeadToHeadConfig,
    RunInterrupted,
    _check_int,
    derive_seed,
    init_worker,
    play_game,
    player_labels,
    player_modules,
    player_seeds,
    pool_context,
    process_player_cache,
    run_key_for,
    stop_workers,
)
from sparring.evaluation.store import GameRecord, GameStore, RunInfo, SavedState
from sparring.games import get_game
from sparring.games.base import Game
from sparring.players import make_player
from sparring.players.base import Player
from sparring.session import GameSession

SERIES_KIND = "series"
"""The ``kind`` of a series run in the store (and in its run key)."""


@dataclass(frozen=True)
class SeriesConfig(HeadToHeadConfig):
    """``series`` series of ``games_per_series`` games between ``spec_a`` and ``spec_b``.

    In every series, A moves first in the even-numbered games; each worker plays whole
    series.  Invalid values raise :class:`~sparring.errors.ConfigError`;
    :meth:`from_mapping` also rejects unknown keys.
    """

    KIND: ClassVar[str] = "series"
    COUNTS: ClassVar[tuple[str, ...]] = ("games_per_series", "series")

    games_per_series: int = 10
    """Games in each series, played in order by the same two player objects."""
    series: int = 1
    """Number of series (independent repeats; they run in parallel with ``workers > 1``)."""

    @property
    def run_key(self) -> str:
        """The run's key in a store: the game, the specs and the seed (see ``run_key_for``)."""
        return run_key_for(SERIES_KIND, self.game, self.specs, self.seed)


def series_seed(base_seed: int, series: int) -> int:
    """The seed series ``series`` builds its players from: a SeedSequence child, < 2**63.

    Distinct from every game seed :func:`derive_seed` ``(base_seed, s, i)`` (another spawn
    key length).
    """
    sequence = np.random.SeedSequence(base_seed, spawn_key=(series,))
    return int(sequence.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))


@dataclass(frozen=True)
class SeriesResult:
    """The outcome of :func:`run_series`."""

    run_key: str
    """The run's key in the store."""
    game: str
    """Registry name of the game."""
    specs: tuple[str, str]
    """``(spec_a, spec_b)``."""
    labels: tuple[str, str]
    """The players' display labels (unique)."""
    games_per_series: int
    """Games per series the configuration asks for."""
    series: int
    """Series the configuration asks for."""
    records: tuple[GameRecord, ...] = field(repr=False)
    """All stored games of the configured series (old and new), ordered by series and game;
    a record's ``pairing`` is its series index."""
    played: int
    """Games played by this call."""
    skipped: int
    """Games of the configuration found already stored (not replayed)."""
    cost: RunCost | None = None
    """What playing the call's games cost on its backend: of the whole call (all the
    configs of a :func:`run_series_set`); None when the call played nothing."""

    @property
    def expected(self) -> int:
        """Games the configuration asks for."""
        return self.series * self.games_per_series

    @property
    def complete(self) -> bool:
        """Whether every game the configuration asks for is stored."""
        return len(self.records) == self.expected

    def series_records(self, series: int) -> tuple[GameRecord, ...]:
        """The stored games of one series, in order."""
        return tuple(r for r in self.records if r.pairing == series)

    def final_states(self, series: int) -> tuple[SavedState, SavedState] | None:
        """A's and B's saved state after the last stored game of ``series`` (None when it has
        no game yet or its states were not saved)."""
        games = self.series_records(series)
        return games[-1].player_states if games else None


# ---- what crosses process boundaries ---------------------------------------------------------
@dataclass(frozen=True)
class SeriesTask:
    """Everything a worker needs to play (the rest of) one series (plain, picklable values)."""

    run_key: str
    series: int
    game: str
    spec_a: str
    spec_b: str
    label_a: str
    label_b: str
    seed: int
    """The run's base seed."""
    start: int
    """The first game to play (games before it are stored)."""
    stop: int
    """One past the last game to play."""
    states: tuple[SavedState, SavedState] | None = None
    """A's and B's saved states after game ``start - 1``, when stored."""
    history: tuple[GameRecord, ...] = ()
    """The stored games ``0 .. start - 1``, replayed through the players when ``states`` is
    None (empty otherwise)."""
    player_modules: tuple[str, ...] = ()
    """Modules registering the specs' player kinds when they are not built-in."""


SeriesEmit = Callable[[GameRecord], None]
"""Receives every game of a series as soon as it is played (in order)."""

_WORKER_GAMES: dict[str, Game] = {}
_WORKER_QUEUE: list[Any] = []  # the worker's end of the parent's queue (set by _init_series_worker)


def build_series_players(task: SeriesTask, game: Game) -> tuple[Player, Player]:
    """A's and B's player objects for ``task``'s series, ready to play game ``task.start``:
    built with the series' seeds, then restored from ``task.states`` or, without them, told
    the stored games ``task.history`` (see :func:`replay_game`)."""
    seed_a, seed_b = player_seeds(series_seed(task.seed, task.series))
    cache = process_player_cache()
    players = (
        make_player(task.spec_a, game, seed_a, cache),
        make_player(task.spec_b, game, seed_b, cache),
    )
    if task.start == 0:
        return players
    if task.states is not None:
        for player, state in zip(players, task.states, strict=True):
            player.restore_state(state)
        return players
    if len(task.history) != task.start:
        raise ValueError(
            f"series {task.series}: {len(task.history)} stored games to replay, not {task.start}"
        )
    for record in task.history:
        _reseed(players, record.seed)
        replay_game(game, players, record)
    return players


def replay_game(game: Game, players: Sequence[Player], record: GameRecord) -> None:
    """Tell ``players = (A, B)`` a finished game as if they had played it, without searching:
    a :class:`~sparring.session.GameSession` fed the record's moves (``new_game``,
    ``observe`` after every move, ``game_over`` with each one's score)."""
    seated = (players[0], players[1]) if record.a_first else (players[1], players[0])
    session = GameSession(game, seated)
    for move, seconds in zip(record.moves, record.think_times, strict=True):
        session.play(move, think_time=seconds)
    if session.result != record.result:
        raise ValueError(
            f"series {record.pairing}, game {record.game_index}: replaying its moves gives "
            f"the result {session.result}, not the stored {record.result}"
        )


def _reseed(players: Sequence[Player], game_seed: int) -> None:
    for player, seed in zip(players, player_seeds(game_seed), strict=True):
        player.reseed(seed)


def _saved_states(players: Sequence[Player], record: GameRecord) -> tuple[SavedState, SavedState]:
    """Both players' :meth:`save_state` as the store will give it back (a JSON round trip)."""
    states: list[SavedState] = []
    for player in players:
        state = player.save_state()
        try:
            text = json.dumps(state, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise ValueError(
                f"{player.name}: save_state() after game {record.game_index} of series "
                f"{record.pairing} is not JSON: {exc}"
            ) from None
        states.append(json.loads(text))
    return (states[0], states[1])


def play_series(task: SeriesTask, emit: SeriesEmit | None = None) -> tuple[GameRecord, ...]:
    """Play games ``task.start .. task.stop - 1`` of a series with the same two players.

    Runs in worker processes (and in-process when ``workers == 1``).  Every game's record,
    with both players' end-of-game states, goes to ``emit`` as soon as it is played; all of
    them are returned at the end.
    """
    records: list[GameRecord] = []
    for record in iterate_series(task):
        records.append(record)
        if emit is not None:
            emit(record)
    return tuple(records)


def iterate_series(task: SeriesTask) -> Iterator[GameRecord]:
    """:func:`play_series` as an iterator: yields every game's record (with both players'
    end-of-game states) as soon as it is played (a :class:`~sparring.evaluation.backend.
    Job`'s ``iterate``)."""
    import importlib

    for module in task.player_modules:
        importlib.import_module(module)
    game = _WORKER_GAMES.get(task.game)
    if game is None:
        game = _WORKER_GAMES[task.game] = get_game(task.game)
    players = build_series_players(task, game)
    for index in range(task.start, task.stop):
        seed = derive_seed(task.seed, task.series, index)
        _reseed(players, seed)
        record = play_game(
            game,
            players,
            a_first=index % 2 == 0,
            seed=seed,
            specs=(task.spec_a, task.spec_b),
            labels=(task.label_a, task.label_b),
            run_key=task.run_key,
            pairing=task.series,
            game_index=index,
        )
        yield dataclasses.replace(record, player_states=_saved_states(players, record))


def _init_series_worker(games: Any) -> None:
    """Worker start: :func:`init_worker`, and keep the queue games are sent back through."""
    init_worker()
    _WORKER_QUEUE[:] = [games]


class RemoteTraceback(Exception):
    """The traceback, in a worker, of an error that stopped a series (its ``__cause__``)."""

    def __str__(self) -> str:
        return f"\n{self.args[0]}"


_WorkerResult = tuple[tuple[GameRecord, ...], BaseException | None, str, float]


def _series_worker(task: SeriesTask) -> _WorkerResult:
    """Play a series in a worker, sending every game through the queue as it finishes.

    Returns every game played, the error that stopped the series (None when none), its
    traceback text and the CPU seconds spent, so that the parent stores each finished game
    even when the series failed.
    """
    played: list[GameRecord] = []
    start = time.process_time()

    def emit(record: GameRecord) -> None:
        played.append(record)
        _WORKER_QUEUE[0].put(record)

    try:
        play_series(task, emit)
    except Exception as exc:  # handed to the parent, which raises it
        cpu = time.process_time() - start
        return tuple(played), exc, traceback.format_exc(), cpu
    return tuple(played), None, "", time.process_time() - start


# ---- runs ------------------------------------------------------------------------------------
def series_tasks(
    config: SeriesConfig,
    labels: Sequence[str],
    stored: Sequence[GameRecord],
    stop_after: int | None = None,
) -> list[SeriesTask]:
    """The series (or their remaining games) still to play, given the run's ``stored`` games.

    ``stop_after`` limits the new games (taken series by series, in order).  Raises
    :class:`~sparring.errors.ConfigError` when a series' stored games are not a prefix
    ``0 .. k-1`` (a hand-edited store).
    """
    by_series: dict[int, list[GameRecord]] = {}
    for record in stored:
        by_series.setdefault(record.pairing, []).append(record)
    modules = player_modules(config.specs)
    budget = stop_after
    tasks: list[SeriesTask] = []
    for s in range(config.series):
        games = sorted(by_series.get(s, []), key=lambda r: r.game_index)
        if [r.game_index for r in games] != list(range(len(games))):
            indices = [r.game_index for r in games]
            raise ConfigError(
                f"series {s} of run {config.run_key}: stored games {indices} are not the "
                "series' first games in order; cannot resume it"
            )
        start = len(games)
        stop = config.games_per_series
        if budget is not None:
            stop = min(stop, start + budget)
        if start >= stop:
            continue
        if budget is not None:
            budget -= stop - start
        states = games[-1].player_states if games else None
        tasks.append(
            SeriesTask(
                run_key=config.run_key,
                series=s,
                game=config.game,
                spec_a=config.spec_a,
                spec_b=config.spec_b,
                label_a=labels[0],
                label_b=labels[1],
                seed=config.seed,
                start=start,
                stop=stop,
                states=states,
                history=tuple(games) if states is None and start > 0 else (),
                player_modules=modules,
            )
        )
    return tasks


def run_series(
    config: SeriesConfig,
    store: GameStore | None = None,
    *,
    progress: bool = True,
    console: Console | None = None,
    on_game: GameCallback | None = None,
    stop_after: int | None = None,
    backend: Backend | None = None,
) -> SeriesResult:
    """Play (or resume) the series of ``config``, storing every game in ``store`` as it ends.

    The game and both specs are validated before any game starts.  Finished series are
    skipped and partly played ones continued (see the module docstring).  ``on_game`` is
    called in this process with every newly stored game (games of one series in order; an
    exception it raises stops the run, the game already stored).  ``stop_after`` plays at
    most that many new games (a later call resumes); ``store=None`` uses a throw-away
    in-memory store; ``progress`` shows a rich progress bar on ``console``.  Ctrl-C raises
    :class:`~sparring.evaluation.match.RunInterrupted` with every finished game stored.
    ``backend`` plays the series (default: the local pool of ``config.workers``).
    """
    (result,) = run_series_set(
        [config],
        store,
        workers=config.workers,
        progress=progress,
        console=console,
        on_game=on_game,
        stop_after=stop_after,
        backend=backend,
    )
    return result


def run_series_set(
    configs: Sequence[SeriesConfig],
    store: GameStore | None = None,
    *,
    workers: int | None = None,
    progress: bool = True,
    console: Console | None = None,
    on_game: GameCallback | None = None,
    stop_after: int | None = None,
    backend: Backend | None = None,
) -> list[SeriesResult]:
    """Play (or resume) several series runs in one pool, e.g. one adaptive player against
    each of several opponents: the series of all ``configs`` are shared out among
    ``workers`` processes (default: the largest ``workers`` of the configs).

    Returns one :class:`SeriesResult` per config, in order; each config is its own run in
    the store (its own run key), exactly as if run alone with :func:`run_series`, which
    this generalises (``stop_after`` counts new games over all configs, in order).
    ``backend`` plays the series (default: :class:`~sparring.evaluation.backend.
    LocalBackend` of that many workers); the games and the store do not depend on it.
    """
    if stop_after is not None and stop_after < 0:
        raise ConfigError(f"stop_after must be >= 0, not {stop_after}")
    if not configs:
        return []
    pool_size = max(c.workers for c in configs) if workers is None else workers
    _check_int("series", "workers", pool_size, 1)
    run_keys = [c.run_key for c in configs]
    if len(set(run_keys)) < len(run_keys):
        raise ConfigError("two series configs of one set have the same game, specs and seed")
    games = {c.game: get_game(c.game) for c in configs}
    labels = [player_labels(games[c.game], c.specs) for c in configs]
    own_store = store is None
    db = GameStore(":memory:") if store is None else store
    try:
        stored: list[list[GameRecord]] = []
        tasks: list[SeriesTask] = []
        budget = stop_after
        for config, pair in zip(configs, labels, strict=True):
            game = games[config.game]
            mapping = {**config.to_mapping(), "game": game.name}
            db.ensure_run(
                RunInfo(run_key=config.run_key, kind=SERIES_KIND, game=game.name, config=mapping)
            )
            stored.append(_wanted_games(db, config))
            todo = series_tasks(config, pair, stored[-1], budget)
            if budget is not None:
                budget -= sum(t.stop - t.start for t in todo)
            tasks += todo
        played = {key: 0 for key in run_keys}

        def count(record: GameRecord) -> None:
            played[record.run_key] += 1
            if on_game is not None:
                on_game(record)

        first = configs[0]
        description = f"series {first.game}: {labels[0][0]} vs {labels[0][1]}"
        if len(configs) > 1:
            description = f"series: {len(configs)} pairings"
        try:
            cost = _execute(
                tasks, db, local_or(backend, pool_size), progress, console, description, count
            )
        except BaseException as error:
            if is_interrupt(error) and not isinstance(error, RunInterrupted):
                total = sum(db.count(key) for key in run_keys)
                raise RunInterrupted(",".join(run_keys), total, sum(played.values())) from None
            raise
        return [
            SeriesResult(
                run_key=config.run_key,
                game=games[config.game].name,
                specs=config.specs,
                labels=(pair[0], pair[1]),
                games_per_series=config.games_per_series,
                series=config.series,
                records=tuple(_wanted_games(db, config)),
                played=played[config.run_key],
                skipped=len(before),
                cost=cost,
            )
            for config, pair, before in zip(configs, labels, stored, strict=True)
        ]
    finally:
        if own_store:
            db.close()


def _wanted_games(store: GameStore, config: SeriesConfig) -> list[GameRecord]:
    """The stored games of ``config``'s run within its series and games per series."""
    return [
        r
        for r in store.iter_games(config.run_key)
        if r.pairing < config.series and r.game_index < config.games_per_series
    ]


def _pool_series(tasks: Sequence[SeriesTask], workers: int, deliver: Deliver) -> float:
    """Play ``tasks`` in a pool of ``workers`` processes, delivering every game as it arrives
    through the queue; returns the workers' CPU seconds.  On any error, or Ctrl-C, in the
    parent the workers are stopped at once (their games in flight are lost)."""
    cpu = 0.0
    delivered: set[tuple[str, int, int]] = set()

    def once(record: GameRecord) -> None:
        if record.key not in delivered:
            delivered.add(record.key)
            deliver(record)

    context = pool_context()
    games = context.Queue()
    with ProcessPoolExecutor(
        max_workers=workers,
        mp_context=context,
        initializer=_init_series_worker,
        initargs=(games,),
    ) as pool:
        pending: set[Future[_WorkerResult]] = {pool.submit(_series_worker, task) for task in tasks}
        try:
            while pending:
                try:
                    once(games.get(timeout=0.05))
                    continue
                except queue_module.Empty:
                    pass
                for future in [f for f in pending if f.done()]:
                    pending.discard(future)
                    records, error, trace, seconds = future.result()
                    cpu += seconds
                    for record in records:  # any the queue has not delivered yet
                        once(record)
                    if error is not None:
                        raise error from RemoteTraceback(trace)
        except BaseException:
            stop_workers(pool)
            raise
        finally:
            games.close()
            games.cancel_join_thread()
    return cpu


SERIES_JOB: Job[SeriesTask] = Job("series", iterate_series, _pool_series)
"""How a :class:`SeriesTask` is played: the games of one series, in order."""


def _execute(
    tasks: Sequence[SeriesTask],
    store: GameStore,
    backend: Backend,
    progress: bool,
    console: Console | None,
    description: str,
    on_game: GameCallback,
) -> RunCost | None:
    """Play ``tasks`` on ``backend``, storing every game as it arrives (in this process);
    returns the cost of the games played (printed after the progress bar), None when there
    were none."""
    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
        disable=not progress or not tasks,
        transient=False,
    )
    seen: set[tuple[str, int, int]] = set()

    def finish(record: GameRecord) -> None:
        if record.key in seen:
            return
        seen.add(record.key)
        new = store.add_game(record)
        bar.advance(bar_task)
        if new:
            on_game(record)

    if not tasks:
        return None
    with bar:
        bar_task = bar.add_task(description, total=sum(t.stop - t.start for t in tasks))
        cost = backend.run(SERIES_JOB, tasks, finish)
    if progress:
        bar.console.print(cost.line())
    return cost
