"""The player interface: anything that chooses a move for a position.

A player is seeded at construction and draws all its randomness from its own
:class:`numpy.random.Generator`, so a game between seeded players is reproducible.
"""

from __future__ import annotations

import base64
import binascii
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias

import numpy as np

from sparring.errors import BadValueError
from sparring.games.base import Game, State
from sparring.search.analysis import JsonValue as JsonValue  # one alias, re-exported here
from sparring.search.analysis import MoveAnalysis
from sparring.search.limit import Limit

PlayerState: TypeAlias = dict[str, JsonValue]
"""What a player saves between games (:meth:`Player.save_state`): JSON values only."""
Annotation: TypeAlias = dict[str, Any] | None
"""What a player said about one of its moves (:attr:`Decision.annotation`), or None."""


def says_resigned(info: object) -> bool:
    """Whether a player's move annotation (:attr:`Decision.annotation`) says it resigns:
    ``{"resigned": true, ...}``, as the GNU Go player writes for GNU Go's ``resign``."""
    return isinstance(info, Mapping) and info.get("resigned") is True


@dataclass(frozen=True)
class Decision:
    """A player's answer at its turn (:meth:`Player.play`), as python-chess's ``PlayResult``
    is an engine's: the move, what the player thought about it, and what the game record
    keeps with it."""

    move: int
    """The move chosen (a legal move of the position, unless :attr:`resigned`)."""
    analysis: MoveAnalysis | None = None
    """What the player thought (:class:`~sparring.search.analysis.MoveAnalysis`: root
    visits, Q, priors, principal variation, simulations, time, whether the limit stopped
    it, the strength setting); None for players that do not search."""
    annotation: Annotation = None
    """What the game record keeps with the move (JSON values: e.g. the root moves and visit
    counts of a strength-adjusted player, AlphaDDA's ``v``), or None;
    :class:`~sparring.session.GameSession` keeps it in its ``annotations`` and a match in
    :attr:`GameRecord.annotations <sparring.evaluation.store.GameRecord>`."""

    @property
    def resigned(self) -> bool:
        """Whether the player resigns instead of moving (its :attr:`annotation` says
        ``{"resigned": true}``; :attr:`move` is then a placeholder, a pass, not played)."""
        return says_resigned(self.annotation)


class Player(ABC):
    """Chooses moves; is told when a game starts, every move played, and how the game ended.

    The lifecycle, driven by :class:`~sparring.session.GameSession` (and so by the CLI, the
    match runner, the service and the engines): :meth:`new_game` once before a game,
    :meth:`play` when it is this player's turn (its :class:`Decision`: the move, with what
    the player thought about it; :meth:`select_move` is the move alone), :meth:`observe`
    after *every* move of the game (its own and the opponent's), :meth:`game_over` once
    after the game.  A player that learns across games (e.g. dynamic strength adjustment)
    keeps what it learned in a small JSON-serialisable record: :meth:`save_state` /
    :meth:`restore_state`, so that the same games follow whether or not the player was saved
    and restored in between.
    """

    name: str
    """A short label used in tables, e.g. ``"MCTS1"``."""
    settings: Any = None
    """The typed settings the player was built from (set by
    :func:`~sparring.players.registry.build_player` and ``make_player``; None for a player
    constructed directly).  ``settings.to_json()`` is its JSON form."""
    seed: int | None = None
    """The seed it was built with (set with :attr:`settings`)."""

    def __init__(self, name: str, seed: int | None = None) -> None:
        self.name = name
        self.rng = np.random.default_rng(seed)

    @abstractmethod
    def select_move(self, game: Game, state: State, limit: Limit | None = None) -> int:
        """A legal move for ``state`` (which is ongoing); must not modify ``state``.

        ``limit`` (:class:`~sparring.search.limit.Limit`) bounds the thinking of a searching
        player: it returns the best move found when the limit hits.  Players that do not
        search ignore it.  :meth:`play` gives the move with what the player thought about it.
        """

    def play(self, game: Game, state: State, limit: Limit | None = None) -> Decision:
        """The player's :class:`Decision` for ``state`` (which is ongoing; must not be
        modified) under ``limit``: the move (as :meth:`select_move` chooses it) with its
        analysis and annotation.  The default is :meth:`select_move`'s move; players with
        more to say (the searching players, the engines) override this method and answer
        :meth:`select_move` with its move."""
        if limit is None:  # (players written without the limit argument still play)
            return Decision(self.select_move(game, state))
        return Decision(self.select_move(game, state, limit))

    def new_game(self, game: Game, player_index: int) -> None:  # noqa: B027 - optional hook
        """Called before a game in which this player moves as ``player_index`` (0 = first)."""

    def game_over(self, game: Game, final_state: State, score: float) -> None:  # noqa: B027
        """Called after a game with this player's score (1 win, 0.5 draw, 0 loss)."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release what the player holds outside this process (an engine process, a pipe);
        called by whoever built it when it is done with it, also when no game ended.  A later
        move may start them again.  Engine players implement it; the default does nothing."""

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

    def random_state(self) -> dict[str, JsonValue]:
        """Where this player's random streams stand, as JSON values, for
        :meth:`set_random_state`: a session snapshot keeps it, so that a player rebuilt in
        another process draws what this one would draw next.  The default holds :attr:`rng`'s
        bit generator state; a player that keeps other streams (a compiled search's
        SplitMix64 state, a dropout mask generator) adds them."""
        return {"rng": generator_state(self.rng)}

    def set_random_state(self, data: JsonValue) -> None:
        """Continue the random streams from what :meth:`random_state` returned;
        :class:`~sparring.errors.BadValueError` says what is wrong with a malformed record."""
        if not isinstance(data, dict) or "rng" not in data:
            raise BadValueError(f"{self.name}: a random state is {{'rng': ...}}, not {data!r}")
        set_generator_state(self.rng, data["rng"], self.name)

    def live_state(self) -> PlayerState | None:
        """What this player knows about the game in progress that being told the game again
        (:meth:`new_game`, then :meth:`observe` for every move) does not rebuild, as JSON
        values (e.g. AlphaDDA's values of its own moves); None (the default) when replaying
        the moves rebuilds everything.  A session snapshot keeps it."""
        return None

    def restore_live_state(self, data: PlayerState | None) -> None:
        """Continue the game in progress from what :meth:`live_state` returned (called after
        the game was told again); the default accepts only None."""
        if data is not None:
            raise BadValueError(f"{self.name} keeps no state within a game, got {data!r}")

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

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


