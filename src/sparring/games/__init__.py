"""Game rules behind one interface (:class:`~sparring.games.base.Game`) and a name registry."""

from __future__ import annotations

from collections.abc import Callable

from sparring.errors import UnknownGameError
from sparring.games.base import Game, Kernels, Outcome, State
from sparring.games.connect4 import Connect4
from sparring.games.othello import Othello
from sparring.games.tictactoe import TicTacToe


def _go(size: int) -> Game:
    from sparring.games.go import Go

    return Go(size)


def _chess() -> Game:
    from sparring.games.chess import Chess  # imported lazily: python-chess is only needed here

    return Chess()


_REGISTRY: dict[str, Callable[[], Game]] = {
    "connect4": Connect4,
    "othello": lambda: Othello(8),
    "othello6": lambda: Othello(6),
    "tictactoe": TicTacToe,
    "go": lambda: _go(19),
    "go9": lambda: _go(9),
    "chess": _chess,
}

GAME_NAMES: tuple[str, ...] = tuple(_REGISTRY)
"""Names accepted by :func:`get_game`."""


def get_game(name: str) -> Game:
    """The game registered under ``name``; :class:`UnknownGameError` lists the known names."""
    key = name.strip().lower()
    if key in ("othello8", "othello-8x8"):
        key = "othello"
    if key not in _REGISTRY:
        raise UnknownGameError(f"unknown game {name!r}; choose one of {', '.join(GAME_NAMES)}")
    return _REGISTRY[key]()


__all__ = [
    "GAME_NAMES",
    "Connect4",
    "Game",
    "Kernels",
    "Othello",
    "Outcome",
    "State",
    "TicTacToe",
    "get_game",
]
