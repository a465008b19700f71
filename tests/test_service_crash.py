"""Crash safety: ``sparring serve`` killed with SIGKILL while AI moves are
in flight, restarted on the same database, has every game at the same position with the same
AI state, the profile intact, no move applied twice, and finishes the AI moves it owed."""

from __future__ import annotations

import time
from pathlib import Path

from service_server import SLOW, UCT20, Client, ServeProcess, free_port
from sparring.service.store import Store


def _stored(data: Path) -> tuple[dict[str, object], dict[str, object]]:
    """Per game its snapshot and move rows, and the profiles, as the database holds them."""
    store = Store.open(f"sqlite:///{data / 'sparring.sqlite'}")
    try:
        games: dict[str, object] = {}
        profiles: dict[str, object] = {}
        with store.engine.connect() as conn:
            ids = [r[0] for r in conn.exec_driver_sql("SELECT id FROM games")]
            players = [r[0] for r in conn.exec_driver_sql("SELECT id FROM players")]
        for gid in ids:
            row = store.game(gid)
            moves = [(m.ply, m.move, m.side, m.by) for m in store.moves_of(gid)]
            games[gid] = (row.ply, row.status, row.snapshot, moves)
        for pid in players:
            profiles[pid] = store.read_profile(pid)
        return games, profiles
    finally:
        store.close()


def _consistent(game: object) -> None:
    """One move row per ply, the same moves as the snapshot."""
    ply, _status, snapshot, moves = game  # type: ignore[misc]
    assert [m[0] for m in moves] == list(range(ply))
    assert [m[1] for m in moves] == snapshot["moves"]
    assert [m[2] for m in moves] == snapshot["movers"]


def test_kill_9_during_ai_moves_loses_nothing(tmp_path: Path) -> None:
    port = free_port()
    server = ServeProcess(tmp_path, port, ai_time=1.5, workers=2)
    try:
        ann = Client(server.base)
        played = ann.new_game("connect4", UCT20)  # a game with moves, the person to move
        played = ann.settled(ann.move(played, "4").json()["id"])
        played = ann.settled(ann.move(played, "3").json()["id"])
        assert played["ply"] == 4 and not played["ai_thinking"]
        adaptive = ann.new_game("connect4", {"mode": "adaptive", "kind": "bayes"})
        assert ann.post(f"/api/games/{adaptive['id']}/resign", {"ply": 0}).status_code == 200
        replied = ann.new_game("connect4", SLOW)  # the person moves, the AI thinks 1.5 s
        replied = ann.move(replied, "4").json()
        opened = ann.new_game("connect4", SLOW, side="second")  # the AI opens, thinking 1.5 s
        assert replied["ai_thinking"] and opened["ai_thinking"]
        assert len(server.group()) >= 3  # the server and its two workers
        server.kill_server_only()
        deadline = time.monotonic() + 20
        while server.group() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert server.group() == []  # the workers ended with their server
    finally:
        server.kill()
    games, profiles = _stored(tmp_path)
    assert games[opened["id"]][0] == 0  # its AI move was lost with the server
    assert games[replied["id"]][0] in (1, 2)  # this one may have been stored in time
    for game in games.values():
        _consistent(game)

    server = ServeProcess(tmp_path, port, ai_time=0.5)
    try:
        for gid in (replied["id"], opened["id"]):
            state = ann.settled(gid)
            assert not state["ai_thinking"]
        again = ann.get(f"/api/games/{played['id']}").json()
        assert again["moves"] == played["moves"] and again["ply"] == 4
        assert ann.get("/api/me/profile").json()["estimates"][0]["kind"] == "dsa-elo"
    finally:
        server.kill()
    after, profiles_after = _stored(tmp_path)
    assert profiles_after == profiles  # the profile and the adaptive state are intact
    assert after[played["id"]] == games[played["id"]]  # same position, same AI state
    assert after[adaptive["id"]] == games[adaptive["id"]]
    for gid, human_moves in ((replied["id"], 1), (opened["id"], 0)):
        ply, status, snapshot, moves = after[gid]  # type: ignore[misc]
        _consistent(after[gid])
        assert ply == human_moves + 1 and status == "ongoing"
        assert [m[3] for m in moves] == ["human", "ai"][1 - human_moves :]
        before = games[gid][2]  # type: ignore[index]
        assert snapshot["moves"][: len(before["moves"])] == before["moves"]
