"""The service's estimate from uploaded games and its review by rank, against a real server
(uvicorn on a loopback port, one worker process): a file of 12 Go games and one of 12 chess
games estimated, with the level offered; a broken file refused with its file and line and
nothing stored; repeats counted once; the body limit; a review of an uploaded game and of a
finished game."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from service_server import Client, thread_server
from sparring.estimation.data import CHESS_RANKS, GO_RANKS
from sparring.estimation.review import NO_VALUE_NOTE, review_with_network
from sparring.records import parse_pgn_games
from sparring.service import ServiceSettings
from sparring.service.uploads import offer_for
from upload_games import chess_file, go_file

MAX_BODY = 64 * 1024
GO_TEXT, GO_COUNTS = go_file(12, 30, seed=100)
CHESS_TEXT, CHESS_COUNTS = chess_file(12, 30, seed=200, player="Carol")
BROKEN = "(;GM[1]SZ[19]PB[alice]PW[x];B[pd];W[dd])\n\n(;GM[1]SZ[19]PB[alice]PW[y];B[pd];W[pd])\n"


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    settings = ServiceSettings(
        data_dir=tmp_path_factory.mktemp("upload"), workers=1, ai_time=0.3, max_body=MAX_BODY
    )
    with thread_server(settings) as url:
        yield url


def _estimate(client: Client, files: dict[str, str], player: str | None = None) -> httpx.Response:
    body: dict[str, Any] = {"files": [{"name": n, "text": t} for n, t in files.items()]}
    if player is not None:
        body["player"] = player
    return client.post("/api/estimate", body)


def test_twelve_go_games_give_a_rank_its_distribution_and_a_level(base: str) -> None:
    ann = Client(base, "ann")
    assert len(GO_TEXT.encode()) < MAX_BODY
    reply = _estimate(ann, {"games.sgf": GO_TEXT})
    assert reply.status_code == 200, reply.text
    found = reply.json()
    assert (found["game"], found["player"], found["player_found"]) == (
        "go",
        "alice",
        "in every game",
    )
    assert found["scale"] == "rank" and found["estimate"] in GO_RANKS
    assert found["games"] == 12 and found["moves"] == sum(GO_COUNTS)
    assert [d["rank"] for d in found["distribution"]] == list(GO_RANKS)
    assert sum(d["share"] for d in found["distribution"]) == pytest.approx(1.0)
    shares = {d["rank"]: d["share"] for d in found["distribution"]}
    assert found["confidence"] == pytest.approx(shares[found["estimate"]])
    assert found["resampled"] == "games" and found["duplicates"] == [] and found["notes"] == []
    assert found["files"] == [{"name": "games.sgf", "games": 12}]
    assert [g["moves"] for g in found["player_games"]] == GO_COUNTS
    assert [g["side"] for g in found["player_games"]] == [g % 2 for g in range(12)]
    assert found["player_games"][3]["opponent"] == "bob3"
    assert found["offer"] == offer_for("go", found["estimate"])
    assert found["offer"]["opponent"] == {"mode": "strongest"}
    # the level offered is a game the service starts
    game = ann.post(
        "/api/games", {"game": "go", "opponent": found["offer"]["opponent"], "side": "first"}
    )
    assert game.status_code == 201, game.text
    assert game.json()["opponent_label"] == found["offer"]["label"]


def test_a_broken_file_is_refused_with_its_file_and_line_and_nothing_is_stored(base: str) -> None:
    bea = Client(base, "bea")
    reply = _estimate(bea, {"games.sgf": GO_TEXT, "broken.sgf": BROKEN})
    assert reply.status_code == 422
    assert reply.json() == {
        "detail": "broken.sgf:3: move 2 (W Q16) is illegal; nothing of this upload was used",
        "key": "files",
    }
    profile = bea.get("/api/me/profile").json()
    assert (profile["games"], profile["estimates"]) == ([], [])
    assert bea.get("/api/games").json() == []
    wrong = _estimate(bea, {"games.sgf": GO_TEXT}, player="nobody")
    assert wrong.status_code == 422 and wrong.json()["key"] == "player"
    assert wrong.json()["detail"].startswith("player 'nobody' is in none of the 12 game(s)")
    mixed = _estimate(bea, {"games.sgf": GO_TEXT, "games.pgn": CHESS_TEXT})
    assert mixed.status_code == 422
    assert mixed.json()["detail"].startswith("give Go (SGF) or chess (PGN) games, not both")


def test_repeated_games_count_once_and_the_body_is_bounded(base: str) -> None:
    cid = Client(base, "cid")
    once = _estimate(cid, {"games.sgf": GO_TEXT}, player="ALICE").json()
    twice = _estimate(cid, {"games.sgf": GO_TEXT, "copy.sgf": GO_TEXT}, player="ALICE")
    assert twice.status_code == 200, twice.text
    found = twice.json()
    assert (found["games"], found["moves"]) == (12, sum(GO_COUNTS))
    starts = [i + 1 for i, line in enumerate(GO_TEXT.splitlines()) if line.startswith("(;")]
    assert found["duplicates"] == [f"copy.sgf:{n} is games.sgf:{n}" for n in starts]
    assert found["files"] == [{"name": "games.sgf", "games": 12}, {"name": "copy.sgf", "games": 12}]
    assert found["distribution"] == once["distribution"] and found["estimate"] == once["estimate"]
    assert found["player_found"] == "given" and found["player"] == "alice"
    big = _estimate(cid, {"big.sgf": GO_TEXT + " " * MAX_BODY})
    assert big.status_code == 413
    assert big.json()["detail"] == f"the request body is larger than {MAX_BODY} bytes"
    anonymous = httpx.post(f"{base}/api/estimate", json={"files": []}, timeout=30)
    assert anonymous.status_code == 401


def test_twelve_chess_games_give_a_band_and_the_elo_at_its_middle(base: str) -> None:
    dee = Client(base, "dee")
    reply = _estimate(dee, {"mine.pgn": CHESS_TEXT})
    assert reply.status_code == 200, reply.text
    found = reply.json()
    assert (found["game"], found["player"], found["scale"]) == ("chess", "Carol", "Elo band")
    assert found["estimate"] in CHESS_RANKS and found["games"] == 12
    assert found["moves"] == sum(CHESS_COUNTS)
    assert [d["rank"] for d in found["distribution"]] == list(CHESS_RANKS)
    low, high = (int(x) for x in found["estimate"].split("-"))
    assert found["offer"]["opponent"] == {"mode": "elo", "elo": (low + high) / 2}
    assert found["offer"] == offer_for("chess", found["estimate"])


def test_a_review_of_an_uploaded_game_marks_the_largest_gaps(base: str) -> None:
    eve = Client(base, "eve")
    body = {
        "files": [{"name": "games.sgf", "text": GO_TEXT}],
        "game": 1,
        "rank": "3d",
        "stronger": 2,
        "top": 4,
    }
    reply = eve.post("/api/review", body)
    assert reply.status_code == 200, reply.text
    review = reply.json()
    assert (review["own_rank"], review["stronger_rank"], review["network"]) == (
        "3d",
        "5d",
        "go-play",
    )
    assert (review["player"], review["side"], review["moves"]) == ("alice", 1, GO_COUNTS[1])
    gaps = [m["gap"] for m in review["marked"]]
    assert len(gaps) == 4 and gaps == sorted(gaps, reverse=True)
    for m in review["marked"]:
        assert m["gap"] == pytest.approx(math.log(m["p_own"]) - math.log(m["p_stronger"]), abs=1e-9)
        assert m["ply"] % 2 == 1 and m["number"] == m["ply"] + 1  # White's moves
    assert review["values"] == NO_VALUE_NOTE and review["marked"][0]["value_played"] is None
    assert all(m["gap"] > 0 for m in review["marked"])
    assert eve.post("/api/review", body | {"game": 12}).status_code == 422
    top_rank = eve.post("/api/review", body | {"rank": "9d"})
    assert top_rank.status_code == 422 and "no stronger one" in top_rank.json()["detail"]


def test_a_finished_game_is_reviewed_for_its_player(base: str, tmp_path: Path) -> None:
    fay = Client(base, "fay")
    state = fay.new_game("chess", {"mode": "settings", "settings": {"kind": "random"}})
    early = fay.post(f"/api/games/{state['id']}/review", {"rank": "1400-1600"})
    assert early.status_code == 409  # not over yet
    for _ in range(4):
        state = fay.settled(fay.move(state).json()["id"])
    assert fay.post(f"/api/games/{state['id']}/resign", {"ply": state["ply"]}).status_code == 200
    reply = fay.post(
        f"/api/games/{state['id']}/review", {"rank": "1400-1600", "stronger": 2, "top": 3}
    )
    assert reply.status_code == 200, reply.text
    review = reply.json()
    assert (review["player"], review["side"], review["moves"]) == ("fay", 0, 4)
    assert review["stronger_rank"] == "1800-2000"
    assert all(m["ply"] % 2 == 0 for m in review["marked"])
    # the same review as the game's record gives here
    text = fay.get(f"/api/games/{state['id']}/record").text
    (record,) = parse_pgn_games(text, f"chess-{state['id']}.pgn")
    expected = review_with_network(record, 0, "1400-1600", 2, 3).to_json()
    # the same moves and marks; probabilities to 5 digits (the worker's network runs with its
    # own thread count, whose float sums may differ in the last bits)
    assert _close(review, expected), (review, expected)
    four = fay.new_game("connect4")
    other = fay.post(f"/api/games/{four['id']}/review", {"rank": "3d"})
    assert other.status_code == 422 and other.json()["key"] == "game"
    stranger = Client(base, "gus").post(f"/api/games/{state['id']}/review", {"rank": "3d"})
    assert stranger.status_code == 403


def _close(got: Any, want: Any) -> bool:
    """``got`` equals ``want`` but for floats, which agree to a relative 1e-5 (nested lists
    and dicts)."""
    if isinstance(got, float) and isinstance(want, float):
        return math.isclose(got, want, rel_tol=1e-5, abs_tol=1e-9)
    if isinstance(got, dict) and isinstance(want, dict):
        return got.keys() == want.keys() and all(_close(got[k], want[k]) for k in got)
    if isinstance(got, list) and isinstance(want, list):
        return len(got) == len(want) and all(_close(a, b) for a, b in zip(got, want, strict=True))
    return bool(got == want)
