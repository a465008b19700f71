"""research/connect4_losses.py (where the Connect4 games against MCTS1 are lost) on a
hand-made game with a stand-in solver, so every slip is known."""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType

import pytest

from script_module import load_script
from sparring.evaluation.oracle import SolvedPosition
from sparring.evaluation.store import GameRecord

# The stand-in solver's scores after each prefix length of MOVES (the side to move's view).
SCORES = [
    {3: 1, 0: -1},  # ply 0, the opponent: 3 keeps the win
    {3: 1, 0: 0},  # ply 1, the player: 3 keeps the win
    {2: -1, 5: 0},  # ply 2, the opponent: 2 turns a draw into a loss
    {2: 1, 6: -1},  # ply 3, the player: 2 keeps the win
    {4: -1, 1: -1},  # ply 4, the opponent: lost whatever it plays
    {0: -1, 1: 1},  # ply 5, the player: 0 throws the win away
    {5: 1, 1: 1},  # ply 6, the opponent: wins
]
MOVES = (3, 3, 2, 2, 4, 0, 5)


def solve(moves: Sequence[int]) -> SolvedPosition:
    return SolvedPosition(tuple(moves), SCORES[len(moves)])


@pytest.fixture(scope="module")
def script() -> ModuleType:
    return load_script("connect4_losses")


def record(a_first: bool, result: float, index: int, label_b: str = "MCTS1") -> GameRecord:
    return GameRecord(
        "connect4", "az", "mcts1", "AZ", label_b, a_first, 0, MOVES, (0.0,) * 7, result,
        game_index=index,
    )  # fmt: skip


def test_slips_name_each_value_change_and_its_side(script: ModuleType) -> None:
    found = script.slips(MOVES, 1, solve)
    assert found == [script.Slip(2, False, 0, -1), script.Slip(5, True, 1, -1)]
    # Seen from the other seat, the same moves are the other player's.
    assert [s.by_player for s in script.slips(MOVES, 0, solve)] == [True, False]


def test_only_games_not_won_are_listed_and_the_thrown_win_found(script: ModuleType) -> None:
    records = [
        record(False, 1.0, 0),  # AZ second, the first player won: a loss
        record(True, 1.0, 1),  # AZ first and won: not listed
        record(True, 0.5, 2),  # a draw: listed
        record(True, 0.0, 3, label_b="Other"),  # AZ's loss against another player
    ]
    games = script.lost_games(records[:3], "AZ", solve)
    assert [(g.game_index, g.first, g.score) for g in games] == [(0, False, 0.0), (2, True, 0.5)]
    assert games[0].threw_a_win == script.Slip(5, True, 1, -1)
    assert games[1].threw_a_win is None  # as first player, ply 5 was the opponent's
    text = script.report(games, "AZ", 3)
    assert text.startswith("AZ: 3 games, 1 lost, 1 drawn\n")
    assert "| 0 | second | 0 | 7 | 5: won -> lost | 2: drawn -> lost |" in text
    assert "1 of 1 (as first player 0, as second 1); the plies of those moves: 5." in text
    assert "The games ended 2-2 plies after that move (median 2)" in text
