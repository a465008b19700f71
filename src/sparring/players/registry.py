"""Player specifications: text such as ``mcts1`` or ``uct:sims=500`` that names a player.

A spec is ``KIND`` or ``KIND:key=value,key=value``.  Presets (``mcts1`` ... ``minimax2``)
are the AlphaDDA baselines; kinds take options.  Unknown kinds and unknown or malformed
options raise :class:`~sparring.errors.UnknownPlayerError` with the reason.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sparring.errors import UnknownPlayerError
from sparring.games.base import Game
from sparring.players.base import Player, RandomPlayer


@dataclass(frozen=True)
class PlayerSpec:
    """A parsed player specification."""

    kind: str
    options: dict[str, str]
    text: str

    @classmethod
    def parse(cls, text: str) -> PlayerSpec:
        """Split ``KIND:key=value,...``; reject empty kinds and malformed options."""
        raw = text.strip()
        kind, _, rest = raw.partition(":")
        kind = kind.strip().lower()
        if not kind:
            raise UnknownPlayerError(f"bad player spec {text!r}: empty player kind")
        options: dict[str, str] = {}
        if rest.strip():
            for item in rest.split(","):
                key, eq, value = item.partition("=")
                if not eq or not key.strip() or not value.strip():
                    raise UnknownPlayerError(
                        f"bad player spec {text!r}: option {item!r} is not key=value"
                    )
                options[key.strip().lower()] = value.strip()
        return cls(kind, options, raw)


Factory = Callable[[Game, PlayerSpec, int | None], Player]
_FACTORIES: dict[str, Factory] = {}
_HELP: dict[str, str] = {}


def register(kind: str, help_text: str) -> Callable[[Factory], Factory]:
    """Decorator: register a factory building players of ``kind``."""

    def wrap(factory: Factory) -> Factory:
        _FACTORIES[kind] = factory
        _HELP[kind] = help_text
        return factory

    return wrap


def player_kinds() -> dict[str, str]:
    """Known player kinds and one line of help for each."""
    _load_builtin_players()
    return dict(_HELP)


def make_player(spec: str, game: Game, seed: int | None = None) -> Player:
    """Build the player named by ``spec`` for ``game``, seeded with ``seed``."""
    _load_builtin_players()
    parsed = PlayerSpec.parse(spec)
    factory = _FACTORIES.get(parsed.kind)
    if factory is None:
        known = ", ".join(sorted(_FACTORIES))
        raise UnknownPlayerError(f"unknown player {parsed.kind!r}; known players: {known}")
    return factory(game, parsed, seed)


def option_int(spec: PlayerSpec, key: str, default: int, low: int = 1) -> int:
    """An integer option ``>= low``, or ``default`` when absent."""
    value = spec.options.get(key)
    if value is None:
        return default
    try:
        number = int(value)
    except ValueError:
        raise UnknownPlayerError(
            f"player {spec.text!r}: {key}={value!r} is not an integer"
        ) from None
    if number < low:
        raise UnknownPlayerError(f"player {spec.text!r}: {key} must be >= {low}")
    return number


def option_float(spec: PlayerSpec, key: str, default: float) -> float:
    """A float option, or ``default`` when absent."""
    value = spec.options.get(key)
    if value is None:
        return default
    try:
        return float(value)
    except ValueError:
        raise UnknownPlayerError(f"player {spec.text!r}: {key}={value!r} is not a number") from None


def check_options(spec: PlayerSpec, allowed: set[str]) -> None:
    """Reject options a player kind does not take."""
    unknown = sorted(set(spec.options) - allowed)
    if unknown:
        accepted = ", ".join(sorted(allowed)) or "none"
        raise UnknownPlayerError(
            f"player {spec.text!r}: unknown option {unknown[0]!r} (accepted: {accepted})"
        )


@register("random", "uniformly random legal moves (AlphaDDA Random)")
def _random(game: Game, spec: PlayerSpec, seed: int | None) -> Player:
    check_options(spec, {"name"})
    return RandomPlayer(spec.options.get("name", "Random"), seed)


_LOADED = False


def _load_builtin_players() -> None:
    """Import the modules whose import registers the built-in players."""
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    import importlib

    for module in BUILTIN_PLAYER_MODULES:
        importlib.import_module(module)


BUILTIN_PLAYER_MODULES = (
    "sparring.players.uct",
    "sparring.players.minimax",
    "sparring.players.alphazero",
    "sparring.players.strength",
)
"""Modules that register player kinds when imported."""
