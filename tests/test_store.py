"""Tests of the SQLite game store: round trip, durability, resuming interrupted runs."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from sparring.errors import ConfigError
from sparring.evaluation.match import MatchConfig, TournamentConfig, run_match, run_tournament
from sparring.evaluation.store import GameRecord, GameStore, RunInfo


def make_record(index: int = 0, run_key: str = "run1", result: float = 1.0) -> GameRecord:
    return GameRecord(
        game="tictactoe",
        spec_a="random",
        spec_b="random:name=R2",
        label_a="Random",
        label_b="R2",
        a_first=index % 2 == 0,
        seed=2**63 - 1 - index,
        moves=(4, 0, 8, 2, 6),
        think_times=(0.001, 0.5, 1e-6, 0.0, 2.25),
        result=result,
        run_key=run_key,
        pairing=0,
        game_index=index,
        finished_at=1_700_000_000.5,
    )


def game_of(r: GameRecord) -> tuple[object, ...]:
    """What a game is, without its timing."""
    return (r.key, r.spec_a, r.spec_b, r.a_first, r.seed, r.moves, r.result)


def test_round_trip_and_reopen(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "games.sqlite"
    run = RunInfo("run1", "match", "tictactoe", {"games": 4, "specs": ["random", "x"]})
    records = [make_record(i, result=r) for i, r in enumerate((1.0, 0.5, 0.0))]
    with GameStore(path) as store:
        assert store.journal_mode == "wal"
        stored_run = store.ensure_run(run)
        assert stored_run == run and stored_run.created_at > 0
        for record in records:
            assert store.add_game(record)
        assert not store.add_game(records[0])  # same key: ignored, not duplicated
    with GameStore(path) as store:
        assert store.games("run1") == records
        assert store.games("run1")[1].finished_at == records[1].finished_at
        assert store.count() == 3 and store.count("run1") == 3 and store.count("other") == 0
        assert store.recorded_indices("run1") == {(0, 0), (0, 1), (0, 2)}
        assert store.get_run("run1") == run
        assert store.runs() == [run]
        assert store.get_run("nope") is None
    # The file is plain SQLite, readable by any tool.
    with sqlite3.connect(path) as db:
        row = db.execute("SELECT moves, result, a_first FROM games WHERE game_index = 1").fetchone()
    assert row == ("[4, 0, 8, 2, 6]", 0.5, 0)


def test_record_properties() -> None:
    record = make_record(1, result=1.0)  # B moved first and won
    assert not record.a_first
    assert record.first_label == "R2" and record.second_label == "Random"
    assert record.score_a == 0.0 and record.score_b == 1.0
    assert record.plies == 5
    assert record.key == ("run1", 0, 1)
    with pytest.raises(ValueError):
        make_record(result=0.3)


def test_game_needs_its_run_and_run_kind_is_checked(tmp_path: Path) -> None:
    with GameStore(tmp_path / "g.sqlite") as store:
        with pytest.raises(ConfigError, match="ensure_run"):
            store.add_game(make_record())
        store.ensure_run(RunInfo("run1", "match", "tictactoe", {}))
        with pytest.raises(ConfigError, match="tournament"):
            store.ensure_run(RunInfo("run1", "tournament", "tictactoe", {}))
        # Updating the config of an existing run is allowed.
        store.ensure_run(RunInfo("run1", "match", "tictactoe", {"games": 10}))
        run = store.get_run("run1")
        assert run is not None and run.config == {"games": 10}


def test_not_a_database(tmp_path: Path) -> None:
    path = tmp_path / "junk.sqlite"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(ConfigError, match="junk"):
        GameStore(path)


def test_match_resumes_without_replaying(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite"
    config = MatchConfig("tictactoe", "random", "random:name=R2", games=6, seed=11)
    with GameStore(path) as store:
        first = run_match(config, store, progress=False, stop_after=4)  # "interrupted"
        assert (first.played, first.skipped, len(first.records)) == (4, 0, 4)
        assert not first.complete
    played: list[int] = []
    with GameStore(path) as store:
        second = run_match(
            config, store, progress=False, on_game=lambda r: played.append(r.game_index)
        )
        assert (second.played, second.skipped) == (2, 4)
        assert sorted(played) == [4, 5]  # only the missing games were played
        assert second.complete and len(second.records) == 6
        assert store.count() == 6 and len(store.runs()) == 1
        assert second.records[:4] == first.records
        again = run_match(config, store, progress=False)
        assert again.played == 0 and again.skipped == 6
        # A finished run can be extended: same run key, more games.
        more = run_match(
            MatchConfig("tictactoe", "random", "random:name=R2", games=8, seed=11),
            store,
            progress=False,
        )
        assert (more.played, more.skipped, more.run_key) == (2, 6, second.run_key)
        assert store.count() == 8
    # Resumed games are the games an uninterrupted run plays.
    fresh = run_match(config, progress=False)
    assert [game_of(r) for r in fresh.records] == [game_of(r) for r in second.records]


def test_killed_run_keeps_finished_games(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite"
    config = TournamentConfig(
        "tictactoe", ("random", "random:name=R2", "random:name=R3"), games_per_pair=4, seed=2
    )

    def crash_after_five(record: GameRecord) -> None:
        crash_after_five.count += 1  # type: ignore[attr-defined]
        if crash_after_five.count == 5:  # type: ignore[attr-defined]
            raise KeyboardInterrupt

    crash_after_five.count = 0  # type: ignore[attr-defined]
    with GameStore(path) as store, pytest.raises(KeyboardInterrupt):
        run_tournament(config, store, progress=False, on_game=crash_after_five)
    with GameStore(path) as store:
        assert store.count() == 5  # every finished game was committed
        rest = run_tournament(config, store, progress=False)
        assert (rest.played, rest.skipped) == (7, 5)
        assert rest.complete and store.count() == 12
        keys = [(r.pairing, r.game_index) for r in rest.records]
        assert len(set(keys)) == 12


def test_player_states_round_trip_and_old_stores(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    with GameStore(path) as store:  # a store as written before player states existed
        store.ensure_run(RunInfo("run1", "series", "tictactoe", {}))
        store.add_game(make_record(0))
    with sqlite3.connect(path) as db:
        db.execute("ALTER TABLE games DROP COLUMN player_states")
        columns = [row[1] for row in db.execute("PRAGMA table_info(games)")]
        assert "player_states" not in columns
    states = ({"wins": 2, "z": -0.5, "seen": [1, 2]}, None)
    with GameStore(path) as store:
        (old,) = store.games("run1")
        assert old.player_states is None
        assert store.add_game(GameRecord(**{**make_record(1).__dict__, "player_states": states}))
        (_, new) = store.games("run1")
        assert new.player_states == states
    with sqlite3.connect(path) as db:
        raw = db.execute("SELECT player_states FROM games ORDER BY game_index").fetchall()
        version = db.execute("PRAGMA user_version").fetchone()[0]
    assert raw == [(None,), ('[{"wins":2,"z":-0.5,"seen":[1,2]},null]',)] and version == 1
    with pytest.raises(ValueError, match="pair"):
        GameRecord(**{**make_record(1).__dict__, "player_states": (None,)})
    hash(new)  # records with states stay hashable
