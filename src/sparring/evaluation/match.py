"""Playing games: one game, a match between two players, a round-robin tournament.

A *match* plays ``games`` games between the players named by two specs (A and B); a
*tournament* plays ``games_per_pair`` games between every pair of a list of specs.  In every
pairing, A (the earlier spec) moves first in the even-numbered games and B in the odd ones, so
the colours alternate as in the AlphaDDA evaluation (half the games as first player, half as
second).  Each game is a :class:`~sparring.session.GameSession` played out between the two
players (:func:`play_game`).  Series of games between the *same* two player objects are in
:mod:`sparring.evaluation.series`.

Reproducibility: game ``i`` of pairing ``p`` gets the seed :func:`derive_seed` ``(seed, p, i)``
(a :class:`numpy.random.SeedSequence` child), and both players are built afresh from their specs
for every game with seeds derived from that game seed.  A game's moves therefore depend only on
the base seed, the pairing and the game index: not on the number of workers, on the order the
games finish in, or on whether the run was interrupted and resumed.

Void games: a game in which a player's resource fails for good (a
:class:`~sparring.errors.PlayerResourceError` while it is played: an external engine that died
and could not be restarted, at its fallback level either) is void and is played again from its
start with the seed :func:`replay_seed` ``(seed, k)`` for ``k = 1, 2, ...``, at most
:data:`VOID_REPLAYS` times; the record stored is the first game that finished, with the seed it
was played with.  The replays' seeds depend only on the game's own, so a resumed run (which
starts the game again) voids and replays the same games: nothing is stored twice and no run is
stuck on a game that always kills the engine.  Each void game is reported on standard error.

Durability: every finished game is written (and committed) to a
:class:`~sparring.evaluation.store.GameStore` by the parent process.  A run is identified by
its *run key*, a hash of the game, the ordered specs and the base seed (not of the number of
games or workers), and a re-run skips the games already stored under that key, so an
interrupted run resumes and a finished one can be extended with more games.

Parallelism: games run on a :class:`~sparring.evaluation.backend.Backend` (the execution seam):
by default the local one described here, or a Ray cluster
(:class:`~sparring.evaluation.ray_backend.RayBackend`); either way the parent process alone
writes the store.  Locally, with ``workers > 1`` games run in a
:class:`~concurrent.futures.ProcessPoolExecutor`
using the ``forkserver`` start method (``spawn`` where that is unavailable), which is safe with
numba; only spec strings and finished :class:`GameRecord` objects cross process boundaries.
With ``workers == 1`` everything runs in the calling process.  As with any non-``fork``
start method, a script that runs games in workers must guard its entry point with
``if __name__ == "__main__":`` (the ``sparring`` command and ``python -m sparring`` are safe).
Workers never import from the current directory ahead of the installed packages (a user's
``inspect.py`` there must not shadow the standard library's): the fork server starts with
``PYTHONSAFEPATH`` set, and every worker moves the current directory to the end of its
``sys.path`` (modules there that register player kinds can still be imported).  A worker
exits when its parent process dies, so a killed run leaves no workers behind.

Interruption: workers ignore SIGINT; on Ctrl-C (or any error) the parent stores nothing more,
terminates the workers (their games in flight are lost) and raises :class:`RunInterrupted` (a
:class:`KeyboardInterrupt` saying how many games are stored), also when the interrupt surfaced
inside compiled code as numba's ``SystemError``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import json
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, ClassVar, Self, TypeVar

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

from sparring.errors import ConfigError, IllegalMoveError, PlayerResourceError, is_interrupt
from sparring.evaluation.backend import Backend, Deliver, Job, RunCost, local_or
from sparring.evaluation.store import GameRecord, GameStore, RunInfo
from sparring.games import game_spec, get_game
from sparring.games.base import Game
from sparring.players import make_player
from sparring.players import registry as _registry
from sparring.players.base import Player
from sparring.players.cache import PlayerCache
from sparring.session import GameSession

GameCallback = Callable[[GameRecord], None]
"""Called in the parent process with every newly played game, after it has been stored."""


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a run; every game finished before it is stored, and a re-run resumes.

    A :class:`KeyboardInterrupt`, so code that does not know it behaves as for Ctrl-C.
    """

    def __init__(self, run_key: str, stored: int, played: int) -> None:
        super().__init__(run_key, stored, played)
        self.run_key = run_key
        """The key of the interrupted run in the store."""
        self.stored = stored
        """Games of the run in the store (old and new)."""
        self.played = played
        """Games played and stored by the interrupted call."""


