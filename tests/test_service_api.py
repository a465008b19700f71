"""The service's HTTP API against a real server (uvicorn on a loopback port, one worker
process): players, games at an Elo, a Connect4 game played to the end, retries, undo,
resignation, records, access rules, bad input and body limits."""

from __future__ import annotations

import json
import math
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess
import httpx
import pytest

from service_server import SLOW, UCT20, Client, thread_server
from sparring.levels import level_table
from sparring.nn.zoo import default_model
from sparring.players.external_scale import ExternalScale, default_scale
from sparring.players.human_like import game_ranks
from sparring.service import ServiceSettings
from sparring.service.store import Store
from sparring.strength.target import calibration_path_for_model, load_calibration, strength_curve

AI_TIME = 0.4
RANK_MIN_MOVES = 10
"""The module server's ``rank_min_moves``: more than one short test game's moves, fewer than two."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    data = tmp_path_factory.mktemp("service")
    settings = ServiceSettings(
        data_dir=data, workers=1, ai_time=AI_TIME, max_body=4096, rank_min_moves=RANK_MIN_MOVES
    )
    with thread_server(settings) as base:
        yield base, data


@pytest.fixture(scope="module")
def base(server: tuple[str, Path]) -> str:
    return server[0]


def _store(server: tuple[str, Path]) -> Store:
    return Store.open(f"sqlite:///{server[1] / 'sparring.sqlite'}")


def test_player_name_is_kept_as_given_and_returned_as_json(base: str) -> None:
    name = '<img src=x onerror="alert(1)">&'
    ann = Client(base, name)
    assert ann.player["name"] == name
    assert len(ann.player["token"]) >= 40
    me = ann.get("/api/me")
    assert me.status_code == 200
    assert me.headers["content-type"] == "application/json"
    assert me.json()["name"] == name and me.json()["id"] == ann.player["id"]
    assert "token" not in me.json()


def _elo_levels(game: str) -> dict[str, object]:
    """The catalog's ``levels.elo`` for ``game``: its shipped level table's Elo levels."""
    table = level_table(game)
    assert table.elo_range is not None
    low, high = table.elo_range
    return {
        "min": round(low, 1),
        "max": round(high, 1),
        "low": math.ceil(low),
        "high": math.floor(high),
        "nearest": table.kind == "rows",
        "scale": table.scale,
        "anchor": table.anchor,
        "levels": [
            {"elo": r.elo, "plus_minus": r.plus_minus, "games": r.games, "seconds": r.seconds,
             "rank": r.rank, "note": r.note}
            for r in table.rows
        ],
    }  # fmt: skip


def test_catalog_shows_the_levels_and_the_kinds(base: str) -> None:
    catalog = httpx.get(f"{base}/api/catalog").json()
    games = {g["name"]: g for g in catalog["games"]}
    assert list(games) == ["connect4", "othello6", "othello", "go9", "go", "chess"]
    elo = games["connect4"]["levels"]["elo"]
    assert elo == _elo_levels("connect4")
    curve = strength_curve(load_calibration(calibration_path_for_model(default_model("connect4"))))
    assert (elo["min"], elo["max"]) == (round(curve.low, 1), round(curve.high, 1))
    assert elo["scale"] == "the Connect Four baseline ladder" and elo["anchor"] == "Random = 1000"
    assert games["connect4"]["levels"]["adaptive"] == ["bayes", "intra", "alphadda1-floor"]
    go = games["go"]["levels"]
    assert go["ranks"] == [f"{n}k" for n in range(20, 8, -1)]  # the handicap ladder
    rung = go["rank_levels"][8]  # each rank with its games and seconds a move
    assert rung["rank"] == "12k" and rung["games"] == 400 and 0 < rung["seconds"] < 1
    assert go["adaptive"] == []  # no calibration: no adaptive opponent
    assert go["estimator_ranks"][0] == "9d"  # the estimator's ranks, for the profile
    low, high = ExternalScale.read(default_scale("go")).elo_range  # Go's Elo: on GNU Go's scale
    assert (go["elo"]["min"], go["elo"]["max"]) == (round(low, 1), round(high, 1))
    assert go["elo"]["scale"] == "GNU Go 3.8 on 19x19"
    assert go["strongest"]["games"] == 40
    chess = games["chess"]["levels"]
    assert chess["elo"] == _elo_levels("chess") and chess["strongest"]["elo"] == 1991.6
    assert games["othello"]["levels"]["elo"] == _elo_levels("othello")
    assert games["go9"]["levels"]["elo"]["min"] == 619.0  # the 9x9 network's measured levels
    assert games["go9"]["levels"]["elo"]["nearest"] is True  # (an Elo plays the nearest one)
    # the whole numbers inside the range (2267.5, measured 2267.48: 2267), as UCI_Elo's range
    assert (elo["low"], elo["high"], games["connect4"]["default_elo"]) == (614, 2267, 1441)
    assert (games["go"]["levels"]["elo"]["low"], games["go"]["levels"]["elo"]["high"]) == (
        637,
        1000,
    )
    kinds = {k["kind"]: k for k in catalog["kinds"]}
    assert kinds["uct"]["schema"]["properties"]["sims"]["type"] == "integer"
    assert "stockfish" not in kinds and "gnugo" not in kinds  # they start programs
    assert "/api/games/{game_id}/moves" in httpx.get(f"{base}/openapi.json").json()["paths"]
    page = httpx.get(f"{base}/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")


def test_connect4_game_played_to_the_end(server: tuple[str, Path]) -> None:
    base = server[0]
    ann = Client(base)
    state = ann.new_game("connect4", UCT20)
    assert state["board"]["cells"] == ["......."] * 6
    assert state["cell_of_move"]["3"] == [5, 3] and state["click"] == "column"
    while state["status"] == "ongoing":
        if state["ai_thinking"]:
            state = ann.settled(state["id"])
            continue
        reply = ann.move(state)
        assert reply.status_code == 200, reply.text
        state = reply.json()
        assert state["moves"][-1]["by"] == "human"
    assert state["result"] in (0.0, 0.5, 1.0)
    assert state["result_text"].split(":")[0] in ("You win", "AI wins", "Draw")
    assert state["legal"] == [] and state["ai_thinking"] is False
    ai_moves = [m for m in state["moves"] if m["by"] == "ai"]
    assert ai_moves and all(m["analysis"]["move"] == m["move"] for m in ai_moves)
    assert ai_moves[0]["analysis"]["search"] == "uct"  # (a forced move is played unsearched)
    # the stored game: one move row per ply, the snapshot's moves, the profile's history
    store = _store(server)
    rows = store.moves_of(state["id"])
    game = store.game(state["id"])
    assert [r.ply for r in rows] == list(range(state["ply"]))
    assert [r.move for r in rows] == game.snapshot["moves"]
    assert game.status == "over" and game.result == state["result"]
    profile = ann.get("/api/me/profile").json()
    assert [g["id"] for g in profile["games"]] == [state["id"]]
    record = ann.get(f"/api/games/{state['id']}/record", params={"format": "moves"})
    assert record.status_code == 200 and record.headers["content-type"].startswith("text/plain")
    assert "attachment" in record.headers["content-disposition"]
    assert "# first: ann" in record.text and "# second: UCT" in record.text
    assert len(record.text.strip().splitlines()) == 5 + (state["ply"] + 1) // 2
    store.close()


def test_game_at_an_elo_and_a_clamped_one(base: str) -> None:
    ann = Client(base)
    state = ann.new_game("connect4", {"mode": "elo", "elo": 1500}, side="second")
    assert state["opponent"]["settings"]["kind"] == "sa"
    assert state["opponent"]["settings"]["elo"] == 1500.0
    assert state["opponent"]["label"] == "Elo 1500 (the Connect Four baseline ladder)"
    assert state["human_side"] == 1 and state["opponent"]["notices"] == []
    assert state["opponent"]["level"] == {"kind": "elo", "elo": 1500.0, "rank": None}
    state = ann.settled(state["id"])
    assert state["ply"] == 1 and state["to_move"] == 1
    strength = state["moves"][0]["analysis"]["strength"]
    assert strength["elo_asked"] == 1500.0 and strength["clamped"] is False
    high = ann.new_game("connect4", {"mode": "elo", "elo": 5000})
    assert len(high["opponent"]["notices"]) == 1
    assert "5000" in high["opponent"]["notices"][0]
    top = math.floor(level_table("connect4").elo_range[1])  # the Elo played: the clamped one
    assert high["opponent"]["level"] == {"kind": "elo", "elo": top, "rank": None}
    rung = ann.new_game("go", {"mode": "rank", "rank": "15 kyu"})
    assert (
        rung["opponent"]["level"]["kind"] == "rank" and rung["opponent"]["level"]["rank"] == "15k"
    )
    spec = ann.new_game("connect4", {"mode": "settings", "settings": {"kind": "random"}})
    assert spec["opponent"]["level"] is None  # a player spec is no level


def test_go_at_an_elo_on_gnu_gos_scale(base: str) -> None:
    """Go 19x19's Elo is one on GNU Go's scale: SA's z over the play network, as the shipped
    GNU Go scale chooses it (clamped, and said, outside its range)."""
    ann = Client(base)
    low, high = ExternalScale.read(default_scale("go")).elo_range
    asked = round((low + high) / 2)
    state = ann.new_game("go", {"mode": "elo", "elo": asked}, side="second")
    assert state["opponent"]["settings"]["kind"] == "sa-mcts"
    assert state["opponent"]["settings"]["gnugo_elo"] == asked
    assert state["opponent"]["notices"] == []
    state = ann.settled(state["id"])
    assert state["ply"] == 1
    strength = state["moves"][0]["analysis"]["strength"]
    assert strength["elo_asked"] == asked and strength["clamped"] is False
    below = ann.new_game("go", {"mode": "elo", "elo": 100})
    assert below["opponent"]["notices"] == [
        f"Elo 100 is outside the measured range {math.ceil(low)}..{math.floor(high)} of GNU Go "
        f"3.8 on 19x19; playing the weakest level, {math.ceil(low)}"
    ]
    assert below["opponent"]["label"] == f"Elo {math.ceil(low)} (GNU Go 3.8 on 19x19)"


def test_a_retried_move_is_not_applied_twice(base: str) -> None:
    ann = Client(base)
    state = ann.new_game("connect4", UCT20)
    first = ann.move(state, "4")
    assert first.status_code == 200 and first.json()["ply"] == 1
    again = ann.move(state, "4")  # the same request (ply 0) sent again
    assert again.status_code == 409 and again.json()["key"] == "ply"
    state = ann.settled(state["id"])
    assert state["ply"] == 2 and state["moves"][0]["text"] == "4"
    # two copies of one request at the same time: exactly one is applied
    replies: list[int] = []

    def send() -> None:
        replies.append(ann.move(state, "1").status_code)

    threads = [threading.Thread(target=send) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(replies) == [200, 409]
    state = ann.settled(state["id"])
    assert state["ply"] == 4 and state["moves"][2]["text"] == "1"


def test_undo_and_resign(base: str) -> None:
    ann = Client(base)
    state = ann.new_game("connect4", UCT20)
    assert ann.post(f"/api/games/{state['id']}/undo", {"ply": 0}).status_code == 422
    state = ann.settled(ann.move(state, "3").json()["id"])
    assert state["ply"] == 2
    undone = ann.post(f"/api/games/{state['id']}/undo", {"ply": 2})
    assert undone.status_code == 200, undone.text
    assert undone.json()["ply"] == 0 and undone.json()["moves"] == []
    assert undone.json()["board"]["cells"] == ["......."] * 6
    state = ann.settled(ann.move(undone.json(), "5").json()["id"])
    assert state["moves"][0]["text"] == "5"
    resigned = ann.post(f"/api/games/{state['id']}/resign", {"ply": state["ply"]})
    assert resigned.status_code == 200
    assert resigned.json()["status"] == "over" and resigned.json()["result"] == 0.0
    assert resigned.json()["result_text"] == "AI wins on resignation"
    assert ann.move(state, "1").status_code == 409
    assert ann.post(f"/api/games/{state['id']}/resign", {"ply": state["ply"]}).status_code == 409
    assert ann.post(f"/api/games/{state['id']}/undo", {"ply": state["ply"]}).status_code == 409


def test_another_players_token_gets_403(base: str) -> None:
    ann, bob = Client(base, "ann"), Client(base, "bob")
    state = ann.new_game("connect4", UCT20)
    gid = state["id"]
    assert bob.move(state, "1").status_code == 403
    assert bob.post(f"/api/games/{gid}/undo", {"ply": 0}).status_code == 403
    assert bob.post(f"/api/games/{gid}/resign", {"ply": 0}).status_code == 403
    assert bob.get(f"/api/games/{gid}").status_code == 403
    assert bob.get(f"/api/games/{gid}/record").status_code == 403
    assert bob.get(f"/api/players/{ann.player['id']}/profile").status_code == 403
    assert ann.get(f"/api/players/{ann.player['id']}/profile").status_code == 200
    assert [g["id"] for g in bob.get("/api/games").json()] == []
    assert httpx.get(f"{base}/api/games/{gid}").status_code == 401
    bad = httpx.get(f"{base}/api/me", headers={"Authorization": "Bearer nope"})
    assert bad.status_code == 401 and bad.json()["detail"] == "this token belongs to no player"
    assert ann.get(f"/api/games/{gid}").json()["ply"] == 0  # nothing changed


@pytest.mark.parametrize(
    ("body", "status", "key"),
    [
        ({"game": "checkers", "opponent": UCT20}, 404, None),
        ({"game": "connect4", "opponent": {"mode": "settings", "settings": {"kind": "nope"}}},
         404, "kind"),
        ({"game": "connect4", "opponent": {"mode": "settings",
                                           "settings": {"kind": "uct", "sims": -1}}}, 422, "sims"),
        ({"game": "connect4", "opponent": {"mode": "settings",
                                           "settings": {"kind": "uct", "bogus": 1}}}, 404, "bogus"),
        ({"game": "connect4", "opponent": UCT20, "extra": 1}, 422, "extra"),
        ({"game": "connect4", "opponent": {"mode": "rank", "rank": "3d"}}, 422, "rank"),
        ({"game": "go", "opponent": {"mode": "rank", "rank": "30k"}}, 422, "rank"),  # no ladder
        ({"game": "go", "opponent": {"mode": "rank", "rank": "1-2k"}}, 422, "rank"),
        ({"game": "go9", "opponent": {"mode": "adaptive"}}, 422, "kind"),  # no network
        ({"game": "chess", "opponent": {"mode": "settings", "settings": {"kind": "minimax"}}},
         422, None),  # settings that do not fit the game (no evaluation function)
        ({"game": "connect4", "opponent": {"mode": "elo", "elo": "high"}}, 422, "opponent.elo.elo"),
        ({"game": "connect4", "side": "left"}, 422, "side"),
        ({"game": "connect4", "opponent": {"mode": "settings",
                                           "settings": {"kind": "az", "model": "/etc/passwd"}}},
         422, "model"),
        ({"game": "connect4", "opponent": {"mode": "settings", "settings": {
            "kind": "sa", "elo": 1500, "calibration": "../x.json"}}}, 422, "calibration"),
        ({"game": "chess", "opponent": {"mode": "settings", "settings": {"kind": "stockfish"}}},
         422, "settings.kind"),  # a kind that starts another program: not over HTTP
        ({"game": "go9", "opponent": {"mode": "settings", "settings": {"kind": "gnugo"}}},
         422, "settings.kind"),
    ],
)  # fmt: skip
def test_bad_new_games_get_a_clear_4xx(
    base: str, body: dict[str, Any], status: int, key: str | None
) -> None:
    ann = Client(base)
    reply = ann.post("/api/games", body)
    assert reply.status_code == status, reply.text
    assert reply.json()["key"] == key and reply.json()["detail"]
    assert ann.get("/api/games").json() == []


def test_bad_moves_change_nothing(base: str) -> None:
    ann = Client(base)
    state = ann.new_game("connect4", SLOW, side="second")  # the AI thinks AI_TIME seconds
    gid = state["id"]
    assert ann.move(state, "4").status_code == 409  # the AI's turn
    state = ann.settled(gid)
    assert state["ply"] == 1
    url = f"{ann.base}/api/games/{gid}/moves"
    cases = [
        ({"move": "9", "ply": 1}, 422),  # no such column
        ({"move": "x", "ply": 1}, 422),
        ({"move": "4", "ply": 0}, 409),  # stale ply
        ({"move": "4", "ply": 5}, 409),
        ({"move": "4"}, 422),
        ({"move": "4", "ply": -1}, 422),
        ({"move": 4, "ply": 1}, 422),
        ({"move": "4", "ply": 1, "side": 0}, 422),
    ]
    for body, status in cases:
        reply = httpx.post(url, json=body, headers=ann.headers)
        assert reply.status_code == status, (body, reply.text)
        assert isinstance(reply.json()["detail"], str)
    raw = httpx.post(
        url, content=b"{not json", headers={**ann.headers, "content-type": "application/json"}
    )
    assert raw.status_code == 422
    assert httpx.post(f"{ann.base}/api/games/nosuchgame/moves", json={"move": "4", "ply": 1},
                      headers=ann.headers).status_code == 404  # fmt: skip
    after = ann.get(f"/api/games/{gid}").json()
    assert after["ply"] == 1 and after["moves"] == state["moves"]


BAD_CHARACTER = "name: a name cannot hold U+{} ({}): use letters, digits, spaces and punctuation"
BLANK = "name: a name needs at least one visible character, not only spaces"


@pytest.mark.parametrize(
    ("name", "detail"),
    [
        ("a\u0000b", BAD_CHARACTER.format("0000", "a control character")),
        ("a\u0085b", BAD_CHARACTER.format("0085", "a control character")),  # C1: next line
        ("evil\u202egnp.exe", BAD_CHARACTER.format("202E", "RIGHT-TO-LEFT OVERRIDE")),
        ("\u2067Ann", BAD_CHARACTER.format("2067", "RIGHT-TO-LEFT ISOLATE")),
        ("Ann\u200f", BAD_CHARACTER.format("200F", "RIGHT-TO-LEFT MARK")),
        ("An\u200bn", BAD_CHARACTER.format("200B", "ZERO WIDTH SPACE")),
        ("Ann\u2028Bo", BAD_CHARACTER.format("2028", "LINE SEPARATOR")),
        ("   ", BLANK),
        ("\u3000\t ", BAD_CHARACTER.format("0009", "a control character")),
        ("\u3000 \u00a0", BLANK),  # ideographic and no-break spaces only
        ("", BLANK),
    ],
)
def test_a_blank_name_or_one_with_control_characters_is_refused(
    base: str, name: str, detail: str
) -> None:
    reply = httpx.post(f"{base}/api/players", json={"name": name})
    assert reply.status_code == 422, reply.text
    assert reply.json() == {"detail": detail, "key": "name"}


@pytest.mark.parametrize(
    "name",
    ["Zoë Ångström", "علي", "نیما\u200cجان", "\U0001f469\u200d\U0001f4bb Kim",
     "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f Ian", " Bo "],
)  # fmt: skip
def test_names_in_any_script_with_joiners_are_kept(base: str, name: str) -> None:
    assert Client(base, name).player["name"] == name


def test_a_huge_body_gets_413(base: str) -> None:
    ann = Client(base)
    big = {"name": "x" * 10000}
    reply = httpx.post(f"{base}/api/players", content=json.dumps(big).encode(),
                       headers={"content-type": "application/json"})  # fmt: skip
    assert reply.status_code == 413 and "4096 bytes" in reply.json()["detail"]
    assert ann.get("/api/games").status_code == 200


def test_a_huge_chunked_body_gets_413(base: str) -> None:
    """A body sent in chunks (no Content-Length) is counted as it comes: 413 past the limit,
    not the 400 of a body that could not be read."""

    def chunks(total: int) -> Iterator[bytes]:
        yield b'{"name": "'
        for _ in range(total // 1024):
            yield b"x" * 1024
        yield b'"}'

    headers = {"content-type": "application/json"}
    reply = httpx.post(f"{base}/api/players", content=chunks(1 << 20), headers=headers)
    assert "content-length" not in reply.request.headers
    assert reply.status_code == 413, reply.text
    assert reply.json() == {"detail": "the request body is larger than 4096 bytes", "key": None}
    small = httpx.post(f"{base}/api/players", content=chunks(0), headers=headers)
    assert small.status_code == 422 and small.json()["key"] == "name"  # read whole: a blank name


def test_an_elo_at_a_shown_end_of_the_range_is_no_clamp(base: str) -> None:
    """The catalog's ``high`` (2267: the measured 2267.48's whole part) asked: the label says
    2267 and no notice; one above it is played at 2267, and the notice says so in the same
    whole numbers (the player itself, asked 2267, clamps nothing)."""
    ann = Client(base)
    elo = httpx.get(f"{base}/api/catalog").json()["games"][0]["levels"]["elo"]
    assert elo["high"] == 2267
    scale = "Elo {} (the Connect Four baseline ladder)"
    state = ann.new_game("connect4", {"mode": "elo", "elo": 2267})
    assert (state["opponent"]["label"], state["opponent"]["notices"]) == (scale.format(2267), [])
    above = ann.new_game("connect4", {"mode": "elo", "elo": 2268})
    assert above["opponent"]["label"] == scale.format(2267)
    assert above["opponent"]["notices"] == [
        "Elo 2268 is outside the measured range 614..2267 of the Connect Four baseline "
        "ladder; playing the strongest level, 2267"
    ]


def test_records_are_dated_with_the_day_the_game_began(base: str) -> None:
    ann = Client(base, "dana")
    for game, fmt, line in [("go9", "sgf", "DT[{}]"), ("chess", "pgn", '[Date "{}"]')]:
        state = ann.new_game(game, UCT20)
        ann.post(f"/api/games/{state['id']}/resign", {"ply": 0})
        day = state["created"][:10]
        assert len(day) == 10 and day[4] == day[7] == "-"
        record = ann.get(f"/api/games/{state['id']}/record", params={"format": fmt}).text
        assert line.format(day if fmt == "sgf" else day.replace("-", ".")) in record, record


def test_a_pass_says_whether_it_ends_the_game(base: str) -> None:
    ann = Client(base)
    state = ann.new_game("go9", {"mode": "settings", "settings": {"kind": "random"}})
    (entry,) = [m for m in state["legal"] if m["text"] == "pass"]
    assert entry == {"move": 81, "text": "pass", "ends_game": False}
    assert all("ends_game" not in m for m in state["legal"] if m["text"] != "pass")


def test_adaptive_state_continues_from_the_profile(server: tuple[str, Path]) -> None:
    base = server[0]
    ann = Client(base)
    for _ in range(2):
        game = ann.new_game("connect4", {"mode": "adaptive", "kind": "bayes"})
        assert game["opponent"]["settings"]["kind"] == "dsa"
        reply = ann.post(f"/api/games/{game['id']}/resign", {"ply": 0})
        assert reply.status_code == 200
    store = _store(server)
    data = store.read_profile(ann.player["id"])
    assert data is not None
    entry = next(e for e in data["adaptive"] if e["game"] == "connect4")
    assert entry["kind"] == "dsa" and entry["state"]["games"] == 2
    second = store.games_of(ann.player["id"])[0]  # newest first
    ai = second.snapshot["players"][1]
    assert ai["start_state"]["games"] == 1  # the second game started from the first's state
    profile = ann.get("/api/me/profile").json()
    assert [e["kind"] for e in profile["estimates"]] == ["dsa-elo", "dsa-elo"]
    assert profile["estimates"][-1]["value"] == entry["state"]["opponent_elo"]
    for est, played in zip(profile["estimates"], (1, 2), strict=True):
        # the posterior mean -/+ one sd, recomputed from the player's results, around its mean
        assert est["low"] < est["value"] < est["high"] and est["games"] == played
        assert (est["low"] + est["high"]) / 2 == pytest.approx(est["value"], abs=1e-6)
    assert profile["adaptive"] == [
        {"game": "connect4", "kind": "dsa", "elo": entry["state"]["opponent_elo"]}
    ]
    store.close()


@pytest.mark.parametrize(("game", "header"), [("chess", '[White "carl"]'), ("go", "PB[carl]")])
def test_a_finished_go_or_chess_game_gives_a_rank_estimate(
    base: str, game: str, header: str
) -> None:
    """Each finished Go or chess game re-estimates the player's rank from all their finished
    games of it, once they hold ``rank_min_moves`` of the player's moves: a first game of 6-7
    moves gives none, a second one the estimate from both."""
    ann = Client(base, "carl")

    def short_game(first: bool) -> None:
        state = ann.new_game(game, {"mode": "settings", "settings": {"kind": "random"}})
        if game == "chess" and first:
            assert state["board"] == {
                "kind": "chess",
                "fen": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            }
        elif first:
            assert state["board"]["cells"] == ["." * 19] * 19 and state["click"] == "cell"
        for _ in range(6):
            state = ann.settled(ann.move(state).json()["id"])
        assert state["ply"] == 12
        if game == "chess" and first:  # the board shown is the position after the moves played
            board = chess.Board()
            for move in state["moves"]:  # each move also in SAN, as players write it
                assert move["san"] == board.san(chess.Move.from_uci(move["text"]))
                board.push_uci(move["text"])
            assert state["board"]["fen"] == board.fen()
            assert state["last_move"]["san"] == state["moves"][-1]["san"]
            legal = [chess.Move.from_uci(m["text"]) for m in state["legal"]]
            assert [m["san"] for m in state["legal"]] == [board.san(m) for m in legal]
            assert set(legal) == set(board.legal_moves)
            ann.move(state, state["legal"][-1]["san"])  # a move can be sent in SAN too
            state = ann.settled(state["id"])
            assert state["moves"][12]["text"] == legal[-1].uci() and state["ply"] == 14
        ply = state["ply"]
        assert ann.post(f"/api/games/{state['id']}/resign", {"ply": ply}).status_code == 200
        record = ann.get(f"/api/games/{state['id']}/record").text
        assert header in record

    short_game(first=True)  # 6 (Go) or 7 (chess) of carl's moves: fewer than RANK_MIN_MOVES
    short_game(first=False)  # 12 or 13 in all
    deadline = time.monotonic() + 60
    estimates: list[Any] = []
    while not estimates and time.monotonic() < deadline:
        time.sleep(0.3)
        estimates = ann.get("/api/me/profile").json()["estimates"]
    assert len(estimates) == 1
    (found,) = estimates
    assert found["kind"] == "rank" and found["game"] == game and found["games"] == 2
    assert found["value"] in game_ranks(game)
    assert 0 < found["confidence"] <= 1


def test_full_queues_answer_429_with_retry_after(tmp_path: Path) -> None:
    settings = ServiceSettings(
        data_dir=tmp_path, ai_time=1.0, max_games_in_flight=1, max_queue=1, retry_after=3
    )
    with thread_server(settings) as base:
        ann, bob = Client(base, "ann"), Client(base, "bob")
        first = ann.new_game("connect4", SLOW, side="second")  # its AI thinks 1 s
        assert first["ai_thinking"]
        body = {"game": "connect4", "opponent": SLOW, "side": "second"}
        busy = ann.post("/api/games", body)  # a second game waiting for the AI
        assert busy.status_code == 429 and busy.headers["retry-after"] == "3"
        full = bob.post("/api/games", {"game": "connect4", "opponent": UCT20})  # queue full
        assert full.status_code == 429 and "busy" in full.json()["detail"]
        assert [g["id"] for g in ann.get("/api/games").json()] == [first["id"]]
        assert bob.get("/api/games").json() == []
        assert ann.settled(first["id"])["ply"] == 1
        assert bob.post("/api/games", {"game": "connect4", "opponent": UCT20}).status_code == 201


def test_resigning_stops_the_ai_move_in_flight(tmp_path: Path) -> None:
    settings = ServiceSettings(data_dir=tmp_path, ai_time=30.0)  # one worker
    with thread_server(settings) as base:
        ann = Client(base)
        state = ann.new_game("connect4", SLOW, side="second")  # the AI would think 30 s
        assert state["ai_thinking"]
        time.sleep(0.5)
        began = time.monotonic()
        reply = ann.post(f"/api/games/{state['id']}/resign", {"ply": 0})
        assert reply.status_code == 200, reply.text
        assert time.monotonic() - began < 10  # the worker was freed, not waited for
        assert reply.json()["ply"] == 0 and reply.json()["result_text"] == "AI wins on resignation"
        again = ann.new_game("connect4", SLOW, side="second")
        time.sleep(0.5)
        undone = ann.post(f"/api/games/{again['id']}/undo", {"ply": 0})
        assert undone.status_code == 422  # nothing of yours to take back; the AI goes on
        assert ann.get(f"/api/games/{again['id']}").json()["ai_thinking"]
