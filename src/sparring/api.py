"""The public Python API: the few names a program needs, importable as ``sparring.NAME``.

``import sparring`` stays light (it loads only the error classes); the first use of one of
the names below (``sparring.GameSession``, ``from sparring import SASettings``) imports this
module, which imports every layer and registers every player kind
(:mod:`sparring.kinds`).  It sits at the top of the layers, beside ``__main__``.

A game against an AI at a target Elo, moves as text and as numbers::

    import sparring

    game = sparring.get_game("connect4")
    settings, report = sparring.resolve(game, sparring.Level.at_elo(1500))
    ai = sparring.build_player(settings, game, seed=1)     # report.label says what it is
    session = sparring.GameSession(game, [None, ai])      # you move first
    session.play(game.parse_move("4", session.state))     # a move as text ...
    reply = session.play_decision(sparring.Limit(time=0.5))  # ... the AI's decision
    print(game.move_to_text(reply.move), reply.analysis)   # its move (a number), its search

The names:

* games: :func:`get_game`, :data:`GAME_NAMES`, :class:`Game`;
* players: the settings classes of every kind, :func:`build_player`, :func:`parse_player`
  (spec text such as ``"sa:elo=1500"``), :func:`settings_from_json` /
  :func:`settings_to_json`, :func:`player_kinds`, :class:`Player` and what it decides at its
  turn, :class:`Decision` (the move, its analysis, its annotation);
* levels: :class:`Level` (an Elo on the game's scale, a rank, ``strongest``, ``adaptive``)
  and :func:`resolve`, the one function that turns a level into player settings and a
  :class:`LevelReport`; :func:`level_table`, what each game's levels were measured against;
* a game in progress: :class:`GameSession`;
* thinking: :class:`Limit` (simulations, nodes, time, stop) and the record of a move's
  search, :class:`MoveAnalysis` (with :class:`StrengthReport` for strength-adjusted players);
* profiles: :class:`Profile`;
* errors: :class:`SparringError` and its categories (:mod:`sparring.errors`).
"""

from __future__ import annotations

import sparring.kinds  # noqa: F401  - registers every player kind
from sparring.errors import (
    BadValueError,
    GameOverError,
    IllegalMoveError,
    IncompatibleError,
    MissingResourceError,
    SparringError,
    UnknownNameError,
)
from sparring.games import GAME_NAMES, get_game
from sparring.games.base import Game
from sparring.levels import Level, LevelReport, level_table, resolve
from sparring.players.alphadda import AlphaDDA1Settings, AlphaDDA2Settings, AlphaDDA3Settings
from sparring.players.base import Decision, Player
from sparring.players.human_like import (
    HumanMCTSSettings,
    SAMCTSSettings,
    SEInfMCTSSettings,
    SEMCTSSettings,
)
from sparring.players.registry import (
    build_player,
    parse_player,
    player_kinds,
    settings_from_json,
    settings_to_json,
)
from sparring.players.settings import (
    AlphaZeroSettings,
    DSASettings,
    MinimaxSettings,
    RandomSettings,
    SASettings,
    UCTSettings,
)
from sparring.profiles import Profile
from sparring.search.analysis import MoveAnalysis, StrengthReport
from sparring.search.limit import Limit
from sparring.session import GameSession

__all__ = [
    "GAME_NAMES",
    "AlphaDDA1Settings",
    "AlphaDDA2Settings",
    "AlphaDDA3Settings",
    "AlphaZeroSettings",
    "BadValueError",
    "DSASettings",
    "Decision",
    "Game",
    "GameOverError",
    "GameSession",
    "HumanMCTSSettings",
    "IllegalMoveError",
    "IncompatibleError",
    "Level",
    "LevelReport",
    "Limit",
    "MinimaxSettings",
    "MissingResourceError",
    "MoveAnalysis",
    "Player",
    "Profile",
    "RandomSettings",
    "SAMCTSSettings",
    "SASettings",
    "SEInfMCTSSettings",
    "SEMCTSSettings",
    "SparringError",
    "StrengthReport",
    "UCTSettings",
    "UnknownNameError",
    "build_player",
    "get_game",
    "level_table",
    "parse_player",
    "player_kinds",
    "resolve",
    "settings_from_json",
    "settings_to_json",
]
