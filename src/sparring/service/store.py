"""The service's database: players, games, moves and profiles, through SQLAlchemy 2 Core.

Any database SQLAlchemy reaches by URL works (the default is SQLite under the data directory,
in WAL mode; ``postgresql+psycopg://...`` for deployments with several server processes).
The schema is versioned: the table ``schema_version`` holds the version, and
:data:`MIGRATIONS` are the ordered steps from version 0 (an empty database) up to
:data:`SCHEMA_VERSION`; :meth:`Store.open` runs the steps a database lacks, each in its own
transaction.

Every change of state is one transaction.  A game row carries ``version``, raised by every
change; a change computed from version ``v`` is stored only if the row is still at ``v``
(:meth:`Store.apply`), so a retried or raced request, or an AI move computed before an undo,
is never applied twice or on top of another change.

Tables
    ``players``: id, name (as given), sha256 of the token, created.
    ``games``: id, player, game name and parameters (JSON), opponent settings (JSON) and
    label, the adaptive profile key (or null), the person's side, status (``ongoing`` /
    ``over``), the person's score, ply, side to move, version, the latest session snapshot
    (JSON), created, updated, whether hints are on and how many were shown, the clock (JSON,
    :mod:`sparring.service.clock`; null: no time control).
    ``moves``: game, ply (unique per game: the ply before the move), move, side, played_by
    (``human`` / ``ai``), the AI's analysis (JSON or null).
    ``profiles``: player, the :class:`~sparring.profiles.Profile` JSON, updated.
    ``estimate_details``: per estimate of the profile (player, game, time, kind) what the
    profile does not keep: an interval (low, high), the confidence (the strength estimator's
    bootstrap share of its rank), the share within one rank, the games and moves scored.
    ``player_tokens``: the sha256 of each further token of a player (one per device signed
    in with a sign-in code), the player, created.
    ``signin_codes``: the sha256 of each one-time sign-in code, the player, created, expires
    and used (the time it was used, or null).
"""

from __future__ import annotations

import contextlib
import datetime
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from sparring.errors import BadValueError, IncompatibleError, MissingResourceError

METADATA = sa.MetaData()

schema_version = sa.Table(
    "schema_version", METADATA, sa.Column("version", sa.Integer, nullable=False)
)
players = sa.Table(
    "players",
    METADATA,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
    sa.Column("created", sa.String(40), nullable=False),
)
games = sa.Table(
    "games",
    METADATA,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), nullable=False),
    sa.Column("game", sa.String(40), nullable=False),
    sa.Column("game_params", sa.Text, nullable=False),
    sa.Column("opponent", sa.Text, nullable=False),
    sa.Column("opponent_label", sa.Text, nullable=False),
    sa.Column("human_side", sa.Integer, nullable=False),
    sa.Column("status", sa.String(10), nullable=False),
    sa.Column("result", sa.Float, nullable=True),
    sa.Column("ply", sa.Integer, nullable=False),
    sa.Column("to_move", sa.Integer, nullable=False),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("snapshot", sa.Text, nullable=False),
    sa.Column("created", sa.String(40), nullable=False),
    sa.Column("updated", sa.String(40), nullable=False),
    # version 2
    sa.Column("adaptive_key", sa.String(40), nullable=True),
    sa.Column("notices", sa.Text, nullable=True),
    # version 4
    sa.Column("hints", sa.Integer, nullable=True),
    sa.Column("hints_used", sa.Integer, nullable=True),
    # version 6
    sa.Column("clock", sa.Text, nullable=True),
    # version 7
    sa.Column("ai_level", sa.Text, nullable=True),
)
moves = sa.Table(
    "moves",
    METADATA,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), nullable=False),
    sa.Column("ply", sa.Integer, nullable=False),
    sa.Column("move", sa.Integer, nullable=False),
    sa.Column("side", sa.Integer, nullable=False),
    sa.Column("played_by", sa.String(5), nullable=False),
    sa.Column("analysis", sa.Text, nullable=True),
    sa.UniqueConstraint("game_id", "ply", name="moves_game_ply"),
)
profiles = sa.Table(
    "profiles",
    METADATA,
    sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), primary_key=True),
    sa.Column("profile", sa.Text, nullable=False),
    sa.Column("updated", sa.String(40), nullable=False),
)
estimate_details = sa.Table(
    "estimate_details",
    METADATA,
    sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), nullable=False),
    sa.Column("game", sa.String(40), nullable=False),
    sa.Column("time", sa.String(40), nullable=False),
    sa.Column("kind", sa.String(20), nullable=False),
    sa.Column("low", sa.Float, nullable=True),
    sa.Column("high", sa.Float, nullable=True),
    sa.Column("confidence", sa.Float, nullable=True),
    sa.Column("within_one", sa.Float, nullable=True),
    sa.Column("games", sa.Integer, nullable=True),
    sa.Column("moves", sa.Integer, nullable=True),
)