# ---- configuration ---------------------------------------------------------------------------
_C = TypeVar("_C")


def _config_from_mapping(cls: type[_C], data: Mapping[str, Any], what: str) -> _C:
    """Build the frozen dataclass ``cls`` from ``data``, naming unknown or missing keys."""
    if not isinstance(data, Mapping):
        raise ConfigError(
            f"{what} config must be a table of key = value, not {type(data).__name__}"
        )
    fields = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    accepted = ", ".join(fields)
    for key in data:
        if key not in fields:
            raise ConfigError(f"unknown key {key!r} in {what} config (accepted: {accepted})")
    missing = [
        name
        for name, f in fields.items()
        if name not in data
        and f.default is dataclasses.MISSING
        and f.default_factory is dataclasses.MISSING
    ]
    if missing:
        raise ConfigError(f"missing key {missing[0]!r} in {what} config")
    return cls(**data)


MAX_COUNT = 10_000_000
"""The most games (or series, or workers) one run may ask for: a count above it is a typo,
not a plan (``--games 99999999999999999999``)."""


def _check_int(what: str, name: str, value: object, low: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ConfigError(f"{what} config: {name} must be an integer, not {value!r}")
    if value < low:
        raise ConfigError(f"{what} config: {name} must be >= {low}, not {value}")
    if value > MAX_COUNT and name != "seed":
        raise ConfigError(f"{what} config: {name} must be at most {MAX_COUNT:,}, not {value}")


def _check_text(what: str, name: str, value: object) -> None:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{what} config: {name} must be a non-empty string, not {value!r}")


@dataclass(frozen=True)
class HeadToHeadConfig:
    """What a match (:class:`MatchConfig`) and a series
    (:class:`~sparring.evaluation.series.SeriesConfig`) share: the game, players A and B, the
    base seed and the worker processes, their checks and their mapping form.

    A subclass adds its game counts as fields and names them in :attr:`COUNTS` (each an
    integer >= 1) and its name in error messages in :attr:`KIND`.  ``seed`` and ``workers``
    are keyword-only.  Invalid values raise :class:`~sparring.errors.ConfigError`;
    :meth:`from_mapping` also rejects unknown keys.
    """

    KIND: ClassVar[str] = "head-to-head"
    """The config's name in error messages (``match config: games must be ...``)."""
    COUNTS: ClassVar[tuple[str, ...]] = ()
    """The subclass's count fields, checked in this order (integers >= 1)."""

    game: str
    """Registry name of the game (see :func:`sparring.games.get_game`)."""
    spec_a: str
    """Player spec of A (see :func:`sparring.players.make_player`)."""
    spec_b: str
    """Player spec of B."""
    seed: int = field(default=0, kw_only=True)
    """Base seed from which every game's (and series') seed is derived (>= 0)."""
    workers: int = field(default=1, kw_only=True)
    """Worker processes; 1 plays in the calling process."""

    def __post_init__(self) -> None:
        for name in ("game", "spec_a", "spec_b"):
            _check_text(self.KIND, name, getattr(self, name))
        for name in self.COUNTS:
            _check_int(self.KIND, name, getattr(self, name), 1)
        _check_int(self.KIND, "seed", self.seed, 0)
        _check_int(self.KIND, "workers", self.workers, 1)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> Self:
        """Build from a dict (e.g. a TOML table); unknown keys raise ``ConfigError``."""
        return _config_from_mapping(cls, data, cls.KIND)

    @property
    def specs(self) -> tuple[str, str]:
        """``(spec_a, spec_b)``."""
        return (self.spec_a, self.spec_b)

    def to_mapping(self) -> dict[str, Any]:
        """The configuration as a JSON-compatible dict (the inverse of :meth:`from_mapping`)."""
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class MatchConfig(HeadToHeadConfig):
    """A match: ``games`` games between the players named by ``spec_a`` and ``spec_b``.

    A moves first in the even-numbered games.  Invalid values raise
    :class:`~sparring.errors.ConfigError`; :meth:`from_mapping` also rejects unknown keys.
    """

    KIND: ClassVar[str] = "match"
    COUNTS: ClassVar[tuple[str, ...]] = ("games",)

    games: int = 100
    """Number of games (AlphaDDA: 100, 50 with each player first)."""


@dataclass(frozen=True)
class TournamentConfig:
    """A round robin: ``games_per_pair`` games between every pair of ``specs``.

    In the pairing of ``specs[i]`` and ``specs[j]`` (``i < j``), ``specs[i]`` is A and moves
    first in the even-numbered games.  Specs must be distinct.  Invalid values raise
    :class:`~sparring.errors.ConfigError`; :meth:`from_mapping` also rejects unknown keys.
    """

    game: str
    """Registry name of the game."""
    specs: tuple[str, ...]
    """The players' specs (at least two, all different); a list is converted to a tuple."""
    games_per_pair: int = 50
    """Games per pairing, half with each player first when even."""
    seed: int = 0
    """Base seed from which every game's seed is derived (>= 0)."""
    workers: int = 1
    """Worker processes; 1 plays in the calling process."""

    def __post_init__(self) -> None:
        _check_text("tournament", "game", self.game)
        specs: object = self.specs
        if isinstance(specs, str) or not isinstance(specs, Sequence):
            raise ConfigError(f"tournament config: specs must be a list of strings, not {specs!r}")
        object.__setattr__(self, "specs", tuple(specs))
        for spec in self.specs:
            _check_text("tournament", "specs entry", spec)
        if len(self.specs) < 2:
            raise ConfigError("tournament config: specs must name at least two players")
        seen: set[str] = set()
        for spec in self.specs:
            key = spec.strip()
            if key in seen:
                raise ConfigError(f"tournament config: player spec {spec!r} is listed twice")
            seen.add(key)
        _check_int("tournament", "games_per_pair", self.games_per_pair, 1)
        _check_int("tournament", "seed", self.seed, 0)
        _check_int("tournament", "workers", self.workers, 1)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> Self:
        """Build from a dict (e.g. a TOML table); unknown keys raise ``ConfigError``."""
        return _config_from_mapping(cls, data, "tournament")

    @property
    def pairings(self) -> tuple[tuple[int, int], ...]:
        """The pairings ``(i, j)``, ``i < j``, as indices into :attr:`specs`, in pairing order."""
        return tuple(combinations(range(len(self.specs)), 2))

    def to_mapping(self) -> dict[str, Any]:
        """The configuration as a JSON-compatible dict (the inverse of :meth:`from_mapping`)."""
        data = dataclasses.asdict(self)
        data["specs"] = list(self.specs)
        return data


# ---- seeds and keys --------------------------------------------------------------------------
def derive_seed(base_seed: int, pairing: int, game_index: int) -> int:
    """The seed of game ``game_index`` of pairing ``pairing``: a SeedSequence child, < 2**63."""
    sequence = np.random.SeedSequence(base_seed, spawn_key=(pairing, game_index))
    return int(sequence.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))


