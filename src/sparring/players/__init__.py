"""Players: the AlphaDDA baselines, the strength-adjusted player, and how they are built.

A player kind has typed, validated settings (:mod:`sparring.players.settings`:
``RandomSettings``, ``UCTSettings``, ``MinimaxSettings``, ``AlphaZeroSettings``,
``SASettings``) built by ``build_player(settings, game, seed, cache)``; spec strings
(``KIND:key=value,...``) are read into settings only at the edges (:func:`parse_player`,
:func:`make_player`).  A :class:`PlayerCache` holds what the players of a process share
(networks, calibrations, file hashes).
"""

from sparring.players.base import Player, RandomPlayer
from sparring.players.cache import PlayerCache
from sparring.players.registry import PlayerSpec, make_player, parse_player, player_kinds

__all__ = [
    "Player",
    "PlayerCache",
    "PlayerSpec",
    "RandomPlayer",
    "make_player",
    "parse_player",
    "player_kinds",
]