player_tokens = sa.Table(
    "player_tokens",
    METADATA,
    sa.Column("token_hash", sa.String(64), primary_key=True),
    sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), nullable=False),
    sa.Column("created", sa.String(40), nullable=False),
)
signin_codes = sa.Table(
    "signin_codes",
    METADATA,
    sa.Column("code_hash", sa.String(64), primary_key=True),
    sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), nullable=False),
    sa.Column("created", sa.String(40), nullable=False),
    sa.Column("expires", sa.String(40), nullable=False),
    sa.Column("used", sa.String(40), nullable=True),
)
LIVE_CODES = 5
"""Sign-in codes a player may hold unused at once (a new one retires the oldest)."""


# ---- migrations ---------------------------------------------------------------------------------
def _v1(conn: Connection) -> None:
    """Version 1: players, games (without the adaptive key and notices), moves."""
    conn.execute(
        sa.text(
            "CREATE TABLE players (id VARCHAR(32) PRIMARY KEY, name TEXT NOT NULL, "
            "token_hash VARCHAR(64) NOT NULL UNIQUE, created VARCHAR(40) NOT NULL)"
        )
    )
    conn.execute(
        sa.text(
            "CREATE TABLE games (id VARCHAR(32) PRIMARY KEY, "
            "player_id VARCHAR(32) NOT NULL REFERENCES players(id), game VARCHAR(40) NOT NULL, "
            "game_params TEXT NOT NULL, opponent TEXT NOT NULL, opponent_label TEXT NOT NULL, "
            "human_side INTEGER NOT NULL, status VARCHAR(10) NOT NULL, result FLOAT, "
            "ply INTEGER NOT NULL, to_move INTEGER NOT NULL, version INTEGER NOT NULL, "
            "snapshot TEXT NOT NULL, created VARCHAR(40) NOT NULL, updated VARCHAR(40) NOT NULL)"
        )
    )
    conn.execute(sa.text("CREATE INDEX games_player ON games (player_id)"))
    conn.execute(
        sa.text(
            "CREATE TABLE moves (game_id VARCHAR(32) NOT NULL REFERENCES games(id), "
            "ply INTEGER NOT NULL, move INTEGER NOT NULL, side INTEGER NOT NULL, "
            "played_by VARCHAR(5) NOT NULL, analysis TEXT, "
            "CONSTRAINT moves_game_ply UNIQUE (game_id, ply))"
        )
    )


def _v2(conn: Connection) -> None:
    """Version 2: profiles, and per game the adaptive profile key and the AI's notices."""
    conn.execute(
        sa.text(
            "CREATE TABLE profiles (player_id VARCHAR(32) PRIMARY KEY REFERENCES players(id), "
            "profile TEXT NOT NULL, updated VARCHAR(40) NOT NULL)"
        )
    )
    conn.execute(sa.text("ALTER TABLE games ADD COLUMN adaptive_key VARCHAR(40)"))
    conn.execute(sa.text("ALTER TABLE games ADD COLUMN notices TEXT"))


def _v3(conn: Connection) -> None:
    """Version 3: what the profile's estimates do not hold (an interval, a confidence)."""
    conn.execute(
        sa.text(
            "CREATE TABLE estimate_details (player_id VARCHAR(32) NOT NULL REFERENCES "
            "players(id), game VARCHAR(40) NOT NULL, time VARCHAR(40) NOT NULL, "
            "kind VARCHAR(20) NOT NULL, low FLOAT, high FLOAT, confidence FLOAT, "
            "within_one FLOAT, games INTEGER, moves INTEGER)"
        )
    )
    conn.execute(sa.text("CREATE INDEX estimate_details_player ON estimate_details (player_id)"))


