"""The service's store: the versioned schema (a version-1 database is upgraded in place) and
the rule that a change computed from an old version of a game is never stored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlalchemy as sa

from sparring.errors import IncompatibleError
from sparring.service.store import (
    SCHEMA_VERSION,
    StaleError,
    Store,
    make_engine,
    migrate,
)


def _url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'db.sqlite'}"


def _game_values(game_id: str = "g1") -> dict[str, object]:
    return {
        "id": game_id,
        "player_id": "p1",
        "game": "connect4",
        "game_params": "{}",
        "opponent": json.dumps({"kind": "uct", "sims": 20}),
        "opponent_label": "UCT",
        "human_side": 0,
        "status": "ongoing",
        "result": None,
        "ply": 0,
        "to_move": 0,
        "version": 0,
        "snapshot": json.dumps({"moves": []}),
        "created": "2026-11-25T20:00:00.000+00:00",
        "updated": "2026-11-25T20:00:00.000+00:00",
    }


def test_a_version_1_database_is_upgraded_keeping_its_rows(tmp_path: Path) -> None:
    engine = make_engine(_url(tmp_path))
    assert migrate(engine, target=1) == 0
    with engine.begin() as conn:
        conn.execute(
            sa.text(
                "INSERT INTO players (id, name, token_hash, created) "
                "VALUES ('p1', 'ann', 'h1', '2026-11-25T20:00:00+00:00')"
            )
        )
        columns = ", ".join(_game_values())
        marks = ", ".join(f":{c}" for c in _game_values())
        conn.execute(sa.text(f"INSERT INTO games ({columns}) VALUES ({marks})"), _game_values())
        assert conn.execute(sa.text("SELECT version FROM schema_version")).scalar() == 1
        tables = set(sa.inspect(conn).get_table_names())
    assert "profiles" not in tables
    engine.dispose()
    store = Store.open(_url(tmp_path))  # upgrades 1 -> 3
    with store.engine.connect() as conn:
        assert conn.execute(sa.text("SELECT version FROM schema_version")).scalar() == 3
    row = store.game("g1")
    assert (row.opponent_label, row.adaptive_key, row.notices) == ("UCT", None, [])
    assert store.player_by_token_hash("h1") is not None
    assert store.read_profile("p1") is None
    assert store.estimate_details_of("p1") == []
    assert SCHEMA_VERSION == 3
    store.close()
    assert migrate(make_engine(_url(tmp_path))) == 3  # nothing left to do


def test_a_newer_database_is_refused(tmp_path: Path) -> None:
    engine = make_engine(_url(tmp_path))
    migrate(engine)
    with engine.begin() as conn:
        conn.execute(sa.text("UPDATE schema_version SET version = 99"))
    with pytest.raises(IncompatibleError, match="schema version 99"):
        migrate(engine)


def test_a_change_from_an_old_version_is_not_stored(tmp_path: Path) -> None:
    store = Store.open(_url(tmp_path))
    store.add_player("p1", "ann", "h1")
    store.add_game(_game_values())
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
