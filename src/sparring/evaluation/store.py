"""A durable SQLite store of played games and of the runs (matches, tournaments) that made them.

The store is one SQLite file in WAL mode with two tables:

``runs``
    One row per match or tournament: its *run key* (a hash of what determines its games),
    its kind, the game name and its configuration as JSON.
``games``
    One row per finished game: run key, pairing index, game index, game name, the specs and
    labels of the pairing's two players (A and B), whether A moved first, the game seed, the
    move list and per-move think times (JSON arrays), the result, which is the score of the
    *first-moving* player (1, 0.5 or 0), and optional per-move annotations (a nullable JSON
    array, one object or null per move: the :attr:`Decision.annotation
    <sparring.players.base.Decision.annotation>` of the mover's decision, e.g. the root visit
    counts of a search; NULL when no player annotated any move), and the optional end-of-game player
    states (a nullable JSON array ``[state_a, state_b]``: what :meth:`Player.save_state
    <sparring.players.base.Player.save_state>` of A and of B returned after the game, each an
    object or null; written by the series runner, from which a partly played series resumes;
    NULL when not saved).  The ``annotations`` and ``player_states`` columns were added after
    the first release of the store: opening an older store adds them with ``ALTER TABLE``
    (its games read back with ``annotations=None`` and ``player_states=None``), so the schema
    version is unchanged.

A game is identified by ``(run_key, pairing, game_index)`` (a unique key).  Every game is
committed on its own, so a process killed mid-run loses at most the game in flight, and a
re-run of the same configuration skips the indices already recorded (see
:meth:`GameStore.recorded_indices`).  Only one process should write to a store at a time; the
match runner writes from its parent process only.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from sparring.errors import ConfigError

SCHEMA_VERSION = 1
"""Stored in ``PRAGMA user_version``; a store with another version is refused."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_key     TEXT PRIMARY KEY,
    kind        TEXT NOT NULL,
    game        TEXT NOT NULL,
    config      TEXT NOT NULL,
    created_at  REAL NOT NULL,
    updated_at  REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    id          INTEGER PRIMARY KEY,
    run_key     TEXT NOT NULL REFERENCES runs(run_key),
    pairing     INTEGER NOT NULL,
    game_index  INTEGER NOT NULL,
    game        TEXT NOT NULL,
    spec_a      TEXT NOT NULL,
    spec_b      TEXT NOT NULL,
    label_a     TEXT NOT NULL,
    label_b     TEXT NOT NULL,
    a_first     INTEGER NOT NULL CHECK (a_first IN (0, 1)),
    seed        INTEGER NOT NULL,
    moves       TEXT NOT NULL,
    think_times TEXT NOT NULL,
    result      REAL NOT NULL CHECK (result IN (0.0, 0.5, 1.0)),
    plies       INTEGER NOT NULL,
    finished_at REAL NOT NULL,
    annotations TEXT,
    player_states TEXT,
    UNIQUE (run_key, pairing, game_index)
);
CREATE INDEX IF NOT EXISTS games_by_run ON games (run_key, pairing, game_index);
"""

_GAME_COLUMNS = (
    "run_key, pairing, game_index, game, spec_a, spec_b, label_a, label_b, a_first, seed, "
    "moves, think_times, result, plies, finished_at, annotations, player_states"
)

_ADDED_COLUMNS = ("annotations", "player_states")
"""Nullable TEXT columns added to ``games`` after the store's first release, in order."""

Annotation = dict[str, Any] | None
"""What a player said about one of its moves (its decision's
:attr:`~sparring.players.base.Decision.annotation`), or None."""

SavedState = dict[str, Any] | None
"""What a player saved after a game (:meth:`Player.save_state`): JSON values, or None."""