VOID_REPLAYS = 2
"""How many times a void game (a player's resource failed for good) is played again."""


def replay_seed(game_seed: int, replay: int) -> int:
    """The seed of the ``replay``-th replay (1, 2, ...) of the void game seeded ``game_seed``:
    a SeedSequence child of ``game_seed``, < 2**63."""
    if replay < 1:
        raise ValueError(f"replay must be >= 1, not {replay}")
    sequence = np.random.SeedSequence(game_seed, spawn_key=(replay,))
    return int(sequence.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))


def player_seeds(game_seed: int) -> tuple[int, int]:
    """The seeds of players A and B in the game seeded with ``game_seed``."""
    state = np.random.SeedSequence(game_seed).generate_state(2, dtype=np.uint64)
    return int(state[0] >> np.uint64(1)), int(state[1] >> np.uint64(1))


def run_key_for(kind: str, game: str, specs: Sequence[str], seed: int) -> str:
    """The key of a run: a hash of its kind, game, ordered specs and base seed.

    The number of games and of workers are left out, so a run can be resumed or extended
    with a different number of either.
    """
    identity = json.dumps(
        {"kind": kind, "game": game, "specs": [s.strip() for s in specs], "seed": seed},
        sort_keys=True,
    )
    return hashlib.sha256(identity.encode()).hexdigest()[:16]


