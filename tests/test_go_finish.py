"""Finishing Go games (``sparring.players.finish``): no own-eye fills, pass to win."""

from __future__ import annotations

import numpy as np

from sparring.games import get_game
from sparring.games.go import Go, gtp_to_move
from sparring.players.finish import go_finishing_move

GO9 = get_game("go9")
assert isinstance(GO9, Go)


def _points(*names: str) -> list[int]:
    return [gtp_to_move(name, 9) for name in names]


def test_own_eyes_and_the_finishing_move() -> None:
    # Black walls A2, B2, B1 make A1 a single-point corner eye of Black.
    state = GO9.setup(black=_points("A2", "B2", "B1"), white=_points("E5"), to_move=0)
    eyes = GO9.own_eyes(state)
    assert eyes.shape == (GO9.num_actions,) and not eyes[GO9.pass_move]
    assert np.flatnonzero(eyes).tolist() == _points("A1")
    white_view = GO9.setup(black=_points("A2", "B2", "B1"), white=_points("E5"), to_move=1)
    assert not GO9.own_eyes(white_view).any()  # not White's eye
    rng = np.random.default_rng(0)
    a1, c3, pass_move = _points("A1", "C3")[0], _points("C3")[0], GO9.pass_move
    moves = np.array([a1, c3, pass_move])
    # the most visited move fills the own eye: the next most visited is played instead
    assert go_finishing_move(GO9, state, moves, np.array([50, 30, 20]), rng) == c3
    assert go_finishing_move(GO9, state, moves, np.array([10, 30, 60]), rng) == pass_move
    # only the eye and the pass left: pass
    only = np.array([a1, pass_move])
    assert go_finishing_move(GO9, state, only, np.array([90, 10]), rng) == pass_move


def test_pass_to_win_after_the_opponent_passes() -> None:
    # Black's 3 stones against White's 1 (the rest neutral): 3 - 1 - 7.5 komi, Black behind.
    black = _points("A1", "B1", "C1")
    c3 = _points("C3")[0]
    moves, visits = np.array([c3, GO9.pass_move]), np.array([90, 10])
    rng = np.random.default_rng(0)
    after_pass = GO9.play(GO9.setup(black=black, white=_points("J9"), to_move=1), GO9.pass_move)
    assert GO9.consecutive_passes(after_pass) == 1 and GO9.to_move(after_pass) == 0
    margin = GO9.score_margin(after_pass)
    assert margin < 0  # Black behind (komi): Black plays on
    assert go_finishing_move(GO9, after_pass, moves, visits, rng) == c3
    ahead = _points("A1", "B1", "C1", "D1", "E1", "F1", "G1", "H1", "J1", "A3", "B3", "C3")
    lead = GO9.play(GO9.setup(black=ahead, white=_points("J9"), to_move=1), GO9.pass_move)
    assert GO9.score_margin(lead) > 0
    d5 = _points("D5")[0]
    assert go_finishing_move(GO9, lead, np.array([d5, GO9.pass_move]), visits, rng) == GO9.pass_move
    # without the opponent's pass the player plays on
    no_pass = GO9.setup(black=ahead, white=_points("J9"), to_move=0)
    assert go_finishing_move(GO9, no_pass, np.array([d5, GO9.pass_move]), visits, rng) == d5


def test_sa_player_finishes_go_games() -> None:
    """SA-MCTS (``finish_go``) draws from the SA distribution of the visits with its own eyes
    counted as unvisited, and passes to win; without the option it fills the eye."""
    from sparring.games.base import Game, State
    from sparring.players.strength import StrengthAdjustedPlayer
    from sparring.search.limit import Limit, LimitClock
    from sparring.search.stats import RootStats
    from sparring.strength.selection import StrengthSetting

    a1, c3 = _points("A1", "C3")
    moves = np.array([a1, c3, GO9.pass_move])

    def search(_rng: np.random.Generator):  # type: ignore[no-untyped-def]
        def run(
            game: Game, state: State, limit: Limit | None = None, clock: LimitClock | None = None
        ) -> RootStats:
            return RootStats.from_visits(moves, np.array([90, 10, 0]))

        return run

    eye_state = GO9.setup(black=_points("A2", "B2", "B1"), white=_points("E5"), to_move=0)
    strongest = StrengthSetting(8.0)  # z = 8: the eye (90 visits) nearly always
    plain = StrengthAdjustedPlayer(search, strongest, seed=0)
    finishing = StrengthAdjustedPlayer(search, strongest, seed=0, finish_go=True)
    assert plain.select_move(GO9, eye_state) == a1
    decisions = [finishing.play(GO9, eye_state) for _ in range(20)]
    assert [d.move for d in decisions] == [c3] * 20
    assert decisions[-1].annotation == {"moves": moves.tolist(), "visits": [90, 10, 0]}
    ahead = _points("A1", "B1", "C1", "D1", "E1", "F1", "G1", "H1", "J1", "A3", "B3", "C3")
    lead = GO9.play(GO9.setup(black=ahead, white=_points("J9"), to_move=1), GO9.pass_move)
    assert finishing.select_move(GO9, lead) == GO9.pass_move
    assert plain.select_move(GO9, lead) != GO9.pass_move  # no pass visits: SA plays on
