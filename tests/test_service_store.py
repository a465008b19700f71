"""The service's store: the versioned schema (a version-1 database is upgraded in place) and
the rule that a change computed from an old version of a game is never stored; one-time
sign-in codes (used once, even by two requests at once) and the tokens they give.  Every test
runs on SQLite and on a real PostgreSQL server (:mod:`pg_server`: a fresh schema per test;
skipped without ``SPARRING_TEST_PG_URL``, failed so under ``SPARRING_CI=1``)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
import sqlalchemy as sa

from pg_server import game_values, pg_schema  # noqa: F401  (pg_schema: the fixture)
from sparring.errors import IncompatibleError
from sparring.service.store import (
    SCHEMA_VERSION,
    StaleError,
    Store,
    make_engine,
    migrate,
)


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh, empty database: a SQLite file, or a schema of the PostgreSQL test server."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'db.sqlite'}"
    return str(request.getfixturevalue("pg_schema"))


def test_a_version_1_database_is_upgraded_keeping_its_rows(db_url: str) -> None:
    engine = make_engine(db_url)
    assert migrate(engine, target=1) == 0
    with engine.begin() as conn:
        conn.execute(
            sa.text(
                "INSERT INTO players (id, name, token_hash, created) "
                "VALUES ('p1', 'ann', 'h1', '2026-11-25T20:00:00+00:00')"
            )
        )
        columns = ", ".join(game_values())
        marks = ", ".join(f":{c}" for c in game_values())
        conn.execute(sa.text(f"INSERT INTO games ({columns}) VALUES ({marks})"), game_values())
        assert conn.execute(sa.text("SELECT version FROM schema_version")).scalar() == 1
        tables = set(sa.inspect(conn).get_table_names())
    assert "profiles" not in tables
    engine.dispose()
    store = Store.open(db_url)  # upgrades 1 -> 7
    with store.engine.connect() as conn:
        assert conn.execute(sa.text("SELECT version FROM schema_version")).scalar() == 7
    row = store.game("g1")
    assert (row.opponent_label, row.adaptive_key, row.notices) == ("UCT", None, [])
    assert (row.hints, row.hints_used, row.clock, row.ai_level) == (False, 0, None, None)
    store.count_hint("g1")
    assert store.game("g1").hints_used == 1
    assert store.player_by_token_hash("h1") is not None
    assert store.read_profile("p1") is None
    assert store.estimate_details_of("p1") == []
    assert SCHEMA_VERSION == 7
    store.close()
    engine = make_engine(db_url)
    assert migrate(engine) == 7  # nothing left to do
    engine.dispose()


def test_a_newer_database_is_refused(db_url: str) -> None:
    engine = make_engine(db_url)
    migrate(engine)
    with engine.begin() as conn:
        conn.execute(sa.text("UPDATE schema_version SET version = 99"))
    with pytest.raises(IncompatibleError, match="schema version 99"):
        migrate(engine)
    engine.dispose()


def test_a_change_from_an_old_version_is_not_stored(db_url: str) -> None:
    store = Store.open(db_url)
    store.add_player("p1", "ann", "h1")
    store.add_game(game_values())
    read = store.game("g1")
    move = {"ply": 0, "move": 3, "side": 0, "played_by": "human", "analysis": None}
    with store.transaction() as conn:
        store.apply(conn, read, {"ply": 1, "to_move": 1}, keep_moves=0, new_moves=[move])
    with pytest.raises(StaleError), store.transaction() as conn:  # the same change again
        store.apply(conn, read, {"ply": 1, "to_move": 1}, keep_moves=0, new_moves=[move])
    row = store.game("g1")
    assert (row.ply, row.version) == (1, 1)
    assert [(m.ply, m.move) for m in store.moves_of("g1")] == [(0, 3)]
    with pytest.raises(sa.exc.IntegrityError), store.transaction() as conn:
        conn.execute(sa.text("INSERT INTO moves VALUES ('g1', 0, 4, 0, 'human', NULL)"))
    assert [(m.ply, m.move) for m in store.moves_of("g1")] == [(0, 3)]
    store.close()


def test_profile_changes_in_parallel_lose_none(db_url: str) -> None:
    store = Store.open(db_url)
    store.add_player("p1", "ann", "h1")
    with store.transaction() as conn:
        store.put_profile(conn, "p1", {"count": 0, "seen": []})
    threads = 6
    barrier = threading.Barrier(threads)
    errors: list[Exception] = []

    def bump(i: int) -> None:
        barrier.wait()
        try:
            with store.transaction() as conn:  # read (locked), change, write
                data = store.profile_json(conn, "p1")
                assert data is not None
                store.put_profile(
                    conn, "p1", {"count": data["count"] + 1, "seen": [*data["seen"], i]}
                )
        except Exception as err:  # (counted below)
            errors.append(err)

    workers = [threading.Thread(target=bump, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert errors == []
    data = store.read_profile("p1")
    assert data is not None
    assert (data["count"], sorted(data["seen"])) == (threads, list(range(threads)))
    store.close()


def test_a_signin_code_works_once_even_raced(db_url: str) -> None:
    store = Store.open(db_url)
    store.add_player("p1", "ann", "h1")
    store.add_signin_code("p1", "c1", "2999-01-01T00:00:00.000+00:00")
    store.add_signin_code("p1", "old", "2000-01-01T00:00:00.000+00:00")  # expired
    assert store.redeem_signin_code("old", "t0") is None
    barrier = threading.Barrier(2)
    got: list[object] = []

    def redeem(token_hash: str) -> None:
        barrier.wait()
        got.append(store.redeem_signin_code("c1", token_hash))

    racers = [threading.Thread(target=redeem, args=(t,)) for t in ("t1", "t2")]
    for racer in racers:
        racer.start()
    for racer in racers:
        racer.join()
    winners = [g for g in got if g is not None]
    assert len(got) == 2 and len(winners) == 1
    token = winners[0]["token_hash"]  # type: ignore[index]
    assert token in ("t1", "t2")
    player = store.player_by_token_hash(token)
    assert player is not None and (player["id"], player["token_hash"]) == ("p1", token)
    assert store.player_by_token_hash("h1") is not None  # the first device's token too
    assert store.player_by_token_hash("t1" if token == "t2" else "t2") is None
    assert store.redeem_signin_code("c1", "t3") is None
    # a new code clears the used and expired ones
    store.add_signin_code("p1", "c2", "2999-01-01T00:00:00.000+00:00")
    with store.engine.connect() as conn:
        left = conn.execute(sa.text("SELECT code_hash FROM signin_codes")).scalars().all()
    assert left == ["c2"]
    store.close()


def test_games_on_the_clock_are_the_ongoing_ones_whose_person_is_to_move(db_url: str) -> None:
    store = Store.open(db_url)
    store.add_player("p1", "ann", "h1")
    clock = json.dumps({"initial": 60, "increment": 0, "left": [60000, 60000],
                        "since": 1.0, "flagged": None})  # fmt: skip
    store.add_game({**game_values("a"), "clock": clock})
    store.add_game({**game_values("b"), "clock": clock, "to_move": 1})  # the AI's turn
    store.add_game({**game_values("c"), "clock": clock, "status": "over"})
    store.add_game(game_values("d"))  # no clock
    assert [r.id for r in store.games_on_the_clock()] == ["a"]
    assert store.game("a").clock == json.loads(clock)
    store.close()
