"""Move and position text: bad input raises the documented exception, naming what is wrong.

* malformed move tokens -> :class:`MoveParseError` naming the token;
* well-formed moves that are not legal -> :class:`IllegalMoveError` naming the move;
* moves in a finished game -> :class:`GameOverError`;
* malformed or impossible positions -> :class:`PositionParseError` saying what is wrong.

All of them derive from :class:`SparringError` (and ``ValueError``), so the command line can
print them as one line.
"""

from __future__ import annotations

import numpy as np
import pytest

from sparring.errors import (
    GameOverError,
    IllegalMoveError,
    MoveParseError,
    PositionParseError,
    SparringError,
)
from sparring.games import Game, get_game


@pytest.mark.parametrize(
    "error", [MoveParseError, IllegalMoveError, PositionParseError, GameOverError]
)
def test_error_hierarchy(error: type[Exception]) -> None:
    assert issubclass(error, SparringError) and issubclass(error, ValueError)


# ---- moves ----------------------------------------------------------------------------------

BAD_MOVES = [
    ("connect4", "8"),
    ("connect4", "0"),
    ("connect4", "x"),
    ("connect4", "11"),
    ("connect4", "-1"),
    ("connect4", "1.5"),
    ("connect4", "d3"),
    ("othello", "z9"),
    ("othello", "i1"),
    ("othello", "d9"),
    ("othello", "a0"),
    ("othello", "d"),
    ("othello", "d33"),
    ("othello", "pas"),
    ("othello", "passe"),
    ("othello", "3d"),
    ("othello", "a\u00b2"),  # a superscript two is a digit to str.isdigit, not to int()
    ("othello", "4"),
    ("othello6", "g1"),
    ("othello6", "a7"),
    ("othello6", "h8"),
    ("tictactoe", "d1"),
    ("tictactoe", "a4"),
    ("tictactoe", "a0"),
    ("tictactoe", "b"),
    ("tictactoe", "x"),
    ("tictactoe", "5"),
]


@pytest.mark.parametrize(("name", "token"), BAD_MOVES)
def test_bad_move_token(name: str, token: str) -> None:
    game = get_game(name)
    with pytest.raises(MoveParseError) as info:
        game.parse_move(token)
    assert repr(token) in str(info.value), str(info.value)
    # the same with a position given: still a parse error, not an illegal move
    with pytest.raises(MoveParseError):
        game.parse_move(f" {token} ", game.initial_state())


@pytest.mark.parametrize("name", ["connect4", "othello", "othello6", "tictactoe"])
@pytest.mark.parametrize("token", ["", "   ", "\t"])
def test_empty_move(name: str, token: str) -> None:
    with pytest.raises(MoveParseError, match="empty"):
        get_game(name).parse_move(token)


@pytest.mark.parametrize(
    ("name", "token", "move"),
    [
        ("connect4", " 4 ", 3),
        ("othello", "D3", 19),
        ("othello", "PASS", 64),
        ("othello", "h8", 63),
        ("othello6", "f6", 35),
        ("othello6", "pass", 36),
        ("tictactoe", "C3", 8),
    ],
)
def test_good_move_tokens(name: str, token: str, move: int) -> None:
    assert get_game(name).parse_move(token) == move


def _forced_pass_position(game: Game) -> np.ndarray:
    """A position from a seeded random Othello game where the side to move must pass."""
    for seed in range(200):
        rng = np.random.default_rng(seed)
        s = game.initial_state()
        while not game.is_terminal(s):
            legal = game.legal_moves(s)
            if legal.tolist() == [game.num_actions - 1]:
                return s
            s = game.play(s, int(legal[rng.integers(len(legal))]))
    raise AssertionError("no forced pass in 200 random games")


@pytest.mark.parametrize(
    ("name", "position", "token"),
    [
        ("connect4", "111111", "1"),  # a full column
        ("connect4", "444444111111777777", "4"),
        ("othello", None, "d4"),  # occupied
        ("othello", None, "e5"),
        ("othello", None, "a1"),  # flips nothing
        ("othello", None, "d6"),
        ("othello", None, "pass"),  # a placement exists
        ("othello6", None, "c3"),
        ("othello6", None, "pass"),
        ("tictactoe", "x........", "a1"),  # occupied
        ("tictactoe", "x...o....", "b2"),
    ],
)
def test_illegal_move(name: str, position: str | None, token: str) -> None:
    game = get_game(name)
    state = game.initial_state() if position is None else game.parse_position(position)
    move = game.parse_move(token)  # well formed
    with pytest.raises(IllegalMoveError) as info:
        game.parse_move(token, state)
    assert repr(token) in str(info.value)
    with pytest.raises(IllegalMoveError) as info:
        game.play(state, move)
    assert repr(game.move_to_text(move)) in str(info.value)


@pytest.mark.parametrize("name", ["othello", "othello6"])
def test_othello_forced_pass(name: str) -> None:
    game = get_game(name)
    state = _forced_pass_position(game)
    assert game.parse_move("pass", state) == game.num_actions - 1
    after = game.play(state, game.num_actions - 1)
    assert game.to_move(after) == 1 - game.to_move(state)
    for m in range(game.num_actions - 1):
        with pytest.raises(IllegalMoveError):
            game.play(state, m)


@pytest.mark.parametrize("name", ["connect4", "othello", "othello6", "tictactoe"])
def test_move_number_out_of_range(name: str) -> None:
    game = get_game(name)
    s = game.initial_state()
    for m in (-1, game.num_actions, 10**6):
        with pytest.raises(IllegalMoveError, match="outside"):
            game.play(s, m)