# ---- one game --------------------------------------------------------------------------------
def play_game(
    game: Game,
    players: Sequence[Player],
    *,
    a_first: bool = True,
    seed: int = 0,
    specs: tuple[str, str] | None = None,
    labels: tuple[str, str] | None = None,
    run_key: str = "",
    pairing: int = 0,
    game_index: int = 0,
) -> GameRecord:
    """Play one game between ``players = (A, B)`` and return its record.

    A moves first when ``a_first``.  The game is a :class:`~sparring.session.GameSession`
    played out between the two players, with its lifecycle: each player's ``new_game`` with
    its seat (0 = first) before the game, ``observe`` after every move of either side and
    ``game_over`` with its score after it.  Each move is timed with
    :func:`time.perf_counter`, and the annotation of the mover's decision
    (:attr:`~sparring.players.base.Decision.annotation`) is kept with the move (the record's
    ``annotations`` is None when no move was annotated); a player that returns an illegal
    move (or no integer) raises :class:`~sparring.errors.IllegalMoveError` naming the player
    and its spec.
    ``seed``, ``specs``, ``labels`` (default: the players' names), ``run_key``, ``pairing``
    and ``game_index`` are only copied into the record; the players are already seeded.
    """
    if len(players) != 2:
        raise ValueError(f"play_game needs two players, got {len(players)}")
    labels = labels or (players[0].name, players[1].name)
    specs = specs or labels
    order = (0, 1) if a_first else (1, 0)  # order[s] = index into players of seat s's player
    session = GameSession(
        game,
        (players[order[0]], players[order[1]]),
        names=(labels[order[0]], labels[order[1]]),
    )
    try:
        session.play_out()
    except IllegalMoveError as exc:
        index = order[session.to_move]
        if specs[index] == labels[index]:
            raise
        raise IllegalMoveError(f"{exc} (player spec {specs[index]!r})") from None
    record = session.record()
    assert record.result is not None  # played out between two players: the game is over
    return GameRecord(
        game=game.name,
        spec_a=specs[0],
        spec_b=specs[1],
        label_a=labels[0],
        label_b=labels[1],
        a_first=a_first,
        seed=seed,
        moves=record.moves,
        think_times=record.think_times,
        result=record.result,
        run_key=run_key,
        pairing=pairing,
        game_index=game_index,
        finished_at=time.time(),
        annotations=record.annotations,
    )


# ---- tasks (what crosses process boundaries) -------------------------------------------------
@dataclass(frozen=True)
class GameTask:
    """Everything a worker needs to play one game of a run (plain, picklable values)."""

    run_key: str
    pairing: int
    game_index: int
    game: str
    spec_a: str
    spec_b: str
    label_a: str
    label_b: str
    a_first: bool
    seed: int
    player_modules: tuple[str, ...] = ()
    """Modules to import before building the players: those that registered the kinds of
    ``spec_a`` and ``spec_b`` when they are not built-in (a worker process starts with the
    built-in kinds only)."""


_WORKER_GAMES: dict[str, Game] = {}
_WORKER_PLAYERS = PlayerCache()
"""Networks, calibrations and hashes shared by the players this process builds."""


def process_player_cache() -> PlayerCache:
    """The cache of networks, calibrations and hashes shared by the players this process
    builds for matches and series."""
    return _WORKER_PLAYERS


def play_task(task: GameTask) -> GameRecord:
    """Play the game described by ``task`` with freshly built, freshly seeded players.

    Runs in worker processes (and in-process when ``workers == 1``).  Games are cached per
    process; players are rebuilt for every game so that the game depends only on its seed.
    A game in which a player raises :class:`~sparring.errors.PlayerResourceError` is void and
    played again with :func:`replay_seed` (see "Void games" above); after
    :data:`VOID_REPLAYS` replays the error propagates.
    """
    for module in task.player_modules:
        importlib.import_module(module)
    game = _WORKER_GAMES.get(task.game)
    if game is None:
        game = _WORKER_GAMES[task.game] = get_game(task.game)

    def play(seed: int) -> GameRecord:
        seed_a, seed_b = player_seeds(seed)
        players = (
            make_player(task.spec_a, game, seed_a, _WORKER_PLAYERS),
            make_player(task.spec_b, game, seed_b, _WORKER_PLAYERS),
        )
        return play_game(
            game,
            players,
            a_first=task.a_first,
            seed=seed,
            specs=(task.spec_a, task.spec_b),
            labels=(task.label_a, task.label_b),
            run_key=task.run_key,
            pairing=task.pairing,
            game_index=task.game_index,
        )

    seed = task.seed
    for replay in range(1, VOID_REPLAYS + 1):
        try:
            return play(seed)
        except PlayerResourceError as error:
            seed = replay_seed(task.seed, replay)
            print(
                f"game {task.game_index} of {task.spec_a} vs {task.spec_b} is void ({error}); "
                f"played again with seed {seed}",
                file=sys.stderr,
                flush=True,
            )
    return play(seed)  # the last replay: its error reaches the caller


