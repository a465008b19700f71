"""sparring: an AlphaZero-style game AI as a training partner at any strength.

``import sparring`` loads only the error classes; the public API (:mod:`sparring.api`:
games, typed player settings and builders, :class:`~sparring.session.GameSession`,
:class:`~sparring.search.limit.Limit`, :class:`~sparring.search.analysis.MoveAnalysis`,
profiles) is loaded on first use of one of its names, e.g. ``sparring.GameSession`` or
``from sparring import SASettings``.  See docs/reference/python-api.md.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from sparring.errors import (
    BadValueError,
    ConfigError,
    GameOverError,
    IllegalMoveError,
    IncompatibleError,
    MissingResourceError,
    MoveParseError,
    PositionParseError,
    SparringError,
    UnknownGameError,
    UnknownNameError,
    UnknownPlayerError,
)

if TYPE_CHECKING:  # the names of the public API, for type checkers and editors
    from sparring.api import *  # noqa: F403

from sparring.version import __version__


def _api() -> Any:
    # The package's one lazy import: the public API sits at the top of the layers
    # (tests/test_import_layers.py allows exactly this edge, sparring -> sparring.api).
    return import_module("sparring.api")


def __getattr__(name: str) -> Any:
    """The public API's names, imported on first use (PEP 562)."""
    if name.startswith("__"):
        raise AttributeError(name)
    api = _api()
    if name in api.__all__:
        value = getattr(api, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'sparring' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_api().__all__))


__all__ = [  # the API's names load lazily (see __getattr__)
    "BadValueError",
    "ConfigError",
    "GameOverError",
    "IllegalMoveError",
    "IncompatibleError",
    "MissingResourceError",
    "MoveParseError",
    "PositionParseError",
    "SparringError",
    "UnknownGameError",
    "UnknownNameError",
    "UnknownPlayerError",
    "__version__",
]
