"""The extra chess training source (``extra_games = "lichess2017"``): which rows and
sides of the CSV are kept, with what band and result, and how its pairs join the main ones."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from sparring.errors import ConfigError, IncompatibleError
from sparring.estimation.data import CHESS_CODEC, CHESS_RANKS, PairSet, build_shard, concat_pairs
from sparring.estimation.extra import band_of, read_lichess_csv, side_bands
from sparring.estimation.train import SEConfig
from sparring.games.chess import Chess, action_to_uci
from sparring.records import RecordError

HEADER = (
    "id,rated,created_at,last_move_at,turns,victory_status,winner,increment_code,white_id,"
    "white_rating,black_id,black_rating,moves,opening_eco,opening_name,opening_ply\n"
)


def row(
    gid: str, rated: str, winner: str, white: tuple[str, int], black: tuple[str, int], moves: str
) -> str:
    return (
        f"{gid},{rated},1.5E+12,1.5E+12,{len(moves.split())},resign,{winner},10+0,"
        f"{white[0]},{white[1]},{black[0]},{black[1]},{moves},C20,King's Pawn Game,2\n"
    )


@pytest.fixture()
def csv_file(tmp_path: Path) -> Path:
    path = tmp_path / "games.csv"
    path.write_text(
        HEADER
        + row("a1", "TRUE", "white", ("Ann", 1850), ("bob", 1500), "e4 e5 Qh5 Nc6 Bc4 Nf6 Qxf7#")
        + row("a1", "TRUE", "white", ("Ann", 1850), ("bob", 1500), "e4 e5")  # repeated id
        + row("b2", "False", "black", ("cid", 1300), ("dee", 1320), "d4 d5")  # unrated
        + row("c3", "True", "draw", ("eve", 999), ("OldTest", 2410), "d4 Nf6 c4")
        + row("d4", "TRUE", "black", ("fay", 1200), ("gus", 1199), "e4 e5 Ke3")  # illegal
        + row("e5", "TRUE", "black", ("hal", 2599), ("ida", 2600), "Nf3")
        # the start position a fifth time after 16 plies: the rules end the game there
        + row("f6", "TRUE", "draw", ("jan", 1400), ("kai", 1400), "Nf3 Nf6 Ng1 Ng8 " * 4 + "e4")
    )
    return path


def test_band_of_follows_the_200_elo_bands_strongest_first() -> None:
    assert [band_of(x) for x in (1000, 1199, 1200, 1499, 1501, 2400, 2599)] == [7, 7, 6, 5, 5, 0, 0]
    assert [band_of(x) for x in (784, 999, 1500, 2600, 2723)] == [None] * 5
    assert CHESS_RANKS[band_of(1850) or 0] == "1800-2000"


def test_rated_first_seen_games_are_read_and_a_bad_one_reported(csv_file: Path) -> None:
    errors: list[RecordError] = []
    games = read_lichess_csv(csv_file, errors)
    assert [(g.headers["Site"], w, b) for g, w, b in games] == [
        ("a1", 1850, 1500),
        ("c3", 999, 2410),
        ("e5", 2599, 2600),
    ]
    first = games[0][0]
    assert first.line == 2 and first.winner == 0 and first.result == "1-0"
    assert [action_to_uci(int(a)) for a in first.moves] == [
        "e2e4",
        "e7e5",
        "d1h5",
        "b8c6",
        "f1c4",
        "g8f6",
        "h5f7",
    ]
    assert games[1][0].winner is None and games[1][0].result == "1/2-1/2"
    assert [e.line for e in errors] == [6, 8]
    assert "Ke3" in errors[0].reason
    assert errors[1].reason == (
        "refused: the game is over by the rules (fivefold_repetition) before ply 17, e4"
    )


def test_each_side_gets_its_own_band_and_dropped_sides_are_counted(csv_file: Path) -> None:
    games = read_lichess_csv(csv_file)
    picked, masks, counts = side_bands(games, exclude={"oldtest"})
    # a1: White 1850 -> band 3, Black provisional; c3: White 999 out, Black excluded by name
    # (case-insensitive); e5: White 2599 -> band 0, Black has no move and 2600 is out anyway
    assert [p.tolist() for p in picked] == [[2], [], [], [0], [], [], [], []]
    assert [m.tolist() for m in masks] == [[1], [], [], [1], [], [], [], []]
    assert counts == {
        "sides": 6,
        "kept": 2,
        "no_moves": 1,
        "provisional": 1,
        "out_of_bands": 1,
        "excluded_name": 1,
    }


def test_kept_sides_become_pairs_with_the_result_from_the_movers_view(csv_file: Path) -> None:
    games = read_lichess_csv(csv_file)
    picked, masks, _ = side_bands(games, exclude=set())
    records = [g[0] for g in games]
    shard = build_shard(
        records, picked[3], 3, Chess(), CHESS_CODEC, 0, 2, 0, "train", side_masks=masks[3]
    )
    # White's four moves of the mate game, all won
    assert shard["move_number"].tolist() == [0, 2, 4, 6]
    assert shard["value"].tolist() == [1, 1, 1, 1]
    assert shard["unit_player"].tolist() == ["Ann"]
    assert shard["game_source"].tolist() == [f"{csv_file}:2"]


def _pairs(n_units: int, n_games: int, rank: int) -> PairSet:
    n = 2 * n_units
    return PairSet(
        game="chess",
        ranks=CHESS_RANKS,
        bits=np.zeros((n, CHESS_CODEC.packed_bytes), np.uint8),
        consts=np.zeros((n, len(CHESS_CODEC.const_planes)), np.float32),
        action=np.arange(n, dtype=np.int32),
        value=np.zeros(n, np.int8),
        move_number=np.zeros(n, np.int16),
        random_actions=np.zeros((n, 1), np.int32),
        rank=np.full(n, rank, np.int8),
        unit=np.repeat(np.arange(n_units, dtype=np.int32), 2),
        unit_rank=np.full(n_units, rank, np.int8),
        unit_game=np.arange(n_units, dtype=np.int32) % n_games,
        unit_side=np.zeros(n_units, np.int8),
        unit_player=np.array([f"p{i}" for i in range(n_units)]),
        unit_moves=np.full(n_units, 2, np.int32),
        game_source=np.array([f"g{i}" for i in range(n_games)]),
    )


def test_concat_numbers_the_second_sets_units_and_games_after_the_first() -> None:
    both = concat_pairs(_pairs(3, 2, 1), _pairs(2, 1, 4))
    assert len(both) == 10
    assert both.unit.tolist() == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]
    assert both.unit_game.tolist() == [0, 1, 0, 2, 2]
    assert both.game_source.tolist() == ["g0", "g1", "g0"]
    assert both.rank.tolist() == [1] * 6 + [4] * 4
    other = _pairs(1, 1, 0)
    other.ranks = CHESS_RANKS[:-1]
    with pytest.raises(IncompatibleError):
        concat_pairs(both, other)


def test_config_takes_extra_games_for_chess_only_and_old_runs_still_match() -> None:
    assert SEConfig(game="chess", extra_games="lichess2017").data_config().extra_games == (
        "lichess2017"
    )
    with pytest.raises(ConfigError, match="chess only"):
        SEConfig(game="go", extra_games="lichess2017")
    with pytest.raises(ConfigError, match="unknown extra_games 'fics'"):
        SEConfig(game="chess", extra_games="fics")
    # a run recorded before the field existed has no such key: an empty one is left out
    assert "extra_games" not in SEConfig(game="chess").to_mapping()
    assert SEConfig(game="chess", extra_games="lichess2017").to_mapping()["extra_games"] == (
        "lichess2017"
    )
