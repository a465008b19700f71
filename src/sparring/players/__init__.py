"""Players: the AlphaDDA baselines and the specification strings that name them."""

from sparring.players.base import Player, RandomPlayer
from sparring.players.registry import PlayerSpec, make_player, player_kinds

__all__ = ["Player", "PlayerSpec", "RandomPlayer", "make_player", "player_kinds"]