@dataclass(frozen=True)
class GameRecord:
    """One finished game between the two players A and B of a pairing.

    ``result`` is the score of the player who moved first (1 win, 0.5 draw, 0 loss); use
    :attr:`score_a` for A's score.  ``moves`` are the game's integer moves in order (passes
    included) and ``think_times[i]`` the seconds the mover spent choosing ``moves[i]``.
    """

    game: str
    """Registry name of the game, e.g. ``"connect4"``."""
    spec_a: str
    """Player spec of A, e.g. ``"mcts1"``."""
    spec_b: str
    """Player spec of B."""
    label_a: str
    """Display label of A (unique within its run), e.g. ``"MCTS1"``."""
    label_b: str
    """Display label of B."""
    a_first: bool
    """Whether A moved first."""
    seed: int
    """The game seed the two players' seeds were derived from."""
    moves: tuple[int, ...]
    """The moves played, in order."""
    think_times: tuple[float, ...]
    """Seconds spent on each move (same length as ``moves``)."""
    result: float
    """Score of the first-moving player: 1, 0.5 or 0."""
    run_key: str = ""
    """Key of the run (match or tournament) the game belongs to."""
    pairing: int = 0
    """Index of the pairing within the run (0 for a match)."""
    game_index: int = 0
    """Index of the game within its pairing."""
    finished_at: float = field(default=0.0, compare=False)
    """Unix time at which the game ended."""
    annotations: tuple[Annotation, ...] | None = field(default=None, hash=False)
    """Per-move annotations aligned with ``moves`` (``annotations[i]`` is what the player who
    chose ``moves[i]`` reported about it, or None), or None when no move was annotated."""
    player_states: tuple[SavedState, SavedState] | None = field(default=None, hash=False)
    """``(state_a, state_b)``: what A's and B's :meth:`~sparring.players.base.Player.save_state`
    returned right after this game (each None for a player that keeps no state), or None when
    the states were not saved (games of matches and tournaments, whose players live for one
    game).  The series runner restores a partly played series from the last one."""

    def __post_init__(self) -> None:
        if self.result not in (0.0, 0.5, 1.0):
            raise ValueError(f"result must be 0, 0.5 or 1, not {self.result!r}")
        if len(self.moves) != len(self.think_times):
            raise ValueError("moves and think_times must have the same length")
        if self.annotations is not None:
            object.__setattr__(self, "annotations", tuple(self.annotations))
            if len(self.annotations) != len(self.moves):
                raise ValueError("annotations must have one entry per move")
        if self.player_states is not None:
            object.__setattr__(self, "player_states", tuple(self.player_states))
            if len(self.player_states) != 2:
                raise ValueError("player_states must be a pair (state_a, state_b)")

    @property
    def first_label(self) -> str:
        """Label of the player who moved first."""
        return self.label_a if self.a_first else self.label_b

    @property
    def second_label(self) -> str:
        """Label of the player who moved second."""
        return self.label_b if self.a_first else self.label_a

    @property
    def score_a(self) -> float:
        """A's score in this game (1, 0.5 or 0)."""
        return self.result if self.a_first else 1.0 - self.result

    @property
    def score_b(self) -> float:
        """B's score in this game (1, 0.5 or 0)."""
        return 1.0 - self.score_a

    @property
    def plies(self) -> int:
        """Number of moves played."""
        return len(self.moves)

    @property
    def key(self) -> tuple[str, int, int]:
        """The identity of the game in a store: ``(run_key, pairing, game_index)``."""
        return (self.run_key, self.pairing, self.game_index)


@dataclass(frozen=True)
class RunInfo:
    """A match or tournament recorded in a store, with its configuration."""

    run_key: str
    """Hash of the settings that determine the run's games (see ``match.run_key_for``)."""
    kind: str
    """``"match"`` or ``"tournament"``."""
    game: str
    """Registry name of the game."""
    config: Mapping[str, Any]
    """The run's configuration (JSON-compatible values)."""
    created_at: float = field(default=0.0, compare=False)
    """Unix time of the first start of the run."""
    updated_at: float = field(default=0.0, compare=False)
    """Unix time of the latest (re)start of the run."""


