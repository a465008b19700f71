"""The service's worker jobs with live games: a game continued on the session a worker
process kept gives exactly what restoring it from the snapshot gives, a snapshot that does not
continue the kept session is restored, and the kept sessions are bounded."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

import sparring.kinds  # noqa: F401 - registers the player kinds
from sparring.service import worker

UCT = {"kind": "uct", "sims": 16}


@pytest.fixture
def process() -> Iterator[worker._Process]:
    """A fresh worker state in this process (two live games at most)."""
    saved = list(worker._PROCESS)
    worker._PROCESS[:] = [worker._Process(live_games=2)]
    try:
        yield worker._PROCESS[0]
    finally:
        worker._PROCESS[:] = saved


def _stored(result: dict[str, Any]) -> dict[str, Any]:
    """The snapshot as the server stores and reads it back (JSON)."""
    return dict(json.loads(json.dumps(result["snapshot"])))


def _new(seed: int) -> dict[str, Any]:
    return worker.new_game("connect4", {}, UCT, seed, 0, "ann", None)


def _play(game_id: str | None, seed: int, plies: int) -> list[dict[str, Any]]:
    """A game of ``plies`` moves through the jobs (the person plays on top of the AI's last
    move, or the next column with room), each job given the stored snapshot; every job's
    result."""
    results = [_new(seed)]
    while results[-1]["ply"] < plies:
        snapshot = _stored(results[-1])
        if results[-1]["to_move"] == 0:
            last = snapshot["moves"][-1] if snapshot["moves"] else 3
            move = last
            while snapshot["moves"].count(move) >= 6:
                move = (move + 1) % 7
            results.append(worker.human_move(snapshot, 0, move, game_id))
        else:
            results.append(worker.ai_move(snapshot, 0, 30.0, -1, game_id))
    return results


def _timeless(snapshot: dict[str, Any]) -> dict[str, Any]:
    """A snapshot without its think times (the AI's are measured)."""
    return {k: v for k, v in snapshot.items() if k != "think_times"}


def _same(results: list[dict[str, Any]], others: list[dict[str, Any]]) -> None:
    """The same snapshots (but the think times), moves and analyses, step by step."""
    assert len(results) == len(others)
    for mine, theirs in zip(results, others, strict=True):
        assert _timeless(mine["snapshot"]) == _timeless(theirs["snapshot"])
        assert mine.get("move") == theirs.get("move")
        if mine.get("analysis") is not None:
            assert mine["analysis"]["visits"] == theirs["analysis"]["visits"]


def test_a_live_game_plays_what_the_restored_one_plays(process: worker._Process) -> None:
    restored = _play(None, seed=5, plies=12)
    assert not process.live  # no game id: nothing kept
    live = _play("g1", seed=5, plies=12)
    _same(live, restored)
    assert list(process.live) == ["g1"] and process.live["g1"].ply == 12
    ai_steps = [r["steps"] for r in live if "steps" in r]
    assert len(ai_steps) == 6
    assert all("catch_up" in s and "build" not in s for s in ai_steps)  # never restored
    assert all("build" in r["steps"] for r in restored if "steps" in r)


def test_a_snapshot_that_does_not_continue_the_session_is_restored(
    process: worker._Process,
) -> None:
    results = _play("g1", seed=7, plies=5)  # the AI is to move
    snapshot = _stored(results[-1])
    first = worker.ai_move(snapshot, 0, 30.0, -1, "g1")  # (a result that was not stored)
    again = worker.ai_move(snapshot, 0, 30.0, -1, "g1")  # the kept session is one move ahead
    assert "build" in again["steps"] and "catch_up" in again["steps"]
    assert _timeless(again["snapshot"]) == _timeless(first["snapshot"])
    kept = process.live["g1"]
    changed = _stored(again)
    changed["names"] = ["bob", changed["names"][1]]  # the same moves, not the same game
    moved = worker.human_move(changed, 0, 0, "g1")
    assert process.live["g1"] is not kept and moved["snapshot"]["names"][0] == "bob"
    kept = process.live["g1"]
    taken_back = worker.undo(_stored(moved), 0, "g1")  # continued, then taken back
    assert process.live["g1"] is kept and kept.ply == 6
    assert taken_back["snapshot"] == worker.undo(_stored(moved), 0)["snapshot"]


def test_the_players_random_streams_come_from_the_snapshot(process: worker._Process) -> None:
    """A kept session's players continue from the snapshot's random streams, as a restored
    one does."""
    results = _play("g1", seed=9, plies=3)
    snapshot = _stored(results[-1])
    earlier = _stored(results[0])["players"][1]["random_state"]  # (before its first search)
    assert earlier != snapshot["players"][1]["random_state"]
    snapshot["players"][1]["random_state"] = earlier
    live = worker.ai_move(snapshot, 0, 30.0, -1, "g1")
    assert "build" not in live["steps"]
    restored = worker.ai_move(snapshot, 0, 30.0, -1, None)
    assert _timeless(live["snapshot"]) == _timeless(restored["snapshot"])
    assert live["analysis"]["visits"] == restored["analysis"]["visits"]


def test_the_live_games_are_bounded_least_recently_used_out(process: worker._Process) -> None:
    for game_id in ("a", "b", "c"):
        _play(game_id, seed=1, plies=2)
    assert list(process.live) == ["b", "c"]
    _play("b", seed=1, plies=2)
    assert list(process.live) == ["c", "b"]
    process.live_games = 0
    _play("d", seed=1, plies=2)
    assert list(process.live) == ["c", "b"]


def test_a_finished_or_resigned_game_is_not_kept(process: worker._Process) -> None:
    results = _play("g1", seed=3, plies=4)
    worker.resign(_stored(results[-1]), 0, "g1")
    assert "g1" not in process.live