def iterate_task(task: GameTask) -> Iterator[GameRecord]:
    """:func:`play_task` as the one game of an iterator (a :class:`~sparring.evaluation.
    backend.Job`'s ``iterate``)."""
    yield play_task(task)


def _timed_play_task(task: GameTask) -> tuple[GameRecord, float]:
    """:func:`play_task` in a pool worker, with the CPU seconds the worker spent on it."""
    start = time.process_time()
    record = play_task(task)
    return record, time.process_time() - start


# ---- runs ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RunResult:
    """The outcome of :func:`run_match` or :func:`run_tournament`."""

    run_key: str
    """The run's key in the store."""
    kind: str
    """``"match"`` or ``"tournament"``."""
    game: str
    """Registry name of the game."""
    specs: tuple[str, ...]
    """The players' specs, in configuration order."""
    labels: tuple[str, ...]
    """The players' display labels (unique), aligned with :attr:`specs`."""
    records: tuple[GameRecord, ...] = field(repr=False)
    """All stored games of the run within the configured game count (old and new)."""
    played: int
    """Games played by this call."""
    skipped: int
    """Games of the configuration found already stored (not replayed)."""
    expected: int
    """Games the configuration asks for."""
    cost: RunCost | None = None
    """What playing this call's games cost on its backend (games per second, CPU seconds
    per game); None when the call played nothing."""

    @property
    def complete(self) -> bool:
        """Whether every game the configuration asks for is stored."""
        return len(self.records) == self.expected


def player_modules(specs: Sequence[str]) -> tuple[str, ...]:
    """The modules whose import registers the kinds of ``specs`` (the composition root
    :mod:`sparring.kinds` for the built-in kinds, a plug-in's own module for its kinds:
    :attr:`~sparring.players.registry.KindInfo.module`).

    Worker processes (started by ``forkserver`` or ``spawn``, so with an empty registry)
    import them before building players, so a player kind registered by any importable
    module can play in parallel runs.  Call after the specs were validated (e.g. by
    :func:`player_labels`).
    """
    modules: list[str] = []
    for spec in specs:
        module = _registry.kind_info(_registry.PlayerSpec.parse(spec).kind).module
        if module and module not in modules:
            modules.append(module)
    return tuple(modules)


def player_labels(game: Game, specs: Sequence[str]) -> tuple[str, ...]:
    """Build a player for every spec (validating it) and return unique display labels.

    The label is the player's name (``"Random"``, ``"MCTS1"``); players whose names collide
    are labelled by their spec text instead, and players with identical specs by name and
    position (``Random #1``, ``Random #2``).
    Raises :class:`~sparring.errors.UnknownPlayerError` for a bad spec.
    """
    names = [make_player(spec, game, 0, _WORKER_PLAYERS).name for spec in specs]
    labels = [
        spec.strip() if names.count(name) > 1 else name
        for name, spec in zip(names, specs, strict=True)
    ]
    return tuple(
        f"{name} #{index + 1}" if labels.count(label) > 1 else label
        for index, (name, label) in enumerate(zip(names, labels, strict=True))
    )


def run_match(
    config: MatchConfig,
    store: GameStore | None = None,
    *,
    progress: bool = True,
    console: Console | None = None,
    on_game: GameCallback | None = None,
    stop_after: int | None = None,
    backend: Backend | None = None,
) -> RunResult:
    """Play (or resume) the match ``config``, storing every game in ``store``.

    The game and both specs are validated before any game starts.  Games already in the
    store under this run's key are skipped.  ``stop_after`` plays at most that many new
    games (a later call resumes); ``store=None`` uses a throw-away in-memory store.
    ``progress`` shows a rich progress bar on ``console``.  ``backend`` plays the games
    (default: :class:`~sparring.evaluation.backend.LocalBackend` of ``config.workers``);
    the games and the store do not depend on it.
    """
    game = get_game(config.game)
    labels = player_labels(game, config.specs)
    return _run(
        kind="match",
        game=game,
        specs=config.specs,
        labels=labels,
        pairings=((0, 1),),
        games_per_pair=config.games,
        seed=config.seed,
        workers=config.workers,
        config_mapping=config.to_mapping(),
        store=store,
        progress=progress,
        console=console,
        on_game=on_game,
        stop_after=stop_after,
        backend=backend,
    )


