"""Tests of the minimax baseline players (AlphaDDA appendix 4)."""

from __future__ import annotations

import numpy as np
import pytest

from sparring.errors import GameOverError, UnknownPlayerError
from sparring.games import Game, get_game
from sparring.games.base import State
from sparring.games.connect4 import Connect4
from sparring.players import make_player
from sparring.players.base import RandomPlayer
from sparring.players.minimax import (
    OTHELLO6_TABLE,
    OTHELLO8_TABLE,
    MinimaxPlayer,
    TableName,
    connect4_connections,
    evaluate,
    minimax_search,
)

GAMES = ("connect4", "othello6", "othello", "tictactoe")


def random_positions(game: Game, count: int, seed: int) -> list[State]:
    """Ongoing positions met along random games (early, middle and late)."""
    rng = np.random.default_rng(seed)
    positions: list[State] = []
    while len(positions) < count:
        state = game.initial_state()
        while not game.is_terminal(state):
            if rng.random() < 0.3:
                positions.append(state.copy())
            moves = game.legal_moves(state)
            state = game.play(state, int(moves[rng.integers(len(moves))]))
    return positions[:count]


# ---- Connect4 evaluation ------------------------------------------------------------------
# Board (rows from the top; columns a..g left to right, x moves first, o to move):
#   row 3  . . o x . . .
#   row 2  . o x x . . .
#   row 1  o x x o . . .
# x: twos = bottom row b-c, second row c-d, column c (rows 1-2), column d (rows 2-3),
#    rising diagonal c1-d2 -> 5; threes = rising diagonal b1-c2-d3 -> 1.
# o: twos = 0; threes = rising diagonal a1-b2-c3 -> 1 (d4 is empty, so no four).
C4_BOARD = "......./......./......./..ox.../.oxx.../oxxo..."


def test_connect4_evaluation_hand_count() -> None:
    game = Connect4()
    state = game.parse_position(C4_BOARD)
    assert game.to_move(state) == 1
    # Minimax1 (R = 100): 100 * (5 - 0) + 100**2 * (1 - 1).
    assert evaluate(game, state, 0, r=100) == 500.0
    assert evaluate(game, state, 1, r=100) == -500.0
    # Minimax2 (R = 2): 2 * 5 + 4 * 0.
    assert evaluate(game, state, 0, r=2) == 10.0


def test_connect4_single_runs() -> None:
    game = Connect4()
    # x: a horizontal three on the bottom row; o: nothing connected.
    state = game.parse_position("......./......./......./......./o.o..../xxx.o.x")
    assert evaluate(game, state, 0, r=100) == 10_000.0
    assert evaluate(game, state, 1, r=2) == -4.0
    # (The o.o above, with a gap, is no connection; xxx is one three, not also two twos.)
    assert evaluate(game, game.parse_position("1122"), 0, r=100) == 0.0  # one two each
    assert evaluate(game, game.parse_position("112"), 1, r=100) == -100.0  # x's one two


def _reference_connections(grid: np.ndarray) -> tuple[int, int]:
    rows, cols = grid.shape
    twos = threes = 0
    for dr, dc in ((1, 0), (0, 1), (1, 1), (1, -1)):
        for r in range(rows):
            for c in range(cols):
                if not grid[r, c]:
                    continue
                pr, pc = r - dr, c - dc
                if 0 <= pr < rows and 0 <= pc < cols and grid[pr, pc]:
                    continue  # not the start of a run
                length = 0
                rr, cc = r, c
                while 0 <= rr < rows and 0 <= cc < cols and grid[rr, cc]:
                    length += 1
                    rr, cc = rr + dr, cc + dc
                twos += length == 2
                threes += length == 3
    return twos, threes


def test_connect4_connections_match_reference() -> None:
    game = Connect4()
    for state in random_positions(game, 60, seed=5):
        first, second = game.stones(state)
        cur = int(state[0])
        other = cur ^ int(state[1])
        first_bits, second_bits = (cur, other) if game.to_move(state) == 0 else (other, cur)
        for grid, bits in ((first, first_bits), (second, second_bits)):
            got = connect4_connections(np.uint64(bits))
            assert tuple(int(x) for x in got) == _reference_connections(grid)


def test_connect4_terminal_value() -> None:
    game = Connect4()
    won = game.parse_position("1212121")  # first player wins in column 1
    assert game.is_terminal(won)
    assert evaluate(game, won, 0, r=100) == 1e6
    assert evaluate(game, won, 1, r=100) == -1e6
    assert evaluate(game, won, 1, r=2) == -8.0


