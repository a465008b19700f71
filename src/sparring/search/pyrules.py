"""Playouts for games with Python-only rules (chess), for the UCT search run as Python.

A compiled game's ``random_playout`` kernel plays uniformly random moves to the end of the
game.  Random chess games last hundreds of plies and chess's kernels are Python (python-chess,
about 2,500 plies per second through the kernels), so a UCT simulation would take a good
fraction of a second.  :func:`capped_playout` gives instead a playout of at most
``max_plies`` uniformly random plies:

* a playout that ends the game within the cap scores its result (checkmate: the mating side
  wins; stalemate, insufficient material and the 75-move rule: a draw);
* an **unfinished playout is adjudicated by material**: pawn 1, knight and bishop 3, rook 5,
  queen 9; a side ahead by at least :data:`MATERIAL_MARGIN` points is scored the winner,
  anything closer a draw.

For chess the playout runs on a python-chess board (about eight times faster than the
kernels) and does not see repetitions (fivefold repetition is not detected inside a
playout).  For any other game with Python kernels the playout steps the game's own
``legal_moves``/``play`` kernels and an unfinished playout is a draw.

The playout does not write the position back (the UCT search discards it anyway).
"""

from __future__ import annotations

from collections.abc import Callable

import chess
import numpy as np

from sparring.games.base import DRAW, FIRST_WINS, ONGOING, SECOND_WINS, Game, State
from sparring.games.chess import STATUS, Chess, board_of
from sparring.rng import RngState, random_below

DEFAULT_PLAYOUT_PLIES = 40
"""Default cap on the random plies of one playout of a Python-rules game."""
MATERIAL_MARGIN = 3
"""Material lead (pawn = 1) at which an unfinished chess playout is scored a win."""
_PIECE_VALUES = ((chess.PAWN, 1), (chess.KNIGHT, 3), (chess.BISHOP, 3), (chess.ROOK, 5),
                 (chess.QUEEN, 9))  # fmt: skip

Playout = Callable[[State, RngState], int]
"""``(state, rng) -> status``: a playout's result (``FIRST_WINS``, ``SECOND_WINS``, ``DRAW``)."""


def material_balance(board: chess.Board) -> int:
    """White's material minus Black's (pawn 1, knight 3, bishop 3, rook 5, queen 9)."""
    total = 0
    for piece, value in _PIECE_VALUES:
        total += value * (
            len(board.pieces(piece, chess.WHITE)) - len(board.pieces(piece, chess.BLACK))
        )
    return total


def chess_playout(state: State, rng: RngState, max_plies: int) -> int:
    """A capped random chess playout from ``state`` (see the module doc); its result."""
    status = int(state[STATUS])
    if status != ONGOING:
        return status
    board = board_of(state)
    for _ in range(max_plies):
        moves = list(board.legal_moves)
        if not moves:
            if not board.is_check():
                return DRAW
            return SECOND_WINS if board.turn == chess.WHITE else FIRST_WINS
        board.push(moves[random_below(rng, len(moves))])
        if board.halfmove_clock >= 150 or board.is_insufficient_material():
            return DRAW
    if not any(board.generate_legal_moves()):
        if not board.is_check():
            return DRAW
        return SECOND_WINS if board.turn == chess.WHITE else FIRST_WINS
    balance = material_balance(board)
    if balance >= MATERIAL_MARGIN:
        return FIRST_WINS
    if balance <= -MATERIAL_MARGIN:
        return SECOND_WINS
    return DRAW


def capped_playout(game: Game, max_plies: int = DEFAULT_PLAYOUT_PLIES) -> Playout:
    """The playout of at most ``max_plies`` random plies used for ``game`` (see module doc)."""
    if max_plies < 0:
        raise ValueError("max_plies must be >= 0")
    if isinstance(game, Chess):
        return lambda state, rng: chess_playout(state, rng, max_plies)
    kernels = game.kernels
    buffer = np.empty(game.num_actions, dtype=np.int64)

    def playout(state: State, rng: RngState) -> int:
        s = state.copy()
        for _ in range(max_plies):
            if kernels.status(s) != ONGOING:
                break
            n = kernels.legal_moves(s, buffer)
            kernels.play(s, int(buffer[random_below(rng, n)]))
        result = int(kernels.status(s))
        return DRAW if result == ONGOING else result

    return playout


__all__ = [
    "DEFAULT_PLAYOUT_PLIES",
    "MATERIAL_MARGIN",
    "Playout",
    "capped_playout",
    "chess_playout",
    "material_balance",
]