class GameStore:
    """A SQLite file of games and runs; use as a context manager or call :meth:`close`.

    ``path`` may be ``":memory:"`` for a throw-away store (tests).  The file's directory is
    created if needed.  Every write commits immediately (WAL, ``synchronous=FULL``).
    """

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
        except sqlite3.DatabaseError as exc:
            raise ConfigError(f"game store {self.path}: {exc}") from exc
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            version = int(self._db.execute("PRAGMA user_version").fetchone()[0])
            if version not in (0, SCHEMA_VERSION):
                raise ConfigError(
                    f"game store {self.path}: schema version {version}, expected {SCHEMA_VERSION}"
                )
            with self._transaction():
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        self._db.execute(statement)
                self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
                columns = {row[1] for row in self._db.execute("PRAGMA table_info(games)")}
                for column in _ADDED_COLUMNS:  # a store written before the column existed
                    if column not in columns:
                        self._db.execute(f"ALTER TABLE games ADD COLUMN {column} TEXT")
        except sqlite3.DatabaseError as exc:
            self._db.close()
            raise ConfigError(f"game store {self.path}: {exc}") from exc
        except BaseException:
            self._db.close()
            raise

    # ---- lifetime ------------------------------------------------------------------------
    def close(self) -> None:
        """Close the connection (everything is already committed)."""
        self._db.close()

    def __enter__(self) -> GameStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _transaction(self) -> _Transaction:
        return _Transaction(self._db)

    @property
    def journal_mode(self) -> str:
        """SQLite's journal mode: ``"wal"`` for a file store, ``"memory"`` in memory."""
        return str(self._db.execute("PRAGMA journal_mode").fetchone()[0])

    # ---- runs ----------------------------------------------------------------------------
    def ensure_run(self, run: RunInfo) -> RunInfo:
        """Record ``run``, or update the stored configuration of an existing run of that key.

        Raises :class:`~sparring.errors.ConfigError` if the key exists with another kind or
        game (the key is a hash, so this means a corrupted or hand-edited store).
        """
        now = time.time()
        existing = self.get_run(run.run_key)
        config_json = json.dumps(dict(run.config), sort_keys=True)
        with self._transaction():
            if existing is None:
                self._db.execute(
                    "INSERT INTO runs (run_key, kind, game, config, created_at, updated_at) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (run.run_key, run.kind, run.game, config_json, now, now),
                )
            else:
                if (existing.kind, existing.game) != (run.kind, run.game):
                    raise ConfigError(
                        f"game store {self.path}: run {run.run_key} is a {existing.kind} of "
                        f"{existing.game}, not a {run.kind} of {run.game}"
                    )
                self._db.execute(
                    "UPDATE runs SET config = ?, updated_at = ? WHERE run_key = ?",
                    (config_json, now, run.run_key),
                )
        stored = self.get_run(run.run_key)
        assert stored is not None
        return stored

    def get_run(self, run_key: str) -> RunInfo | None:
        """The run stored under ``run_key``, or None."""
        row = self._db.execute(
            "SELECT run_key, kind, game, config, created_at, updated_at FROM runs "
            "WHERE run_key = ?",
            (run_key,),
        ).fetchone()
        return None if row is None else _run_from_row(row)

    def runs(self) -> list[RunInfo]:
        """All runs, oldest first."""
        rows = self._db.execute(
            "SELECT run_key, kind, game, config, created_at, updated_at FROM runs "
            "ORDER BY created_at, run_key"
        ).fetchall()
        return [_run_from_row(row) for row in rows]

    # ---- games ---------------------------------------------------------------------------
    def add_game(self, record: GameRecord) -> bool:
        """Store ``record`` and commit; False (nothing written) if its key is already stored.

        The record's run must have been recorded with :meth:`ensure_run` first.
        """
        finished = record.finished_at or time.time()
        try:
            with self._transaction():
                cursor = self._db.execute(
                    f"INSERT OR IGNORE INTO games ({_GAME_COLUMNS}) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        record.run_key,
                        record.pairing,
                        record.game_index,
                        record.game,
                        record.spec_a,
                        record.spec_b,
                        record.label_a,
                        record.label_b,
                        int(record.a_first),
                        int(record.seed),
                        json.dumps([int(m) for m in record.moves]),
                        json.dumps([float(t) for t in record.think_times]),
                        float(record.result),
                        record.plies,
                        finished,
                        _annotations_json(record.annotations),
                        _states_json(record.player_states),
                    ),
                )
        except sqlite3.IntegrityError as exc:
            raise ConfigError(
                f"game store {self.path}: cannot store game {record.key}: {exc} "
                "(record its run with ensure_run first)"
            ) from exc
        return cursor.rowcount == 1

    def recorded_indices(self, run_key: str) -> set[tuple[int, int]]:
        """The ``(pairing, game_index)`` pairs already stored for ``run_key``."""
        rows = self._db.execute(
            "SELECT pairing, game_index FROM games WHERE run_key = ?", (run_key,)
        ).fetchall()
        return {(int(p), int(i)) for p, i in rows}

    def games(self, run_key: str | None = None) -> list[GameRecord]:
        """The stored games of ``run_key`` (all games if None), ordered by run, pairing, index."""
        return list(self.iter_games(run_key))

    def iter_games(self, run_key: str | None = None) -> Iterator[GameRecord]:
        """Like :meth:`games`, but lazily."""
        query = f"SELECT {_GAME_COLUMNS} FROM games"
        params: Sequence[Any] = ()
        if run_key is not None:
            query += " WHERE run_key = ?"
            params = (run_key,)
        query += " ORDER BY run_key, pairing, game_index"
        for row in self._db.execute(query, params):
            yield _game_from_row(row)

    def count(self, run_key: str | None = None) -> int:
        """Number of stored games of ``run_key`` (of all runs if None)."""
        if run_key is None:
            row = self._db.execute("SELECT COUNT(*) FROM games").fetchone()
        else:
            row = self._db.execute(
                "SELECT COUNT(*) FROM games WHERE run_key = ?", (run_key,)
            ).fetchone()
        return int(row[0])