def generator_state(rng: np.random.Generator) -> JsonValue:
    """The state of ``rng``'s bit generator as JSON values (numpy's own dict: the bit
    generator's name and its integers)."""
    state: dict[str, Any] = dict(rng.bit_generator.state)
    return state


def set_generator_state(rng: np.random.Generator, data: JsonValue, owner: str = "player") -> None:
    """Put ``rng``'s bit generator back to :func:`generator_state`'s ``data``;
    :class:`~sparring.errors.BadValueError` when ``data`` is not a state of that generator."""
    try:
        rng.bit_generator.state = data  # type: ignore[assignment]
    except (TypeError, ValueError, KeyError) as err:
        kind = type(rng.bit_generator).__name__
        raise BadValueError(f"{owner}: not a {kind} random state: {err}") from None


def stream_entry(data: JsonValue, key: str, owner: str) -> JsonValue:
    """``data[key]`` of a :meth:`Player.random_state` record;
    :class:`~sparring.errors.BadValueError` when it is missing."""
    if not isinstance(data, dict) or key not in data:
        raise BadValueError(f"{owner}: the random state lacks {key!r}")
    return data[key]


def set_stream(stream: Any, data: JsonValue, key: str, owner: str) -> None:
    """Put a compiled SplitMix64 stream (:mod:`sparring.rng`, a one-element uint64 array)
    back to the integer ``data[key]`` that ``int(stream[0])`` gave."""
    value = stream_entry(data, key, owner)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**64:
        raise BadValueError(f"{owner}: random state {key} must be a 64-bit integer, not {value!r}")
    stream[0] = np.uint64(value)


def torch_generator_state(generator: Any) -> str:
    """A :class:`torch.Generator`'s state as base64 text (JSON-able)."""
    return base64.b64encode(generator.get_state().numpy().tobytes()).decode("ascii")


def set_torch_generator_state(generator: Any, data: JsonValue, key: str, owner: str) -> None:
    """Put a :class:`torch.Generator` back to :func:`torch_generator_state`'s ``data[key]``."""
    # torch: only players whose network runs on torch have such a generator
    import torch

    text = stream_entry(data, key, owner)
    try:
        raw = base64.b64decode(str(text), validate=True)
        generator.set_state(torch.from_numpy(np.frombuffer(raw, dtype=np.uint8).copy()))
    except (binascii.Error, RuntimeError, ValueError) as err:
        raise BadValueError(
            f"{owner}: random state {key} is not a torch generator state: {err}"
        ) from None


class RandomPlayer(Player):
    """Chooses uniformly among the legal moves (AlphaDDA's Random)."""

    def __init__(self, name: str = "Random", seed: int | None = None) -> None:
        super().__init__(name, seed)

    def select_move(self, game: Game, state: State, limit: Limit | None = None) -> int:
        moves = game.legal_moves(state)
        return int(moves[self.rng.integers(len(moves))])