def run_tournament(
    config: TournamentConfig,
    store: GameStore | None = None,
    *,
    progress: bool = True,
    console: Console | None = None,
    on_game: GameCallback | None = None,
    stop_after: int | None = None,
    backend: Backend | None = None,
) -> RunResult:
    """Play (or resume) the round-robin tournament ``config``, storing every game in ``store``.

    Games are scheduled round by round (game 0 of every pairing, then game 1, ...), so a
    partial run is balanced over the pairings.  Otherwise as :func:`run_match`.
    """
    game = get_game(config.game)
    labels = player_labels(game, config.specs)
    return _run(
        kind="tournament",
        game=game,
        specs=config.specs,
        labels=labels,
        pairings=config.pairings,
        games_per_pair=config.games_per_pair,
        seed=config.seed,
        workers=config.workers,
        config_mapping=config.to_mapping(),
        store=store,
        progress=progress,
        console=console,
        on_game=on_game,
        stop_after=stop_after,
        backend=backend,
    )


def _run(
    *,
    kind: str,
    game: Game,
    specs: tuple[str, ...],
    labels: tuple[str, ...],
    pairings: Sequence[tuple[int, int]],
    games_per_pair: int,
    seed: int,
    workers: int,
    config_mapping: dict[str, Any],
    store: GameStore | None,
    progress: bool,
    console: Console | None,
    on_game: GameCallback | None,
    stop_after: int | None,
    backend: Backend | None,
) -> RunResult:
    if stop_after is not None and stop_after < 0:
        raise ConfigError(f"stop_after must be >= 0, not {stop_after}")
    own_store = store is None
    db = GameStore(":memory:") if store is None else store
    try:
        named = game_spec(game)  # with its parameters (komi, size): the games are of this game
        run_key = run_key_for(kind, named, specs, seed)
        config_mapping = {**config_mapping, "game": named}
        db.ensure_run(RunInfo(run_key=run_key, kind=kind, game=game.name, config=config_mapping))
        done = db.recorded_indices(run_key)
        wanted = [
            (p, i) for i in range(games_per_pair) for p in range(len(pairings))
        ]  # round-robin order
        todo = [key for key in wanted if key not in done]
        skipped = len(wanted) - len(todo)
        if stop_after is not None:
            todo = todo[:stop_after]
        modules = player_modules(specs)
        tasks = [
            GameTask(
                run_key=run_key,
                pairing=p,
                game_index=i,
                game=named,
                spec_a=specs[pairings[p][0]],
                spec_b=specs[pairings[p][1]],
                label_a=labels[pairings[p][0]],
                label_b=labels[pairings[p][1]],
                a_first=i % 2 == 0,
                seed=derive_seed(seed, p, i),
                player_modules=modules,
            )
            for p, i in todo
        ]
        description = f"{kind} {game.name}: " + (
            f"{labels[0]} vs {labels[1]}" if kind == "match" else f"{len(specs)} players"
        )
        played = 0

        def count(record: GameRecord) -> None:
            nonlocal played
            played += 1
            if on_game is not None:
                on_game(record)

        try:
            cost = _execute(
                tasks, db, local_or(backend, workers), progress, console, description, count
            )
        except BaseException as error:
            if is_interrupt(error) and not isinstance(error, RunInterrupted):
                raise RunInterrupted(run_key, db.count(run_key), played) from None
            raise
        wanted_set = set(wanted)
        records = tuple(
            r for r in db.iter_games(run_key) if (r.pairing, r.game_index) in wanted_set
        )
        return RunResult(
            run_key=run_key,
            kind=kind,
            game=game.name,
            specs=specs,
            labels=labels,
            records=records,
            played=played,
            skipped=skipped,
            expected=len(wanted),
            cost=cost,
        )
    finally:
        if own_store:
            db.close()


_SAFEPATH_ADDED = "SPARRING_SAFEPATH_ADDED"
"""Set beside ``PYTHONSAFEPATH`` when :func:`pool_context` added it for the fork server."""


