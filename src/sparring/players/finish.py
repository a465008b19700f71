"""Finishing games: the move a search player plays from its root visits under the game's
:meth:`~sparring.games.base.Game.move_filter`.

Networks trained on human games (the strength estimators of Chen et al. 2025) almost never
pass: ranked games end by resignation, so their policies put little mass on the pass, and a
search player built on them plays on until the ply cap (722 plies on 19x19), which makes the
result of a game the result of the cap.  The game supplies the rules that end such games
when the board is settled (:class:`~sparring.games.base.MoveFilter`; Go's are the usual ones
of Go programs under area scoring, :meth:`Go.move_filter <sparring.games.go.Go.move_filter>`):

* **Pass now** (Go: pass to win, when the opponent has just passed and the player to move is
  ahead by the Tromp-Taylor area count, komi included).
* **Moves to avoid** (Go: filling one's own single-point eyes): the most visited move among
  the others is played; with none left but the pass, the player passes.

Players that finish games (the human-like kinds, SA-MCTS) apply them through
:class:`~sparring.players.searching.SearchPlayer`; no player checks the game's type.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from sparring.games.base import Game, MoveFilter, State


def allowed_moves(rule: MoveFilter, moves: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
    """Which of ``moves`` the rule allows (the pass always)."""
    return ~rule.avoid[moves]


def finishing_move(
    rule: MoveFilter,
    moves: npt.NDArray[np.int64],
    visits: npt.NDArray[np.int64],
    rng: np.random.Generator,
) -> int:
    """The move to play from a search's root ``moves`` and ``visits`` under ``rule`` (the
    most visited allowed move, ties at random; the pass when the rule says so or nothing
    else is allowed)."""
    if rule.pass_now:
        return rule.pass_move
    allowed = allowed_moves(rule, moves)
    if not np.any(allowed & (moves != rule.pass_move)):
        return rule.pass_move
    return most_visited_allowed(moves, visits, allowed, rng)


def most_visited_allowed(
    moves: npt.NDArray[np.int64],
    visits: npt.NDArray[np.int64],
    allowed: npt.NDArray[np.bool_],
    rng: np.random.Generator,
) -> int:
    """The most visited of ``moves`` among those ``allowed`` (a mask over ``moves``; at
    least one), ties at random."""
    counts = np.where(allowed, visits, -1)
    best = np.flatnonzero(counts == counts.max())
    return int(moves[best[rng.integers(len(best))]])


def go_finishing_move(
    game: Game,
    state: State,
    moves: npt.NDArray[np.int64],
    visits: npt.NDArray[np.int64],
    rng: np.random.Generator,
) -> int:
    """:func:`finishing_move` under the game's filter at ``state`` (without one: the most
    visited move, ties at random)."""
    rule = game.move_filter(state)
    if rule is None:
        best = np.flatnonzero(visits == visits.max())
        return int(moves[best[rng.integers(len(best))]])
    return finishing_move(rule, moves, visits, rng)


__all__ = [
    "allowed_moves",
    "finishing_move",
    "go_finishing_move",
    "most_visited_allowed",
]