class _Transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` (``ROLLBACK`` on error) on an autocommit connection."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def __enter__(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._db.execute("ROLLBACK" if exc_type is not None else "COMMIT")


def _run_from_row(row: Sequence[Any]) -> RunInfo:
    run_key, kind, game, config, created, updated = row
    return RunInfo(
        run_key=str(run_key),
        kind=str(kind),
        game=str(game),
        config=json.loads(config),
        created_at=float(created),
        updated_at=float(updated),
    )


def _game_from_row(row: Sequence[Any]) -> GameRecord:
    (
        run_key,
        pairing,
        game_index,
        game,
        spec_a,
        spec_b,
        label_a,
        label_b,
        a_first,
        seed,
        moves,
        think_times,
        result,
        _plies,
        finished_at,
        annotations,
        player_states,
    ) = row
    return GameRecord(
        game=str(game),
        spec_a=str(spec_a),
        spec_b=str(spec_b),
        label_a=str(label_a),
        label_b=str(label_b),
        a_first=bool(a_first),
        seed=int(seed),
        moves=tuple(int(m) for m in json.loads(moves)),
        think_times=tuple(float(t) for t in json.loads(think_times)),
        result=float(result),
        run_key=str(run_key),
        pairing=int(pairing),
        game_index=int(game_index),
        finished_at=float(finished_at),
        annotations=None if annotations is None else tuple(json.loads(annotations)),
        player_states=None if player_states is None else tuple(json.loads(player_states)),
    )


def _json_default(value: Any) -> Any:
    """JSON for numpy scalars and arrays inside annotations (everything else is an error)."""
    if hasattr(value, "tolist"):  # numpy scalar or array
        return value.tolist()
    raise TypeError(f"annotation value {value!r} is not JSON serialisable")


def _annotations_json(annotations: Sequence[Annotation] | None) -> str | None:
    """The ``annotations`` column: a JSON array, or NULL when absent or all None."""
    if annotations is None or all(a is None for a in annotations):
        return None
    return json.dumps(list(annotations), default=_json_default, separators=(",", ":"))


def _states_json(states: Sequence[SavedState] | None) -> str | None:
    """The ``player_states`` column: a JSON array ``[state_a, state_b]``, or NULL."""
    if states is None:
        return None
    return json.dumps(list(states), separators=(",", ":"), allow_nan=False)