def pool_context() -> multiprocessing.context.BaseContext:
    """``forkserver`` (with sparring preloaded, so workers start fast) or else ``spawn``.

    The fork server is started here with ``PYTHONSAFEPATH=1``, so that its interpreter does
    not put the current directory first on ``sys.path`` while it imports sparring, numpy and
    numba (a file such as ``inspect.py`` there would otherwise replace the standard module).
    """
    if "forkserver" in multiprocessing.get_all_start_methods():
        from multiprocessing import forkserver

        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["sparring.evaluation.match"])
        saved = os.environ.get("PYTHONSAFEPATH")
        if not saved:  # workers take it out again (init_worker)
            os.environ["PYTHONSAFEPATH"] = os.environ[_SAFEPATH_ADDED] = "1"
        try:
            forkserver.ensure_running()
        finally:
            if not saved:
                os.environ.pop(_SAFEPATH_ADDED, None)
                if saved is None:
                    os.environ.pop("PYTHONSAFEPATH", None)
                else:
                    os.environ["PYTHONSAFEPATH"] = saved
        return context
    return multiprocessing.get_context("spawn")


def init_worker() -> None:
    """Set up a worker process: ignore SIGINT (the parent handles Ctrl-C and stops the
    workers), exit when the parent process dies (a killed run leaves no workers behind), and
    move the current directory (``''`` or its path) to the end of ``sys.path``, so the
    standard library and the installed packages win over files there."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if os.environ.pop(_SAFEPATH_ADDED, None):  # set for the fork server only, not for programs
        os.environ.pop("PYTHONSAFEPATH", None)  # that a worker starts
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_exit_with, args=(parent,), daemon=True).start()
    here = {"", ".", os.getcwd(), os.path.realpath(os.getcwd())}
    local = [entry for entry in sys.path if entry in here or os.path.realpath(entry) in here]
    sys.path[:] = [entry for entry in sys.path if entry not in local] + local


def _exit_with(parent: multiprocessing.process.BaseProcess) -> None:
    """Wait for ``parent`` to end, then end this process at once."""
    parent.join()
    os._exit(1)


def stop_workers(pool: ProcessPoolExecutor) -> None:
    """Cancel the pool's pending work and terminate its workers without waiting for them."""
    workers = list((getattr(pool, "_processes", None) or {}).values())  # no API before 3.14
    pool.shutdown(wait=False, cancel_futures=True)
    for worker in workers:
        if worker.is_alive():
            worker.terminate()


def _pool_games(tasks: Sequence[GameTask], workers: int, deliver: Deliver) -> float:
    """Play ``tasks`` in a pool of ``workers`` processes, delivering each game as it ends;
    returns the workers' CPU seconds.  On any error, or Ctrl-C, in the parent the workers are
    stopped at once (their games in flight are lost)."""
    cpu = 0.0
    with ProcessPoolExecutor(
        max_workers=workers,
        mp_context=pool_context(),
        initializer=init_worker,
    ) as pool:
        pending: set[Future[tuple[GameRecord, float]]] = {
            pool.submit(_timed_play_task, t) for t in tasks
        }
        try:
            while pending:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                error: BaseException | None = None
                for future in finished:  # store every success before raising a failure
                    failure = future.exception()
                    if failure is None:
                        record, seconds = future.result()
                        cpu += seconds
                        deliver(record)
                    elif error is None:
                        error = failure
                if error is not None:
                    raise error
        except BaseException:
            stop_workers(pool)
            raise
    return cpu


GAME_JOB: Job[GameTask] = Job("game", iterate_task, _pool_games)
"""How a :class:`GameTask` is played: one game per task."""


def _execute(
    tasks: Sequence[GameTask],
    store: GameStore,
    backend: Backend,
    progress: bool,
    console: Console | None,
    description: str,
    on_game: GameCallback | None,
) -> RunCost | None:
    """Play ``tasks`` on ``backend``, storing each game as it finishes (in this process).

    ``on_game`` is called with every newly stored game.  On any error, or Ctrl-C, in the
    parent the backend stops its work at once (the games in flight are lost).  Returns the
    cost of the games played (printed after the progress bar), None when there were none.
    """
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
    played = 0

    def finish(record: GameRecord) -> None:
        nonlocal played
        new = store.add_game(record)
        bar.advance(bar_task)
        if new:
            played += 1
            if on_game is not None:
                on_game(record)

    if not tasks:
        return None
    with bar:
        bar_task = bar.add_task(description, total=len(tasks))
        cost = backend.run(GAME_JOB, tasks, finish)
    if progress:
        bar.console.print(cost.line())
    return cost
