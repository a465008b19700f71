"""The player interface: anything that chooses a move for a position.

A player is seeded at construction and draws all its randomness from its own
:class:`numpy.random.Generator`, so a game between seeded players is reproducible.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, TypeAlias

import numpy as np

from sparring.games.base import Game, State

JsonValue: TypeAlias = bool | int | float | str | list["JsonValue"] | dict[str, "JsonValue"] | None
"""A value that :func:`json.dumps` writes and :func:`json.loads` reads back unchanged."""

PlayerState: TypeAlias = dict[str, JsonValue]
"""What a player saves between games (:meth:`Player.save_state`): JSON values only."""


class Player(ABC):
    """Chooses moves; is told when a game starts, every move played, and how the game ended.

    The lifecycle, driven by :class:`~sparring.session.GameSession` (and so by the CLI, the
    match runner, the service and the engines): :meth:`new_game` once before a game,
    :meth:`select_move` when it is this player's turn, :meth:`observe` after *every* move of
    the game (its own and the opponent's), :meth:`game_over` once after the game.  A player
    that learns across games (e.g. dynamic strength adjustment) keeps what it learned in a
    small JSON-serialisable record: :meth:`save_state` / :meth:`restore_state`, so that the
    same games follow whether or not the player was saved and restored in between.
    """

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

    def observe(self, game: Game, move: int, state: State) -> None:  # noqa: B027 - optional hook
        """Called after every move of the game, by either side: ``move`` was played and
        ``state`` is the position after it (must not be modified)."""

    def reseed(self, seed: int) -> None:
        """Draw all further randomness as a player freshly built with ``seed`` would.

        The series runner calls it before every game of a series, so that a game depends on
        its own seed (and the player's saved state), not on how much randomness the games
        before it used: a resumed series then plays the games an uninterrupted one plays.
        The default resets :attr:`rng` in place (objects holding it follow); a player that
        derived other random streams from :attr:`rng` at construction overrides it to derive
        them again.
        """
        self.rng.bit_generator.state = np.random.default_rng(seed).bit_generator.state

    def save_state(self) -> PlayerState | None:
        """What this player learned across games, as JSON values; None (the default) when it
        keeps nothing between games."""
        return None

    def restore_state(self, data: PlayerState | None) -> None:
        """Continue from a record that :meth:`save_state` returned.

        The default accepts only None (nothing to restore); players with state override it and
        raise :class:`ValueError` naming what is wrong with a malformed record.
        """
        if data is not None:
            raise ValueError(f"{self.name} keeps no state between games, got {data!r}")

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