@pytest.mark.parametrize(
    ("name", "position", "token"),
    [
        ("connect4", "1212121", "3"),
        ("connect4", "/".join(["......."] * 4 + ["oooo...", "xxxoxx."]), "7"),
        ("tictactoe", "xxxoo....", "c3"),
        ("tictactoe", "xoxxoooxx", "a1"),  # a full board, drawn
        ("othello", "x" * 64 + " o", "pass"),
        ("othello", "o" * 32 + "x" * 32 + " x", "a1"),
    ],
)
def test_moves_after_the_end(name: str, position: str, token: str) -> None:
    game = get_game(name)
    state = game.parse_position(position)
    assert game.is_terminal(state)
    with pytest.raises(GameOverError):
        game.parse_move(token, state)
    with pytest.raises(GameOverError):
        game.play(state, game.parse_move(token))


# ---- positions ------------------------------------------------------------------------------

E = "......."  # an empty Connect4 row
BAD_POSITIONS = [
    # connect4 boards
    ("connect4", "/".join([E] * 5), "5 rows"),
    ("connect4", "/".join([E] * 7), "7 rows"),
    ("connect4", "/".join([E] * 5 + ["x......."]), "'x.......'"),
    ("connect4", "/".join([E] * 5 + ["x....."]), "'x.....'"),
    ("connect4", "/".join([E] * 5 + ["x..z..."]), "'z'"),
    ("connect4", "/".join([E] * 5 + ["X......"]), "'X'"),
    ("connect4", "/".join([E] * 4 + ["x......", E]), "column 1"),  # a floating stone
    ("connect4", "/".join([E] * 4 + ["...o...", "xx....x"]), "column 4"),
    ("connect4", "/".join([E] * 5 + ["xx....."]), "2 x and 0 o"),
    ("connect4", "/".join([E] * 5 + ["o......"]), "0 x and 1 o"),
    ("connect4", "/".join([E] * 4 + ["oooo...", "xxxx..."]), "both"),
    ("connect4", "/".join([E] * 4 + ["o......", "xxxxooo"]), "after the game was won"),
    ("connect4", "/".join([E] * 4 + ["oooo...", "xxxoxxx"]), "after the game was won"),
    # connect4 move sequences
    ("connect4", "4418", "'8'"),
    ("connect4", "44x", "'x'"),
    ("connect4", "1111111", "move 7"),
    ("connect4", "12121212", "over before move 8"),
    # othello
    ("othello", "." * 63 + " x", "63 cells"),
    ("othello", "." * 65 + " x", "65 cells"),
    ("othello", "." * 64, "expected 64 cells"),
    ("othello", "." * 27 + "ox" + "." * 6 + "xo" + "." * 27 + " z", "a space and x or o"),
    ("othello", "." * 27 + "ox" + "." * 6 + "xo" + "." * 26 + "q x", "'q'"),
    ("othello", "." * 64 + " x", "centre"),  # empty board: the centre can never be empty
    ("othello", "x" * 27 + ".x" + "x" * 6 + "xx" + "x" * 27 + " o", "centre"),
    ("othello", "." * 27 + "ox" + "." * 6 + "xo" + "." * 27 + " x x", "expected 64 cells"),
    ("othello6", "." * 14 + "ox" + "." * 4 + "xo" + "." * 14 + " x x", "expected 36 cells"),
    ("othello6", "." * 64 + " x", "64 cells, expected 36"),
    # tic-tac-toe
    ("tictactoe", "xo", "9 cells"),
    ("tictactoe", "x.........", "9 cells"),
    ("tictactoe", "xoz......", "'z'"),
    ("tictactoe", "xx.......", "2 x and 0 o"),
    ("tictactoe", "o........", "0 x and 1 o"),
    ("tictactoe", "xxxooo...", "both"),
    ("tictactoe", "xxxoo.o..", "after the game was won"),
    ("tictactoe", "ooox.xx.x", "after the game was won"),
]


@pytest.mark.parametrize(("name", "text", "expected"), BAD_POSITIONS)
def test_bad_position(name: str, text: str, expected: str) -> None:
    with pytest.raises(PositionParseError) as info:
        get_game(name).parse_position(text)
    assert expected in str(info.value), str(info.value)
    assert str(info.value).startswith(f"{name}:")


@pytest.mark.parametrize(
    ("name", "text", "outcome"),
    [
        ("connect4", "", "ONGOING"),
        ("connect4", "1212121", "FIRST_WINS"),
        ("connect4", "/".join([E] * 4 + ["xxx....", "ooox..."]), "ONGOING"),
        ("connect4", "/".join([E] * 2 + ["o......"] * 3 + ["oxxx.x."]), "SECOND_WINS"),
        ("othello", "x" * 64 + " o", "FIRST_WINS"),
        ("othello", "o" * 32 + "x" * 32 + " x", "DRAW"),
        ("othello6", "o" * 36 + " x", "SECOND_WINS"),
        ("tictactoe", "xxxoo....", "FIRST_WINS"),
        ("tictactoe", "xoxxoooxx", "DRAW"),
        ("tictactoe", "ooo.xx.x.", "SECOND_WINS"),
    ],
)
def test_good_positions(name: str, text: str, outcome: str) -> None:
    game = get_game(name)
    state = game.parse_position(text)
    assert game.status(state).name == outcome