def _v4(conn: Connection) -> None:
    """Version 4: per game whether hints are on (1) or off (0 or null), and how many were
    shown."""
    conn.execute(sa.text("ALTER TABLE games ADD COLUMN hints INTEGER"))
    conn.execute(sa.text("ALTER TABLE games ADD COLUMN hints_used INTEGER"))


def _v5(conn: Connection) -> None:
    """Version 5: a player's further tokens (other devices) and one-time sign-in codes."""
    conn.execute(
        sa.text(
            "CREATE TABLE player_tokens (token_hash VARCHAR(64) PRIMARY KEY, "
            "player_id VARCHAR(32) NOT NULL REFERENCES players(id), "
            "created VARCHAR(40) NOT NULL)"
        )
    )
    conn.execute(
        sa.text(
            "CREATE TABLE signin_codes (code_hash VARCHAR(64) PRIMARY KEY, "
            "player_id VARCHAR(32) NOT NULL REFERENCES players(id), "
            "created VARCHAR(40) NOT NULL, expires VARCHAR(40) NOT NULL, used VARCHAR(40))"
        )
    )
    conn.execute(sa.text("CREATE INDEX signin_codes_player ON signin_codes (player_id)"))


def _v6(conn: Connection) -> None:
    """Version 6: per game its clock (JSON; null without a time control)."""
    conn.execute(sa.text("ALTER TABLE games ADD COLUMN clock TEXT"))


def _v7(conn: Connection) -> None:
    """Version 7: per game the level its AI was asked to play (JSON: kind, the Elo played, the
    rank; null for a player spec and for the games before it)."""
    conn.execute(sa.text("ALTER TABLE games ADD COLUMN ai_level TEXT"))


MIGRATIONS: tuple[Callable[[Connection], None], ...] = (_v1, _v2, _v3, _v4, _v5, _v6, _v7)
"""``MIGRATIONS[i]`` takes the schema from version ``i`` to ``i + 1``."""
SCHEMA_VERSION = len(MIGRATIONS)


MIGRATION_LOCK = 0x5350_4152_5249_4E47
"""The PostgreSQL advisory lock (a bigint key: "SPARRING" in ASCII) held while a server
migrates the schema."""


def migrate(engine: Engine, target: int = SCHEMA_VERSION) -> int:
    """Bring the database to schema version ``target`` (each step one transaction); the
    version before.  :class:`IncompatibleError` for a database newer than this code.

    On PostgreSQL the whole migration holds an advisory lock, so that servers started at
    once on one database migrate it one after the other (the second finds nothing to do);
    PostgreSQL's DDL is transactional, so a step that fails leaves the version before it."""
    with engine.connect() as conn:
        locked = conn.dialect.name == "postgresql"
        if locked:
            conn.execute(sa.text("SELECT pg_advisory_lock(:key)"), {"key": MIGRATION_LOCK})
            conn.commit()
        try:
            with conn.begin():
                conn.execute(
                    sa.text("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
                )
                found = conn.execute(sa.select(schema_version.c.version)).scalar()
                if found is None:
                    conn.execute(schema_version.insert().values(version=0))
                    found = 0
            if found > SCHEMA_VERSION:
                raise IncompatibleError(
                    f"the database has schema version {found}; "
                    f"this sparring reads up to {SCHEMA_VERSION}"
                )
            for step in range(found, target):
                with conn.begin():
                    MIGRATIONS[step](conn)
                    conn.execute(schema_version.update().values(version=step + 1))
        finally:
            if locked:  # (a connection that broke has lost its lock with its session)
                with contextlib.suppress(sa.exc.DBAPIError):
                    conn.rollback()
                    conn.execute(
                        sa.text("SELECT pg_advisory_unlock(:key)"), {"key": MIGRATION_LOCK}
                    )
                    conn.commit()
    return int(found)


def make_engine(url: str) -> Engine:
    """An engine for ``url``; SQLite files get WAL, foreign keys and a busy timeout;
    ``postgresql://`` URLs get the installed driver, psycopg 3."""
    if url.startswith("sqlite"):
        engine = sa.create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

        @sa.event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn: Any, _record: Any) -> None:
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

        return engine
    if url.startswith(("postgresql://", "postgres://")):  # the driver installed: psycopg 3
        url = "postgresql+psycopg://" + url.split("://", 1)[1]
    # up to 32 connections: as many as asyncio's default thread pool has threads at most
    # (the server's database calls run there), so that no call waits for a connection
    return sa.create_engine(url, pool_pre_ping=True, pool_size=8, max_overflow=24)


