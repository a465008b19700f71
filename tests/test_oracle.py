"""Connect4 move quality against the exact solver."""

from __future__ import annotations

import pytest

pytest.importorskip("bitbully", reason="bitbully is needed for the Connect4 oracle")

from sparring.evaluation.oracle import SolvedPosition, connect4_positions, replay, score_player
from sparring.games import get_game
from sparring.games.base import Game, State
from sparring.players import make_player
from sparring.players.base import Player
from sparring.search.limit import Limit


class _Lookup(Player):
    """Plays the solver's best move (looked up by position), or its worst."""

    def __init__(self, table: dict[tuple[int, ...], SolvedPosition], best: bool) -> None:
        super().__init__("lookup", 0)
        self.table = {replay(k).tobytes(): v for k, v in table.items()}
        self.best = best

    def select_move(self, game: Game, state: State, limit: Limit | None = None) -> int:
        scores = self.table[state.tobytes()].scores
        pick = max if self.best else min
        return pick(scores, key=lambda m: scores[m])


def test_solved_positions_are_reproducible_and_legal() -> None:
    a = connect4_positions(15, seed=3)
    assert a == connect4_positions(15, seed=3)
    game = get_game("connect4")
    for pos in a:
        assert sorted(pos.scores) == game.legal_moves(replay(pos.moves)).tolist()


def test_perfect_and_worst_players_bound_the_rates() -> None:
    positions = connect4_positions(30, seed=1)
    table = {p.moves: p for p in positions}
    perfect = score_player(_Lookup(table, best=True), positions)
    assert perfect.rates()["value-optimal"] == 1.0 and perfect.rates()["score-optimal"] == 1.0
    worst = score_player(_Lookup(table, best=False), positions)
    assert worst.decisive_value_optimal == 0
    rnd = score_player(make_player("random", get_game("connect4"), 0), positions)
    assert worst.value_optimal <= rnd.value_optimal <= perfect.value_optimal


class _Fixed(Player):
    """Plays a given move in each position."""

    def __init__(self, moves: dict[tuple[int, ...], int]) -> None:
        super().__init__("fixed", 0)
        self.moves = {replay(k).tobytes(): v for k, v in moves.items()}

    def select_move(self, game: Game, state: State, limit: Limit | None = None) -> int:
        return self.moves[state.tobytes()]


def test_the_misses_are_counted_by_kind() -> None:
    # Hand-made scores (not the solver's): four positions, one move of each kind played.
    won = {0: 3, 1: 0, 2: -2, 3: 1, 4: 1, 5: 0, 6: -1}
    drawn = {0: 0, 1: -4, 2: 0, 3: 0, 4: -1, 5: 0, 6: 0}
    positions = [
        SolvedPosition((), won),  # plays 1: won -> drawn
        SolvedPosition((3,), won),  # plays 6: won -> lost
        SolvedPosition((3, 3), drawn),  # plays 1: drawn -> lost
        SolvedPosition((3, 3, 3), won),  # plays 4: value-optimal, not score-optimal
    ]
    played = {(): 1, (3,): 6, (3, 3): 1, (3, 3, 3): 4}
    report = score_player(_Fixed(played), positions)
    assert (report.value_optimal, report.score_optimal) == (1, 0)
    assert (report.won_to_drawn, report.won_to_lost, report.drawn_to_lost) == (1, 1, 1)
    assert report.misses() == "1 / 1 / 1"
    assert report.decisive == 4 and report.decisive_value_optimal == 1