# ---- Othello evaluation -------------------------------------------------------------------
# 6x6 board (x black, o white), rows from the top:
#   x . . . . o      black: a1 (30), b2 (-15), c3 (0), d4 (0), f5 (-5)      -> 10
#   . x . . o .      white: f1 (30), e2 (-15), d3 (0), b3 (3), c4 (0), a6 (30) -> 48
#   . o x o . .
#   . . o x . .
#   . . . . . x
#   o . . . . .
OTHELLO6_BOARD = "".join(["x....o", ".x..o.", ".oxo..", "..ox..", ".....x", "o....."]) + " x"


def test_othello6_evaluation_hand_count() -> None:
    game = get_game("othello6")
    state = game.parse_position(OTHELLO6_BOARD)
    assert not game.is_terminal(state)
    assert evaluate(game, state, 0, table="paper") == 10.0 - 48.0
    assert evaluate(game, state, 1, table="paper") == 38.0
    assert evaluate(game, state, 0, table="ones") == 5.0 - 6.0


def test_othello_tables_are_the_papers() -> None:
    for table in (OTHELLO6_TABLE, OTHELLO8_TABLE):
        assert np.array_equal(table, table.T) and np.array_equal(table, table[::-1])
    assert OTHELLO6_TABLE[0, 0] == 30 and OTHELLO6_TABLE[1, 1] == -15
    assert OTHELLO8_TABLE[0, 0] == 120 and OTHELLO8_TABLE[1, 1] == -40
    # Sums of the top-left quadrants, added up by hand from Eq. 14 and Eq. 15.
    assert OTHELLO6_TABLE.sum() == 4 * (27 - 17 + 5)
    assert OTHELLO8_TABLE.sum() == 4 * (125 - 70 + 33 + 6)


def test_othello8_evaluation() -> None:
    game = get_game("othello")
    state = game.initial_state()
    assert evaluate(game, state, 0) == 0.0  # four centre squares, all worth 3
    after = game.play(state, game.parse_move("d3"))  # black d3 flips d4
    # Black: d3, d4, d5, e4 (all 3); white: e5 (3) -> 12 - 3 = 9; disc difference 4 - 1.
    assert evaluate(game, after, 0) == 9.0
    assert evaluate(game, after, 1, table="ones") == -3.0


def test_othello_terminal_value() -> None:
    game = get_game("othello6")
    full = game.parse_position("x" * 20 + "o" * 16 + " x")
    assert game.is_terminal(full)
    assert evaluate(game, full, 0) == 1000.0
    assert evaluate(game, full, 1, table="ones") == -1000.0


# ---- search ---------------------------------------------------------------------------------
def test_connect4_win_in_one_and_block() -> None:
    game = Connect4()
    win = game.parse_position("112233")
    block = game.parse_position("1122335")
    for preset in ("minimax1", "minimax2"):
        for seed in range(3):
            player = make_player(preset, game, seed=seed)
            assert player.select_move(game, block) == 3
    for seed in range(3):
        assert make_player("minimax1", game, seed=seed).select_move(game, win) == 3
    result = minimax_search(game, win)
    assert result.best_moves().tolist() == [3]
    assert result.values.max() == 1e6


def test_tictactoe_minimax_is_perfect() -> None:
    game = get_game("tictactoe")
    result = minimax_search(game, game.initial_state(), exact_values=True)
    assert result.depth >= 9  # the whole game is searched
    assert np.all(result.values == 0.0)  # every first move draws with best play
    assert MinimaxPlayer(seed=0).select_move(game, game.parse_position("xx.oo....")) == 2
    assert MinimaxPlayer(seed=0).select_move(game, game.parse_position("xx..o....")) == 2
    for g in range(4):
        mm = MinimaxPlayer(seed=g)
        rnd = RandomPlayer(seed=50 + g)
        players = (mm, rnd) if g % 2 == 0 else (rnd, mm)
        state = game.initial_state()
        while not game.is_terminal(state):
            state = game.play(state, players[game.to_move(state)].select_move(game, state))
        assert game.status(state).score_for(g % 2) >= 0.5


# Black to move, 6 empty squares; only b2 (move 11) wins, f5 (29) and f6 (35) lose.  The
# depth-3 table search alone prefers f6; the exact endgame search finds b2.
OTHELLO6_ENDGAME = ".xxoox.xxoo..xxxoxxxoooxxoooo.xoooo. x"


