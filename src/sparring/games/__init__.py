"""Game rules behind one interface (:class:`~sparring.games.base.Game`) and a name registry.

:func:`get_game` builds a game from its name and, for games that have them, its parameters:
keyword arguments (``get_game("go", size=13, komi=6.5)``) or, at the edges (command line,
stored records), a parameterised name ``NAME:key=value,...`` (``"go:size=13,komi=6.5"``).
A game tells what it was built with (:meth:`Game.params`), so
``get_game(game.name, **game.params())`` builds the same game again, as does
``get_game(game_spec(game))`` from the text records keep.

=========  ===========================================  ==============================
name       parameters (default)                         other names
=========  ===========================================  ==============================
go         size 2..25 (19), komi (7.5), max_ply          go19; go9, go13 (size fixed)
othello    size 6 or 8 (8)                              othello8; othello6 (size 6)
connect4   none
tictactoe  none
chess      none
=========  ===========================================  ==============================
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sparring.errors import BadValueError, UnknownGameError, UnknownNameError
from sparring.games.base import Game, GameParams, Kernels, Outcome, RecordFormat, State
from sparring.games.connect4 import Connect4
from sparring.games.othello import Othello
from sparring.games.tictactoe import TicTacToe


def _go(**params: Any) -> Game:
    from sparring.games.go import Go

    return Go(**params)


def _chess() -> Game:
    from sparring.games.chess import Chess  # imported lazily: python-chess is only needed here

    return Chess()


@dataclass(frozen=True)
class _Entry:
    """How a registered name builds its game."""

    build: Callable[..., Game]
    """Builds the game from keyword parameters."""
    params: Mapping[str, type] = field(default_factory=dict)
    """The parameters it accepts and their types (int parameters accept only integers)."""
    fixed: Mapping[str, int | float] = field(default_factory=dict)
    """Parameters this name fixes (``go9``: ``size=9``)."""


_GO_PARAMS: dict[str, type] = {"size": int, "komi": float, "max_ply": int}
_REGISTRY: dict[str, _Entry] = {
    "connect4": _Entry(Connect4),
    "othello": _Entry(Othello, {"size": int}),
    "othello6": _Entry(Othello, {"size": int}, {"size": 6}),
    "tictactoe": _Entry(TicTacToe),
    "go": _Entry(_go, _GO_PARAMS),
    "go9": _Entry(_go, _GO_PARAMS, {"size": 9}),
    "go13": _Entry(_go, _GO_PARAMS, {"size": 13}),
    "chess": _Entry(_chess),
}
_ALIASES = {"othello8": "othello", "othello-8x8": "othello", "go19": "go"}

GAME_NAMES: tuple[str, ...] = tuple(_REGISTRY)
"""Names accepted by :func:`get_game` (and the aliases ``othello8``, ``go19``)."""


def parse_game_spec(text: str) -> tuple[str, GameParams]:
    """Split a parameterised game name ``NAME[:key=value,...]`` into the name and its
    parameters (numbers: integers where the text is one).  :class:`BadValueError` names a
    malformed item; the name and keys are checked by :func:`get_game`."""
    name, _, rest = text.strip().partition(":")
    params: GameParams = {}
    if rest.strip():
        for item in rest.split(","):
            key, eq, value = (part.strip() for part in item.partition("="))
            if not eq or not key or not value:
                raise BadValueError(f"bad game {text!r}: {item.strip()!r} is not key=value")
            try:
                number: int | float = int(value)
            except ValueError:
                try:
                    number = float(value)
                except ValueError:
                    raise BadValueError(
                        f"bad game {text!r}: {key}={value!r} is not a number", key.lower()
                    ) from None
            params[key.lower()] = number
    return name.strip().lower(), params


def get_game(name: str, **params: int | float) -> Game:
    """The game registered under ``name`` built with ``params``.

    ``name`` may carry parameters (``"go:size=13,komi=6.5"``); keyword ``params`` add to
    them.  :class:`UnknownGameError` lists the known names; an unknown parameter raises
    :class:`UnknownNameError` and a bad value (of the wrong type, out of range, or against a
    size the name fixes, as ``go9`` with ``size=13``) :class:`BadValueError`, both with
    :attr:`~sparring.errors.SparringError.key` naming the parameter.
    """
    key, given = parse_game_spec(name)
    key = _ALIASES.get(key, key)
    entry = _REGISTRY.get(key)
    if entry is None:
        raise UnknownGameError(f"unknown game {name!r}; choose one of {', '.join(GAME_NAMES)}")
    given.update(params)
    for param, value in given.items():
        kind = entry.params.get(param)
        if kind is None:
            accepted = ", ".join(entry.params) or "none"
            raise UnknownNameError(
                f"{key} has no parameter {param!r} (parameters: {accepted})", param
            )
        numeric = isinstance(value, int | float) and not isinstance(value, bool)
        if not numeric or (kind is int and isinstance(value, float) and not value.is_integer()):
            raise BadValueError(
                f"{key}: {param} must be {'an integer' if kind is int else 'a number'}, "
                f"not {value!r}",
                param,
            )
        if kind is int:
            given[param] = int(value)
        fixed = entry.fixed.get(param)
        if fixed is not None and given[param] != fixed:
            raise BadValueError(
                f"{key} is played with {param}={fixed:g}, not {value!r}; "
                f"ask for {_base_name(key)} with {param}={value!r}",
                param,
            )
    return entry.build(**{**entry.fixed, **given})


def game_spec(game: Game) -> str:
    """The text that names ``game`` with its parameters for :func:`get_game`: its name, with
    ``:key=value,...`` for the parameters that differ from the name's defaults
    (``go13:komi=6.5``; plain ``connect4``).  Records and stores keep it."""
    name = game.name
    if name not in GAME_NAMES:  # a size without a name of its own (go5): go:size=5
        name = _base_name(name)
    default = get_game(name).params()
    changed = {k: v for k, v in game.params().items() if default.get(k) != v}
    if not changed:
        return name
    return name + ":" + ",".join(f"{k}={v:g}" for k, v in changed.items())


def _base_name(key: str) -> str:
    """The registered name without fixed parameters (``go9`` -> ``go``)."""
    return key.rstrip("0123456789") or key


__all__ = [
    "GAME_NAMES",
    "Connect4",
    "Game",
    "GameParams",
    "Kernels",
    "Othello",
    "Outcome",
    "RecordFormat",
    "State",
    "TicTacToe",
    "game_spec",
    "get_game",
    "parse_game_spec",
]
