"""The service's in-game features against a real server (uvicorn on a loopback port, one
worker process): Go's captures and area count in the state; hints (off by default, refused
against an adaptive opponent, the same search's answer as the worker gives in-process);
one-time sign-in codes that take a player to another device; clocks (the person's time kept by
the server, a game lost on time when it runs out, read or not)."""

from __future__ import annotations

import datetime
import hashlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa

from service_server import UCT20, Client, thread_server
from sparring.games import get_game
from sparring.service import ServiceSettings, worker
from sparring.service.auth import SIGNIN_MINUTES
from sparring.service.catalog import build_catalog, hint_settings
from sparring.service.clock import now_ms
from sparring.service.routes.games import HINTS_NOT_RATED
from sparring.service.store import Store
from sparring.service.views import go_score, hint_view
from sparring.session import GameSession

AI_TIME = 5.0
"""The AI's time bound: a hint's search (100 simulations) ends by its own count, not by it."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    data = tmp_path_factory.mktemp("service-features")
    with thread_server(ServiceSettings(data_dir=data, workers=1, ai_time=AI_TIME)) as base:
        yield base, data


@pytest.fixture(scope="module")
def base(server: tuple[str, Path]) -> str:
    return server[0]


def test_a_go_state_has_the_captures_and_the_area_count(base: str) -> None:
    ann = Client(base)
    state = ann.new_game("go9", UCT20)
    assert state["score"] == {"captures": [0, 0], "area": [0, 0], "komi": 7.5, "margin": -7.5}
    state = ann.settled(ann.move(state, "E5").json()["id"])
    assert state["ply"] == 2
    game = get_game("go9")
    session = GameSession(game)
    for m in state["moves"]:
        session.play(m["move"])
    assert state["score"] == go_score(game, session.state)
    black, white = game.area(session.state)
    assert state["score"]["area"] == [black, white] and black >= 1 and white + black >= 2
    assert ann.new_game("connect4", UCT20)["score"] is None


def _store(server: tuple[str, Path]) -> Store:
    return Store.open(f"sqlite:///{server[1] / 'sparring.sqlite'}")


def _hint(ann: Client, state: dict[str, Any]) -> httpx.Response:
    return ann.post(f"/api/games/{state['id']}/hint", {"ply": state["ply"]})


def test_a_hint_is_the_ais_search_of_your_position(server: tuple[str, Path]) -> None:
    ann = Client(server[0])
    state = ann.new_game("connect4", UCT20)
    assert state["hints"] == {"on": False, "offered": True, "used": 0}
    off = _hint(ann, state)
    assert off.status_code == 409 and off.json() == {
        "detail": "hints are off in this game; they are chosen when a game starts (hints: true)",
        "key": "hints",
    }
    reply = ann.post("/api/games", {"game": "connect4", "opponent": UCT20, "hints": True})
    assert reply.status_code == 201, reply.text
    state = ann.settled(ann.move(reply.json(), "4").json()["id"])
    assert state["hints"] == {"on": True, "offered": True, "used": 0} and state["ply"] == 2
    hint = _hint(ann, state)
    assert hint.status_code == 200, hint.text
    # the same search in this process, from the stored game: the same answer
    store = _store(server)
    row = store.game(state["id"])
    store.close()
    info = build_catalog()["connect4"]
    settings = hint_settings(info)
    assert settings.to_json()["kind"] == "az" and settings.to_json()["sims"] == 100
    found = worker.hint(row.snapshot, 0, settings.to_json(), 60.0)
    session = GameSession.restore(row.snapshot, players=(None, None), game=info.game)
    expected = hint_view(info.game, session.state, found["analysis"], 2)
    assert hint.json() == expected
    assert expected["simulations"] == 100 and len(expected["candidates"]) == 5
    visits = [c["visits"] for c in expected["candidates"]]
    assert visits == sorted(visits, reverse=True) and visits[0] > 0
    assert [c["text"] for c in expected["candidates"]] == [
        str(c["move"] + 1) for c in expected["candidates"]
    ]
    again = _hint(ann, state)  # the same position: the same hint, counted once
    assert again.json() == expected
    assert ann.get(f"/api/games/{state['id']}").json()["hints"]["used"] == 1
    stale = ann.post(f"/api/games/{state['id']}/hint", {"ply": 1})
    assert stale.status_code == 409 and stale.json()["key"] == "ply"
    resigned = ann.post(f"/api/games/{state['id']}/resign", {"ply": 2}).json()
    over = _hint(ann, resigned)
    assert over.status_code == 409
    assert over.json()["detail"] == "the game is over; no hint is given"


def test_no_hints_against_an_adaptive_opponent(base: str) -> None:
    ann = Client(base)
    adaptive = {"mode": "adaptive", "kind": "bayes"}
    body = {"game": "connect4", "opponent": adaptive, "hints": True}
    refused = ann.post("/api/games", body)
    assert refused.status_code == 422
    assert refused.json() == {"detail": HINTS_NOT_RATED, "key": "hints"}
    assert HINTS_NOT_RATED.startswith("hints are not offered against an adaptive opponent")
    assert ann.get("/api/games").json() == []
    state = ann.new_game("connect4", adaptive, side="second")
    assert state["hints"] == {"on": False, "offered": False, "used": 0}
    state = ann.settled(state["id"])
    assert state["ply"] == 1
    hint = _hint(ann, state)
    assert hint.status_code == 409 and hint.json() == {"detail": HINTS_NOT_RATED, "key": "hints"}
    # what the AI thought is kept for after the game (it would be a hint meanwhile)
    assert state["moves"][0]["analysis"] is None
    over = ann.post(f"/api/games/{state['id']}/resign", {"ply": 1}).json()
    assert over["moves"][0]["analysis"]["move"] == over["moves"][0]["move"]
    bad = ann.post("/api/games", {"game": "connect4", "opponent": UCT20, "hints": "yes"})
    assert bad.status_code == 422 and bad.json()["key"] == "hints"


SIGNIN_REFUSED = (
    "this sign-in code is not valid: it was used already, it expired (a code lasts 10 "
    "minutes) or it is mistyped; make a new one on the device you play on (Profile, Play on "
    "another device)"
)


def _code(ann: Client) -> dict[str, Any]:
    reply = ann.post("/api/me/signin-codes", None)
    assert reply.status_code == 201, reply.text
    return dict(reply.json())


def _redeem(base: str, code: str) -> httpx.Response:
    return httpx.post(f"{base}/api/signin", json={"code": code}, timeout=30)


def test_a_signin_code_signs_another_device_in_once(server: tuple[str, Path]) -> None:
    base = server[0]
    ann = Client(base, "Ann")
    assert httpx.post(f"{base}/api/me/signin-codes").status_code == 401
    before = datetime.datetime.now(datetime.UTC)
    made = _code(ann)
    code = made["code"]
    assert len(code) >= 20 and made["path"] == f"/#signin/{code}"
    assert made["seconds"] == SIGNIN_MINUTES * 60 == 600
    left = datetime.datetime.fromisoformat(made["expires"]) - before
    assert 595 <= left.total_seconds() <= 605
    store = _store(server)
    with store.engine.connect() as conn:
        rows = conn.execute(sa.text("SELECT * FROM signin_codes")).mappings().all()
    assert [r["code_hash"] for r in rows] == [hashlib.sha256(code.encode()).hexdigest()]
    assert all(code not in str(v) for r in rows for v in r.values())  # kept hashed only
    # the other device: the same player, a token of its own; the first device keeps its own
    reply = _redeem(base, code)
    assert reply.status_code == 200, reply.text
    other = reply.json()
    assert (other["id"], other["name"]) == (ann.player["id"], "Ann")
    assert other["token"] != ann.player["token"]
    me = httpx.get(f"{base}/api/me", headers={"Authorization": f"Bearer {other['token']}"})
    assert me.json()["id"] == ann.player["id"]
    game = ann.new_game("connect4", UCT20)
    games = httpx.get(f"{base}/api/games", headers={"Authorization": f"Bearer {other['token']}"})
    assert [g["id"] for g in games.json()] == [game["id"]]
    assert ann.get("/api/me").status_code == 200
    # once only
    again = _redeem(base, code)
    assert again.status_code == 401 and again.json() == {"detail": SIGNIN_REFUSED, "key": None}
    assert _redeem(base, "x" + code).status_code == 401
    assert _redeem(base, "").status_code == 422
    # an expired code is refused
    late = _code(ann)["code"]
    past = (datetime.datetime.now(datetime.UTC) - datetime.timedelta(seconds=1)).isoformat()
    with store.transaction() as conn:
        conn.execute(
            sa.text("UPDATE signin_codes SET expires = :t WHERE code_hash = :h"),
            {"t": past, "h": hashlib.sha256(late.encode()).hexdigest()},
        )
    assert _redeem(base, late).status_code == 401
    store.close()


def test_a_player_holds_five_unused_codes_at_most(base: str) -> None:
    bea = Client(base, "Bea")
    codes = []
    for _ in range(6):
        codes.append(_code(bea)["code"])
        time.sleep(0.01)  # one millisecond apart at least: "oldest" is well defined
    assert _redeem(base, codes[0]).status_code == 401  # the oldest, retired by the sixth
    assert [_redeem(base, c).status_code for c in codes[1:]] == [200] * 5


def _backdate(server: tuple[str, Path], game_id: str, seconds: float) -> dict[str, Any]:
    """Move the stored clock's running side's start ``seconds`` back (as if that time had
    passed); the clock as it was."""
    store = _store(server)
    clock = store.game(game_id).clock
    assert clock is not None and clock["since"] is not None
    moved = {**clock, "since": clock["since"] - seconds * 1000}
    with store.transaction() as conn:
        conn.execute(
            sa.text("UPDATE games SET clock = :c WHERE id = :i"),
            {"c": json.dumps(moved), "i": game_id},
        )
    store.close()
    return clock


def test_a_clock_keeps_the_persons_time_and_ends_the_game_on_time(
    server: tuple[str, Path],
) -> None:
    base = server[0]
    ann = Client(base, "Cy")
    assert ann.new_game("connect4", UCT20)["clock"] is None  # no clock unless asked for
    body = {"game": "connect4", "opponent": UCT20, "clock": {"initial": 60, "increment": 2}}
    start = now_ms()
    reply = ann.post("/api/games", body)
    assert reply.status_code == 201, reply.text
    state = reply.json()
    clock = state["clock"]
    assert (clock["initial"], clock["increment"], clock["running"], clock["flagged"]) == (
        60, 2, 0, None,
    )  # fmt: skip
    assert 55000 <= clock["left"][0] <= 60000 and clock["left"][1] == 60000
    state = ann.settled(ann.move(state, "4").json()["id"])
    assert state["ply"] == 2 and state["clock"]["running"] == 0
    spent = now_ms() - start
    you, ai = state["clock"]["left"]
    assert 62000 - spent <= you <= 62000  # charged its time, plus the increment
    assert 62000 - spent <= ai <= 62000
    stored = _store(server)
    row = stored.game(state["id"])
    stored.close()
    assert row.clock is not None and row.clock["left"][1] == ai  # the AI's clock stands
    # The person's time runs out while they think: the next read ends the game on time.
    _backdate(server, state["id"], 70)
    over = ann.get(f"/api/games/{state['id']}").json()
    assert (over["status"], over["result"], over["result_text"]) == ("over", 0.0, "AI wins on time")
    assert over["clock"] == {
        "initial": 60, "increment": 2, "left": [0, ai], "running": None, "flagged": 0,
    }  # fmt: skip
    assert over["ply"] == 2 and len(over["moves"]) == 2
    late = ann.move(over, "4")
    assert (
        late.status_code == 409 and late.json()["detail"] == "the game is over; no move was played"
    )
    history = ann.get("/api/me/profile").json()["games"]
    assert [g["result"] for g in history if g["id"] == state["id"]] == [0.0]
    # A move sent after the time ran out is not played: the game is lost on time.
    second = ann.post("/api/games", body).json()
    _backdate(server, second["id"], 61)
    refused = ann.move(second, "4")
    assert refused.status_code == 409
    assert refused.json()["detail"] == "your time ran out: the game is lost on time"
    assert ann.get(f"/api/games/{second['id']}").json()["moves"] == []
    # A game no one opens is ended on time when the games are listed.
    third = ann.post("/api/games", body).json()
    _backdate(server, third["id"], 61)
    listed = {g["id"]: g for g in ann.get("/api/games").json()}
    assert (listed[third["id"]]["status"], listed[third["id"]]["result"]) == ("over", 0.0)
    bad = ann.post("/api/games", {**body, "clock": {"initial": 5}})
    assert bad.status_code == 422 and bad.json()["key"] == "clock.initial"


def test_the_server_ends_a_game_on_time_unread_after_a_restart(tmp_path: Path) -> None:
    """The clock of a game left running is watched when the server starts: it ends the game
    on time without any request."""
    settings = ServiceSettings(data_dir=tmp_path, workers=1, ai_time=AI_TIME)
    with thread_server(settings) as base:
        ann = Client(base, "Di")
        body = {"game": "connect4", "opponent": UCT20, "clock": {"initial": 30}}
        game = ann.post("/api/games", body).json()
    _backdate((base, tmp_path), game["id"], 29)  # about one second left
    with thread_server(settings):
        deadline = time.monotonic() + 20
        while True:  # the store, read directly (a request would end the game itself)
            store = _store(("", tmp_path))
            row = store.game(game["id"])
            store.close()
            if row.status == "over" or time.monotonic() > deadline:
                break
            time.sleep(0.2)
    assert (row.status, row.result) == ("over", 0.0)
    assert row.clock is not None and row.clock["flagged"] == 0 and row.clock["left"][0] == 0