def test_othello_exact_endgame() -> None:
    game = get_game("othello6")
    state = game.parse_position(OTHELLO6_ENDGAME)
    exact = minimax_search(game, state, exact_values=True)
    assert exact.moves.tolist() == [11, 29, 35]
    assert exact.values.tolist() == [1000.0, -1000.0, -1000.0]
    heuristic = minimax_search(game, state, exact_endgame=False)
    assert heuristic.best_moves().tolist() == [35]
    for seed in range(3):
        assert make_player("minimax1", game, seed=seed).select_move(game, state) == 11
        assert make_player("minimax2", game, seed=seed).select_move(game, state) == 11


def _reference_minimax(
    game: Game, state: State, me: int, depth: int, r: float, table: TableName
) -> float:
    if depth == 0 or game.is_terminal(state):
        return evaluate(game, state, me, r=r, table=table)
    values = [
        _reference_minimax(game, game.play(state, int(m)), me, depth - 1, r, table)
        for m in game.legal_moves(state)
    ]
    return max(values) if game.to_move(state) == me else min(values)


@pytest.mark.parametrize(
    ("name", "r", "table"),
    [
        ("connect4", 100.0, "paper"),
        ("connect4", 2.0, "paper"),
        ("othello6", 100.0, "paper"),
        ("othello6", 100.0, "ones"),
    ],
)
def test_alphabeta_matches_plain_minimax(name: str, r: float, table: TableName) -> None:
    game = get_game(name)
    for state in random_positions(game, 6, seed=3):
        me = game.to_move(state)
        reference = [
            _reference_minimax(game, game.play(state, int(m)), me, 2, r, table)
            for m in game.legal_moves(state)
        ]
        exact = minimax_search(game, state, 3, r, table, exact_values=True, exact_endgame=False)
        order = np.argsort(exact.moves)
        assert np.array_equal(exact.values[order], np.array(reference))
        pruned = minimax_search(game, state, 3, r, table, exact_endgame=False)
        assert pruned.best_moves().tolist() == exact.best_moves().tolist()
        assert pruned.values.max() == exact.values.max()
        assert np.all(pruned.values <= exact.values.max())


def test_ties_broken_at_random() -> None:
    game = get_game("othello")
    state = game.initial_state()
    assert len(minimax_search(game, state).best_moves()) == 4  # symmetric opening
    chosen = {MinimaxPlayer(seed=s).select_move(game, state) for s in range(16)}
    assert len(chosen) >= 2
    same = {MinimaxPlayer(seed=4).select_move(game, state) for _ in range(3)}
    assert len(same) == 1


@pytest.mark.parametrize("name", GAMES)
def test_never_returns_illegal_move(name: str) -> None:
    game = get_game(name)
    players = [make_player("minimax1", game, seed=1), make_player("minimax2", game, seed=2)]
    for i, state in enumerate(random_positions(game, 20, seed=len(name))):
        before = state.copy()
        move = players[i % 2].select_move(game, state)
        assert game.is_legal(state, move)
        assert np.array_equal(state, before)


def test_forced_pass() -> None:
    game = get_game("othello6")
    state = game.parse_position("xxxxxoxxxxoxxxxoxxxoooxxxoooxxx.xxxx o")
    assert MinimaxPlayer(seed=0).select_move(game, state) == game.num_actions - 1


def test_terminal_position_is_rejected() -> None:
    game = get_game("tictactoe")
    with pytest.raises(GameOverError):
        minimax_search(game, game.parse_position("xxxoo...."))


def test_registry() -> None:
    c4 = get_game("connect4")
    m1 = make_player("minimax1", c4, seed=0)
    m2 = make_player("minimax2", c4, seed=0)
    assert isinstance(m1, MinimaxPlayer) and isinstance(m2, MinimaxPlayer)
    assert (m1.name, m1.depth, m1.r, m1.table) == ("Minimax1", 3, 100.0, "paper")
    assert (m2.name, m2.depth, m2.r, m2.table) == ("Minimax2", 3, 2.0, "ones")
    custom = make_player("minimax:depth=2,r=10,table=ones,name=Shallow", c4)
    assert isinstance(custom, MinimaxPlayer)
    assert (custom.name, custom.depth, custom.r, custom.table) == ("Shallow", 2, 10.0, "ones")
    for bad in ("minimax:table=corners", "minimax:depth=0", "minimax:sims=3", "minimax1:r=3"):
        with pytest.raises(UnknownPlayerError):
            make_player(bad, c4)
