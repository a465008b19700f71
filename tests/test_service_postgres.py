"""The service on a real PostgreSQL server: servers migrating one
database at once, racing changes of one game (exactly one is stored), profile updates that
do not lose each other, and two ``sparring serve`` processes on one database playing games
through both (a move made through one is seen by the other; a retried move sent to both at
the same ply is applied exactly once).

The server comes from ``SPARRING_TEST_PG_URL`` (``bash scripts/pg_test_server.sh start``;
``.ci/run`` starts it): without it these tests skip, and under ``SPARRING_CI=1`` they fail.
Each test works in a schema of its own (:func:`pg_server.pg_schema`)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa

from pg_server import game_values, pg_schema  # noqa: F401  (pg_schema: the fixture)
from service_server import UCT20, Client, ServeProcess, free_port
from sparring.errors import MissingResourceError
from sparring.service.store import SCHEMA_VERSION, StaleError, Store

THREADS = 6


def _at_once(n: int, work: Callable[[int], Any]) -> list[Any]:
    """``work(i)`` for i < n in n threads released together; each one's result or error."""
    barrier = threading.Barrier(n)

    def run(i: int) -> Any:
        barrier.wait()
        try:
            return work(i)
        except Exception as err:  # (the test counts them)
            return err

    with ThreadPoolExecutor(n) as pool:
        return list(pool.map(run, range(n)))


def test_servers_starting_at_once_migrate_the_database_once(pg_schema: str) -> None:  # noqa: F811
    stores = _at_once(THREADS, lambda _i: Store.open(pg_schema))
    assert all(isinstance(s, Store) for s in stores), stores
    with stores[0].engine.connect() as conn:
        versions = conn.execute(sa.text("SELECT version FROM schema_version")).scalars().all()
        assert conn.dialect.name == "postgresql"
        # the test's own schema, not public: each test sees only its tables
        assert (
            conn.execute(sa.text("SELECT current_schema()")).scalar()
            == pg_schema.split("search_path%3D")[1]
        )
    assert versions == [SCHEMA_VERSION]
    for store in stores:
        store.close()


def test_racing_changes_of_one_game_store_exactly_one(pg_schema: str) -> None:  # noqa: F811
    store = Store.open(pg_schema)
    store.add_player("p1", "ann", "h1")
    store.add_game(game_values())
    read = store.game("g1")

    def change(i: int) -> int:
        move = {"ply": 0, "move": i, "side": 0, "played_by": "human", "analysis": None}
        with store.transaction() as conn:
            store.apply(conn, read, {"ply": 1, "to_move": 1}, keep_moves=0, new_moves=[move])
        return i

    outcomes = _at_once(THREADS, change)
    stored = [o for o in outcomes if isinstance(o, int)]
    assert len(stored) == 1, outcomes
    assert all(isinstance(o, StaleError) for o in outcomes if not isinstance(o, int)), outcomes
    row = store.game("g1")
    assert (row.ply, row.to_move, row.version) == (1, 1, 1)
    assert [(m.ply, m.move) for m in store.moves_of("g1")] == [(0, stored[0])]
    store.close()


def _check_stored(url: str, game_id: str, state: dict[str, Any]) -> None:
    """The database holds one move row per ply, the same moves as ``state`` shows."""
    store = Store.open(url)
    try:
        row = store.game(game_id)
        rows = store.moves_of(game_id)
    finally:
        store.close()
    assert row.ply == state["ply"] == len(state["moves"])
    assert [m.ply for m in rows] == list(range(row.ply))
    assert [(m.move, m.side, m.by) for m in rows] == [
        (m["move"], m["side"], m["by"]) for m in state["moves"]
    ]
    assert [m.move for m in rows] == row.snapshot["moves"]


def test_two_servers_on_one_database_play_the_same_games(
    pg_schema: str,  # noqa: F811
    tmp_path: Path,
) -> None:
    ports = [free_port(), free_port()]
    started = _at_once(
        2, lambda i: ServeProcess(tmp_path / f"data{i}", ports[i], ai_time=2.0, db=pg_schema)
    )
    servers = [s for s in started if isinstance(s, ServeProcess)]
    try:
        assert len(servers) == 2, started
        a, b = (Client(s.base) for s in servers)
        b.headers = a.headers  # one player, one token: both servers know it
        assert b.get("/api/me").json()["id"] == a.player["id"]

        # a game created through A is seen through B; a move through B is seen through A
        state = a.new_game("connect4", UCT20, side="first")
        game_id = state["id"]
        assert b.get(f"/api/games/{game_id}").json()["ply"] == 0
        moved = b.move(state, "4")
        assert moved.status_code == 200, moved.text
        state = a.settled(game_id)
        assert state["ply"] == 2 and not state["ai_thinking"]  # B stored the move, AI replied
        assert (state["moves"][0]["text"], state["moves"][0]["by"]) == ("4", "human")
        assert b.settled(game_id)["moves"] == state["moves"]

        # the same move at the same ply sent to both servers at once: applied once
        body = {"move": state["legal"][0]["text"], "ply": state["ply"]}
        replies = _at_once(
            2,
            lambda i: httpx.post(
                f"{servers[i].base}/api/games/{game_id}/moves",
                json=body,
                headers=a.headers,
                timeout=60,
            ),
        )
        codes = sorted(r.status_code for r in replies)
        assert codes == [200, 409], [r.text for r in replies]
        lost = next(r for r in replies if r.status_code == 409).json()
        assert lost["key"] == "ply"
        state = b.settled(game_id)
        humans = [m for m in state["moves"] if m["by"] == "human"]
        assert [m["ply"] for m in humans] == [0, 2]
        _check_stored(pg_schema, game_id, state)

        # play to the end, alternating the servers
        turn = 0
        while state["status"] == "ongoing":
            client = (a, b)[turn % 2]
            reply = client.move(state)
            assert reply.status_code == 200, reply.text
            state = (a, b)[(turn + 1) % 2].settled(game_id)
            turn += 1
            assert turn < 30
        assert state["result"] in (0.0, 0.5, 1.0)
        _check_stored(pg_schema, game_id, state)
        seen = {c.get(f"/api/games/{game_id}").json()["status"] for c in (a, b)}
        assert seen == {"over"}
        assert [g["id"] for g in b.get("/api/me/profile").json()["games"]] == [game_id]
    finally:
        for server in servers:
            server.kill()


def test_an_unreachable_server_is_one_clear_error() -> None:
    port = free_port()  # nothing listens there
    with pytest.raises(MissingResourceError, match="cannot be opened") as caught:
        Store.open(f"postgresql://nobody:secret@127.0.0.1:{port}/nothing")
    assert "secret" not in str(caught.value)  # the password is not repeated


@pytest.mark.parametrize("ci", ["", "1"])
def test_without_a_server_the_tests_skip_or_fail_under_ci(
    ci: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pg_server import URL_VAR, pg_url

    monkeypatch.delenv(URL_VAR, raising=False)
    monkeypatch.setenv("SPARRING_CI", ci)
    expected = pytest.fail.Exception if ci else pytest.skip.Exception
    with pytest.raises(expected, match=r"pg_test_server\.sh start"):
        pg_url()
