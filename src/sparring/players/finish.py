"""Finishing Go games: the move a search player plays from its root visits in Go.

Networks trained on human games (the strength estimators of Chen et al. 2025) almost never
pass: ranked games end by resignation, so their policies put little mass on the pass, and a
search player built on them plays on until the ply cap (722 plies on 19x19), which makes the
result of a game the result of the cap.  Two rules, the usual ones of Go programs under area
scoring, end such games when the board is settled:

* **No filling of one's own single-point eyes** (:meth:`Go.own_eyes
  <sparring.games.go.Go.own_eyes>`, the rule of the random playouts): the most visited move
  among the others is played; with none left but the pass, the player passes.
* **Pass to win**: when the opponent has just passed and the player to move is ahead by the
  Tromp-Taylor area count (komi included), it passes, which ends the game with that count.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from sparring.games.base import State
    from sparring.games.go import Go


def go_passes_to_win(game: Go, state: State) -> bool:
    """The pass-to-win rule: the opponent has just passed and the player to move is ahead by
    the Tromp-Taylor area count (komi included)."""
    mover_ahead = game.score_margin(state) * (1.0 if game.to_move(state) == 0 else -1.0) > 0
    return game.consecutive_passes(state) == 1 and mover_ahead


def go_allowed_moves(game: Go, state: State, moves: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
    """Which of ``moves`` the no-own-eye-fill rule allows (the pass always)."""
    return ~game.own_eyes(state)[moves]


def go_finishing_move(
    game: Go,
    state: State,
    moves: npt.NDArray[np.int64],
    visits: npt.NDArray[np.int64],
    rng: np.random.Generator,
) -> int:
    """The move to play at ``state`` from a search's root ``moves`` and ``visits`` under the
    two rules of the module doc (ties among the most visited at random)."""
    pass_move = game.pass_move
    if go_passes_to_win(game, state):
        return pass_move
    allowed = go_allowed_moves(game, state, moves)
    if not np.any(allowed & (moves != pass_move)):
        return pass_move
    counts = np.where(allowed, visits, -1)
    best = np.flatnonzero(counts == counts.max())
    return int(moves[best[rng.integers(len(best))]])


__all__ = ["go_allowed_moves", "go_finishing_move", "go_passes_to_win"]
