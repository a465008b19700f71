"""Cross-check of the Connect4 rules against the BitBully solver (``bitbully``).

Positions come from seeded random games that avoid immediate wins where they can (so that they
last long enough to reach positions with short forced outcomes).  For every position:

(a) our legal moves equal BitBully's playable columns (checked at every ply on the way, along
    with the side to move, the board and the end of the game);
(b) for every column, BitBully's "wins on this move" (``can_win_next`` and a move score worth
    one move left) equals our rules reporting a win after that move;
(c) an exact depth-limited negamax over our rules (below) agrees with BitBully's solved value:
    where BitBully says the game ends within ``DEPTH`` plies under perfect play, the negamax
    finds the same result (win/draw/loss) at the same distance; where BitBully says it takes
    longer, the negamax must not find a result.

BitBully scores (Pons' convention): positive when the side to move wins, larger the sooner;
``BitBully.score_to_moves_left`` turns a score into the number of plies to the end.
"""

from __future__ import annotations

import numba as nb
import numpy as np
import pytest

from sparring.games import Outcome, get_game
from sparring.games import connect4 as c4
from sparring.games.base import DRAW, ONGOING

bitbully = pytest.importorskip(
    "bitbully", reason="BitBully (pip install bitbully) is needed for the Connect4 solver check"
)

DEPTH = 6  # plies searched by the reference negamax
N_POSITIONS = 400
WIN = 100  # a win in d plies scores WIN - d for the side to move, a loss -(WIN - d), a draw 0


@nb.njit(cache=True)
def _negamax(state: np.ndarray, depth: int) -> tuple[bool, int]:
    """(resolved, score) of ``state`` for the side to move under perfect play, looking
    ``depth`` plies ahead with our Connect4 kernels.  ``resolved`` is False when the result is
    not decided within ``depth`` plies.  Winners take the fastest win, losers the slowest loss.
    """
    if depth == 0:
        return False, 0
    moves = np.empty(c4.WIDTH, dtype=np.int64)
    n = c4.legal_moves(state, moves)
    best = -10 * WIN
    unresolved = False
    for i in range(n):
        child = state.copy()
        c4.play(child, moves[i])
        st = c4.status(child)
        if st == DRAW:
            value = 0
        elif st != ONGOING:
            return True, WIN - 1  # the mover just won: nothing is faster
        else:
            ok, child_value = _negamax(child, depth - 1)
            if not ok:
                unresolved = True
                continue
            if child_value > 0:
                value = -(child_value - 1)
            elif child_value < 0:
                value = -child_value - 1
            else:
                value = 0
        best = max(best, value)
    # a known win is faster than any win beyond the horizon; anything else needs every move
    if best > 0 or not unresolved:
        return True, best
    return False, 0


def _board_columns(game, state: np.ndarray) -> list[list[int]]:  # type: ignore[no-untyped-def]
    """Our position in BitBully's ``to_array`` layout: columns, bottom first, 1/2 by player."""
    first, second = game.stones(state)
    return [
        [
            1 if first[c4.HEIGHT - 1 - r, c] else 2 if second[c4.HEIGHT - 1 - r, c] else 0
            for r in range(c4.HEIGHT)
        ]
        for c in range(c4.WIDTH)
    ]


def _check_same_position(game, state: np.ndarray, board) -> None:  # type: ignore[no-untyped-def]
    assert board.current_player() == game.to_move(state) + 1
    assert board.to_array() == _board_columns(game, state)
    assert board.is_game_over() == game.is_terminal(state)
    if not game.is_terminal(state):  # BitBully still lists the open columns after a win
        assert game.legal_moves(state).tolist() == sorted(board.legal_moves())


def _positions(n: int, seed: int = 7):  # type: ignore[no-untyped-def]
    """``n`` (moves, state, board) triples from random games, checked along the way."""
    game = get_game("connect4")
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        target = int(rng.integers(14, 41))
        state = game.initial_state()
        board = bitbully.Board()
        moves: list[int] = []
        while not game.is_terminal(state) and len(moves) < target:
            _check_same_position(game, state, board)
            legal = game.legal_moves(state).tolist()
            quiet = [m for m in legal if not board.can_win_next(m)] or legal
            move = quiet[int(rng.integers(len(quiet)))]
            state = game.play(state, move)
            assert board.play(move)
            moves.append(move)
        _check_same_position(game, state, board)
        if game.is_terminal(state):
            outcome = game.status(state)
            if outcome is Outcome.DRAW:
                assert board.winner() is None and board.is_full()
            else:
                assert board.has_win() and board.winner() == int(outcome)
            continue
        out.append((moves, state, board))
    return game, out


def test_bitbully_agrees_with_our_rules() -> None:
    solver = bitbully.BitBully(None)
    game, positions = _positions(N_POSITIONS)
    assert bitbully.Board(positions[0][0]) == positions[0][2]
    forced = {"win": 0, "loss": 0, "draw": 0}
    immediate_wins = beyond = 0
    for moves, state, board in positions:
        text = "".join(str(m + 1) for m in moves)
        scores = solver.score_all_moves(board)
        assert sorted(scores) == game.legal_moves(state).tolist(), text
        # (b) immediate wins, column by column
        mover_wins = Outcome.FIRST_WINS if game.to_move(state) == 0 else Outcome.SECOND_WINS
        for col, score in scores.items():
            ours = game.status(game.play(state, col)) is mover_wins
            assert board.can_win_next(col) == ours, (text, col)
            assert (bitbully.BitBully.score_to_moves_left(score, board) == 1) == ours, (text, col)
            immediate_wins += ours
        # (c) the solved value against our depth-limited negamax
        best = max(scores.values())
        plies = bitbully.BitBully.score_to_moves_left(best, board)
        resolved, value = _negamax(state.copy(), DEPTH)
        if plies <= DEPTH:
            assert resolved, (text, best, plies)
            if best > 0:
                assert value == WIN - plies, (text, best, plies, value)
                forced["win"] += 1
            elif best < 0:
                assert value == -(WIN - plies), (text, best, plies, value)
                forced["loss"] += 1
            else:
                assert value == 0, (text, value)
                forced["draw"] += 1
        else:
            assert not resolved, (text, best, plies, value)
            beyond += 1
    print(
        f"forced within {DEPTH} plies: {forced}; longer: {beyond}; "
        f"immediate winning moves: {immediate_wins}"
    )
    assert forced["win"] >= 100 and forced["loss"] >= 20 and forced["draw"] >= 1, forced
    assert beyond >= 10


def test_negamax_reference_on_known_positions() -> None:
    """The reference search itself, on hand-made positions."""
    game = get_game("connect4")
    # X to move with three in a row on the bottom: a win in 1
    assert _negamax(game.parse_position("121212"), 1) == (True, WIN - 1)
    # X threatens two squares at once (cols 1 and 5 after 2,3,4): O to move loses in 2
    assert _negamax(game.parse_position("3747"), 2) == (False, 0)
    s = game.parse_position("37475")  # X holds c1-e1 open on both sides; O to move
    assert _negamax(s, 2) == (True, -(WIN - 2))
    assert _negamax(s, 1) == (False, 0)
