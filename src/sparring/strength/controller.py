"""Strength controllers: which strength setting a strength-adjusted player uses for each move.

A *controller* separates *how strong to play now* from *how to play at a given strength*
(:mod:`sparring.strength.selection`).  A strength-adjusted player searches, then asks its
controller for the :class:`~sparring.strength.selection.StrengthSetting` ``(z, R_th, floor)``
of this move, giving it what the player knows at that point (:class:`MoveContext`: the move
number and the search's root value), and turns the root visit counts into a move with that
setting.  The controller is told when a game starts and how it ended, and keeps whatever it
learns across games in a JSON record (:meth:`StrengthController.save_state` /
:meth:`StrengthController.restore_state`), so a player can be saved between games and
resumed with the same future.

:class:`FixedController` plays one setting for every move (a target Elo or explicit
``z, rth, floor``); :mod:`sparring.strength.dsa` adapts the setting to the opponent:

* Wu et al. (AAAI 2019), *dynamic strength adjustment*: inter-game (move ``z`` after every
  result, :meth:`~StrengthController.game_over`) and intra-game (choose per move from the
  win rate of the most visited root move, :attr:`MoveContext.best_win_rate`);
* Fujita (2022), AlphaDDA: the strength follows the network's value of the board
  (:attr:`MoveContext.root_value`).

This module is part of the strength core: it imports nothing from players or evaluation.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar, TypeAlias

from sparring.strength.selection import StrengthSetting

JsonValue: TypeAlias = bool | int | float | str | list["JsonValue"] | dict[str, "JsonValue"] | None
"""A value that :func:`json.dumps` writes and :func:`json.loads` reads back unchanged (the
same alias as :data:`sparring.players.base.JsonValue`, which this core may not import)."""

ControllerState: TypeAlias = dict[str, JsonValue]
"""What a controller keeps between games (:meth:`StrengthController.save_state`)."""


@dataclass(frozen=True)
class MoveContext:
    """What the player knows when it asks for the setting of one move: after its search,
    before it chooses among the searched moves."""

    ply: int
    """Moves already played in this game (0 before the first move)."""
    player_index: int
    """This player's seat: 0 if it moved first in this game, 1 otherwise."""
    root_value: float | None = None
    """The search's value of the position for the player to move, in ``[-1, 1]`` (the root's
    mean backed-up value; for a network search, AlphaDDA's ``v``), or None if the search
    reports none."""
    best_win_rate: float | None = None
    """Wu et al.'s ``W``: the search's win rate ``(1 + Q) / 2`` in ``[0, 1]`` of the most
    visited root move (a draw counting 1/2), or None if the search reports none."""

    def __post_init__(self) -> None:
        if self.ply < 0 or self.player_index not in (0, 1):
            raise ValueError("ply must be >= 0 and player_index 0 or 1")
        if self.root_value is not None and not -1.0 <= self.root_value <= 1.0:
            raise ValueError(f"root_value must be in [-1, 1], not {self.root_value}")
        if self.best_win_rate is not None and not 0.0 <= self.best_win_rate <= 1.0:
            raise ValueError(f"best_win_rate must be in [0, 1], not {self.best_win_rate}")

    @property
    def win_rate(self) -> float | None:
        """``(1 + root_value) / 2``: the root win rate in ``[0, 1]`` (None without a value)."""
        return None if self.root_value is None else (1.0 + self.root_value) / 2.0


class StrengthController(ABC):
    """Chooses the strength setting of every move; see the module docstring.

    The lifecycle mirrors the player's (:class:`sparring.players.base.Player`):
    :meth:`new_game` before a game, :meth:`setting` once per own move, :meth:`game_over`
    after the game; :meth:`save_state` / :meth:`restore_state` between games.
    """

    uses_search: ClassVar[bool] = False
    """Whether :meth:`setting` reads the search's root statistics (:attr:`MoveContext.
    root_value`, :attr:`MoveContext.best_win_rate`).  If not, the player asks *before* its
    search (so a floor's random move skips the search, as a fixed-strength player does);
    if so, after it."""

    def annotation(self) -> dict[str, JsonValue] | None:
        """What the player adds to the annotations of the move just played (its decision's
        :attr:`~sparring.players.base.Decision.annotation`); None (the default): nothing."""
        return None

    @abstractmethod
    def setting(self, context: MoveContext) -> StrengthSetting:
        """The setting for the move described by ``context``."""

    def new_game(self, player_index: int) -> None:  # noqa: B027 - optional hook
        """Called before a game in which the player moves as ``player_index`` (0 = first)."""

    def game_over(self, score: float) -> None:  # noqa: B027 - optional hook
        """Called after a game with the player's score (1 win, 0.5 draw, 0 loss)."""

    def save_state(self) -> ControllerState | None:
        """What this controller learned across games, as JSON values; None (the default)
        when it keeps nothing."""
        return None

    def restore_state(self, data: ControllerState | None) -> None:
        """Continue from a record :meth:`save_state` returned; the default accepts only None.
        Controllers with state override it and raise :class:`ValueError` for a bad record."""
        if data is not None:
            raise ValueError(f"{type(self).__name__} keeps no state between games, got {data!r}")

    def live_state(self) -> ControllerState | None:
        """What the controller changed within the game in progress (an intra-game
        controller's ``z`` or target), as JSON values, for a session snapshot; None (the
        default) when the game's moves told again rebuild it."""
        return None

    def restore_live_state(self, data: ControllerState | None) -> None:
        """Continue the game in progress from :meth:`live_state`'s record (after
        :meth:`new_game`); the default accepts only None."""
        if data is not None:
            raise ValueError(f"{type(self).__name__} keeps no state within a game, got {data!r}")


class FixedController(StrengthController):
    """The same setting for every move of every game (the player's setting today: chosen
    once from a target Elo or given as ``z, rth, floor``); keeps no state."""

    def __init__(self, setting: StrengthSetting) -> None:
        self.fixed = setting

    def setting(self, context: MoveContext) -> StrengthSetting:
        return self.fixed

    def __repr__(self) -> str:
        return f"FixedController({self.fixed.label()})"


__all__ = [
    "ControllerState",
    "FixedController",
    "JsonValue",
    "MoveContext",
    "StrengthController",
]
