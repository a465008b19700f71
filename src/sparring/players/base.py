"""The player interface: anything that chooses a move for a position.

A player is seeded at construction and draws all its randomness from its own
:class:`numpy.random.Generator`, so a game between seeded players is reproducible.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from sparring.games.base import Game, State


class Player(ABC):
    """Chooses moves; may be told when a game starts and how it ended."""

    name: str
    """A short label used in tables, e.g. ``"MCTS1"``."""

    def __init__(self, name: str, seed: int | None = None) -> None:
        self.name = name
        self.rng = np.random.default_rng(seed)

    @abstractmethod
    def select_move(self, game: Game, state: State) -> int:
        """A legal move for ``state`` (which is ongoing); must not modify ``state``."""

    def new_game(self, game: Game, player_index: int) -> None:  # noqa: B027 - optional hook
        """Called before a game in which this player moves as ``player_index`` (0 = first)."""

    def game_over(self, game: Game, final_state: State, score: float) -> None:  # noqa: B027
        """Called after a game with this player's score (1 win, 0.5 draw, 0 loss)."""

    def move_info(self) -> dict[str, Any] | None:
        """Annotations of the move just returned by :meth:`select_move`, or None (the default).

        A player that searches may return, e.g., the root moves and visit counts of the
        search behind its last move (``{"moves": [...], "visits": [...]}``); the match
        runner stores the dict with the move (:attr:`GameRecord.annotations`).  The dict must
        hold JSON values only (ints, floats, strings, lists, dicts, None).
        """
        return None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


class RandomPlayer(Player):
    """Chooses uniformly among the legal moves (AlphaDDA's Random)."""

    def __init__(self, name: str = "Random", seed: int | None = None) -> None:
        super().__init__(name, seed)

    def select_move(self, game: Game, state: State) -> int:
        moves = game.legal_moves(state)
        return int(moves[self.rng.integers(len(moves))])