def now_text() -> str:
    """The current time, UTC, ISO 8601 with milliseconds."""
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds")


@dataclass(frozen=True)
class GameRow:
    """One row of ``games``, JSON fields decoded."""

    id: str
    player_id: str
    game: str
    game_params: dict[str, Any]
    opponent: dict[str, Any]
    opponent_label: str
    human_side: int
    status: str
    result: float | None
    ply: int
    to_move: int
    version: int
    snapshot: dict[str, Any]
    created: str
    updated: str
    adaptive_key: str | None
    notices: list[str]
    hints: bool = False
    """Whether the person may ask for hints (chosen when the game began)."""
    hints_used: int = 0
    """Hints shown in this game."""
    clock: dict[str, Any] | None = None
    """The game's clock (:mod:`sparring.service.clock`), or None: no time control."""
    ai_level: dict[str, Any] | None = None
    """The level the AI was asked to play (``kind``, ``elo``: the Elo played, ``rank``), or
    None: a player spec, or a game stored before levels were."""

    @property
    def ai_to_move(self) -> bool:
        """Whether the game goes on and the AI is to move."""
        return self.status == "ongoing" and self.to_move != self.human_side


def _game_row(row: Any) -> GameRow:
    return GameRow(
        id=row["id"],
        player_id=row["player_id"],
        game=row["game"],
        game_params=json.loads(row["game_params"]),
        opponent=json.loads(row["opponent"]),
        opponent_label=row["opponent_label"],
        human_side=int(row["human_side"]),
        status=row["status"],
        result=row["result"],
        ply=int(row["ply"]),
        to_move=int(row["to_move"]),
        version=int(row["version"]),
        snapshot=json.loads(row["snapshot"]),
        created=row["created"],
        updated=row["updated"],
        adaptive_key=row["adaptive_key"],
        notices=json.loads(row["notices"]) if row["notices"] else [],
        hints=bool(row["hints"]),
        hints_used=int(row["hints_used"] or 0),
        clock=json.loads(row["clock"]) if row["clock"] else None,
        ai_level=json.loads(row["ai_level"]) if row["ai_level"] else None,
    )


@dataclass(frozen=True)
class MoveRow:
    """One row of ``moves``."""

    ply: int
    move: int
    side: int
    by: str
    analysis: dict[str, Any] | None


class StaleError(IncompatibleError):
    """The game changed since the request (or job) read it, or is not where the request
    expects it (another ply, the other side to move): nothing was stored."""

    def __init__(self, message: str, key: str | None = "ply") -> None:
        super().__init__(message)
        self.key = key


