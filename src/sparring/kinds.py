"""The composition root of the player kinds: registers every built-in kind in the registry.

:mod:`sparring.players.registry` holds the table from a kind to its settings class and spec
parser; it imports no layer above the players'. This module sits above every layer that defines
kinds (the baselines, ``az``, ``sa`` and ``dsa`` in :mod:`sparring.players.settings`, the
AlphaDDA kinds in :mod:`sparring.players.alphadda`, the external engines (``stockfish``,
``gnugo``) in :mod:`sparring.players.external`, the human-like kinds in
:mod:`sparring.estimation.human_like`, ``level`` in :mod:`sparring.levels`) and registers them
all when imported. The command line imports it, and so do the tests (``tests/conftest.py``) and
any program that builds players from spec text or JSON (``import sparring.kinds``); the worker
processes of matches and series import it as the module that registered their players' kinds
(:attr:`~sparring.players.registry.KindInfo.module`). Importing it again does nothing.
"""

from __future__ import annotations

from sparring import levels
from sparring.estimation import human_like
from sparring.players import alphadda, external, settings
from sparring.players.registry import kinds, register_kind


def register_builtin_kinds() -> None:
    """Register every built-in kind (idempotent: a kind already registered is kept)."""
    known = kinds()
    tables = (
        settings.BUILTIN_PARSERS,
        alphadda.KINDS,
        external.KINDS,
        human_like.KINDS,
        levels.KINDS,
    )
    for table in tables:
        for kind, (cls, parser, help_text) in table.items():
            if kind not in known:
                register_kind(kind, cls, parser, help_text)
    for kind, (cls, parser, help_text, preset) in settings.PRESETS.items():
        if kind not in known:
            register_kind(kind, cls, parser, help_text, preset=preset)


register_builtin_kinds()

__all__ = ["register_builtin_kinds"]
