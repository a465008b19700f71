"""The composition root of the player kinds: registers every built-in kind in the registry.

:mod:`sparring.players.registry` holds the tables from a kind to its settings class and spec
parser, and from a settings class to the builder of its players; it imports no layer above
the players', and no module of a player kind.  Settings are data (spec text, JSON, checks);
the builders live beside the players they build.  This module is the one place that joins
them: the settings tables (the baselines, ``az``, ``sa`` and ``dsa`` in
:mod:`sparring.players.settings`, the AlphaDDA kinds in :mod:`sparring.players.alphadda`, the
external engines (``stockfish``, ``gnugo``) in :mod:`sparring.players.external`, the
human-like kinds in :mod:`sparring.players.human_like`, ``level`` in :mod:`sparring.levels`)
and :data:`BUILDERS`, registered when this module is imported.  The command line imports it,
and so do the tests (``tests/conftest.py``) and any program that builds players from spec
text or JSON (``import sparring.kinds``); the worker processes of matches and series import
it as the module that registered their players' kinds
(:attr:`~sparring.players.registry.KindInfo.module`).  Importing it again does nothing.
"""

from __future__ import annotations

from sparring import levels
from sparring.games.base import Game
from sparring.players import alphadda, external, human_like
from sparring.players.alphazero import build_alphazero_player
from sparring.players.base import RandomPlayer
from sparring.players.cache import PlayerCache
from sparring.players.dsa import build_dsa_player
from sparring.players.human_mcts import (
    build_human_mcts_player,
    build_sa_mcts_player,
    build_se_player,
)
from sparring.players.minimax import build_minimax_player
from sparring.players.registry import Builder, kinds, register_builder, register_kind
from sparring.players.settings import (
    BUILTIN_PARSERS,
    PRESETS,
    AlphaZeroSettings,
    DSASettings,
    MinimaxSettings,
    RandomSettings,
    SASettings,
    UCTSettings,
)
from sparring.players.strength import build_sa_player
from sparring.players.uct import build_uct_player


def build_random_player(
    settings: RandomSettings, game: Game, seed: int | None, cache: PlayerCache
) -> RandomPlayer:
    """The ``random`` player of ``settings``, seeded with ``seed``."""
    return RandomPlayer(settings.name, seed)


BUILDERS: dict[type, Builder] = {
    RandomSettings: build_random_player,
    UCTSettings: build_uct_player,
    MinimaxSettings: build_minimax_player,
    AlphaZeroSettings: build_alphazero_player,
    SASettings: build_sa_player,
    DSASettings: build_dsa_player,
    alphadda.AlphaDDA1Settings: alphadda.build_alphadda1_player,
    alphadda.AlphaDDA2Settings: alphadda.build_alphadda2_player,
    alphadda.AlphaDDA3Settings: alphadda.build_alphadda3_player,
    external.StockfishSettings: external.build_stockfish_player,
    external.GnuGoSettings: external.build_gnugo_player,
    human_like.HumanMCTSSettings: build_human_mcts_player,
    human_like.SAMCTSSettings: build_sa_mcts_player,
    human_like.SEMCTSSettings: build_se_player,
    human_like.SEInfMCTSSettings: build_se_player,
    levels.LevelSettings: levels.build_level_player,
}
"""Settings class -> the builder of its players, for every built-in kind."""


def register_builtin_kinds() -> None:
    """Register every built-in kind and its builder (idempotent: a kind already registered is
    kept)."""
    for cls, builder in BUILDERS.items():
        register_builder(cls, builder)
    known = kinds()
    tables = (
        BUILTIN_PARSERS,
        alphadda.KINDS,
        external.KINDS,
        human_like.KINDS,
        levels.KINDS,
    )
    for table in tables:
        for kind, (cls, parser, help_text) in table.items():
            if kind not in known:
                register_kind(kind, cls, parser, help_text)
    for kind, (cls, parser, help_text, preset) in PRESETS.items():
        if kind not in known:
            register_kind(kind, cls, parser, help_text, preset=preset)


register_builtin_kinds()

__all__ = ["BUILDERS", "build_random_player", "register_builtin_kinds"]