class Store:
    """The service's tables on one engine (thread-safe: each call takes its own
    connection)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    @classmethod
    def open(cls, url: str) -> Store:
        """The store at ``url``, its schema brought up to date.  :class:`BadValueError` (key
        ``db``) for a URL SQLAlchemy cannot read, :class:`MissingResourceError` for a
        database that cannot be reached or opened."""
        try:
            engine = make_engine(url)
        except (sa.exc.ArgumentError, sa.exc.NoSuchModuleError) as err:
            raise BadValueError(f"database URL {url!r} is not usable: {err}", "db") from None
        try:
            migrate(engine)
        except sa.exc.OperationalError as err:
            engine.dispose()
            raise MissingResourceError(
                f"database {engine.url!r} cannot be opened: {err.orig}"
            ) from None
        return cls(engine)

    def close(self) -> None:
        """Release the engine's connections."""
        self.engine.dispose()

    @contextmanager
    def transaction(self) -> Iterator[Connection]:
        """One transaction (committed when the block ends without an error)."""
        with self.engine.begin() as conn:
            yield conn

    # ---- players ---------------------------------------------------------------------------
    def add_player(self, player_id: str, name: str, token_hash: str) -> str:
        """Add a player; its creation time."""
        created = now_text()
        with self.transaction() as conn:
            conn.execute(
                players.insert().values(
                    id=player_id, name=name, token_hash=token_hash, created=created
                )
            )
        return created

    def player_by_token_hash(self, token_hash: str) -> dict[str, Any] | None:
        """The player row whose token (its first, or one of another device) hashes to
        ``token_hash`` (``token_hash`` in the answer is the one asked for), or None."""
        with self.engine.connect() as conn:
            row = (
                conn.execute(sa.select(players).where(players.c.token_hash == token_hash))
                .mappings()
                .first()
            )
            if row is None:
                row = (
                    conn.execute(
                        sa.select(players)
                        .join(player_tokens, player_tokens.c.player_id == players.c.id)
                        .where(player_tokens.c.token_hash == token_hash)
                    )
                    .mappings()
                    .first()
                )
        return None if row is None else {**dict(row), "token_hash": token_hash}

    def add_signin_code(self, player_id: str, code_hash: str, expires: str) -> None:
        """Keep a one-time sign-in code (its hash) of the player until ``expires``; the
        player's used or expired codes go, and so do the oldest beyond :data:`LIVE_CODES`."""
        now = now_text()
        with self.transaction() as conn:
            conn.execute(
                signin_codes.delete().where(
                    signin_codes.c.player_id == player_id,
                    sa.or_(signin_codes.c.used.is_not(None), signin_codes.c.expires <= now),
                )
            )
            live = conn.execute(
                sa.select(signin_codes.c.code_hash)
                .where(signin_codes.c.player_id == player_id)
                .order_by(signin_codes.c.created.desc(), signin_codes.c.code_hash)
            ).scalars()
            retired = list(live)[LIVE_CODES - 1 :]
            if retired:
                conn.execute(signin_codes.delete().where(signin_codes.c.code_hash.in_(retired)))
            conn.execute(
                signin_codes.insert().values(
                    code_hash=code_hash, player_id=player_id, created=now, expires=expires
                )
            )

    def redeem_signin_code(self, code_hash: str, token_hash: str) -> dict[str, Any] | None:
        """Use the sign-in code hashing to ``code_hash`` (unused and not expired: it is marked
        used in the same transaction, so it works once) and give its player the new token
        hashing to ``token_hash``; the player row, or None when no code fits."""
        now = now_text()
        with self.transaction() as conn:
            used = conn.execute(
                signin_codes.update()
                .where(
                    signin_codes.c.code_hash == code_hash,
                    signin_codes.c.used.is_(None),
                    signin_codes.c.expires > now,
                )
                .values(used=now)
            )
            if used.rowcount != 1:
                return None
            player_id = conn.execute(
                sa.select(signin_codes.c.player_id).where(signin_codes.c.code_hash == code_hash)
            ).scalar_one()
            conn.execute(
                player_tokens.insert().values(
                    token_hash=token_hash, player_id=player_id, created=now
                )
            )
            row = conn.execute(sa.select(players).where(players.c.id == player_id)).mappings().one()
        return {**dict(row), "token_hash": token_hash}

    # ---- games -------------------------------------------------------------------------------
    def add_game(self, values: Mapping[str, Any]) -> None:
        """Insert a new game (``values``: the columns, JSON fields already encoded)."""
        with self.transaction() as conn:
            conn.execute(games.insert().values(**values))

    def game(self, game_id: str) -> GameRow:
        """The game ``game_id``; :class:`MissingResourceError` if there is none."""
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(games).where(games.c.id == game_id)).mappings().first()
        if row is None:
            raise MissingResourceError(f"no game {game_id!r}")
        return _game_row(row)

    def games_of(self, player_id: str) -> list[GameRow]:
        """The player's games, newest first."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.select(games)
                .where(games.c.player_id == player_id)
                .order_by(games.c.created.desc())
            ).mappings()
            return [_game_row(r) for r in rows]

    def games_awaiting_ai(self) -> list[GameRow]:
        """Ongoing games whose AI is to move (resumed when the server starts)."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.select(games).where(
                    games.c.status == "ongoing", games.c.to_move != games.c.human_side
                )
            ).mappings()
            return [_game_row(r) for r in rows]

    def games_on_the_clock(self) -> list[GameRow]:
        """Ongoing games with a clock whose person is to move (their clocks are watched
        when the server starts)."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.select(games).where(
                    games.c.status == "ongoing",
                    games.c.clock.is_not(None),
                    games.c.to_move == games.c.human_side,
                )
            ).mappings()
            return [_game_row(r) for r in rows]

    def moves_of(self, game_id: str, analysis_from: int = 0) -> list[MoveRow]:
        """The game's moves in order, with their analyses from ply ``analysis_from`` on
        (None before it: neither read nor decoded)."""
        analysis = sa.case((moves.c.ply >= analysis_from, moves.c.analysis), else_=sa.null())
        columns = [moves.c.ply, moves.c.move, moves.c.side, moves.c.played_by]
        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.select(*columns, analysis.label("analysis"))
                .where(moves.c.game_id == game_id)
                .order_by(moves.c.ply)
            ).mappings()
            return [
                MoveRow(
                    int(r["ply"]),
                    int(r["move"]),
                    int(r["side"]),
                    r["played_by"],
                    None if r["analysis"] is None else json.loads(r["analysis"]),
                )
                for r in rows
            ]

    def count_hint(self, game_id: str) -> None:
        """One more hint shown in the game (its version is not raised: nothing a move or an
        undo computed from it is changed)."""
        with self.transaction() as conn:
            conn.execute(
                games.update()
                .where(games.c.id == game_id)
                .values(hints_used=sa.func.coalesce(games.c.hints_used, 0) + 1)
            )

    def apply(
        self,
        conn: Connection,
        row: GameRow,
        changes: Mapping[str, Any],
        *,
        keep_moves: int,
        new_moves: Sequence[Mapping[str, Any]] = (),
    ) -> None:
        """In the transaction ``conn``: store ``changes`` to the game ``row`` was read as
        (raising :class:`StaleError` when its version moved on), keep its first
        ``keep_moves`` move rows and add ``new_moves``."""
        result = conn.execute(
            games.update()
            .where(games.c.id == row.id, games.c.version == row.version)
            .values(**changes, version=row.version + 1, updated=now_text())
        )
        if result.rowcount != 1:
            raise StaleError("the game changed meanwhile; reload it and try again")
        conn.execute(moves.delete().where(moves.c.game_id == row.id, moves.c.ply >= keep_moves))
        for item in new_moves:
            conn.execute(moves.insert().values(game_id=row.id, **item))

    # ---- profiles ---------------------------------------------------------------------------
    def profile_json(self, conn: Connection, player_id: str) -> dict[str, Any] | None:
        """In ``conn``: the player's profile JSON, locked until ``conn`` ends (so that
        concurrent read-change-write transactions of one profile do not lose each other's
        change), or None.  PostgreSQL locks the row (``FOR UPDATE``); SQLite, which has no
        row locks, takes the database's write lock first by touching the row (a no-op
        update), as a read alone would let another writer in between."""
        query = sa.select(profiles.c.profile).where(profiles.c.player_id == player_id)
        if conn.dialect.name == "sqlite":
            conn.execute(
                profiles.update()
                .where(profiles.c.player_id == player_id)
                .values(updated=profiles.c.updated)
            )
        else:
            query = query.with_for_update()
        text = conn.execute(query).scalar()
        return None if text is None else json.loads(text)

    def put_profile(self, conn: Connection, player_id: str, data: Mapping[str, Any]) -> None:
        """In ``conn``: write the player's profile JSON."""
        text = json.dumps(data)
        updated = conn.execute(
            profiles.update()
            .where(profiles.c.player_id == player_id)
            .values(profile=text, updated=now_text())
        )
        if updated.rowcount == 0:
            conn.execute(
                profiles.insert().values(player_id=player_id, profile=text, updated=now_text())
            )

    def read_profile(self, player_id: str) -> dict[str, Any] | None:
        """The player's profile JSON, or None."""
        with self.engine.connect() as conn:
            text = conn.execute(
                sa.select(profiles.c.profile).where(profiles.c.player_id == player_id)
            ).scalar()
        return None if text is None else json.loads(text)

    def add_estimate_details(
        self, conn: Connection, player_id: str, values: Mapping[str, Any]
    ) -> None:
        """In ``conn``: keep the details of one of the profile's estimates (``values``: the
        columns; ``game``, ``time`` and ``kind`` name the estimate)."""
        conn.execute(estimate_details.insert().values(player_id=player_id, **values))

    def estimate_details_of(self, player_id: str) -> list[dict[str, Any]]:
        """The details of the player's estimates, oldest first."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.select(estimate_details)
                .where(estimate_details.c.player_id == player_id)
                .order_by(estimate_details.c.time)
            ).mappings()
            return [dict(r) for r in rows]


__all__ = [
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "GameRow",
    "MoveRow",
    "StaleError",
    "Store",
    "make_engine",
    "migrate",
    "now_text",
]
