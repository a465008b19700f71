"""What the service's views write, without a server: the end of an Othello game with its disc
count, the flag on a pass that would end a Go game, Go's captures and area count, and the
whole-number Elo rule."""

from __future__ import annotations

import pytest

from sparring.games import get_game
from sparring.games.othello import Othello
from sparring.levels import level_table
from sparring.service.catalog import GameInfo, whole_elo
from sparring.service.views import _pass_ends, go_score, result_text
from sparring.session import GameSession


def test_an_othello_result_gives_the_disc_count() -> None:
    game = get_game("othello6")
    assert isinstance(game, Othello)
    session = GameSession(game)
    while not session.is_over:
        legal = session.legal_moves()  # Black its first legal move, White its last: one game
        session.play(legal[0] if session.to_move == 0 else legal[-1])
    black, white = game.disc_count(session.state)
    assert black + white > 4 and black != white
    winner, margin = ("Black", black - white) if black > white else ("White", white - black)
    count = f"Black {black} discs, White {white} ({winner} wins by {margin})."
    head = "You win" if winner == "Black" else "AI wins"
    assert result_text(session, 0) == f"{head}: {count}"
    assert result_text(session, 1) == f"{'AI wins' if winner == 'Black' else 'You win'}: {count}"


def test_a_pass_after_a_pass_ends_the_game() -> None:
    game = get_game("go9")
    session = GameSession(game)
    session.play(game.parse_move("E5", session.state))
    assert _pass_ends(game, session.state, 81) == {"ends_game": False}
    assert _pass_ends(game, session.state, 40) == {}  # a stone: no flag
    session.play(81)  # one side passes: the other side's pass would end the game
    assert _pass_ends(game, session.state, 81) == {"ends_game": True}


def test_go_score_counts_captures_and_area_with_komi() -> None:
    game = get_game("go9")
    session = GameSession(game)
    assert go_score(game, session.state) == {
        "captures": [0, 0],
        "area": [0, 0],
        "komi": 7.5,
        "margin": -7.5,
    }
    for text in ("B1", "A1", "A2"):  # Black takes White's corner stone
        session.play(game.parse_move(text, session.state))
    # Black's two stones and every empty point (they reach only Black's stones): 81 points
    assert go_score(game, session.state) == {
        "captures": [1, 0],
        "area": [81, 0],
        "komi": 7.5,
        "margin": 73.5,
    }
    session.play(game.parse_move("E5", session.state))  # a White stone: the open board is
    assert go_score(game, session.state) == {  # no one's; A1 (between Black's two) is Black's
        "captures": [1, 0],
        "area": [3, 1],
        "komi": 7.5,
        "margin": -5.5,
    }
    assert go_score(get_game("connect4"), get_game("connect4").initial_state()) is None


@pytest.mark.parametrize(
    ("elo", "whole"), [(2267.5, 2268), (2266.5, 2266), (636.4, 636), (1764.8, 1765), (614.0, 614)]
)
def test_elos_are_written_as_whole_numbers_half_to_even(elo: float, whole: int) -> None:
    assert whole_elo(elo) == whole == int(f"{elo:.0f}")  # the labels' own formatting


def test_an_elo_outside_the_whole_range_is_played_at_its_end_and_said() -> None:
    c4 = GameInfo("connect4", "Connect Four", get_game("connect4"), level_table("connect4"))
    assert c4.elo_range == (614.0, 2267.5) and c4.whole_range == (614, 2267)
    assert c4.played_elo(2267) == (2267, None)  # the end shown: no clamp, no notice
    assert c4.played_elo(614.0) == (614.0, None)
    assert c4.played_elo(2267.4) == (
        2267.0,
        "Elo 2267.4 is outside the measured range 614..2267 of the Connect Four baseline "
        "ladder; playing the strongest level, 2267",
    )
    assert c4.played_elo(100)[0] == 614.0
    go9 = GameInfo("go9", "Go 9x9", get_game("go9"), level_table("go9"))
    assert go9.played_elo(5000) == (5000, None)  # rows: the resolver plays the nearest one
