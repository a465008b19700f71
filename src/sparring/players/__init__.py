"""Players: the AlphaDDA baselines, the strength-adjusted player, and how they are built.

A player kind has typed, validated settings (:mod:`sparring.players.settings`:
``RandomSettings``, ``UCTSettings``, ``MinimaxSettings``, ``AlphaZeroSettings``,
``SASettings``, ``DSASettings``, ...) built by ``build_player(settings, game, seed, cache)``;
spec strings (``KIND:key=value,...``, :func:`parse_player`, :func:`make_player`) and JSON
(:func:`settings_from_json`, :func:`settings_to_json`) are read into settings only at the
edges.  The kinds are registered by the composition root :mod:`sparring.kinds` (imported by
the command line).  A :class:`PlayerCache` holds what the players of a process share
(networks, calibrations, file hashes).
"""

from sparring.players.base import Player, RandomPlayer
from sparring.players.cache import PlayerCache
from sparring.players.registry import (
    PlayerSpec,
    build_player,
    make_player,
    parse_player,
    player_kinds,
    settings_from_json,
    settings_to_json,
)

__all__ = [
    "Player",
    "PlayerCache",
    "PlayerSpec",
    "RandomPlayer",
    "build_player",
    "make_player",
    "parse_player",
    "player_kinds",
    "settings_from_json",
    "settings_to_json",
]
